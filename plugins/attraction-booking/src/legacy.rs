//! The older listing beside the activity page,
//! `GET {activity URL}reviews.json?count=20&page={n}&rating=0[&sortBy=…&direction=…]`,
//! answered with `{status, total_reviews_comments, data:[…]}`. It is read only
//! once both review APIs have refused; a refusal here ends the fetch with
//! every answer named.

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::types::Review;
use gleaner_sdk::{botwall, date, FetchError};
use serde_json::{json, Value};

use crate::endpoints::{self, PAGE_SIZE};
use crate::query::Target;
use crate::review::{self, id, is_anonymous, split_author, text, SCALE};
use crate::{Listing, Sort};

/// What would help when GetYourGuide refuses this address.
pub const WHAT_HELPS: &str =
    "GetYourGuide is refusing this address: retry later with slower pacing \
(a lower `upstream_concurrency`), or through a proxy (residential addresses fare best)";

/// Reads the page of the listing that holds position `offset`.
pub fn fetch(
    target: &Target,
    sort: Sort,
    offset: u32,
    refusals: &[(&str, Option<&str>)],
) -> Result<Listing, FetchError> {
    let page = offset / PAGE_SIZE;
    let url = endpoints::legacy(&target.url, sort.legacy(), page);
    let headers = [
        ("accept", "application/json, text/javascript, */*; q=0.01"),
        ("x-requested-with", "XMLHttpRequest"),
        ("referer", target.url.as_str()),
    ];
    let response = http::get_as(http::Profile::Xhr, &url, &headers)?;
    let v = json(&response, refusals)?;
    parse(&v, target, page)
}

/// The answer as JSON, or the error naming every refusal: `(what, what it
/// answered)` of the activity page (when its wall was not passed) and of the
/// recipes tried before.
fn json(response: &Response, refusals: &[(&str, Option<&str>)]) -> Result<Value, FetchError> {
    let mut first: String = refusals
        .iter()
        .filter_map(|(recipe, why)| why.map(|w| format!("its {recipe} answered {w}, ")))
        .collect();
    if !first.is_empty() {
        first.push_str("and ");
    }
    let parsed = serde_json::from_slice::<Value>(&response.body).ok();
    let walled = botwall::detect(response).is_some();
    match parsed {
        Some(v) if response.is_success() && !walled => Ok(v),
        _ if walled || matches!(response.status, 401 | 403 | 429) || response.is_success() => {
            Err(FetchError::Blocked(format!(
                "GetYourGuide refused the reviews: {first}its reviews.json listing answered {} ({}); {WHAT_HELPS}",
                botwall::answered(response),
                response.final_url
            )))
        }
        _ => Err(FetchError::Upstream(format!(
            "GetYourGuide's reviews could not be read: {first}its reviews.json listing answered {} ({}); retry later",
            botwall::answered(response),
            response.final_url
        ))),
    }
}

/// Reads page `page` of the listing.
pub fn parse(v: &Value, target: &Target, page: u32) -> Result<Listing, FetchError> {
    let Some(data) = v["data"].as_array() else {
        return Err(FetchError::Upstream(
            "GetYourGuide's reviews.json answered without a `data` list: the listing changed and the plugin needs an update".into(),
        ));
    };
    let total = v["total_reviews_comments"].as_u64();
    let reviews = data
        .iter()
        .map(|r| map(r, target).map_err(FetchError::Upstream))
        .collect::<Result<Vec<_>, _>>()?;
    let after = (page + 1) * PAGE_SIZE;
    let more = data.len() as u32 >= PAGE_SIZE && total.is_none_or(|t| u64::from(after) < t);
    Ok(Listing {
        reviews,
        next_offset: more.then_some(after),
        total,
        empty: data.is_empty(),
    })
}

