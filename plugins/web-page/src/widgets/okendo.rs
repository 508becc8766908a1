//! Okendo: the subscriber id (`<meta name="oke:subscriber_id">`, a
//! `"subscriberId"` in its settings, or `data-oke-reviews-subscriber-id`)
//! and the product (`data-oke-reviews-product-id`, `shopify-<id>` or a
//! Shopify `gid://`); reviews from `api.okendo.io/v1/stores/<id>/products/
//! shopify-<id>/reviews`, each page's `nextUrl` (relative to `/v1`) naming
//! the next.

use gleaner_sdk::html::Html;
use gleaner_sdk::review::{image, ReviewBuilder};
use serde_json::Value;

use super::scan::{attr, quoted_after};
use super::{bad_cursor, date, enc, get, json_of, number, text};
use super::{Fetched, Position, Vendor, Widget};

const BASE: &str = "https://api.okendo.io/v1";
const PER_PAGE: u32 = 25;

fn uuid(s: &str) -> bool {
    s.len() == 36 && s.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

/// The Okendo widget of a page, if it has one with its ids.
pub fn detect(html: &str, doc: &Html) -> Option<Widget> {
    let subscriber = attr(doc, r#"meta[name="oke:subscriber_id"]"#, "content")
        .or_else(|| quoted_after(html, "subscriberId"))
        .or_else(|| {
            attr(
                doc,
                "[data-oke-reviews-subscriber-id]",
                "data-oke-reviews-subscriber-id",
            )
        })
        .filter(|s| uuid(s))?;
    let product = attr(
        doc,
        "[data-oke-reviews-product-id]",
        "data-oke-reviews-product-id",
    )?;
    let product = product
        .trim_start_matches("shopify-")
        .trim_start_matches("gid://shopify/Product/")
        .to_owned();
    product
        .chars()
        .all(|c| c.is_ascii_digit())
        .then_some(Widget::Okendo {
            subscriber,
            product,
        })
}

/// The first page's URL.
pub fn first_url(widget: &Widget) -> String {
    match widget {
        Widget::Okendo {
            subscriber,
            product,
        } => format!(
            "{BASE}/stores/{}/products/shopify-{}/reviews?limit={PER_PAGE}",
            enc(subscriber),
            enc(product)
        ),
        _ => String::new(),
    }
}

/// One page of the product's reviews.
pub fn fetch(widget: &Widget, at: &Position) -> Result<Fetched, gleaner_sdk::FetchError> {
    let (Widget::Okendo { .. }, Position::Url(url)) = (widget, at) else {
        return Err(bad_cursor(widget));
    };
    let v = json_of(Vendor::Okendo, &get(Vendor::Okendo, url)?)?;
    let list = v["reviews"].as_array().cloned().unwrap_or_default();
    let next = text(&v["nextUrl"])
        .filter(|n| n.starts_with("/stores/") && !list.is_empty())
        .map(|n| Position::Url(format!("{BASE}{n}")));
    let aggregate = &v["reviewAggregate"];
    Ok(Fetched {
        reviews: list.iter().filter_map(review).collect(),
        next,
        total: aggregate["reviewCount"].as_u64(),
        average: number(&aggregate["averageRating"]),
        limit: None,
    })
}

fn review(item: &Value) -> Option<gleaner_sdk::types::Review> {
    let mut b = ReviewBuilder::new(text(&item["reviewId"])?)
        .author_name(text(&item["reviewer"]["displayName"]))
        .title(text(&item["title"]))
        .text_plain(text(&item["body"]))
        .date(date(&item["dateCreated"]))
        .verified(item["reviewer"]["isVerified"].as_bool())
        .recommends(item["isRecommended"].as_bool())
        .helpful_votes(item["helpfulCount"].as_i64())
        .language(text(&item["languageCode"]));
    if let Some(score) = number(&item["rating"]).filter(|s| (0.0..=5.0).contains(s)) {
        b = b.rating(Some(score), 5.0);
    }
    for m in item["media"].as_array().into_iter().flatten() {
        let url = text(&m["fullSizeUrl"])
            .or_else(|| text(&m["largeUrl"]))
            .or_else(|| text(&m["url"]));
        if let Some(url) = url.filter(|u| u.starts_with("https://") && m["type"] != "video") {
            b = b.media(image(url));
        }
    }
    super::finish(b, Vendor::Okendo)
}
