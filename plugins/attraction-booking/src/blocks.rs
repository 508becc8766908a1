//! The review API behind the activity page: `POST …/activity-details-page/blocks`
//! with the page's `next-reviews-page` payload (offset and limit 20), answered
//! with `{"content": [block…]}`, a tree of UI blocks.
//!
//! Two contracts of that tree are read, both defensively (the tree is
//! searched, not addressed by path):
//! - review blocks: `type == "review"` with `reviewId`, `rating`,
//!   `message.text`, `author.title.text` ("Name – Country"),
//!   `author.subtitle.text` ("date - Verified booking"), `media[]` (avatar
//!   first, then photos) and `onImpressionTrackingEvent.properties.review_date`;
//! - review cards: generic UI nodes whose tracking event has
//!   `properties.target == "activity-review-card"`, with `review_id`,
//!   `review_rating`, `review_date`, `countryCode` and `traveler_type` there
//!   and the texts in the card's text nodes (the author line, the date line
//!   and the review text).
//!
//! A `type == "loadMore"` block says more follow.

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::review::{self as builder, ReviewBuilder};
use gleaner_sdk::types::Review;
use gleaner_sdk::{botwall, date, log, FetchError};
use serde_json::{json, Value};

use crate::endpoints::{self, CAP_NEAR, PAGE_SIZE};
use crate::query::Target;
use crate::review::{self, id, is_anonymous, split_author, text, SCALE};
use crate::session;
use crate::{Listing, Sort};

/// The tracking target that marks a review card in the newer contract.
const CARD_TARGET: &str = "activity-review-card";

/// What the review API gave.
pub enum Outcome {
    /// A page of reviews.
    Listing(Listing),
    /// A refusal (what was seen): the older listing takes over.
    Refused(String),
}

/// The request body for the page at `offset`.
pub fn body(activity_id: u64, sort: Sort, offset: u32) -> Value {
    let mut payload = json!({
        "activityId": activity_id,
        "templateName": "ActivityDetails",
        "contentIdentifier": "next-reviews-page",
        "rankingUuid": endpoints::RANKING_UUID,
        "reviewsOffset": offset,
        "reviewsLimit": PAGE_SIZE,
        "selectedReviewsFilters": {},
        "additionalDetailsSelectedLanguage": endpoints::LANGUAGE,
        "participantsLanguage": endpoints::LANGUAGE,
        "reviewsExperiments": [{"key": "rvw-display-traveler-type-in-reviews", "isEnabled": false}],
    });
    if let Some(order) = sort.blocks() {
        payload["selectedReviewsSortingOrder"] = json!(order);
    }
    json!({ "payload": payload })
}

/// Asks the review API for the page at `offset`.
pub fn fetch(target: &Target, sort: Sort, offset: u32) -> Result<Outcome, FetchError> {
    let body = body(target.id, sort, offset).to_string();
    let from_cookies = session::api_headers(target);
    let headers: Vec<(&str, &str)> = endpoints::BLOCKS_HEADERS
        .iter()
        .copied()
        .chain(std::iter::once(("referer", target.url.as_str())))
        .chain(from_cookies.iter().map(|(n, v)| (*n, v.as_str())))
        .collect();
    let response = http::send_as(
        http::Profile::Json,
        "POST",
        &endpoints::blocks(),
        &headers,
        Some(body.into_bytes()),
    )?;
    read(&response, target, offset)
}

/// Reads an answer: a refusal, the end past the offset cap, a missing
/// activity, or a page.
pub fn read(response: &Response, target: &Target, offset: u32) -> Result<Outcome, FetchError> {
    let walled = botwall::detect(response).is_some();
    let status = response.status;
    if !walled && offset >= CAP_NEAR && matches!(status, 400 | 404 | 410 | 422) {
        return Ok(Outcome::Listing(Listing::default()));
    }
    if !walled && matches!(status, 404 | 410) {
        return Err(FetchError::NotFound(format!(
            "GetYourGuide's review API knows no activity {} (HTTP {status}); check the URL",
            target.id
        )));
    }
    if walled || !response.is_success() {
        return Ok(Outcome::Refused(botwall::answered(response)));
    }
    match serde_json::from_slice::<Value>(&response.body) {
        Ok(v) => parse(&v, target, offset).map(Outcome::Listing),
        Err(_) => Ok(Outcome::Refused(botwall::answered(response))),
    }
}

