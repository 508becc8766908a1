//! The activity reviews API that public clients of GetYourGuide have read for
//! years, `GET travelers-api.getyourguide.com/activities/{id}/reviews?limit=20&offset={n}[&sort=…]`,
//! answered with `{averageRating, totalCount, pagination{limit,offset},
//! reviews:[{id, author{fullName,country,photo}, created, message, rating,
//! enjoyment, language, travelerType}]}`. It is the second recipe, read once
//! the review API behind the activity page refused. It may repeat a review
//! across pages, so a page leaves out the ids of the page before it (the
//! cursor carries them) and repeats within itself.

use std::collections::HashSet;

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::types::Review;
use gleaner_sdk::{botwall, date, FetchError};
use serde_json::{json, Value};

use crate::endpoints::{self, PAGE_SIZE};
use crate::query::Target;
use crate::review::{self, id, is_anonymous, text, SCALE};
use crate::{Listing, Sort};

/// What this recipe gave.
pub enum Outcome {
    /// A page of reviews, and the ids it listed (repeats included).
    Listing(Listing, Vec<String>),
    /// A refusal (what was seen): the older listing takes over.
    Refused(String),
}

/// Asks for the page at `offset`; `before` holds the ids of the page before.
pub fn fetch(
    target: &Target,
    sort: Sort,
    offset: u32,
    before: &[String],
) -> Result<Outcome, FetchError> {
    let url = endpoints::activities(target.id, sort.activities(), offset);
    let headers = [
        ("accept", "application/json, text/plain, */*"),
        ("referer", target.url.as_str()),
    ];
    match http::get_as(http::Profile::Xhr, &url, &headers) {
        Ok(response) => read(&response, target, offset, before),
        // An unreachable API is one more refusal: the older listing may serve.
        Err(FetchError::Timeout(why) | FetchError::Upstream(why)) => Ok(Outcome::Refused(why)),
        Err(e) => Err(e),
    }
}

/// Reads an answer: a refusal or a page.
pub fn read(
    response: &Response,
    target: &Target,
    offset: u32,
    before: &[String],
) -> Result<Outcome, FetchError> {
    // The activity page was there: a 404 here is this API's refusal, not a
    // missing activity, and the older listing may still serve.
    if botwall::detect(response).is_some() || !response.is_success() {
        return Ok(Outcome::Refused(botwall::answered(response)));
    }
    match serde_json::from_slice::<Value>(&response.body) {
        Ok(v) if v["reviews"].is_array() => {
            let (listing, ids) = parse(&v, target, offset, before);
            Ok(Outcome::Listing(listing, ids))
        }
        _ => Ok(Outcome::Refused(botwall::answered(response))),
    }
}

