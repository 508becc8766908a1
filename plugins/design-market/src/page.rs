//! Reading a product page: the review list of its reviews section (CSS
//! selectors, all in [`crate::selectors::SELECTORS`]), the JSON-LD `Product` block (name, shop,
//! average rating, review count and, as a fallback, `review[]`), and the link
//! to the next page of reviews.

use gleaner_sdk::embedded::json_ld;
use gleaner_sdk::html::{self, ElementRef, Html};
use gleaner_sdk::json::string;
use gleaner_sdk::listing::{self, Shown};
use gleaner_sdk::number;
use gleaner_sdk::types::Review;
use gleaner_sdk::FetchError;
use serde_json::Value;

use crate::reviews::{self, Context};
use crate::selectors::SELECTORS;

/// Creative Market's own "no reviews" wording (lower-cased), besides the
/// SDK's generic phrases.
pub const NO_REVIEW_TEXTS: &[&str] = &["be the first to add a review"];

/// Where a page's reviews came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipe {
    /// The review list of the reviews section.
    Html,
    /// The JSON-LD `Product` block's `review[]` (no review list on the page).
    JsonLd,
}

impl Recipe {
    /// Its name in `extra_information.source.recipe`.
    pub fn name(self) -> &'static str {
        match self {
            Recipe::Html => "html",
            Recipe::JsonLd => "json-ld",
        }
    }
}

/// The product as the page describes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProductInfo {
    /// Product name.
    pub name: Option<String>,
    /// The shop's display name.
    pub shop_name: Option<String>,
    /// Average rating (1–5).
    pub average: Option<f64>,
    /// Number of reviews the page counts.
    pub total: Option<u64>,
}

/// One product page, read.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// What the page says about the product.
    pub product: ProductInfo,
    /// The page's reviews, in page order.
    pub reviews: Vec<Review>,
    /// Where they came from; none when the page has none.
    pub recipe: Option<Recipe>,
    /// The next page of reviews (absolute URL), as the page links it.
    pub next: Option<String>,
    /// Whether the reviews section was found.
    pub section: bool,
    /// Whether the page says the product has no reviews yet.
    pub says_empty: bool,
    /// When the page shows no review: what on it says there are none (its
    /// "no reviews yet" note, a "no reviews" text, a count or average shown
    /// as 0), if anything.
    pub empty_signal: Option<String>,
}

/// Reads a product page. `page_url` is the URL that answered (relative links
/// resolve against it); `ctx` says what the reviews are mapped against.
pub fn parse(html_text: &str, page_url: &str, ctx: &Context) -> Result<Parsed, FetchError> {
    let doc = Html::parse_document(html_text);
    let s = &SELECTORS;
    let ld_product = json_ld(html_text).into_iter().find(is_product);
    let mut product = ld_product.as_ref().map(product_info).unwrap_or_default();
    let section = html::select(&doc, s.section)?.into_iter().next();
    let root = section.unwrap_or(doc.root_element());
    if product.name.is_none() {
        product.name = html::first_text(doc.root_element(), s.product_name);
    }
    if product.average.is_none() {
        product.average = html::first_text(root, s.average).and_then(|t| stars(&t));
    }
    if product.total.is_none() {
        product.total = html::first_text(root, s.count).and_then(|t| number::first_count(&t));
    }
    let ctx = Context {
        shop_name: product.shop_name.clone().or(ctx.shop_name.clone()),
        ..ctx.clone()
    };
    let elements: Vec<ElementRef<'_>> = root.select(&*html::parsed(s.review)?).collect();
    let mut reviews_out = Vec::new();
    let mut recipe = None;
    if !elements.is_empty() {
        recipe = Some(Recipe::Html);
        for el in elements {
            reviews_out.push(reviews::from_html(el, &ctx).map_err(FetchError::Upstream)?);
        }
    } else if let Some(items) = ld_product.as_ref().and_then(|p| p["review"].as_array()) {
        for item in items {
            reviews_out.push(reviews::from_json_ld(item, &ctx).map_err(FetchError::Upstream)?);
        }
        recipe = (!reviews_out.is_empty()).then_some(Recipe::JsonLd);
    }
    let empty_signal = if reviews_out.is_empty() {
        let note = root
            .select(&*html::parsed(s.empty)?)
            .next()
            .map(|e| format!("the page says {:?} (`{}`)", html::text(e), s.empty));
        let shown = [
            Shown::Number("review count", product.total.map(|n| n as f64)),
            Shown::Number("average rating", product.average),
        ];
        note.or_else(|| listing::no_reviews(&doc, NO_REVIEW_TEXTS, &shown))
    } else {
        None
    };
    Ok(Parsed {
        product,
        reviews: reviews_out,
        recipe,
        next: next_link(root, page_url),
        section: section.is_some(),
        says_empty: empty_signal.is_some(),
        empty_signal,
    })
}

