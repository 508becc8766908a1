//! Reading a reviews page with the selectors of [`crate::SELECTORS`]: the
//! reviews, what the page shows about the item, whether a next page exists,
//! and whether the page says the item has no reviews.

use std::rc::Rc;

use gleaner_sdk::html::{self, ElementRef, Html, Selector};
use gleaner_sdk::listing::{self, Shown};
use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::types::Review;
use gleaner_sdk::webpage::url::resolve;
use gleaner_sdk::FetchError;
use serde_json::json;

use crate::dates::{self, Served};
use crate::SELECTORS;

/// Envato ratings are 1 to 5 stars.
pub const SCALE: f64 = 5.0;

/// The selectors, each parsed once per instance (before any call: the
/// plugin's `prepare` parses [`Selectors::css`]).
struct Compiled {
    review: Rc<Selector>,
    stars: Rc<Selector>,
    empty_stars: Rc<Selector>,
    rating_text: Rc<Selector>,
    reason: Rc<Selector>,
    reason_name: Rc<Selector>,
    reviewer: Rc<Selector>,
    reviewer_avatar: Rc<Selector>,
    date: Rc<Selector>,
    permalink: Rc<Selector>,
    text: Rc<Selector>,
    reply: Rc<Selector>,
    reply_paragraphs: Rc<Selector>,
    reply_label: Rc<Selector>,
    reply_avatar: Rc<Selector>,
    item_name: Rc<Selector>,
    og_title: Rc<Selector>,
    item_author: Rc<Selector>,
    item_rating: Rc<Selector>,
    item_review_count: Rc<Selector>,
    canonical: Rc<Selector>,
    next_page: Rc<Selector>,
    no_reviews: Rc<Selector>,
}

impl Compiled {
    fn new() -> Result<Compiled, FetchError> {
        let s = SELECTORS;
        let c = html::parsed;
        Ok(Compiled {
            review: c(s.review)?,
            stars: c(s.stars)?,
            empty_stars: c(s.empty_stars)?,
            rating_text: c(s.rating_text)?,
            reason: c(s.reason)?,
            reason_name: c(s.reason_name)?,
            reviewer: c(s.reviewer)?,
            reviewer_avatar: c(s.reviewer_avatar)?,
            date: c(s.date)?,
            permalink: c(s.permalink)?,
            text: c(s.text)?,
            reply: c(s.reply)?,
            reply_paragraphs: c(s.reply_paragraphs)?,
            reply_label: c(s.reply_label)?,
            reply_avatar: c(s.reply_avatar)?,
            item_name: c(s.item_name)?,
            og_title: c(s.og_title)?,
            item_author: c(s.item_author)?,
            item_rating: c(s.item_rating)?,
            item_review_count: c(s.item_review_count)?,
            canonical: c(s.canonical)?,
            next_page: c(s.next_page)?,
            no_reviews: c(s.no_reviews)?,
        })
    }
}

/// What the page shows about the item.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemSummary {
    /// The item's name.
    pub name: Option<String>,
    /// The item author's username.
    pub author: Option<String>,
    /// The average rating.
    pub average_rating: Option<f64>,
    /// The number of reviews.
    pub review_count: Option<u64>,
    /// The canonical URL.
    pub canonical: Option<String>,
}

/// One page, read.
#[derive(Debug, Clone)]
pub struct ParsedPage {
    /// The reviews, in page order.
    pub reviews: Vec<Review>,
    /// The item header.
    pub item: ItemSummary,
    /// Whether the page links a next page.
    pub has_next: bool,
    /// The page's own "no reviews" statement.
    pub no_reviews: Option<String>,
    /// When the page lists no review: what on it says the item has none (a
    /// "no reviews" text, a review count or average shown as 0), if anything.
    pub empty_signal: Option<String>,
    /// Whether a review's date was relative.
    pub relative_dates: bool,
}

impl ParsedPage {
    /// Whether the page shows the item (its name, rating or review count).
    pub fn shows_item(&self) -> bool {
        let i = &self.item;
        i.name.is_some() || i.average_rating.is_some() || i.review_count.is_some()
    }

    /// Whether any selector found anything; a page where none does has changed layout.
    pub fn recognised(&self) -> bool {
        !self.reviews.is_empty()
            || self.shows_item()
            || self.has_next
            || self.no_reviews.is_some()
            || self.empty_signal.is_some()
    }
}

fn first<'a>(scope: ElementRef<'a>, s: &Selector) -> Option<ElementRef<'a>> {
    scope.select(s).next()
}