/// Maps one `data[]` review.
fn map(r: &Value, target: &Target) -> Result<Review, String> {
    let review_id = id(&r["review_id"]).ok_or("a reviews.json review has no review_id")?;
    let (line_name, line_country) = text(&r["author"])
        .map(|a| split_author(&a))
        .unwrap_or_default();
    let country = text(&r["reviewerCountry"]).or(line_country);
    // The author line is what the page shows: "a GetYourGuide Customer" hides
    // the `reviewerName` the listing carries beside it, and it stays hidden.
    let name = line_name.or_else(|| text(&r["reviewerName"]));
    let anonymous = name.as_deref().is_some_and(is_anonymous);
    // `foreignLanguage` only says the review is not in the page's language,
    // which `languageCode` tells: the text is the reviewer's own.
    let extra = json!({
        "traveler_type": text(&r["traveler_type"]),
        "contract": "reviews-json",
    });
    ReviewBuilder::new(review_id)
        .title(text(&r["title"]))
        .text_plain(text(&r["message"]))
        .rating(review::rating(&r["rating"]), SCALE)
        .date(text(&r["date"]).and_then(|d| date::parse(&d, None)))
        .author_name(name)
        .author_country(country)
        .anonymous(anonymous)
        .review_url(Some(endpoints::review_url(&target.url)))
        .language(text(&r["languageCode"]))
        .extra(extra)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORDED: &str = include_str!("../tests/samples/gyg-legacy-reviews-json-t23776.json");

    fn target() -> Target {
        crate::query::parse(
            "https://www.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/",
        )
        .unwrap()
    }

    fn response(status: u16, body: &str) -> Response {
        gleaner_sdk::testing::response(status, "https://www.getyourguide.com/x/reviews.json", body)
    }

    #[test]
    fn maps_the_recorded_review_field_by_field() {
        let v: Value = serde_json::from_str(RECORDED).unwrap();
        let page = parse(&v, &target(), 0).unwrap();
        assert_eq!(page.total, Some(579));
        assert_eq!(
            page.next_offset, None,
            "one review on a page of 20 is the end"
        );
        let r = &page.reviews[0];
        assert_eq!(r.id, "3946905");
        assert_eq!(r.title.as_deref(), Some("Imponerende bygningsværk"));
        assert!(matches!(&r.text, Some(gleaner_sdk::Text::Plain(t))
            if t == "Spændende rundvisning i og ovenpå bygningen.\nRigtig god og vidende guide"));
        assert_eq!(r.rating, Some(5.0));
        assert_eq!(r.date.as_deref(), Some("2018-10-08"));
        assert_eq!(r.author_name.as_deref(), Some("Jette Vinther"));
        assert_eq!(r.author_title, None);
        assert_eq!(r.author_country.as_deref(), Some("Denmark"));
        assert_eq!(r.language.as_deref(), Some("da"));
        assert!(
            r.translation.is_none(),
            "a foreign-language review is shown as written"
        );
        assert!(!r.anonymous);
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(
            extra,
            json!({"traveler_type": "friends", "contract": "reviews-json"})
        );
    }

    #[test]
    fn the_author_line_serves_when_the_split_fields_are_missing() {
        let v = json!({"total_reviews_comments": 45, "data": [{"review_id": 1, "rating": "4.0", "author": "Ola – Norway", "foreignLanguage": false, "languageCode": "no"}]});
        let page = parse(&v, &target(), 2).unwrap();
        let r = &page.reviews[0];
        assert_eq!(
            (r.author_name.as_deref(), r.author_country.as_deref()),
            (Some("Ola"), Some("Norway"))
        );
        assert_eq!(r.language.as_deref(), Some("no"));
    }

    #[test]
    fn pages_by_the_total() {
        let full: Vec<Value> = (0..20).map(|i| json!({"review_id": i})).collect();
        let page = parse(
            &json!({"total_reviews_comments": 45, "data": full}),
            &target(),
            1,
        )
        .unwrap();
        assert_eq!(page.next_offset, Some(40));
        let page = parse(
            &json!({"total_reviews_comments": 40, "data": full}),
            &target(),
            1,
        )
        .unwrap();
        assert_eq!(page.next_offset, None);
        assert!(
            matches!(parse(&json!({"status": false}), &target(), 0), Err(FetchError::Upstream(m)) if m.contains("changed"))
        );
    }

    #[test]
    fn refusals_name_both_answers_and_what_helps() {
        let wall = include_str!("../tests/samples/cloudflare_challenge.html");
        let e = json(
            &response(403, wall),
            &[
                (
                    "activity page",
                    Some("HTTP 403 with a DataDome CAPTCHA, which the host's headless browser did not get past (no Chromium)"),
                ),
                (
                    "review API",
                    Some("HTTP 403 with a Cloudflare bot challenge"),
                ),
                ("activity reviews API", Some("HTTP 429")),
            ],
        )
        .unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("refused the reviews: its activity page answered HTTP 403 with a DataDome CAPTCHA, which the host's headless browser did not get past (no Chromium), its review API answered HTTP 403 with a Cloudflare bot challenge, its activity reviews API answered HTTP 429, and its reviews.json listing answered HTTP 403 with a Cloudflare")
                && m.contains("proxy")),
            "{e:?}"
        );
        assert!(matches!(
            json(&response(200, "<html><body>wait"), &[]),
            Err(FetchError::Blocked(_))
        ));
        assert!(
            matches!(json(&response(404, ""), &[("review API", Some("HTTP 500"))]), Err(FetchError::Upstream(m)) if m.contains("HTTP 404"))
        );
        assert!(json(&response(200, "{\"data\":[]}"), &[]).is_ok());
    }
}
