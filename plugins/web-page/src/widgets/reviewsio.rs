//! REVIEWS.io: the store from the widget's set-up (`ReviewsWidget(…, {store:
//! '…'})`, `ratingSnippet(…, {store: '…'})`, `data-store-name`), the SKU
//! from a rating snippet's `data-sku` (its first `;` part) or the widget's
//! `sku:`; a product's reviews from `api.reviews.io/product/reviews`, pages
//! from 0, with `count`, `rating` and `total_pages`; without a SKU, the
//! store's reviews from `api.reviews.io/merchant/reviews`, pages from 1
//! until one is empty, with `stats`.

use gleaner_sdk::html::Html;
use gleaner_sdk::review::{image, ReviewBuilder};
use serde_json::Value;

use super::scan::{attr, quoted_after};
use super::{bad_cursor, date, enc, get, json_of, number, text};
use super::{Fetched, Position, Vendor, Widget};

const PER_PAGE: u32 = 50;

/// The REVIEWS.io widget of a page, if it has one with its store.
pub fn detect(html: &str, doc: &Html) -> Option<Widget> {
    let marked = html.contains("widget.reviews.io")
        || html.contains("widget.reviews.co.uk")
        || html.contains("ruk_rating_snippet");
    if !marked {
        return None;
    }
    let store = attr(doc, "[data-store-name]", "data-store-name")
        .or_else(|| quoted_after(html, "reviewsIoStore"))
        .or_else(|| quoted_after(html, "store"))?;
    let sku = attr(
        doc,
        ".ruk_rating_snippet[data-sku], [data-sku].reviews-io-nuggets-widget",
        "data-sku",
    )
    .or_else(|| quoted_after(html, "sku"))
    .and_then(|s| {
        s.split(';')
            .next()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    });
    Some(Widget::ReviewsIo { store, sku })
}

/// One page of the product's (or the store's) reviews.
pub fn fetch(widget: &Widget, at: &Position) -> Result<Fetched, gleaner_sdk::FetchError> {
    let (Widget::ReviewsIo { store, sku }, Position::Page(page)) = (widget, at) else {
        return Err(bad_cursor(widget));
    };
    let url = match sku {
        Some(sku) => format!(
            "https://api.reviews.io/product/reviews?store={}&sku={}&page={page}&per_page={PER_PAGE}",
            enc(store),
            enc(sku)
        ),
        None => format!(
            "https://api.reviews.io/merchant/reviews?store={}&page={page}&per_page={PER_PAGE}",
            enc(store)
        ),
    };
    let v = json_of(Vendor::ReviewsIo, &get(Vendor::ReviewsIo, &url)?)?;
    let list = v["reviews"].as_array().cloned().unwrap_or_default();
    let product = sku.is_some();
    let reviews = list.iter().filter_map(|r| review(r, product)).collect();
    let (total, average, next) = match product {
        true => {
            let pages = v["total_pages"].as_u64().unwrap_or(0);
            let more = !list.is_empty() && u64::from(*page) + 1 < pages;
            (
                v["count"].as_u64(),
                number(&v["rating"]),
                more.then_some(Position::Page(page + 1)),
            )
        }
        false => {
            let stats = &v["stats"];
            let total = stats["total_reviews"].as_u64();
            let next = super::next_page(*page, PER_PAGE, total, list.len(), 1);
            (total, number(&stats["average_rating"]), next)
        }
    };
    Ok(Fetched {
        reviews,
        next,
        total,
        average,
        limit: None,
    })
}

fn review(item: &Value, product: bool) -> Option<gleaner_sdk::types::Review> {
    let id = match product {
        true => text(&item["product_review_id"]),
        false => text(&item["store_review_id"]),
    }
    .or_else(|| text(&item["id"]))?;
    let reviewer = &item["reviewer"];
    let name = [text(&reviewer["first_name"]), text(&reviewer["last_name"])]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    let verified = match &reviewer["verified_buyer"] {
        Value::Bool(b) => Some(*b),
        Value::String(s) => {
            Some(s.eq_ignore_ascii_case("yes") || s == "1" || s.eq_ignore_ascii_case("true"))
        }
        _ => None,
    };
    let body = text(&item["review"]).or_else(|| text(&item["comments"]));
    let mut b = ReviewBuilder::new(id)
        .author_name(Some(name))
        .title(text(&item["title"]))
        .text_plain(body)
        .date(date(&item["date_created"]))
        .verified(verified);
    if let Some(score) = number(&item["rating"]).filter(|s| (0.0..=5.0).contains(s)) {
        b = b.rating(Some(score), 5.0);
    }
    for img in item["images"].as_array().into_iter().flatten() {
        let url = text(img).or_else(|| text(&img["url"]));
        if let Some(url) = url.filter(|u| u.starts_with("https://")) {
            b = b.media(image(url));
        }
    }
    super::finish(b, Vendor::ReviewsIo)
}
