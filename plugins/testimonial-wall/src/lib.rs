//! testimonial-wall: the testimonials of a wall of love on Shapo, Testimonial.to,
//! Senja or Endorsal.
//!
//! A thin plugin over the SDK's wall adapters ([`gleaner_sdk::walls`]): the URL's
//! host picks the product's adapter, and the cursor holds the offset of the
//! next page for the products that page (Testimonial.to, Endorsal). No product
//! sorts its wall by date, so every page is declared unordered.
//!
//! A wall that holds nothing answers with no reviews and a notice: the empty
//! list of the JSON products, and a Testimonial.to embed without cards that
//! says it has none. An embed with neither cards nor such words is a changed
//! layout.

use gleaner_sdk::html::{self, Html};
use gleaner_sdk::listing::{self, Shown};
use gleaner_sdk::walls::common;
use gleaner_sdk::walls::testimonial_to::{self, NAME, PAGE_SIZE, TEXT};
use gleaner_sdk::walls::{self, Offset, Wall};
use gleaner_sdk::{botwall, http, FetchError, Order, Page, PageRequest, PluginInfo};
use serde_json::{json, Value};

gleaner_sdk::plugin_bindings!("source");

struct TestimonialWall;

impl exports::gleaner::plugin::source_plugin::Guest for TestimonialWall {
    fn info() -> PluginInfo {
        gleaner_sdk::plugin_info!()
    }

    fn fetch_page(req: PageRequest) -> Result<Page, FetchError> {
        fetch_page(&req)
    }
}

export!(TestimonialWall);

/// Resolves the wall and reads the page the cursor points at.
fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let wall = walls::parse_query(&req.query).map_err(FetchError::BadQuery)?;
    let offset = req.cursor_state::<Offset>()?.map_or(0, |c| c.offset);
    let mut page = match &wall {
        Wall::TestimonialTo { slug, tag } if offset == 0 => first_embed_page(slug, tag)?,
        _ => walls::fetch_page(&wall, offset)?,
    };
    if offset == 0 && page.reviews.is_empty() {
        let mut extra: Value = serde_json::from_str(&page.meta.extra_json).unwrap_or(json!({}));
        if extra.get("notice").is_none() {
            extra["notice"] = json!(format!(
                "this {} wall has no testimonials yet",
                wall.product().name
            ));
        }
        page.meta.extra_json = extra.to_string();
    }
    Ok(page)
}

/// How a Testimonial.to embed may say the wall holds nothing yet, besides the
/// SDK's common wording.
const EMPTY_EMBED_TEXTS: &[&str] = &["no testimonials yet", "be the first to leave a testimonial"];

/// The first page of a Testimonial.to wall. An embed without cards is an
/// empty wall when the page says so (or shows a zero count), a bot wall when
/// it is one, and a changed layout otherwise.
fn first_embed_page(slug: &str, tag: &str) -> Result<Page, FetchError> {
    const WHAT: &str = "Testimonial.to wall embed";
    let url = testimonial_to::embed_url(slug, tag, PAGE_SIZE);
    let response = common::checked(http::get_html(&url)?, WHAT)?;
    let body = response.text();
    let doc = Html::parse_document(&body);
    if html::select(&doc, NAME)?.is_empty() {
        if botwall::detect(&response).is_some() {
            return Err(common::blocked(WHAT, &response));
        }
        let count = Shown::Number("testimonial count", shown_count(&doc));
        let Some(signal) = listing::no_reviews(&doc, EMPTY_EMBED_TEXTS, &[count]) else {
            return Err(listing::layout_changed(
                WHAT,
                &url,
                &[("testimonial card", NAME), ("testimonial text", TEXT)],
            ));
        };
        let wall_url = testimonial_to::WALL_URL.replace("{slug}", slug);
        return Ok(Page {
            ahead: Vec::new(),
            reviews: Vec::new(),
            next_cursor: None,
            order: Order::Unordered,
            meta: common::meta(
                wall_url.clone(),
                html::select(&doc, testimonial_to::TITLE)?
                    .first()
                    .map(|t| html::text(*t))
                    .filter(|t| !t.is_empty()),
                None,
                Some(0),
                json!({
                    "product": "testimonial.to",
                    "space": slug,
                    "tag": tag,
                    "wall_url": wall_url,
                    "embed_url": url,
                    "cards_loaded": 0,
                    "notice": format!("this Testimonial.to wall has no testimonials yet ({signal})"),
                }),
            ),
        });
    }
    testimonial_to::parse_embed(&body, slug, tag, 0, &url)
        .map_err(|e| common::missing(&response, WHAT, e))
}

/// A testimonial count the embed shows ("0 testimonials"), where it shows one.
fn shown_count(doc: &Html) -> Option<f64> {
    let text = listing::visible_text(doc.root_element()).to_lowercase();
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .find_map(|w| w[1].starts_with("testimonial").then(|| w[0].parse().ok())?)
}

#[cfg(test)]
mod tests;
