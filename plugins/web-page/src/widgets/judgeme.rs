//! Judge.me: the shop's `*.myshopify.com` domain (`jdgm.SHOP_DOMAIN`,
//! `Shopify.shop`, or any such domain on the page) and the product from the
//! widget's `data-id` (`.jdgm-widget`, `.jdgm-review-widget`,
//! `.jdgm-preview-badge`); reviews from `judge.me/reviews/reviews_for_widget`,
//! pages from 1, which answers `{html, total_count, page}`: the widget's
//! HTML, one `.jdgm-rev` per review.

use gleaner_sdk::html::{self, Html};
use gleaner_sdk::review::{image, ReviewBuilder};
use gleaner_sdk::types::Review;

use super::scan::{attr, quoted_after, shopify_domain};
use super::{bad_cursor, enc, get, json_of, next_page};
use super::{Fetched, Position, Vendor, Widget};

const PER_PAGE: u32 = 20;

/// The Judge.me widget of a page, if it has one with its ids.
pub fn detect(html: &str, doc: &Html) -> Option<Widget> {
    if !html.contains("judge.me") && !html.contains("jdgm") {
        return None;
    }
    let shop = quoted_after(html, "SHOP_DOMAIN")
        .or_else(|| quoted_after(html, "Shopify.shop"))
        .filter(|s| s.ends_with(".myshopify.com"))
        .or_else(|| shopify_domain(html))?;
    let product = attr(
        doc,
        ".jdgm-widget[data-id], .jdgm-review-widget[data-id], .jdgm-preview-badge[data-id]",
        "data-id",
    )
    .filter(|p| p.chars().all(|c| c.is_ascii_digit()))?;
    Some(Widget::JudgeMe { shop, product })
}

/// One page of the product's reviews.
pub fn fetch(widget: &Widget, at: &Position) -> Result<Fetched, gleaner_sdk::FetchError> {
    let (Widget::JudgeMe { shop, product }, Position::Page(page)) = (widget, at) else {
        return Err(bad_cursor(widget));
    };
    let url = format!(
        "https://judge.me/reviews/reviews_for_widget?url={shop}&shop_domain={shop}&platform=shopify&product_id={}&page={page}&per_page={PER_PAGE}",
        enc(product),
        shop = enc(shop)
    );
    let v = json_of(Vendor::JudgeMe, &get(Vendor::JudgeMe, &url)?)?;
    let doc = Html::parse_fragment(v["html"].as_str().unwrap_or_default());
    let items = html::select(&doc, ".jdgm-rev[data-review-id]")?;
    let count = items.len();
    let reviews = items.into_iter().filter_map(review).collect();
    let total = v["total_count"].as_u64();
    Ok(Fetched {
        reviews,
        next: next_page(*page, PER_PAGE, total, count, 1),
        total,
        average: None,
        limit: None,
    })
}

fn review(el: html::ElementRef<'_>) -> Option<Review> {
    let attrs = el.value();
    let id = attrs.attr("data-review-id")?.trim().to_owned();
    let score = attrs
        .attr("data-score")
        .or_else(|| html::first(el, ".jdgm-rev__rating").and_then(|r| r.value().attr("data-score")))
        .and_then(|s| s.trim().parse::<f64>().ok());
    let stamp = html::first(el, ".jdgm-rev__timestamp").and_then(|t| {
        let a = t.value();
        a.attr("data-content")
            .or(a.attr("datetime"))
            .or(a.attr("data-timestamp"))
            .map(str::to_owned)
    });
    let reply = html::first(
        el,
        ".jdgm-rev__reply-content, .jdgm-rev__reply .jdgm-rev__body, .jdgm-rev__reply",
    )
    .map(html::text)
    .filter(|t| !t.trim().is_empty());
    let mut b = ReviewBuilder::new(id)
        .author_name(html::first_text(el, ".jdgm-rev__author"))
        .title(html::first_text(el, ".jdgm-rev__title"))
        .text_plain(html::first_text(el, ".jdgm-rev__body"))
        .date(
            stamp
                .as_ref()
                .and_then(|s| super::date(&serde_json::Value::String(s.clone()))),
        )
        .verified(attrs.attr("data-verified-buyer").map(|v| v == "true"))
        .helpful_votes(
            attrs
                .attr("data-thumb-up-count")
                .and_then(|c| c.parse().ok()),
        )
        .reply(reply, None, html::first_text(el, ".jdgm-rev__reply-author"));
    if let Some(score) = score.filter(|s| (0.0..=5.0).contains(s)) {
        b = b.rating(Some(score), 5.0);
    }
    let pictures = html::parsed("a.jdgm-rev__pic-link").ok();
    for pic in pictures.iter().flat_map(|sel| el.select(sel)) {
        let href = pic
            .value()
            .attr("data-mfp-src")
            .or(pic.value().attr("href"));
        if let Some(url) = href.filter(|u| u.starts_with("https://")) {
            b = b.media(image(url.to_owned()));
        }
    }
    super::finish(b, Vendor::JudgeMe)
}
