//! fitness-class: ClassPass studio reviews.
//!
//! A studio page `https://classpass.com/studios/<alias>` names the studio by
//! its alias; the review API needs the numeric venue id. The first page
//! resolves the alias with the public venue endpoint ([`venue`], cached in the
//! plugin cache), then every page reads 50 reviews of
//! `GET /v2/venues/{id}/reviews?page_size=50&page={0-based}` ([`reviews`]).
//! A page with fewer than 50 reviews is the last. The API lists reviews newest
//! first, so `sync_date` stops early. The API is called directly; only after
//! a JavaScript challenge (ClassPass sits behind Cloudflare) is the studio's
//! page opened in the host's headless browser for the clearance ([`api`]).

mod api;
pub mod endpoints;
mod query;
pub mod reviews;
pub mod venue;

use gleaner_sdk::{cursor, FetchError, Order, Page, PageRequest, SourceMeta};
use serde::{Deserialize, Serialize};
use serde_json::json;

pub use query::Target;
use venue::{Origin, Venue};

gleaner_sdk::export_source!(|req: PageRequest| fetch_page(&req));

/// The continuation: the venue (id, and what its page shows) and the next
/// page, so later pages need no venue request.
#[derive(Debug, Serialize, Deserialize)]
struct Cursor {
    #[serde(rename = "v")]
    venue: Venue,
    #[serde(rename = "p")]
    page: u32,
    #[serde(rename = "o")]
    origin: Origin,
}

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let target = query::parse(&req.query).map_err(FetchError::BadQuery)?;
    let (venue, origin, page) = match req.cursor_state::<Cursor>()? {
        Some(c) => (c.venue, c.origin, c.page),
        None => {
            let (venue, origin) = venue::resolve(&target)?;
            (venue, origin, 0)
        }
    };
    let answer = api::get_json(
        &endpoints::reviews(venue.id, page),
        &venue.url(),
        "the studio's reviews",
        &format!("ClassPass has no reviews of venue {}", venue.id),
    )?;
    let listed = reviews::list(&answer, &venue)?;
    let mapped = listed
        .iter()
        .map(|r| reviews::review(r, &venue).map_err(FetchError::Upstream))
        .collect::<Result<Vec<_>, _>>()?;
    let more = listed.len() >= endpoints::PAGE_SIZE;
    let meta = meta(&venue, origin, page, mapped.is_empty());
    Ok(Page {
        ahead: Vec::new(),
        reviews: mapped,
        next_cursor: more.then(|| {
            cursor::encode(&Cursor {
                venue,
                page: page + 1,
                origin,
            })
        }),
        order: Order::NewestFirst,
        meta,
    })
}

/// The page's metadata: the studio, and a notice when it has no reviews.
fn meta(venue: &Venue, origin: Origin, page: u32, empty: bool) -> SourceMeta {
    let notice = (page == 0 && empty).then_some("this studio has no reviews on ClassPass yet");
    SourceMeta {
        resolved_url: Some(venue.url()),
        name: venue.name.clone(),
        average_rating: venue.average,
        total_reviews: venue.total,
        extra_json: json!({
            "venue_id": venue.id,
            "alias": venue.alias,
            "location_name": venue.location,
            "timezone": venue.timezone,
            "rating_scale_max": endpoints::SCALE,
            "page_size": endpoints::PAGE_SIZE,
            "venue_resolved_from": origin,
            "notice": notice,
        })
        .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The recorded review values (a public scan's output), per venue id.
    fn recorded() -> Value {
        serde_json::from_str(include_str!(
            "../tests/samples/classpass-review-snippets-trimmed.json"
        ))
        .unwrap()
    }

    /// (text, created_on, rating as a number) of each review of a fixture page.
    fn values(page: &str) -> Vec<(Value, Value, f64)> {
        let page: Value = serde_json::from_str(page).unwrap();
        page["reviews"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let rating = &r["rating"];
                let n = rating
                    .as_f64()
                    .or_else(|| rating.as_str().and_then(|s| s.parse().ok()))
                    .unwrap();
                (r["review"].clone(), r["created_on"].clone(), n)
            })
            .collect()
    }

    #[test]
    fn the_fixture_pages_carry_the_recorded_values() {
        let recorded = recorded();
        let real = |venue: &str| -> Vec<(Value, Value, f64)> {
            recorded["venues"][venue]["mentions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["text"].clone(),
                        m["date"].clone(),
                        m["rating"].as_f64().unwrap(),
                    )
                })
                .collect()
        };
        let pages = [
            (
                "26705",
                include_str!("../tests/samples/reviews_26705_p0.json"),
            ),
            (
                "26716",
                include_str!("../tests/samples/reviews_26716_p0.json"),
            ),
            (
                "26727",
                include_str!("../tests/samples/reviews_26727_p1.json"),
            ),
            (
                "26870",
                include_str!("../tests/samples/reviews_26870_p0.json"),
            ),
            (
                "27040",
                include_str!("../tests/samples/reviews_27040_p0.json"),
            ),
        ];
        for (venue, page) in pages {
            assert_eq!(values(page), real(venue), "venue {venue}");
        }
        let all: Vec<_> = ["26705", "26716", "26727", "26870", "27040"]
            .iter()
            .flat_map(|v| real(v))
            .map(|(text, _, rating)| (text, rating))
            .collect();
        let transformed = values(include_str!("../tests/samples/reviews_26727_p0.json"));
        assert_eq!(transformed.len(), endpoints::PAGE_SIZE);
        for (text, _, rating) in transformed {
            assert!(all.contains(&(text.clone(), rating)), "{text}");
        }
    }

    #[test]
    fn endpoint_urls() {
        assert_eq!(
            endpoints::venue("bloor-hot-yoga-toronto"),
            "https://api.classpass.com/v2/venues/bloor-hot-yoga-toronto"
        );
        assert_eq!(
            endpoints::reviews(26727, 0),
            "https://api.classpass.com/v2/venues/26727/reviews?page_size=50&page=0"
        );
        assert_eq!(
            endpoints::studio_page("a-b"),
            "https://classpass.com/studios/a-b"
        );
    }
}