/// Reads the page at `offset`, leaving out the reviews of `before` and
/// repeats within the page.
pub fn parse(v: &Value, target: &Target, offset: u32, before: &[String]) -> (Listing, Vec<String>) {
    let listed = v["reviews"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let total = v["totalCount"].as_u64();
    let mut seen: HashSet<String> = before.iter().cloned().collect();
    let mut ids = Vec::new();
    let mut reviews = Vec::new();
    for r in listed {
        let Some(review_id) = id(&r["id"]) else {
            gleaner_sdk::log::warn("a review without an id was left out");
            continue;
        };
        ids.push(review_id.clone());
        if !seen.insert(review_id.clone()) {
            continue;
        }
        match map(r, review_id, target) {
            Ok(review) => reviews.push(review),
            Err(e) => gleaner_sdk::log::warn(&format!("a review was left out: {e}")),
        }
    }
    let after = offset + listed.len() as u32;
    let more = listed.len() as u32 >= PAGE_SIZE && total.is_none_or(|t| u64::from(after) < t);
    let listing = Listing {
        reviews,
        next_offset: more.then_some(after),
        total,
        empty: listed.is_empty(),
    };
    (listing, ids)
}

/// Maps one `reviews[]` item.
fn map(r: &Value, review_id: String, target: &Target) -> Result<Review, String> {
    let author = &r["author"];
    let name = text(&author["fullName"]);
    let anonymous = name.as_deref().is_some_and(is_anonymous);
    let extra = json!({
        "traveler_type": text(&r["travelerType"]),
        "enjoyment": text(&r["enjoyment"]),
        "contract": "activity-reviews",
    });
    ReviewBuilder::new(review_id)
        .text_plain(text(&r["message"]))
        .rating(review::rating(&r["rating"]), SCALE)
        .date(text(&r["created"]).and_then(|d| date::parse(&d, None)))
        .author_name(name)
        .author_country(text(&author["country"]))
        .anonymous(anonymous)
        .author_image(text(&author["photo"]).filter(|u| u.starts_with("http")))
        .review_url(Some(endpoints::review_url(&target.url)))
        .language(text(&r["language"]))
        .extra(extra)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        crate::query::parse("https://www.getyourguide.com/berlin-l17/tempelhof-t23776/").unwrap()
    }

    fn item(id: u32, name: &str, message: &str) -> Value {
        json!({"id": id, "author": {"fullName": name, "country": "Germany", "photo": null},
               "created": "2024-05-12T09:14:00+02:00", "message": message, "rating": 5,
               "enjoyment": "", "language": "de", "travelerType": "couples"})
    }

    #[test]
    fn maps_a_review_and_decodes_its_entities_once() {
        let v = json!({"totalCount": 3, "averageRating": 4.6, "pagination": {"limit": 20, "offset": 0},
            "reviews": [item(7, "a GetYourGuide Customer", "Tolle Tour (hoch &amp; runter), I wouldn&#039;t &amp;lt;3")]});
        let (page, ids) = parse(&v, &target(), 0, &[]);
        assert_eq!(ids, vec!["7"]);
        assert_eq!(page.total, Some(3));
        assert_eq!(page.next_offset, None);
        let r = &page.reviews[0];
        assert!(matches!(&r.text, Some(gleaner_sdk::Text::Plain(t))
            if t == "Tolle Tour (hoch & runter), I wouldn't &lt;3"));
        assert_eq!(r.author_name.as_deref(), Some("a GetYourGuide Customer"));
        assert_eq!(r.date.as_deref(), Some("2024-05-12T09:14:00+02:00"));
        assert_eq!(r.language.as_deref(), Some("de"));
        assert_eq!(r.author_country.as_deref(), Some("Germany"));
        assert_eq!(r.author_title, None);
        assert!(r.anonymous);
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["enjoyment"], Value::Null);
    }

    #[test]
    fn repeats_are_left_out_and_paging_follows_the_total() {
        let full: Vec<Value> = (0..20).map(|i| item(i % 19, "Ann", "ok")).collect();
        let v = json!({"totalCount": 45, "reviews": full});
        let before = vec!["0".to_owned(), "1".to_owned()];
        let (page, ids) = parse(&v, &target(), 20, &before);
        assert_eq!(ids.len(), 20, "the ids as listed");
        assert_eq!(
            page.reviews.len(),
            17,
            "0 and 1 were on the page before; 0 repeats"
        );
        assert_eq!(page.next_offset, Some(40));
        let (page, _) = parse(
            &json!({"totalCount": 40, "reviews": full}),
            &target(),
            20,
            &[],
        );
        assert_eq!(page.next_offset, None);
    }

    #[test]
    fn refusals() {
        let response = |status: u16, body: &str| {
            gleaner_sdk::testing::response(
                status,
                "https://travelers-api.getyourguide.com/activities/1/reviews",
                body,
            )
        };
        assert!(matches!(
            read(&response(403, "denied"), &target(), 0, &[]),
            Ok(Outcome::Refused(_))
        ));
        assert!(matches!(
            read(&response(200, "{\"data\": []}"), &target(), 0, &[]),
            Ok(Outcome::Refused(_))
        ));
        assert!(matches!(
            read(&response(404, ""), &target(), 0, &[]),
            Ok(Outcome::Refused(_))
        ));
    }
}
