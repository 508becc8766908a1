//! Endorsal: the public wall API
//! `api.endorsal.io/wall-of-love/testimonials/<wall id>/<offset>/<limit>`, paged
//! by offset and limit; the cursor holds the offset. The answer's shape is read
//! leniently (a bare array, or one under `data` or `testimonials`), with the
//! testimonial field names of Endorsal's API.

use gleaner_sdk::json::string;
use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::types::Review;
use gleaner_sdk::{http, FetchError, Order, Page};
use serde_json::{json, Value};

use crate::common::{self, first_string, Offset};

/// One page of a wall.
pub const WALL_API: &str =
    "https://api.endorsal.io/wall-of-love/testimonials/{id}/{offset}/{limit}";
/// Testimonials per page.
pub const PAGE_SIZE: u32 = 20;
/// Where the testimonials array may sit in the answer ("" is the answer itself).
pub const LIST_KEYS: &[&str] = &["", "/data", "/testimonials"];
/// Date fields, tried in order.
pub const DATE_KEYS: &[&str] = &["added", "createdAt", "created_at", "date"];

/// Fetches the page of a wall that starts at `offset`.
pub fn fetch(wall_id: &str, offset: u32) -> Result<Page, FetchError> {
    let url = page_url(wall_id, offset);
    let response =
        http::get(&url, &[("accept", "application/json")])?.checked("Endorsal wall API")?;
    let answer: Value = serde_json::from_slice(&response.body).map_err(|e| {
        common::missing(
            &response,
            "Endorsal wall API",
            FetchError::Upstream(format!(
                "Endorsal wall API: {url} did not answer JSON ({e}); its format changed"
            )),
        )
    })?;
    parse_page(&answer, wall_id, offset, &url)
}

/// The API URL of the page starting at `offset`.
pub fn page_url(wall_id: &str, offset: u32) -> String {
    WALL_API
        .replace("{id}", wall_id)
        .replace("{offset}", &offset.to_string())
        .replace("{limit}", &PAGE_SIZE.to_string())
}

/// Maps one page of the API. No testimonials array is a changed format; an
/// empty one is the end of the wall.
pub fn parse_page(
    answer: &Value,
    wall_id: &str,
    offset: u32,
    url: &str,
) -> Result<Page, FetchError> {
    let Some(items) = LIST_KEYS
        .iter()
        .find_map(|k| answer.pointer(k).and_then(Value::as_array))
    else {
        return Err(FetchError::Upstream(format!(
            "Endorsal wall API: {url} holds no testimonials array (tried the answer itself, \
             data and testimonials), so its format changed; the plugin needs an update to read it"
        )));
    };
    let wall_url = WALL_API
        .replace("{id}", wall_id)
        .replace("/{offset}/{limit}", "");
    let reviews = items
        .iter()
        .map(|t| review(t, &wall_url).map_err(FetchError::Upstream))
        .collect::<Result<Vec<_>, _>>()?;
    let next_cursor = (items.len() as u32 >= PAGE_SIZE).then(|| {
        gleaner_sdk::cursor::encode(&Offset {
            offset: offset + items.len() as u32,
        })
    });
    Ok(Page {
        ahead: Vec::new(),
        reviews,
        next_cursor,
        order: Order::Unordered,
        meta: common::meta(
            wall_url,
            None,
            None,
            answer["total"]
                .as_u64()
                .or_else(|| answer["count"].as_u64()),
            json!({"product": "endorsal", "wall_id": wall_id, "page_url": url}),
        ),
    })
}

/// Maps one testimonial.
pub fn review(t: &Value, wall_url: &str) -> Result<Review, String> {
    let id =
        first_string(t, &["_id", "id"]).ok_or("Endorsal wall API: a testimonial has no _id")?;
    let text = first_string(t, &["comments", "testimonial", "text"]);
    let transcript = common::transcript(t);
    let from_transcript = text.is_none() && transcript.is_some();
    ReviewBuilder::new(id)
        .text_plain(text.or(transcript.clone()))
        .rating(common::stars(&t["rating"]), 5.0)
        .date(DATE_KEYS.iter().find_map(|k| common::iso_date(&t[*k])))
        .author_name(string(&t["name"]))
        .author_title(common::author_title(
            first_string(t, &["position", "job", "jobTitle"]),
            string(&t["company"]),
        ))
        .author_image(common::http_url(string(&t["avatar"])))
        .author_url(common::http_url(first_string(t, &["website", "profile"])))
        .review_url(
            common::http_url(first_string(t, &["url", "sourceURL"])).or(Some(wall_url.to_owned())),
        )
        .extra(json!({
            "source": first_string(t, &["source", "type"]),
            "location": string(&t["location"]),
            "position": first_string(t, &["position", "job", "jobTitle"]),
            "company": string(&t["company"]),
            "featured": t["featured"],
            "text_is_transcript": from_transcript,
            "transcript": if from_transcript { None } else { transcript.clone() },
        }))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "6170695a0ba50c5cda9f3337";

    #[test]
    fn page_urls() {
        assert_eq!(
            page_url(ID, 20),
            "https://api.endorsal.io/wall-of-love/testimonials/6170695a0ba50c5cda9f3337/20/20"
        );
    }

    #[test]
    fn shapes_and_ends() {
        let items =
            json!([{"_id": "a", "comments": "Fine", "rating": 4, "added": 1_700_000_000_000i64}]);
        for answer in [
            items.clone(),
            json!({"data": items.clone()}),
            json!({"testimonials": items}),
        ] {
            let page = parse_page(&answer, ID, 40, "u").unwrap();
            assert_eq!(page.reviews.len(), 1);
            assert!(page.next_cursor.is_none());
            assert_eq!(
                page.reviews[0].date.as_deref(),
                Some("2023-11-14T22:13:20Z")
            );
        }
        assert!(parse_page(&json!({"ok": true}), ID, 0, "u").is_err());
        let t = json!({"id": "b", "testimonial": "Good", "website": "https://example.org",
                       "url": "https://g.page/r/example", "jobTitle": "Owner", "createdAt": "2024-02-03"});
        let r = review(&t, "https://w").unwrap();
        assert_eq!(r.author_url.as_deref(), Some("https://example.org"));
        assert_eq!(r.review_url.as_deref(), Some("https://g.page/r/example"));
        assert_eq!(r.author_title.as_deref(), Some("Owner"));
        assert_eq!(r.date.as_deref(), Some("2024-02-03"));
        assert!(review(&json!({"comments": "no id"}), "https://w").is_err());
        assert!(parse_page(&json!([]), ID, 0, "u")
            .unwrap()
            .reviews
            .is_empty());
    }
}
