//! Yotpo: the app key from the widget's script (`staticw2.yotpo.com/<key>/
//! widget.js`, or the v3 loader `cdn-widgetsrepository.yotpo.com/v1/loader/
//! <key>` beside a review widget) or `data-appkey`, the product from
//! `data-yotpo-product-id` or the widget's `data-product-id`; reviews from
//! `api-cdn.yotpo.com/v1/widget/<key>/products/<id>/reviews.json`, pages from
//! 1, with `response.pagination.total` and `response.bottomline`.

use gleaner_sdk::html::Html;
use gleaner_sdk::review::{image, ReviewBuilder};
use serde_json::Value;

use super::scan::{attr, token_after, word};
use super::{bad_cursor, date, enc, get, json_of, next_page, number, text};
use super::{Fetched, Position, Vendor, Widget};

const PER_PAGE: u32 = 50;

/// The Yotpo widget of a page, if it has one with its ids.
pub fn detect(html: &str, doc: &Html) -> Option<Widget> {
    let review_element = attr(
        doc,
        ".yotpo-main-widget, .yotpo-widget-instance, .yotpo.bottomLine, [data-yotpo-product-id]",
        "class",
    )
    .is_some();
    let key = token_after(html, "staticw2.yotpo.com/", 15, word)
        .or_else(|| attr(doc, "[data-appkey]", "data-appkey"))
        .or_else(|| {
            let key = token_after(html, "cdn-widgetsrepository.yotpo.com/v1/loader/", 15, word)?;
            review_element.then_some(key)
        })?;
    let product = attr(doc, "[data-yotpo-product-id]", "data-yotpo-product-id").or_else(|| {
        attr(
            doc,
            ".yotpo[data-product-id], .yotpo-main-widget[data-product-id]",
            "data-product-id",
        )
    })?;
    Some(Widget::Yotpo {
        app_key: key,
        product,
    })
}

/// One page of the product's reviews.
pub fn fetch(widget: &Widget, at: &Position) -> Result<Fetched, gleaner_sdk::FetchError> {
    let (Widget::Yotpo { app_key, product }, Position::Page(page)) = (widget, at) else {
        return Err(bad_cursor(widget));
    };
    let url = format!(
        "https://api-cdn.yotpo.com/v1/widget/{}/products/{}/reviews.json?per_page={PER_PAGE}&page={page}",
        enc(app_key),
        enc(product)
    );
    let v = json_of(Vendor::Yotpo, &get(Vendor::Yotpo, &url)?)?;
    let r = &v["response"];
    let list = r["reviews"].as_array().cloned().unwrap_or_default();
    let reviews = list
        .iter()
        .filter(|item| item["deleted"] != true)
        .filter_map(review)
        .collect();
    let total = r["pagination"]["total"]
        .as_u64()
        .or(r["bottomline"]["total_review"].as_u64());
    Ok(Fetched {
        reviews,
        next: next_page(*page, PER_PAGE, total, list.len(), 1),
        total,
        average: number(&r["bottomline"]["average_score"]),
        limit: None,
    })
}

fn review(item: &Value) -> Option<gleaner_sdk::types::Review> {
    let mut b = ReviewBuilder::new(text(&item["id"])?)
        .author_name(text(&item["user"]["display_name"]))
        .title(text(&item["title"]))
        .text_plain(text(&item["content"]))
        .date(date(&item["created_at"]))
        .verified(item["verified_buyer"].as_bool())
        .helpful_votes(item["votes_up"].as_i64())
        .language(text(&item["language"]))
        .reply(
            text(&item["comment"]["content"]),
            date(&item["comment"]["created_at"]),
            None,
        );
    if let Some(score) = number(&item["score"]).filter(|s| (0.0..=5.0).contains(s)) {
        b = b.rating(Some(score), 5.0);
    }
    for img in item["images_data"].as_array().into_iter().flatten() {
        if let Some(url) = text(&img["original_url"]).filter(|u| u.starts_with("https://")) {
            b = b.media(image(url));
        }
    }
    super::finish(b, Vendor::Yotpo)
}
