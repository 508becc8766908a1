//! Reading a consumer-reviews page: the vehicle's summary (name, average
//! rating, review count, share of owners who recommend it, category averages),
//! its review cards and the link to the next page. Every CSS selector is in
//! [`crate::selectors::SELECTORS`].

use gleaner_sdk::html::{self, ElementRef, Html};
use gleaner_sdk::listing::{self, Shown};
use gleaner_sdk::number;
use gleaner_sdk::types::Review;
use gleaner_sdk::FetchError;
use serde_json::{Map, Value};

use crate::reviews::{self, Context};
use crate::selectors::SELECTORS;

/// How the page says it lists nothing, besides the SDK's common wording: for
/// the vehicle, and for a star filter.
pub const NO_REVIEW_TEXTS: &[&str] = &[
    "no consumer reviews yet",
    "no reviews match the selected rating",
];

/// The vehicle as the page's summary describes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// The vehicle's name ("2021 Mazda CX-5").
    pub name: Option<String>,
    /// Average rating, 1–5.
    pub average: Option<f64>,
    /// Number of reviews the page counts (all stars).
    pub total: Option<u64>,
    /// Share of reviewers who recommend it, in percent.
    pub recommend_percent: Option<f64>,
    /// Category averages, by category key.
    pub category_averages: Map<String, Value>,
}

/// One consumer-reviews page, read.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// What the page says about the vehicle.
    pub summary: Summary,
    /// The page's reviews, in page order.
    pub reviews: Vec<Review>,
    /// The next page of reviews (absolute URL), as the page links it.
    pub next: Option<String>,
    /// Whether the page shows its empty-list note ([`Selectors::empty`]).
    pub says_empty: bool,
    /// For a page without review cards: how it says it has none (a "no
    /// reviews" text, a zero count or average, the empty-list note); None
    /// when nothing says so, so the layout changed.
    pub no_reviews: Option<String>,
}

/// Reads a page. `page_url` is the URL that answered (relative links resolve
/// against it); `ctx` says what the reviews are mapped against.
pub fn parse(html_text: &str, page_url: &str, ctx: &Context) -> Result<Parsed, FetchError> {
    let doc = Html::parse_document(html_text);
    let s = &SELECTORS;
    let root = doc.root_element();
    let mut reviews_out = Vec::new();
    for card in html::select(&doc, s.review)? {
        reviews_out.push(reviews::from_card(card, ctx).map_err(FetchError::Upstream)?);
    }
    let next = html::first_attr(root, s.next, "href")
        .and_then(|href| gleaner_sdk::webpage::url::resolve(page_url, &href));
    let summary = summary(root)?;
    let says_empty = !html::select(&doc, s.empty)?.is_empty();
    let no_reviews = if reviews_out.is_empty() {
        let shown = [
            Shown::Number("review count", summary.total.map(|n| n as f64)),
            Shown::Number("average rating", summary.average),
        ];
        listing::no_reviews(&doc, NO_REVIEW_TEXTS, &shown)
            .or_else(|| says_empty.then(|| format!("the page shows `{}`", s.empty)))
    } else {
        None
    };
    Ok(Parsed {
        summary,
        reviews: reviews_out,
        next,
        says_empty,
        no_reviews,
    })
}

fn summary(root: ElementRef<'_>) -> Result<Summary, FetchError> {
    let s = &SELECTORS;
    let mut category_averages = Map::new();
    for item in root.select(&*html::parsed(s.category_average)?) {
        let value =
            html::first_text(item, s.category_average_value).and_then(|v| number::parse(&v));
        let label = html::text(item);
        let label = label.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ');
        if let (Some(value), Some(key)) = (value, reviews::category_key(label)) {
            category_averages.insert(key, value.into());
        }
    }
    Ok(Summary {
        name: html::first_text(root, s.heading).map(|h| vehicle_name(&h)),
        average: html::first_text(root, s.average)
            .and_then(|t| number::parse(&t))
            .filter(|v| (0.0..=5.0).contains(v)),
        total: html::first_text(root, s.count).and_then(|t| number::first_count(&t)),
        recommend_percent: html::first_text(root, s.recommend_share)
            .and_then(|t| number::parse(t.split('%').next()?))
            .filter(|p| (0.0..=100.0).contains(p)),
        category_averages,
    })
}

/// "2021 Mazda CX-5 consumer reviews" → "2021 Mazda CX-5".
fn vehicle_name(heading: &str) -> String {
    let lower = heading.to_ascii_lowercase();
    ["consumer reviews", "reviews"]
        .iter()
        .find_map(|suffix| {
            lower
                .strip_suffix(suffix)
                .map(|rest| heading[..rest.len()].trim())
        })
        .filter(|name| !name.is_empty())
        .unwrap_or(heading)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        Context {
            reviews_url: "https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/".into(),
            today: gleaner_sdk::date::Served::from_http("Mon, 03 Jun 2024 12:00:00 GMT"),
        }
    }

    const PAGE_1: &str = include_str!("../tests/samples/cx5-newest-1.html");
    const CHANGED: &str = include_str!("../tests/samples/layout-changed.html");
    const EMPTY: &str = include_str!("../tests/samples/no-reviews.html");

    #[test]
    fn reads_the_cards_the_summary_and_the_next_link() {
        let c = ctx();
        let url = format!("{}?page_size=5&sort=newest", c.reviews_url);
        let p = parse(PAGE_1, &url, &c).unwrap();
        assert_eq!(p.reviews.len(), 5);
        assert_eq!(p.summary.name.as_deref(), Some("2021 Mazda CX-5"));
        assert_eq!(p.summary.average, Some(4.1));
        assert_eq!(p.summary.total, Some(12));
        assert_eq!(p.summary.recommend_percent, Some(83.0));
        assert_eq!(p.summary.category_averages["comfort"], 4.3);
        assert_eq!(p.summary.category_averages["value"], 4.0);
        assert_eq!(
            p.next.as_deref(),
            Some("https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/?page=2&page_size=5&sort=newest")
        );
        assert!(!p.says_empty);
    }

    #[test]
    fn tells_an_empty_list_from_a_changed_page() {
        let c = ctx();
        let empty = parse(EMPTY, &c.reviews_url, &c).unwrap();
        assert!(empty.reviews.is_empty() && empty.says_empty);
        let said = empty.no_reviews.unwrap_or_default();
        assert!(said.contains("the page says"), "{said}");
        let changed = parse(CHANGED, &c.reviews_url, &c).unwrap();
        assert!(changed.reviews.is_empty() && !changed.says_empty);
        assert_eq!(changed.no_reviews, None);
        assert_eq!(changed.summary.total, Some(40));
    }

    #[test]
    fn reads_names_and_numbers_as_text() {
        assert_eq!(
            vehicle_name("2021 Mazda CX-5 consumer reviews"),
            "2021 Mazda CX-5"
        );
        assert_eq!(vehicle_name("2021 Mazda CX-5 Reviews"), "2021 Mazda CX-5");
        assert_eq!(vehicle_name("Consumer reviews"), "Consumer reviews");
        assert_eq!(number::first_count("Based on 1,204 reviews"), Some(1204));
        assert_eq!(number::first_count("No reviews"), None);
        assert_eq!(number::parse(" 4.6 "), Some(4.6));
        assert_eq!(number::parse("n/a"), None);
    }
}
