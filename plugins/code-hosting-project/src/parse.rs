//! Reading a reviews page: the reviews of the listing, the project's rating
//! summary, and the two pages that positively say there is nothing to list
//! (no reviews yet, or reviews not allowed). A page with none of these is a
//! changed layout, reported by the caller.

use std::rc::Rc;

use gleaner_sdk::html::{self, ElementRef, Html, Selector};
use gleaner_sdk::listing::{self, Shown};
use gleaner_sdk::review::{distinct_ids, stable_id, ReviewBuilder};
use gleaner_sdk::types::Review;
use gleaner_sdk::{date, FetchError};
use serde_json::json;

use crate::site::{self, SELECTORS};

/// The prefix of the content-hash ids of reviews the page gives no id.
pub const ID_PREFIX: &str = "sf-";

/// What the listing part of a reviews page holds.
#[derive(Debug)]
pub enum Listing {
    /// Reviews, in the page's order.
    Reviews(Vec<Review>),
    /// The page says the listing is empty: the project has no reviews (with
    /// this filter), or the offset is past the last one.
    Empty,
    /// The page says the project does not allow reviews to be posted.
    NotAllowed,
}

/// The project's rating summary, as the page shows it.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Summary {
    /// The project's name.
    pub name: Option<String>,
    /// The average rating, out of 5.
    pub average: Option<f64>,
    /// Reviews per star count, `(stars, count)`, five stars first; only the counts found.
    pub distribution: Vec<(u8, u64)>,
    /// Ratings of ease, features, design and support, each out of 5.
    pub dimensions: Vec<(String, f64)>,
}

impl Summary {
    /// All reviews, when the page shows the count of every star rating.
    pub fn total(&self) -> Option<u64> {
        (self.distribution.len() == 5).then(|| self.distribution.iter().map(|(_, c)| c).sum())
    }

    /// The reviews with `stars` stars, or all reviews without a filter.
    pub fn matching(&self, stars: Option<u8>) -> Option<u64> {
        match stars {
            None => self.total(),
            Some(n) => self
                .distribution
                .iter()
                .find(|(s, _)| *s == n)
                .map(|(_, c)| *c),
        }
    }

    /// The distribution as a JSON object keyed by star count.
    pub fn distribution_json(&self) -> serde_json::Value {
        let map: serde_json::Map<String, serde_json::Value> = self
            .distribution
            .iter()
            .map(|(s, c)| (s.to_string(), json!(c)))
            .collect();
        serde_json::Value::Object(map)
    }

    /// The dimensional ratings as a JSON object keyed by their names.
    pub fn dimensions_json(&self) -> serde_json::Value {
        let map: serde_json::Map<String, serde_json::Value> = self
            .dimensions
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        serde_json::Value::Object(map)
    }
}

/// A parsed reviews page.
#[derive(Debug)]
pub struct ReviewsPage {
    /// The listing.
    pub listing: Listing,
    /// The rating summary.
    pub summary: Summary,
}

/// The selectors a review needs (parsed ahead of the calls: `prepare`).
struct ReviewSelectors {
    author: Rc<Selector>,
    author_link: Rc<Selector>,
    date: Rc<Selector>,
    text: Rc<Selector>,
    lit_star: Rc<Selector>,
    helpful_box: Rc<Selector>,
    helpful_count: Rc<Selector>,
}

impl ReviewSelectors {
    fn new() -> Result<ReviewSelectors, FetchError> {
        Ok(ReviewSelectors {
            author: html::parsed(SELECTORS.author)?,
            author_link: html::parsed(SELECTORS.author_link)?,
            date: html::parsed(SELECTORS.date)?,
            text: html::parsed(SELECTORS.text)?,
            lit_star: html::parsed(SELECTORS.lit_star)?,
            helpful_box: html::parsed(SELECTORS.helpful_box)?,
            helpful_count: html::parsed(SELECTORS.helpful_count)?,
        })
    }
}