fn text_of(scope: ElementRef<'_>, s: &Selector) -> Option<String> {
    first(scope, s).map(html::text).filter(|t| !t.is_empty())
}

fn attr_of(scope: ElementRef<'_>, s: &Selector, name: &str) -> Option<String> {
    first(scope, s)
        .and_then(|e| e.value().attr(name))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

/// The first number in a text ("4.00 4.00 stars" → 4.0, "1,234" → 1234).
fn number(text: &str) -> Option<f64> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_ascii_digit())
                .replace(',', "")
        })
        .find_map(|w| w.parse::<f64>().ok())
}

/// Reads a page served at `page_url` on the day `reference`.
pub fn parse_page(
    html_text: &str,
    page_url: &str,
    reference: Option<Served>,
) -> Result<ParsedPage, FetchError> {
    let s = Compiled::new()?;
    let doc = Html::parse_document(html_text);
    let root = doc.root_element();
    let mut reviews = Vec::new();
    let mut relative_dates = false;
    for article in doc.select(&s.review) {
        let (review, relative) = review(article, &s, page_url, reference)?;
        relative_dates |= relative;
        reviews.push(review);
    }
    let item = ItemSummary {
        name: text_of(root, &s.item_name).or_else(|| attr_of(root, &s.og_title, "content")),
        author: text_of(root, &s.item_author),
        average_rating: text_of(root, &s.item_rating)
            .and_then(|t| number(&t))
            .filter(|r| (0.0..=SCALE).contains(r)),
        review_count: text_of(root, &s.item_review_count)
            .and_then(|t| number(&t))
            .filter(|n| n.fract() == 0.0 && *n >= 0.0)
            .map(|n| n as u64),
        canonical: attr_of(root, &s.canonical, "href").and_then(|h| resolve(page_url, &h)),
    };
    let no_reviews = text_of(root, &s.no_reviews);
    let empty_signal = if reviews.is_empty() {
        let shown = [
            Shown::Number("review count", item.review_count.map(|n| n as f64)),
            Shown::Number("average rating", item.average_rating),
        ];
        let statement = no_reviews
            .as_ref()
            .map(|t| format!("the page says {t:?} (`{}`)", SELECTORS.no_reviews));
        statement.or_else(|| listing::no_reviews(&doc, &[], &shown))
    } else {
        None
    };
    Ok(ParsedPage {
        reviews,
        item,
        has_next: first(root, &s.next_page).is_some(),
        no_reviews,
        empty_signal,
        relative_dates,
    })
}

/// The stars of a review: the icons minus the grey ones, or an accessible
/// "Rated N out of 5"; 1 to 5, or none.
fn stars(article: ElementRef<'_>, s: &Compiled) -> Option<f64> {
    let icons = article.select(&s.stars).count();
    let rating = if icons > 0 {
        Some(icons.saturating_sub(article.select(&s.empty_stars).count()) as f64)
    } else {
        let text = text_of(article, &s.rating_text)?;
        let lower = text.to_ascii_lowercase();
        let phrase = lower.split("rated").nth(1).unwrap_or(&lower);
        gleaner_sdk::rating::parse(phrase.split(',').next()?.trim(), SCALE)
            .filter(|(_, max)| *max == SCALE)
            .map(|(v, _)| v)
    };
    rating.filter(|r| (1.0..=SCALE).contains(r))
}

/// The item author's response, as the page shows it.
#[derive(Debug, Default)]
struct OwnerReply {
    /// Its paragraphs as HTML (the label paragraph, a lone `<strong>`, left out).
    html: Option<String>,
    /// The responder's name (the avatar's `alt`).
    author: Option<String>,
    /// The label above it ("Author response").
    label: Option<String>,
    /// The responder's avatar.
    avatar: Option<String>,
}

/// Reads the item author's response of a review article.
fn reply(article: ElementRef<'_>, s: &Compiled, page_url: &str) -> OwnerReply {
    let Some(body) = first(article, &s.reply) else {
        return OwnerReply::default();
    };
    let mut label = None;
    let mut parts = Vec::new();
    for p in body.select(&s.reply_paragraphs) {
        if p.parent().map(|n| n.id()) != Some(body.id()) {
            continue;
        }
        let text = html::text(p);
        let strong = text_of(p, &s.reply_label);
        if strong.as_deref() == Some(text.as_str()) && label.is_none() && parts.is_empty() {
            label = strong;
        } else if !text.is_empty() {
            parts.push(p.html());
        }
    }
    OwnerReply {
        html: (!parts.is_empty()).then(|| parts.join("\n")),
        author: attr_of(article, &s.reply_avatar, "alt"),
        label,
        avatar: attr_of(article, &s.reply_avatar, "src").and_then(|src| resolve(page_url, &src)),
    }
}

