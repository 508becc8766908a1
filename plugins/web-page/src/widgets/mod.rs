//! The review widgets shops embed, which load their reviews from the
//! vendor's public endpoint instead of putting them in the page's markup:
//! Judge.me, Yotpo, Trustpilot TrustBox, REVIEWS.io, Stamped and Okendo.
//!
//! A widget is detected from the page (its script and the data attributes
//! naming the shop or product, [`detect`]); its reviews are then read from
//! the endpoint the widget itself calls, page by page ([`fetch`]). Every
//! request goes to the vendor's own hosts ([`Vendor::hosts`]): the URL is
//! built from a fixed template with the ids URL-encoded into it, and checked
//! against those hosts before it is sent, so a page cannot send the source
//! anywhere else.

mod judgeme;
mod okendo;
mod reviewsio;
mod scan;
mod stamped;
mod trustpilot;
mod yotpo;

use gleaner_sdk::html::Html;
use gleaner_sdk::http::{self, Response};
use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::types::Review;
use gleaner_sdk::FetchError;
use serde_json::{json, Value};

use crate::values::{number, text};

/// A widget found on a page, with the ids its endpoint needs.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "vendor", rename_all = "snake_case")]
pub enum Widget {
    /// Judge.me: the shop's `*.myshopify.com` domain and the product id.
    JudgeMe { shop: String, product: String },
    /// Yotpo: the app key and the product id.
    Yotpo { app_key: String, product: String },
    /// Trustpilot TrustBox: the business unit, the template, the locale and
    /// the product SKUs of a product-review TrustBox.
    Trustpilot {
        business_unit: String,
        template: String,
        locale: String,
        sku: Option<String>,
    },
    /// REVIEWS.io: the store and the product SKU (none: the store's reviews).
    ReviewsIo { store: String, sku: Option<String> },
    /// Stamped: the public API key, the store and the product id.
    Stamped {
        api_key: String,
        store: String,
        product: String,
    },
    /// Okendo: the subscriber id and the product id.
    Okendo { subscriber: String, product: String },
}

/// Where a widget's walk is: a page number, or the URL the vendor gave.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Position {
    /// A page number, as the vendor counts them.
    Page(u32),
    /// The next page's URL, as the vendor gave it.
    Url(String),
}

/// One page of a widget's reviews.
#[derive(Debug, Default)]
pub struct Fetched {
    /// The reviews, in the vendor's order.
    pub reviews: Vec<Review>,
    /// Where the next page is; none after the last.
    pub next: Option<Position>,
    /// The vendor's count of the reviews.
    pub total: Option<u64>,
    /// The vendor's average rating, of 5.
    pub average: Option<f64>,
    /// Why the vendor's endpoint gives no more, when reviews remain.
    pub limit: Option<String>,
}

/// The vendors, for names and hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    /// Judge.me.
    JudgeMe,
    /// Yotpo.
    Yotpo,
    /// Trustpilot.
    Trustpilot,
    /// REVIEWS.io.
    ReviewsIo,
    /// Stamped.
    Stamped,
    /// Okendo.
    Okendo,
}

impl Vendor {
    /// The name answers use (`extra.syntax`, `found.widgets`).
    pub fn name(self) -> &'static str {
        match self {
            Vendor::JudgeMe => "judge.me",
            Vendor::Yotpo => "yotpo",
            Vendor::Trustpilot => "trustpilot",
            Vendor::ReviewsIo => "reviews.io",
            Vendor::Stamped => "stamped",
            Vendor::Okendo => "okendo",
        }
    }

    /// The hosts its endpoint is on: the only ones a widget's request may go to.
    pub fn hosts(self) -> &'static [&'static str] {
        match self {
            Vendor::JudgeMe => &["judge.me", "api.judge.me"],
            Vendor::Yotpo => &["api-cdn.yotpo.com"],
            Vendor::Trustpilot => &["widget.trustpilot.com"],
            Vendor::ReviewsIo => &["api.reviews.io"],
            Vendor::Stamped => &["stamped.io"],
            Vendor::Okendo => &["api.okendo.io"],
        }
    }
}

impl Widget {
    /// Its vendor.
    pub fn vendor(&self) -> Vendor {
        match self {
            Widget::JudgeMe { .. } => Vendor::JudgeMe,
            Widget::Yotpo { .. } => Vendor::Yotpo,
            Widget::Trustpilot { .. } => Vendor::Trustpilot,
            Widget::ReviewsIo { .. } => Vendor::ReviewsIo,
            Widget::Stamped { .. } => Vendor::Stamped,
            Widget::Okendo { .. } => Vendor::Okendo,
        }
    }