/// Parses a reviews page of project `slug`. `Ok(None)` when the page holds
/// none of what a reviews page has: the caller reports a wall or a changed layout.
pub fn page(text: &str, slug: &str) -> Result<Option<ReviewsPage>, FetchError> {
    let doc = Html::parse_document(text);
    let summary = summary(&doc)?;
    let s = ReviewSelectors::new()?;
    let mut reviews = Vec::new();
    for item in html::select(&doc, SELECTORS.review)? {
        if let Some(r) = review(item, &s, slug).map_err(FetchError::Upstream)? {
            reviews.push(r);
        }
    }
    let not_allowed = || -> Result<bool, FetchError> {
        Ok(html::select(&doc, SELECTORS.not_allowed)?
            .into_iter()
            .any(|p| {
                html::text(p)
                    .to_ascii_lowercase()
                    .contains(site::NOT_ALLOWED_TEXT)
            }))
    };
    let listing = if !reviews.is_empty() {
        // Two redacted authors may post the same words on one day.
        let mut reviews = reviews;
        distinct_ids(&mut reviews);
        Listing::Reviews(reviews)
    } else if not_allowed()? {
        Listing::NotAllowed
    } else if !html::select(&doc, SELECTORS.no_reviews)?.is_empty() || says_empty(&doc, &summary)? {
        Listing::Empty
    } else {
        return Ok(None);
    };
    Ok(Some(ReviewsPage { listing, summary }))
}

/// Whether a page without reviews says in its own words that there are
/// none: "Be the first to post a review", a 0.0 average, or rating widgets
/// that are all empty.
fn says_empty(doc: &Html, summary: &Summary) -> Result<bool, FetchError> {
    let widgets = html::select(doc, SELECTORS.dimension)?.len();
    let shown = [
        Shown::Number("average rating", summary.average),
        Shown::Widgets("dimensional ratings", widgets, summary.dimensions.len()),
    ];
    Ok(listing::no_reviews(doc, site::NO_REVIEWS_TEXTS, &shown).is_some())
}

/// The project's name and rating summary, wherever the page shows them.
fn summary(doc: &Html) -> Result<Summary, FetchError> {
    let first_text = |css: &str| -> Result<Option<String>, FetchError> {
        Ok(html::select(doc, css)?
            .first()
            .map(|e| html::text(*e))
            .filter(|t| !t.is_empty()))
    };
    let mut distribution = Vec::new();
    for n in (1..=5u8).rev() {
        if let Some(c) = first_text(&site::star_count_selector(n))?.and_then(|t| count(&t)) {
            distribution.push((n, c));
        }
    }
    let mut dimensions = Vec::new();
    for d in html::select(doc, SELECTORS.dimension)? {
        let label = html::first_text(d, SELECTORS.dimension_label);
        let score = html::first_text(d, SELECTORS.dimension_score).and_then(|t| number(&t));
        if let (Some(label), Some(score)) = (label, score) {
            dimensions.push((label.to_lowercase(), score));
        }
    }
    Ok(Summary {
        name: first_text(SELECTORS.project_name)?,
        average: first_text(SELECTORS.average)?
            .and_then(|t| number(&t))
            .filter(|v| (0.0..=5.0).contains(v)),
        distribution,
        dimensions,
    })
}

/// Maps one item of the listing; none when the item holds no author, date or
/// text (an item of some other list).
fn review(item: ElementRef<'_>, s: &ReviewSelectors, slug: &str) -> Result<Option<Review>, String> {
    let first = |sel: &Selector| item.select(sel).next();
    let author = first(&s.author).map(html::text).filter(|t| !t.is_empty());
    let date_text = first(&s.date).map(html::text).filter(|t| !t.is_empty());
    let text_el = first(&s.text);
    if author.is_none() && date_text.is_none() && text_el.is_none() {
        return Ok(None);
    }
    let text_html = text_el.map(|e| e.inner_html().trim().to_owned());
    let text_plain = text_el.map(html::text).unwrap_or_default();
    let date = date_text.as_deref().and_then(review_date);
    let lit = item.select(&s.lit_star).count();
    let rating = (1..=5).contains(&lit).then_some(lit as f64);
    let redacted = author.as_deref() == Some(site::REDACTED_AUTHOR);
    let name = author.clone().filter(|_| !redacted);
    let link = first(&s.author_link)
        .and_then(|a| a.value().attr("href"))
        .and_then(|href| gleaner_sdk::webpage::resolve(site::ORIGIN, href));
    let author_url = link.or_else(|| name.as_deref().map(site::author_url));
    let helpful = first(&s.helpful_box).map(|_| {
        first(&s.helpful_count)
            .and_then(|c| count(&html::text(c)))
            .map_or(0, |c| c as i64)
    });
    let element_id = item.value().id().map(str::trim).filter(|i| !i.is_empty());
    let id = match element_id {
        Some(i) => i.to_owned(),
        // A named author and the day name the review, so an edit of its
        // text keeps its id. Redacted authors share a name, so their text is
        // part of the hash (an edit of one reads as another review).
        None => {
            let text = if redacted { text_plain.as_str() } else { "" };
            let author = author.as_deref().unwrap_or_default();
            stable_id(
                ID_PREFIX,
                &[author, date.as_deref().unwrap_or_default(), text],
            )
        }
    };
    // The review's anchor where its item has an id, else the reviews page
    // that shows it (SourceForge gives no other permalink).
    let reviews_page = site::reviews_url(slug);
    let review_url = Some(match element_id {
        Some(i) => format!("{reviews_page}#{i}"),
        None => reviews_page,
    });
    ReviewBuilder::new(id)
        .text_html(text_html)
        .rating(rating, 5.0)
        .date(date)
        .author_name(name)
        .author_url(author_url)
        .helpful_votes(helpful)
        .review_url(review_url)
        .anonymous(redacted)
        .build()
        .map(Some)
}