/// Maps one review article; also says whether its date was relative.
fn review(
    article: ElementRef<'_>,
    s: &Compiled,
    page_url: &str,
    reference: Option<Served>,
) -> Result<(Review, bool), FetchError> {
    let id = article
        .value()
        .attr("id")
        .and_then(|v| v.strip_prefix("review_"))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            FetchError::Upstream(format!(
                "{page_url}: a review element has no id after `review_`; the layout changed"
            ))
        })?
        .to_owned();
    let rating = stars(article, s);
    let reason = text_of(article, &s.reason_name).or_else(|| {
        text_of(article, &s.reason).map(|t| t.strip_prefix("for ").unwrap_or(&t).to_owned())
    });
    let reviewer = first(article, &s.reviewer);
    let name = reviewer.map(html::text).filter(|t| !t.is_empty());
    let profile = reviewer
        .and_then(|a| a.value().attr("href"))
        .and_then(|h| resolve(page_url, h));
    let date = dates::review_date(&text_of(article, &s.date).unwrap_or_default(), reference);
    let permalink = attr_of(article, &s.permalink, "href").and_then(|h| resolve(page_url, &h));
    let paragraphs: Vec<String> = article.select(&s.text).map(|p| p.html()).collect();
    let text = (!paragraphs.is_empty()).then(|| paragraphs.join("\n"));
    if rating.is_none() && name.is_none() && text.is_none() {
        return Err(FetchError::Upstream(format!(
            "{page_url}: review {id} shows no rating, reviewer or text where the plugin reads them \
             ({}, {}, {}); the page layout changed and the plugin needs an update",
            SELECTORS.stars, SELECTORS.reviewer, SELECTORS.text
        )));
    }
    let owner = reply(article, s, page_url);
    let review_url = permalink.or_else(|| {
        let base = page_url.split(['?', '#']).next().unwrap_or(page_url);
        Some(format!("{base}#review_{id}"))
    });
    let resolved_against = (date.relative && date.iso.is_some())
        .then(|| reference.map(|r| dates::iso_day(r.day())))
        .flatten();
    let built = ReviewBuilder::new(id)
        .title(reason.clone())
        .text_html(text)
        .rating(rating, SCALE)
        .date(date.iso.clone())
        .author_name(name)
        .author_url(profile)
        .author_image(
            attr_of(article, &s.reviewer_avatar, "src").and_then(|src| resolve(page_url, &src)),
        )
        .review_url(review_url)
        .reply_html(owner.html, None, owner.author)
        .extra(json!({
            "reason": reason,
            "date_text": (!date.text.is_empty()).then_some(&date.text),
            "date_approximate": date.relative,
            "date_resolved_against": resolved_against,
            "reply_label": owner.label,
            "reply_author_avatar": owner.avatar,
        }))
        .build()
        .map_err(|e| FetchError::Upstream(format!("{page_url}: {e}")))?;
    Ok((built, date.relative))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::Text;

    /// The recorded review article, byte for byte.
    const ARTICLE: &str = include_str!("../tests/samples/envato-review-article-3035260-2019.html");
    const URL: &str = "https://codecanyon.net/item/example-mobile-app-script/reviews/21000000?utf8=%E2%9C%93&reviews_controls%5Bsort%5D=date_descending";

    fn page(body: &str) -> ParsedPage {
        parse_page(
            &format!("<html><body>{body}</body></html>"),
            URL,
            Served::from_http("Fri, 18 Oct 2019 12:00:00 GMT"),
        )
        .unwrap()
    }

    #[test]
    fn maps_the_recorded_article() {
        let parsed = page(ARTICLE);
        assert_eq!(parsed.reviews.len(), 1);
        let r = &parsed.reviews[0];
        assert_eq!(r.id, "3035260");
        assert_eq!(r.rating, Some(1.0));
        assert_eq!(r.rating_scale_max, Some(5.0));
        assert_eq!(r.title.as_deref(), Some("Documentation Quality"));
        assert_eq!(r.author_name.as_deref(), Some("gato06"));
        assert_eq!(
            r.author_url.as_deref(),
            Some("https://codecanyon.net/user/gato06")
        );
        assert_eq!(r.author_profile_image_url, None);
        assert_eq!(
            r.review_url.as_deref(),
            Some("https://codecanyon.net/ratings/3035260")
        );
        assert_eq!(
            r.date.as_deref(),
            Some("2019-08"),
            "2 months ago: the month"
        );
        assert!(
            matches!(&r.text, Some(Text::Html(h)) if h.starts_with("<p class=\"t-body h-my1\">Hello, I always liked")
            && h.ends_with("after you buy the code.</p>"))
        );
        let reply = r.reply.as_ref().unwrap();
        assert_eq!(reply.author.as_deref(), Some("qboxus"));
        assert_eq!(reply.date, None);
        assert!(
            matches!(&reply.text, Text::Html(h) if h.starts_with("<p class=\"t-body h-my1\">hello gato06")
            && h.contains("<br>skype: hello@qboxus.com") && !h.contains("Author response"))
        );
        let extra: serde_json::Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["reason"], "Documentation Quality");
        assert_eq!(extra["date_text"], "2 months ago");
        assert_eq!(extra["date_approximate"], true);
        assert_eq!(extra["date_resolved_against"], "2019-10-18");
        assert_eq!(extra["reply_label"], "Author response");
        assert_eq!(
            extra["reply_author_avatar"],
            "https://s3.envato.com/files/262672290/qboxus.jpg"
        );
        assert!(parsed.relative_dates);
        assert!(!parsed.shows_item() && !parsed.has_next && parsed.recognised());
    }

    #[test]
    fn counts_stars_and_reads_the_accessible_form() {
        let five = ARTICLE.replace(" -color-grey-medium", "");
        assert_eq!(page(&five).reviews[0].rating, Some(5.0));
        let text_only = r#"<article id="review_7"><div class="review-header__rating"><span class="is-visually-hidden">Rated 4 out of 5, for Code Quality</span></div>
            <div class="e-box h-p2"><p>Fine.</p></div></article>"#;
        let r = &page(text_only).reviews[0];
        assert_eq!(r.rating, Some(4.0));
        assert!(r.reply.is_none());
        assert_eq!(
            r.review_url.as_deref(),
            Some("https://codecanyon.net/item/example-mobile-app-script/reviews/21000000#review_7")
        );
        let extra: serde_json::Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["date_text"], serde_json::Value::Null);
        assert_eq!(extra["date_approximate"], false);
    }

    #[test]
    fn an_article_without_any_known_field_is_a_layout_change() {
        let e = parse_page(
            "<article id=\"review_9\"><div class=\"new-layout\">Great</div></article>",
            URL,
            None,
        )
        .unwrap_err();
        assert!(
            matches!(&e, FetchError::Upstream(m) if m.contains("review 9") && m.contains("layout changed")),
            "{e:?}"
        );
    }

    #[test]
    fn reads_the_item_header_and_paging() {
        let shell = r#"<html><head><link rel="canonical" href="/item/real-slug/reviews/21000000"></head><body>
            <div class="item-header__title"><h1>  Example  App </h1></div>
            <div class="item-header__author-details">By <a rel="author" href="/user/qboxus">qboxus</a></div>
            <a class="js-item-navigation-reviews"><span><div class="rating-detailed-small__stars">4.25 <span class="is-visually-hidden">4.25 stars</span></div></span>
            <span class="item-navigation-reviews-comments">1,234</span></a>
            <a class="pagination__next" rel="next" href="?page=2">Next</a></body></html>"#;
        let p = parse_page(shell, URL, None).unwrap();
        assert_eq!(
            p.item,
            ItemSummary {
                name: Some("Example App".into()),
                author: Some("qboxus".into()),
                average_rating: Some(4.25),
                review_count: Some(1234),
                canonical: Some("https://codecanyon.net/item/real-slug/reviews/21000000".into()),
            }
        );
        assert!(p.has_next && p.shows_item() && p.recognised());
        let empty = parse_page(
            r#"<div class="reviews-empty"><p>This item has no reviews yet.</p></div>"#,
            URL,
            None,
        )
        .unwrap();
        assert_eq!(
            empty.no_reviews.as_deref(),
            Some("This item has no reviews yet.")
        );
        assert!(empty.recognised() && !empty.shows_item());
        let og = parse_page(
            r#"<head><meta property="og:title" content="From OG"></head>"#,
            URL,
            None,
        )
        .unwrap();
        assert_eq!(og.item.name.as_deref(), Some("From OG"));
        assert!(!parse_page("<div id=\"root\"></div>", URL, None)
            .unwrap()
            .recognised());
        assert_eq!(number("about 1,234 ratings"), Some(1234.0));
        assert_eq!(number("none"), None);
    }
}