    /// Where its walk starts.
    pub fn first(&self) -> Position {
        match self {
            Widget::ReviewsIo { sku: Some(_), .. } => Position::Page(0),
            Widget::Okendo { .. } => Position::Url(okendo::first_url(self)),
            _ => Position::Page(1),
        }
    }

    /// The widget as the answer lists it.
    pub fn describe(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The widgets on a page, each once, in the order above.
pub fn detect(html: &str, doc: &Html) -> Vec<Widget> {
    [
        judgeme::detect(html, doc),
        yotpo::detect(html, doc),
        trustpilot::detect(doc),
        reviewsio::detect(html, doc),
        stamped::detect(html, doc),
        okendo::detect(html, doc),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The reviews of `widget` at `at`.
pub fn fetch(widget: &Widget, at: &Position) -> Result<Fetched, FetchError> {
    match widget {
        Widget::JudgeMe { .. } => judgeme::fetch(widget, at),
        Widget::Yotpo { .. } => yotpo::fetch(widget, at),
        Widget::Trustpilot { .. } => trustpilot::fetch(widget, at),
        Widget::ReviewsIo { .. } => reviewsio::fetch(widget, at),
        Widget::Stamped { .. } => stamped::fetch(widget, at),
        Widget::Okendo { .. } => okendo::fetch(widget, at),
    }
}

/// `GET url` on `vendor`'s endpoint, refused unless the URL is on one of
/// its hosts; the answer when it is a success.
fn get(vendor: Vendor, url: &str) -> Result<Response, FetchError> {
    let host = url::Url::parse(url)
        .ok()
        .and_then(|u| (u.scheme() == "https").then(|| u.host_str().map(str::to_owned))?);
    if !host.is_some_and(|h| vendor.hosts().contains(&h.as_str())) {
        return Err(FetchError::Upstream(format!(
            "the {} widget's next page is {url}, which is not on {}'s endpoint ({}); the widget's reviews stop here",
            vendor.name(),
            vendor.name(),
            vendor.hosts().join(", ")
        )));
    }
    http::get(url, &[("accept", "application/json")])?.checked(vendor.name())
}

/// The body of `response` as JSON.
fn json_of(vendor: Vendor, response: &Response) -> Result<Value, FetchError> {
    serde_json::from_slice(&response.body).map_err(|e| {
        FetchError::Upstream(format!(
            "{}'s review endpoint ({}) did not answer JSON ({e}); the widget's format may have changed",
            vendor.name(),
            response.final_url
        ))
    })
}

/// A widget's review, built with the `extra` every review of this source
/// carries; none when the vendor's review breaks the record's rules.
fn finish(builder: ReviewBuilder, vendor: Vendor) -> Option<Review> {
    builder
        .extra(json!({
            "syntax": vendor.name(),
            "item_reviewed": null,
            "flags": [],
            "markup_rating": null,
        }))
        .build()
        .ok()
}

/// A date field (ISO, `YYYY-MM-DD HH:MM:SS`, `… UTC`, `MM/DD/YYYY`) as ISO.
fn date(v: &Value) -> Option<String> {
    let t = text(v)?;
    let t = t.trim_end_matches(" UTC").trim_end_matches(" +0000");
    gleaner_sdk::date::parse(t, None)
}

/// The error for a continuation that does not fit the widget it names.
fn bad_cursor(widget: &Widget) -> FetchError {
    FetchError::BadCursor(format!(
        "the continuation does not fit the {} widget it names; start the fetch again",
        widget.vendor().name()
    ))
}

/// `s` URL-encoded as a path segment or query value.
fn enc(s: &str) -> String {
    http::encode_component(s)
}

/// The next page number, while pages of `per_page` have not reached `total`
/// and this page had reviews.
fn next_page(
    page: u32,
    per_page: u32,
    total: Option<u64>,
    got: usize,
    base: u32,
) -> Option<Position> {
    let read = u64::from(page + 1 - base) * u64::from(per_page);
    let more = total.is_none_or(|t| read < t);
    (got > 0 && more).then_some(Position::Page(page + 1))
}

#[cfg(test)]
mod tests;