/// "Posted 01/13/2017" → "2017-01-13".
pub fn review_date(text: &str) -> Option<String> {
    let t = text.trim();
    let rest = t
        .get(..site::DATE_PREFIX.len())
        .filter(|p| p.eq_ignore_ascii_case(site::DATE_PREFIX))
        .map_or(t, |_| &t[site::DATE_PREFIX.len()..]);
    date::parse(rest.trim(), None)
}

/// A count written with digits and thousands separators ("1,234").
fn count(text: &str) -> Option<u64> {
    let digits: String = text
        .trim()
        .chars()
        .filter(|c| *c != ',' && *c != '.')
        .collect();
    digits.parse().ok()
}

/// A decimal number ("3.8").
fn number(text: &str) -> Option<f64> {
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::Text;

    const PAGE_1: &str = include_str!("../tests/samples/openproj-offset-0.html");
    const RECORDING: &str = include_str!("../tests/samples/sourceforge_crawl_output_sample.jsonl");

    fn reviews(page: &ReviewsPage) -> &[Review] {
        match &page.listing {
            Listing::Reviews(r) => r,
            other => panic!("expected reviews, got {other:?}"),
        }
    }

    #[test]
    fn maps_a_review_of_the_2019_markup() {
        let page = page(PAGE_1, "openproj").unwrap().unwrap();
        let all = reviews(&page);
        assert_eq!(all.len(), 25);
        let r = &all[3];
        assert_eq!(r.author_name.as_deref(), Some("scotty1234"));
        assert_eq!(
            r.author_url.as_deref(),
            Some("https://sourceforge.net/u/scotty1234/")
        );
        assert_eq!(r.rating, Some(4.0));
        assert_eq!(r.rating_scale_max, Some(5.0));
        assert_eq!(r.date.as_deref(), Some("2014-07-29"));
        assert_eq!(r.helpful_votes, Some(2));
        assert!(matches!(&r.text, Some(Text::Html(t)) if t.starts_with("The print to a PDF")));
        assert!(r.id.starts_with("sf-"));
        assert_eq!(
            r.review_url.as_deref(),
            Some(site::reviews_url("openproj").as_str())
        );
        assert_eq!(all[0].helpful_votes, Some(0));
        let redacted = &all[10];
        assert_eq!(redacted.author_name, None);
        assert_eq!(redacted.author_url, None);
        assert!(redacted.anonymous);
        assert!(!r.anonymous);
        assert!(
            r.extra_json.is_empty(),
            "nothing particular to the site is left"
        );
    }

    #[test]
    fn reads_the_rating_summary() {
        let page = page(PAGE_1, "openproj").unwrap().unwrap();
        let s = &page.summary;
        assert_eq!(s.name.as_deref(), Some("OpenProj - Project Management"));
        assert_eq!(s.average, Some(3.8));
        assert_eq!(
            s.distribution,
            vec![(5, 91), (4, 1), (3, 4), (2, 0), (1, 38)]
        );
        assert_eq!(s.total(), Some(134));
        assert_eq!(s.matching(Some(1)), Some(38));
        assert_eq!(s.matching(None), Some(134));
        assert_eq!(s.dimensions[0], ("ease".to_owned(), 3.0));
        assert_eq!(s.dimensions.len(), 4);
    }

    /// Every review of every listing page equals the recorded values.
    #[test]
    fn the_pages_carry_the_recorded_values() {
        let pages = [
            include_str!("../tests/samples/openproj-offset-0.html"),
            include_str!("../tests/samples/openproj-offset-25.html"),
            include_str!("../tests/samples/openproj-offset-50.html"),
            include_str!("../tests/samples/openproj-offset-75.html"),
            include_str!("../tests/samples/openproj-offset-100.html"),
            include_str!("../tests/samples/openproj-offset-125.html"),
        ];
        let parsed: Vec<Review> = pages
            .iter()
            .flat_map(|p| reviews(&page(p, "openproj").unwrap().unwrap()).to_vec())
            .collect();
        let line = RECORDING
            .lines()
            .find(|l| l.contains("\"name\": \"OpenProj - Project Management\""))
            .unwrap();
        let project: serde_json::Value = serde_json::from_str(line).unwrap();
        // The map sorts its keys: restore the recording's order from the line itself.
        let mut recorded: Vec<(&String, &serde_json::Value)> = project["user_reviews"]
            .as_object()
            .unwrap()
            .iter()
            .collect();
        let position = |key: &str| line.find(&format!("{}: {{", json!(key))).unwrap();
        recorded.sort_by_key(|(key, _)| position(key));
        assert_eq!(parsed.len(), recorded.len());
        for (r, (key, v)) in parsed.iter().zip(recorded) {
            let name = key.split('_').next().unwrap_or_default();
            let expected = (name != "<REDACTED>").then(|| key.clone());
            assert_eq!(r.author_name, expected);
            assert_eq!(r.rating, v["stars"].as_f64());
            let (m, rest) = v["date"].as_str().unwrap().split_at(2);
            let (d, y) = rest[1..].split_at(2);
            assert_eq!(
                r.date.as_deref(),
                Some(format!("{}-{m}-{d}", &y[1..]).as_str())
            );
            assert_eq!(
                r.helpful_votes.map(|h| h.to_string()).as_deref(),
                v["help-count"].as_str()
            );
            let Some(Text::Html(h)) = &r.text else {
                panic!("no text")
            };
            let plain = html::text(Html::parse_fragment(h).root_element());
            let expected: String = v["review_txt"]
                .as_str()
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            assert_eq!(plain, expected, "{key}");
        }
        let ids: std::collections::HashSet<_> = parsed.iter().map(|r| &r.id).collect();
        assert_eq!(ids.len(), parsed.len(), "ids are unique");
    }

    #[test]
    fn tells_the_empty_and_closed_pages_apart() {
        let empty = include_str!("../tests/samples/no-reviews.html");
        let page_e = page(empty, "x").unwrap().unwrap();
        assert!(matches!(page_e.listing, Listing::Empty));
        let closed = include_str!("../tests/samples/reviews-not-allowed.html");
        assert!(matches!(
            page(closed, "x").unwrap().unwrap().listing,
            Listing::NotAllowed
        ));
        let changed = include_str!("../tests/samples/layout-changed.html");
        assert!(page(changed, "x").unwrap().is_none());
    }

    #[test]
    fn keeps_paragraphs_ids_and_links_of_other_markup() {
        let markup = r#"<ul id="project-reviews">
          <li id="review-81"><div class="stars"><span class="star yellow"></span><span class="star yellow"></span><span class="star"></span></div>
            <div class="review-txt-outer"><div class="review-txt"><p>First.</p><p>Second<br>line.</p></div></div>
            <div class="footer"><span class="author-name">ann</span><span class="created-date">Posted 12/31/2018</span></div></li>
          <li><span>not a review</span></li>
        </ul><div class="stars-5"><span class="rating-label">1,234</span></div>"#;
        let page = page(markup, "demo").unwrap().unwrap();
        let all = reviews(&page);
        assert_eq!(all.len(), 1);
        let r = &all[0];
        assert_eq!(r.id, "review-81");
        assert_eq!(
            r.review_url.as_deref(),
            Some("https://sourceforge.net/projects/demo/reviews/#review-81")
        );
        assert_eq!(
            r.author_url.as_deref(),
            Some("https://sourceforge.net/u/ann/")
        );
        assert_eq!(r.rating, Some(2.0));
        assert_eq!(r.helpful_votes, None);
        assert!(
            matches!(&r.text, Some(Text::Html(t)) if t == "<p>First.</p><p>Second<br>line.</p>")
        );
        assert_eq!(page.summary.distribution, vec![(5, 1234)]);
        assert_eq!(page.summary.total(), None);
    }

    #[test]
    fn reads_dates_and_counts() {
        assert_eq!(
            review_date("Posted 01/13/2017").as_deref(),
            Some("2017-01-13")
        );
        assert_eq!(review_date("01/13/2017").as_deref(), Some("2017-01-13"));
        assert_eq!(review_date("Posted"), None);
        assert_eq!(count("1,234"), Some(1234));
        assert_eq!(count("many"), None);
    }
}
