//! Stamped: the public key (`pubkey-…`) and the store (`sId`, `storeUrl`,
//! or the script's `?shop=` domain) from the widget's script and
//! `StampedFn.init`, the product from `#stamped-main-widget[data-product-id]`
//! or a badge's `data-id`; reviews from `stamped.io/api/widget/reviews`,
//! pages from 1, `take` at most 100, with `total` and `rating`.

use gleaner_sdk::html::Html;
use gleaner_sdk::review::{image, ReviewBuilder};
use serde_json::Value;

use super::scan::{attr, digit, quoted_after, shopify_domain, token_after, word};
use super::{bad_cursor, date, enc, get, json_of, next_page, number, text};
use super::{Fetched, Position, Vendor, Widget};

const PER_PAGE: u32 = 50;
/// Where a review's photo file names are.
const PHOTOS: &str = "https://cdn.stamped.io/uploads/photos/";

/// The Stamped widget of a page, if it has one with its ids.
pub fn detect(html: &str, doc: &Html) -> Option<Widget> {
    if !html.contains("stamped.io") && !html.contains("StampedFn") {
        return None;
    }
    let api_key = token_after(html, "pubkey-", 10, word).map(|k| format!("pubkey-{k}"))?;
    let store = quoted_after(html, "sId")
        .filter(|s| s.chars().all(digit))
        .or_else(|| token_after(html, "sId:", 3, digit))
        .or_else(|| quoted_after(html, "storeUrl"))
        .or_else(|| shopify_domain(html))?;
    let product = attr(
        doc,
        "#stamped-main-widget[data-product-id], .stamped-main-widget[data-product-id]",
        "data-product-id",
    )
    .or_else(|| {
        attr(
            doc,
            ".stamped-product-reviews-badge[data-id], .stamped-badge[data-id]",
            "data-id",
        )
    })?;
    Some(Widget::Stamped {
        api_key,
        store,
        product,
    })
}

/// One page of the product's reviews.
pub fn fetch(widget: &Widget, at: &Position) -> Result<Fetched, gleaner_sdk::FetchError> {
    let (
        Widget::Stamped {
            api_key,
            store,
            product,
        },
        Position::Page(page),
    ) = (widget, at)
    else {
        return Err(bad_cursor(widget));
    };
    let url = format!(
        "https://stamped.io/api/widget/reviews?productId={}&apiKey={}&storeUrl={}&page={page}&take={PER_PAGE}",
        enc(product),
        enc(api_key),
        enc(store)
    );
    let v = json_of(Vendor::Stamped, &get(Vendor::Stamped, &url)?)?;
    let list = v["data"].as_array().cloned().unwrap_or_default();
    let total = v["total"].as_u64();
    Ok(Fetched {
        reviews: list.iter().filter_map(review).collect(),
        next: next_page(*page, PER_PAGE, total, list.len(), 1),
        total,
        average: number(&v["rating"]),
        limit: None,
    })
}

fn review(item: &Value) -> Option<gleaner_sdk::types::Review> {
    let mut b = ReviewBuilder::new(text(&item["id"])?)
        .author_name(text(&item["author"]))
        .title(text(&item["reviewTitle"]))
        .text_plain(text(&item["reviewMessage"]))
        .date(date(&item["dateCreated"]).or_else(|| date(&item["reviewDate"])))
        .verified(item["reviewVerifiedType"].as_i64().map(|t| t > 0))
        .helpful_votes(item["reviewVotesUp"].as_i64())
        .recommends(item["isRecommend"].as_bool())
        .reply(text(&item["reviewReply"]), None, None);
    if let Some(score) = number(&item["reviewRating"]).filter(|s| (0.0..=5.0).contains(s)) {
        b = b.rating(Some(score), 5.0);
    }
    let photos = text(&item["reviewUserPhotos"]).unwrap_or_default();
    for name in photos.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let url = match name.starts_with("https://") {
            true => name.to_owned(),
            false => format!("{PHOTOS}{name}"),
        };
        b = b.media(image(url));
    }
    super::finish(b, Vendor::Stamped)
}