/// What a search of the block tree found.
#[derive(Default)]
struct Found<'a> {
    /// Review blocks and review cards (with their tracking properties).
    reviews: Vec<(&'a Value, Option<&'a Value>)>,
    /// The first `loadMore` block's payload.
    load_more: Option<&'a Value>,
}

/// The tracking properties of a review card, when `node` is one.
fn card_properties(node: &Value) -> Option<&Value> {
    node.as_object()?.values().find_map(|v| {
        let events: Vec<&Value> = match v {
            Value::Array(list) => list.iter().collect(),
            other => vec![other],
        };
        events
            .into_iter()
            .map(|e| &e["properties"])
            .find(|p| p["target"].as_str() == Some(CARD_TARGET))
    })
}

fn search<'a>(node: &'a Value, found: &mut Found<'a>) {
    match node {
        Value::Object(map) => {
            let kind = map.get("type").and_then(Value::as_str);
            if kind == Some("review") && map.contains_key("reviewId") {
                found.reviews.push((node, None));
                return;
            }
            if let Some(properties) = card_properties(node) {
                found.reviews.push((node, Some(properties)));
                return;
            }
            if kind == Some("loadMore") && found.load_more.is_none() {
                found.load_more = Some(&node["payload"]);
            }
            map.values().for_each(|v| search(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| search(v, found)),
        _ => {}
    }
}

/// Reads one page of the block tree.
pub fn parse(v: &Value, target: &Target, offset: u32) -> Result<Listing, FetchError> {
    let Some(content) = v["content"].as_array() else {
        return Err(FetchError::Upstream(
            "GetYourGuide's review API answered without a `content` list: the API changed and the plugin needs an update".into(),
        ));
    };
    let mut found = Found::default();
    content.iter().for_each(|b| search(b, &mut found));
    if found.reviews.is_empty() && offset == 0 && !content.is_empty() {
        return Err(FetchError::Upstream(
            "GetYourGuide's review API answered blocks but no review block or review card among them: the layout changed and the plugin needs an update".into(),
        ));
    }
    let reviews: Vec<Review> = found
        .reviews
        .iter()
        .filter_map(|(node, card)| {
            let mapped = match card {
                None => from_block(node, target),
                Some(properties) => from_card(node, properties, target),
            };
            mapped
                .map_err(|e| log::warn(&format!("a review was left out: {e}")))
                .ok()
        })
        .collect();
    let more = !found.reviews.is_empty()
        && (found.load_more.is_some() || found.reviews.len() as u32 >= PAGE_SIZE);
    let after = found
        .load_more
        .and_then(|p| p["reviewsOffset"].as_u64())
        .and_then(|o| u32::try_from(o).ok())
        .filter(|o| *o > offset)
        .unwrap_or(offset + PAGE_SIZE);
    Ok(Listing {
        reviews,
        next_offset: more.then_some(after),
        total: None,
        empty: content.is_empty(),
    })
}

/// A date from "date - …" (the author subtitle) or a line that is a date.
fn line_date(line: &str) -> Option<String> {
    line.split(" - ")
        .next()
        .and_then(|d| date::parse(d, None))
        .or_else(|| date::parse(line, None))
}

/// Maps a review block (the older contract).
fn from_block(b: &Value, target: &Target) -> Result<Review, String> {
    let review_id = id(&b["reviewId"]).ok_or("a review block has no reviewId")?;
    let properties = &b["onImpressionTrackingEvent"]["properties"];
    let (name, country) = text(&b["author"]["title"]["text"])
        .map(|t| split_author(&t))
        .unwrap_or_default();
    let subtitle = text(&b["author"]["subtitle"]["text"]);
    let when = text(&properties["review_date"])
        .and_then(|d| date::parse(&d, None))
        .or_else(|| subtitle.as_deref().and_then(line_date));
    let (avatar, photos) = review::media(&b["media"]);
    let anonymous = name.as_deref().is_some_and(is_anonymous);
    let extra = json!({
        "traveler_type": text(&properties["traveler_type"]),
        "contract": "review-block",
    });
    photos
        .into_iter()
        .fold(ReviewBuilder::new(review_id), |r, url| {
            r.media(builder::image(url))
        })
        .text_plain(text(&b["message"]["text"]))
        .rating(review::rating(&b["rating"]), SCALE)
        .date(when)
        .author_name(name)
        .author_country(text(&properties["countryCode"]).or(country))
        .author_image(avatar)
        .verified(subtitle.as_deref().and_then(review::verified))
        .anonymous(anonymous)
        .review_url(Some(endpoints::review_url(&target.url)))
        .extra(extra)
        .build()
}

/// Every text node under `node` (`{"text": "…"}`), tracking events left out.
fn texts<'a>(node: &'a Value, out: &mut Vec<&'a str>) {
    match node {
        Value::Object(map) if map.contains_key("properties") => {}
        Value::Object(map) => {
            if let Some(t) = map.get("text").and_then(Value::as_str).map(str::trim) {
                if !t.is_empty() {
                    out.push(t);
                }
            }
            map.values().for_each(|v| texts(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| texts(v, out)),
        _ => {}
    }
}

/// The first `media` list under `node`.
fn media_list(node: &Value) -> Option<&Value> {
    match node {
        Value::Object(map) => map
            .get("media")
            .filter(|m| m.is_array())
            .or_else(|| map.values().find_map(media_list)),
        Value::Array(items) => items.iter().find_map(media_list),
        _ => None,
    }
}

/// Whether a card line is the author line, "Name – Country": a dash, a short
/// country part, no sentence punctuation.
fn is_author_line(line: &str) -> bool {
    let (_, country) = split_author(line);
    line.contains(['–', '—'])
        && line.chars().count() <= 80
        && !line.contains(['.', '!', '?', '\n'])
        && country.is_some_and(|c| c.split_whitespace().count() <= 4)
}

/// Maps a review card (the newer contract): structured fields from its
/// tracking properties; of the card's texts, the author line is the one
/// reading "Name – Country", date lines are left out once read for "Verified
/// booking", and the review text is the longest of the rest (none: a rating
/// without text).
fn from_card(card: &Value, p: &Value, target: &Target) -> Result<Review, String> {
    let review_id = id(&p["review_id"]).ok_or("a review card has no review_id")?;
    let mut raw = Vec::new();
    texts(card, &mut raw);
    let mut lines: Vec<String> = raw.into_iter().map(gleaner_sdk::entities::decode).collect();
    let verified = lines
        .iter()
        .filter(|l| line_date(l).is_some())
        .find_map(|l| review::verified(l));
    lines.retain(|l| line_date(l).is_none());
    let author = lines.iter().find(|l| is_author_line(l));
    let body = lines
        .iter()
        .filter(|l| Some(*l) != author)
        .max_by_key(|l| l.chars().count())
        .cloned();
    let (name, country) = author.map(|l| split_author(l)).unwrap_or_default();
    let (avatar, photos) = media_list(card).map(review::media).unwrap_or_default();
    let anonymous = name.as_deref().is_some_and(is_anonymous);
    let extra = json!({
        "traveler_type": text(&p["traveler_type"]),
        "contract": "review-card",
    });
    photos
        .into_iter()
        .fold(ReviewBuilder::new(review_id), |r, url| {
            r.media(builder::image(url))
        })
        .text_plain(body)
        .rating(review::rating(&p["review_rating"]), SCALE)
        .date(text(&p["review_date"]).and_then(|d| date::parse(&d, None)))
        .author_name(name)
        .author_country(text(&p["countryCode"]).or(country))
        .author_image(avatar)
        .verified(verified)
        .anonymous(anonymous)
        .review_url(Some(endpoints::review_url(&target.url)))
        .extra(extra)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        crate::query::parse(
            "https://www.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/",
        )
        .unwrap()
    }

    fn sample(name: &str) -> Value {
        let text = std::fs::read_to_string(format!(
            "{}/tests/samples/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn response(status: u16, body: &str) -> Response {
        gleaner_sdk::testing::response(status, &endpoints::blocks(), body)
    }

    #[test]
    fn the_body_is_the_pages_own_payload() {
        let sort = Sort::named("oldest").unwrap();
        assert_eq!(
            body(23776, sort, 40),
            serde_json::from_str::<Value>(
                r#"{"payload":{"activityId":23776,"templateName":"ActivityDetails","contentIdentifier":"next-reviews-page",
                "rankingUuid":"3b0c2d1e-4f5a-4b6c-8d7e-9f0a1b2c3d4e","reviewsOffset":40,"reviewsLimit":20,
                "selectedReviewsSortingOrder":"date_asc","selectedReviewsFilters":{},
                "additionalDetailsSelectedLanguage":"en-US","participantsLanguage":"en-US",
                "reviewsExperiments":[{"key":"rvw-display-traveler-type-in-reviews","isEnabled":false}]}}"#
            )
            .unwrap()
        );
        let default = body(23776, Sort::named("most_relevant").unwrap(), 0);
        assert!(default["payload"]
            .get("selectedReviewsSortingOrder")
            .is_none());
    }

    #[test]
    fn maps_a_review_block_field_by_field() {
        let page = parse(&sample("blocks_t23776_relevant_p1.json"), &target(), 0).unwrap();
        assert_eq!(page.reviews.len(), 20);
        assert_eq!(page.next_offset, Some(20));
        let r = &page.reviews[0];
        assert_eq!(r.id, "61000001");
        assert_eq!(r.rating, Some(5.0));
        assert_eq!(r.rating_scale_max, Some(5.0));
        assert_eq!(r.date.as_deref(), Some("2024-05-12T09:14:00Z"));
        assert_eq!(r.author_name.as_deref(), Some("Anna"));
        assert_eq!(r.author_title, None);
        assert_eq!(r.author_country.as_deref(), Some("Germany"));
        assert_eq!(r.verified, Some(true));
        assert!(!r.anonymous);
        assert!(r
            .author_profile_image_url
            .as_deref()
            .is_some_and(|u| u.ends_with("/avatar-61000001.jpg")));
        assert_eq!(r.media.len(), 2);
        assert!(r.media[0].url.ends_with("/photo-61000001-1-large.jpg"));
        assert_eq!(r.review_url.as_deref(), Some("https://www.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/#reviews"));
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["traveler_type"], "couples");
        assert_eq!(extra["contract"], "review-block");
        assert_eq!(extra.as_object().map(|o| o.len()), Some(2));
    }

    #[test]
    fn maps_a_review_card_of_the_newer_contract() {
        let page = parse(&sample("blocks_t23776_lowest_cards_p1.json"), &target(), 0).unwrap();
        assert_eq!(page.reviews.len(), 20);
        assert_eq!(
            page.next_offset,
            Some(20),
            "a full page of cards, no loadMore block"
        );
        let r = &page.reviews[0];
        assert_eq!(r.rating, Some(1.0));
        assert_eq!(r.author_name.as_deref(), Some("Marco"));
        assert_eq!(r.author_title, None);
        assert_eq!(r.author_country.as_deref(), Some("IT"));
        assert_eq!(r.verified, Some(true));
        assert!(matches!(&r.text, Some(gleaner_sdk::Text::Plain(t)) if t.contains("tarmac")));
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["traveler_type"], "solo");
        assert_eq!(extra["contract"], "review-card");
        assert_eq!(r.date.as_deref(), Some("2023-06-17"));
        assert!(r
            .author_profile_image_url
            .as_deref()
            .is_some_and(|u| u.ends_with("/avatar-61000018.jpg")));
    }

    #[test]
    fn a_card_with_a_short_text_or_none() {
        let card = |texts: &[&str]| {
            let children: Vec<Value> = texts
                .iter()
                .map(|t| json!({"type": "text", "text": t}))
                .collect();
            json!({"content": [{"type": "container", "trackingEvents": [{"properties": {
                "target": CARD_TARGET, "review_id": 9, "review_rating": "5", "review_date": "2024-01-02", "countryCode": "NO"}}],
                "children": children}]})
        };
        let page = parse(
            &card(&[
                "Ola Nordmann – Norway",
                "January 2, 2024 - Verified booking",
                "Super!",
            ]),
            &target(),
            0,
        )
        .unwrap();
        let r = &page.reviews[0];
        assert!(matches!(&r.text, Some(gleaner_sdk::Text::Plain(t)) if t == "Super!"));
        assert_eq!(r.author_name.as_deref(), Some("Ola Nordmann"));
        assert_eq!(r.verified, Some(true));
        let page = parse(&card(&["Ola – Norway", "January 2, 2024"]), &target(), 0).unwrap();
        let r = &page.reviews[0];
        assert!(r.text.is_none(), "a rating without text");
        assert_eq!(r.rating, Some(5.0));
        assert_eq!(r.verified, None, "no line says the booking was verified");
        let page = parse(
            &card(&["Great day – loved every minute of it.", "January 2, 2024"]),
            &target(),
            0,
        )
        .unwrap();
        let r = &page.reviews[0];
        assert_eq!(r.author_name, None);
        assert_eq!(
            r.author_country.as_deref(),
            Some("NO"),
            "the country code when no author line names the country"
        );
        assert!(r.text.is_some());
    }

    #[test]
    fn a_subtitle_date_serves_when_tracking_has_none() {
        let v = json!({"content": [{"type": "review", "reviewId": 7, "rating": "4",
            "author": {"title": {"text": "Ben"}, "subtitle": {"text": "March 3, 2023 - Verified booking"}}}]});
        let page = parse(&v, &target(), 20).unwrap();
        assert_eq!(page.reviews[0].date.as_deref(), Some("2023-03-03"));
        assert_eq!(page.reviews[0].author_country, None);
        assert_eq!(page.reviews[0].verified, Some(true));
        assert_eq!(
            page.next_offset, None,
            "a short page without loadMore ends the listing"
        );
    }

    #[test]
    fn ends_layout_changes_and_refusals() {
        assert!(
            matches!(parse(&json!({"data": []}), &target(), 0), Err(FetchError::Upstream(m)) if m.contains("changed"))
        );
        assert!(matches!(
            parse(&json!({"content": [{"type": "activityHeader"}]}), &target(), 0),
            Err(FetchError::Upstream(m)) if m.contains("layout changed")
        ));
        let empty = parse(&json!({"content": []}), &target(), 0).unwrap();
        assert!(empty.empty && empty.reviews.is_empty() && empty.next_offset.is_none());
        let past = parse(&json!({"content": [{"type": "footer"}]}), &target(), 40).unwrap();
        assert!(past.reviews.is_empty() && past.next_offset.is_none());
        let wall = include_str!("../tests/samples/cloudflare_challenge.html");
        assert!(
            matches!(read(&response(403, wall), &target(), 0), Ok(Outcome::Refused(m)) if m.contains("Cloudflare"))
        );
        assert!(
            matches!(read(&response(500, "oops"), &target(), 0), Ok(Outcome::Refused(m)) if m.contains("HTTP 500"))
        );
        assert!(
            matches!(read(&response(400, "{}"), &target(), 0), Ok(Outcome::Refused(m)) if m.contains("HTTP 400"))
        );
        assert!(
            matches!(read(&response(200, "<html><body>hold on"), &target(), 0), Ok(Outcome::Refused(m)) if m.contains("HTML page"))
        );
        assert!(matches!(
            read(&response(404, "{}"), &target(), 0),
            Err(FetchError::NotFound(_))
        ));
        assert!(
            matches!(read(&response(400, "{}"), &target(), 320), Ok(Outcome::Listing(l)) if l.next_offset.is_none())
        );
    }
}