fn is_product(v: &Value) -> bool {
    match &v["@type"] {
        Value::String(t) => t == "Product",
        Value::Array(types) => types.iter().any(|t| t == "Product"),
        _ => false,
    }
}

/// Name, shop, average and count from a JSON-LD `Product`.
fn product_info(p: &Value) -> ProductInfo {
    let aggregate = &p["aggregateRating"];
    let named = |v: &Value| string(&v["name"]).or_else(|| string(v));
    ProductInfo {
        name: string(&p["name"]),
        shop_name: named(&p["brand"]).or_else(|| named(&p["offers"]["seller"])),
        average: number::of_json(&aggregate["ratingValue"]).filter(|v| (0.0..=5.0).contains(v)),
        total: number::of_json(&aggregate["reviewCount"])
            .or_else(|| number::of_json(&aggregate["ratingCount"]))
            .filter(|n| *n >= 0.0)
            .map(|n| n as u64),
    }
}

fn stars(text: &str) -> Option<f64> {
    gleaner_sdk::rating::parse(text, 5.0)
        .filter(|(_, max)| *max == 5.0)
        .map(|(v, _)| v)
}

/// The "more reviews" link, resolved against the page.
fn next_link(root: ElementRef<'_>, page_url: &str) -> Option<String> {
    let href = html::first_attr(root, SELECTORS.next, "href")?;
    gleaner_sdk::webpage::url::resolve(page_url, &href)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        Context {
            product_url: "https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family"
                .into(),
            page_url: "https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family".into(),
            shop_name: None,
            today: gleaner_sdk::date::Served::from_http("Tue, 02 Apr 2024 12:00:00 GMT"),
        }
    }

    const PAGE_1: &str = include_str!("../tests/samples/alder-newest-1.html");
    const FALLBACK: &str = include_str!("../tests/samples/juniper-json-ld-only.html");
    const CHANGED: &str = include_str!("../tests/samples/layout-changed.html");
    const EMPTY: &str = include_str!("../tests/samples/no-reviews.html");

    #[test]
    fn reads_the_review_list_and_the_product() {
        let c = ctx();
        let p = parse(PAGE_1, &c.page_url, &c).unwrap();
        assert_eq!(p.recipe, Some(Recipe::Html));
        assert_eq!(p.reviews.len(), 5);
        assert_eq!(p.product.name.as_deref(), Some("Alder Serif Family"));
        assert_eq!(p.product.shop_name.as_deref(), Some("Northwind Type Co."));
        assert_eq!(p.product.average, Some(4.2));
        assert_eq!(p.product.total, Some(12));
        assert_eq!(
            p.next.as_deref(),
            Some("https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family?page=2")
        );
        assert!(p.section && !p.says_empty);
    }

    #[test]
    fn falls_back_to_json_ld_reviews() {
        let c = Context {
            product_url: "https://creativemarket.com/NorthwindType/5550001-Juniper-Script".into(),
            page_url: "https://creativemarket.com/NorthwindType/5550001-Juniper-Script".into(),
            ..ctx()
        };
        let p = parse(FALLBACK, &c.page_url, &c).unwrap();
        assert_eq!(p.recipe, Some(Recipe::JsonLd));
        assert_eq!(p.reviews.len(), 3);
        assert_eq!(p.product.total, Some(5));
        assert!(p.next.is_none());
    }

    #[test]
    fn tells_an_empty_product_from_a_changed_page() {
        let c = ctx();
        let empty = parse(EMPTY, &c.page_url, &c).unwrap();
        assert!(empty.reviews.is_empty() && empty.says_empty);
        let changed = parse(CHANGED, &c.page_url, &c).unwrap();
        assert!(changed.reviews.is_empty() && !changed.says_empty && !changed.section);
        assert_eq!(changed.product.total, Some(7));
    }

    #[test]
    fn reads_counts_and_ratings_as_text() {
        assert_eq!(number::first_count("1,204 Reviews"), Some(1204));
        assert_eq!(number::first_count("Reviews"), None);
        assert_eq!(stars("4.5"), Some(4.5));
        assert_eq!(number::of_json(&serde_json::json!("4.80")), Some(4.8));
        let html = r#"<html><h1>Plain Name</h1><section id="reviews">
            <span class="product-reviews__average">4.5</span>
            <span class="product-reviews__count">1,204 Reviews</span></section></html>"#;
        let c = ctx();
        let p = parse(html, &c.page_url, &c).unwrap();
        assert_eq!(p.product.name.as_deref(), Some("Plain Name"));
        assert_eq!(p.product.average, Some(4.5));
        assert_eq!(p.product.total, Some(1204));
        assert!(p.recipe.is_none());
    }
}
