//! The current profile page: its flight data's components.
//!
//! - `businessProfileHero`: `name`, `overallRating`, `reviewCount`,
//!   `categories[].name`, `serviceProviderUuid`;
//! - `reviewBreakdown`: `averageRating`, `reviewCount`, `distribution[]{star, count}`;
//! - `reviewsList`: `currentPage`, `totalPages`, `pageSize`, `totalCount` and
//!   `reviews[]` with `reviewId`, `reviewerName`, `rating`, `dateLabel`
//!   ("April 2026"), `text` (HTML entities kept), `isVerified`, `recommends`,
//!   `costLabel` (`$$`-escaped), `jobLabel`, `photoFullUrls`,
//!   `photoOverflowCount`, `responseText` and `proResponseName`.

use serde_json::{json, Map, Value};

use crate::flight::Flight;
use crate::model::{Business, Listing};
use crate::review::{body, Entry};

/// The `data-testid` of the review list component.
pub const REVIEWS_LIST: &str = "reviewsList";
/// The `data-testid` of the business header component.
pub const HERO: &str = "businessProfileHero";
/// The `data-testid` of the star breakdown component.
pub const BREAKDOWN: &str = "reviewBreakdown";

/// The page's review list, if its flight data has one.
pub fn listing(flight: &Flight) -> Option<Listing> {
    let props = flight.component(REVIEWS_LIST)?;
    let reviews = props.get("reviews")?.as_array()?;
    let count = |key: &str| props.get(key).and_then(Value::as_u64);
    Some(Listing {
        reviews: reviews.iter().map(|r| entry(flight, r)).collect(),
        page: count("currentPage").map(|p| p as u32),
        total_pages: count("totalPages").map(|p| p as u32),
        page_size: count("pageSize").map(|p| p as u32),
        total: count("totalCount"),
    })
}

/// What the header and the star breakdown say of the pro.
pub fn business(flight: &Flight) -> Business {
    let hero = flight.component(HERO);
    let breakdown = flight.component(BREAKDOWN);
    let from = |v: Option<&Value>, key: &str| v.and_then(|v| v.get(key)).and_then(Flight::number);
    let distribution: Option<Map<String, Value>> = breakdown
        .and_then(|b| b.get("distribution"))
        .and_then(Value::as_array)
        .map(|rows| {
            rows.iter()
                .filter_map(|row| {
                    Some((
                        row.get("star")?.as_u64()?.to_string(),
                        row.get("count")?.clone(),
                    ))
                })
                .collect()
        });
    let categories: Option<Vec<String>> = hero
        .and_then(|h| h.get("categories"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|c| flight.string(&c["name"]))
                .collect()
        });
    Business {
        name: hero.and_then(|h| flight.string(&h["name"])),
        average_rating: from(hero, "overallRating").or_else(|| from(breakdown, "averageRating")),
        total_reviews: from(hero, "reviewCount")
            .or_else(|| from(breakdown, "reviewCount"))
            .map(|n| n as u64),
        business_id: hero.and_then(|h| flight.string(&h["serviceProviderUuid"])),
        categories,
        distribution,
        seen: hero.is_some() || breakdown.is_some(),
    }
}

fn entry(flight: &Flight, r: &Value) -> Entry {
    let s = |key: &str| flight.string(&r[key]);
    let reply = s("responseText").map(|text| (body(text), s("proResponseName")));
    let photos = r["photoFullUrls"]
        .as_array()
        .map(|urls| urls.iter().filter_map(|u| flight.string(u)).collect())
        .unwrap_or_default();
    let extra = json!({
        "cost": s("costLabel"),
        "job": s("jobLabel"),
        "photo_overflow_count": r["photoOverflowCount"].as_u64().filter(|n| *n > 0),
    });
    Entry {
        id: s("reviewId"),
        author: s("reviewerName"),
        rating: Flight::number(&r["rating"]),
        date_text: s("dateLabel"),
        verified: r["isVerified"].as_bool(),
        recommends: r["recommends"].as_bool(),
        sub_ratings: Vec::new(),
        body: s("text").map(body),
        reply,
        photos,
        extra: extra.as_object().cloned().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORDED: &str =
        include_str!("../tests/samples/angi-rsc-profile-6480784-review-rows.txt");
    const PAGE: &str = include_str!("../tests/samples/profile-6480784-p1.html");

    #[test]
    fn the_fixture_page_carries_the_recorded_rows_byte_for_byte() {
        let stream = gleaner_sdk::embedded::flight_chunks(PAGE).concat();
        assert_eq!(stream, RECORDED);
    }

    #[test]
    fn reads_the_recorded_rows() {
        let flight = Flight::from_stream(RECORDED);
        let l = listing(&flight).unwrap();
        assert_eq!(l.reviews.len(), 25);
        assert_eq!(
            (l.page, l.total_pages, l.page_size, l.total),
            (Some(1), Some(7), Some(25), Some(166))
        );
        let first = &l.reviews[0];
        assert_eq!(first.author.as_deref(), Some("Carl S."));
        assert_eq!(first.extra["cost"], "$40,000");
        assert_eq!(
            (first.verified, first.recommends),
            (Some(true), Some(false))
        );
        assert!(!first.extra.contains_key("verified") && !first.extra.contains_key("recommends"));
        assert_eq!(first.reply, None, "an empty response is no reply");
        let b = business(&flight);
        assert_eq!(b.name.as_deref(), Some("All Affordable Plumbing Inc"));
        assert_eq!(b.total_reviews, Some(166));
        assert_eq!(b.distribution.unwrap()["5"], 156);
        assert_eq!(b.categories.unwrap().len(), 26);
    }
}
