//! Parsing G2's reviews page: the product's header and its review cards
//! (`section#reviews article#<slug>-review-<digits>`, `elv-*` classes). Every
//! selector is one constant here, so a markup change is a one-line fix.

use std::rc::Rc;

use gleaner_sdk::html::{self, ElementRef, Html, Selector};
use gleaner_sdk::json::string;
use gleaner_sdk::listing::{self, Shown};
use gleaner_sdk::number;
use gleaner_sdk::review::{self, ReviewBuilder};
use gleaner_sdk::types::Review;
use gleaner_sdk::{date, embedded, rating, FetchError};
use serde_json::{json, Value};

/// The review list.
pub const LIST: &str = "section#reviews";
/// A review card.
pub const CARD: &str = "section#reviews article";
/// The reviewer's name: the card's first bold block.
pub const NAME: &str = "div.elv-font-bold";
/// The reviewer's role and company size, one small line each.
pub const INFO: &str = "div.elv-text-xs";
/// The review title.
pub const TITLE: &str = "div.elv-text-lg";
/// The rating text, "N / 5".
pub const RATING: &str = ".elv-star-wrapper__desc__rating";
/// The star widget, class `elv-stars-<N>` with N out of 10 (fallback rating).
pub const STARS: &str = ".elv-stars";
/// The review date: the first `meta` whose content is `YYYY-MM-DD`.
pub const DATE: &str = "meta[content]";
/// The badges: "Validated Reviewer", "Current User", "Source: …", ….
pub const BADGE: &str = ".elv-status-badge__label";
/// The review's share link.
pub const PERMALINK: &str = "[data-clipboard-text]";
/// The reviewer's profile link.
pub const PROFILE: &str = r#"a[href*="/users/"]"#;
/// The reviewer's avatar, inside the profile link.
pub const AVATAR: &str = r#"a[href*="/users/"] img[src]"#;
/// An answer paragraph; its question is the element just before it.
pub const ANSWER: &str = "p";
/// The helpful-vote control; its first number is the vote count (none shown: 0).
pub const HELPFUL: &str = r#"[class*="helpful"]"#;
/// The link to the next page of the listing.
pub const NEXT: &str = r#"a[rel="next"]"#;
/// The product's name in the page header.
pub const PRODUCT_NAME: &str = "#product-header h1";
/// The product's average ("4.6 / 5") and review count ("(30)") in the header.
pub const PRODUCT_RATING: &str = "#product-header .elv-star-wrapper__desc__rating";
/// The product's review count in the header.
pub const PRODUCT_COUNT: &str = "#product-header .elv-star-wrapper__desc__count";
/// G2's attribution line, appended to the first answer.
pub const ATTRIBUTION: &str = "Review collected by and hosted on G2.com.";
/// G2's own "no reviews" wording (lower-cased), besides the SDK's generic
/// phrases: the line a listing filtered to nothing shows.
pub const NO_REVIEW_TEXTS: &[&str] = &["no reviews match"];
/// The name G2 shows for a reviewer who stays anonymous: "Verified User in <industry>".
pub const ANONYMOUS: &str = "Verified User in ";

/// Every selector above, parsed ahead of any call (the plugin's `prepare`).
pub const ALL: &[&str] = &[
    LIST,
    CARD,
    NAME,
    INFO,
    TITLE,
    RATING,
    STARS,
    DATE,
    BADGE,
    PERMALINK,
    PROFILE,
    AVATAR,
    ANSWER,
    HELPFUL,
    NEXT,
    PRODUCT_NAME,
    PRODUCT_RATING,
    PRODUCT_COUNT,
];

/// The product as the page header shows it.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Product {
    /// The product's name.
    pub name: Option<String>,
    /// Its average rating, of 5.
    pub average: Option<f64>,
    /// Its number of reviews.
    pub total: Option<u64>,
}

/// One parsed page.
#[derive(Debug)]
pub struct ReviewsPage {
    /// The cards, in page order.
    pub reviews: Vec<Review>,
    /// Whether the page links a next page.
    pub has_next: bool,
    /// The product.
    pub product: Product,
    /// When the page lists no card: what on it says there are none (a "no
    /// reviews" line, a zero count), if anything.
    pub empty_signal: Option<String>,
}

/// Parses a reviews page; none when it has no review list and nothing on it
/// says the product has no reviews (a changed layout). `reviews_url` is every
/// review's link when its card has none.
pub fn page(html_text: &str, reviews_url: &str) -> Result<Option<ReviewsPage>, FetchError> {
    let doc = Html::parse_document(html_text);
    let s = Selectors::new()?;
    let reviews = html::select(&doc, CARD)?
        .into_iter()
        .map(|c| card(c, &s, reviews_url).map_err(FetchError::Upstream))
        .collect::<Result<Vec<_>, _>>()?;
    let product = product(&doc, html_text)?;
    let empty_signal = if reviews.is_empty() {
        listing::no_reviews(
            &doc,
            NO_REVIEW_TEXTS,
            &[
                Shown::Number("review count", product.total.map(|n| n as f64)),
                Shown::Number("average rating", product.average),
            ],
        )
    } else {
        None
    };
    if html::select(&doc, LIST)?.is_empty() && empty_signal.is_none() {
        return Ok(None);
    }
    Ok(Some(ReviewsPage {
        reviews,
        has_next: !html::select(&doc, NEXT)?.is_empty(),
        product,
        empty_signal,
    }))
}

/// The product from the page's JSON-LD, else its header.
fn product(doc: &Html, html_text: &str) -> Result<Product, FetchError> {
    let ld = embedded::json_ld(html_text)
        .into_iter()
        .find(|v| v["aggregateRating"].is_object());
    let from_ld = |v: &Value| Product {
        name: string(&v["name"]),
        average: number::of_json(&v["aggregateRating"]["ratingValue"]),
        total: number::of_json(&v["aggregateRating"]["reviewCount"])
            .or_else(|| number::of_json(&v["aggregateRating"]["ratingCount"]))
            .map(|n| n as u64),
    };
    let first = |css: &str| -> Result<Option<String>, FetchError> {
        Ok(html::select(doc, css)?
            .first()
            .map(|e| html::text(*e))
            .filter(|t| !t.is_empty()))
    };
    let header = Product {
        name: first(PRODUCT_NAME)?,
        average: first(PRODUCT_RATING)?.and_then(|t| rating::parse(&t, 5.0).map(|(v, _)| v)),
        total: first(PRODUCT_COUNT)?.and_then(|t| number::first_count(&t)),
    };
    Ok(match ld.as_ref().map(from_ld) {
        Some(p) => Product {
            name: p.name.or(header.name),
            average: p.average.or(header.average),
            total: p.total.or(header.total),
        },
        None => header,
    })
}

/// The parsed selectors a card needs.
struct Selectors {
    name: Rc<Selector>,
    info: Rc<Selector>,
    title: Rc<Selector>,
    rating: Rc<Selector>,
    stars: Rc<Selector>,
    date: Rc<Selector>,
    badge: Rc<Selector>,
    answer: Rc<Selector>,
    helpful: Rc<Selector>,
}

impl Selectors {
    fn new() -> Result<Selectors, FetchError> {
        Ok(Selectors {
            name: html::parsed(NAME)?,
            info: html::parsed(INFO)?,
            title: html::parsed(TITLE)?,
            rating: html::parsed(RATING)?,
            stars: html::parsed(STARS)?,
            date: html::parsed(DATE)?,
            badge: html::parsed(BADGE)?,
            answer: html::parsed(ANSWER)?,
            helpful: html::parsed(HELPFUL)?,
        })
    }
}

/// Who wrote a review, as the card's header shows it.
#[derive(Debug, Default, PartialEq)]
pub struct Reviewer {
    /// The role ("Product Designer").
    pub role: Option<String>,
    /// The company size ("Small-Business (50 or fewer emp.)").
    pub company_size: Option<String>,
    /// The industry, which G2 shows in an anonymous reviewer's name.
    pub industry: Option<String>,
}

impl Reviewer {
    /// Reads the name and the small lines under it: a company size is told
    /// from a role by G2's segment names.
    pub fn read(name: Option<&str>, lines: &[String]) -> Reviewer {
        let is_size = |l: &str| {
            l.contains("emp.")
                || ["Small-Business", "Mid-Market", "Enterprise"]
                    .iter()
                    .any(|s| l.starts_with(s))
        };
        Reviewer {
            role: lines.iter().find(|l| !is_size(l)).cloned(),
            company_size: lines.iter().find(|l| is_size(l)).cloned(),
            industry: name
                .and_then(|n| n.strip_prefix(ANONYMOUS))
                .map(str::trim)
                .filter(|i| !i.is_empty())
                .map(str::to_owned),
        }
    }

    /// "role, industry, company size", of the parts that exist.
    pub fn title(&self) -> Option<String> {
        let parts: Vec<&str> = [&self.role, &self.industry, &self.company_size]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// The card's answers, each headed by its question: "Q\nA" paragraphs.
fn answers(card: ElementRef<'_>, s: &Selectors) -> Option<String> {
    let paragraphs: Vec<String> = card
        .select(&s.answer)
        .filter_map(|p| {
            let answer = html::text(p);
            let answer = answer.trim_end_matches(ATTRIBUTION).trim();
            if answer.is_empty() {
                return None;
            }
            let question = p
                .prev_siblings()
                .find_map(ElementRef::wrap)
                .map(html::text)
                .filter(|q| q.ends_with('?'));
            Some(match question {
                Some(q) => format!("{q}\n{answer}"),
                None => answer.to_owned(),
            })
        })
        .collect();
    (!paragraphs.is_empty()).then(|| paragraphs.join("\n\n"))
}

/// The rating: the "N / 5" text, else the star widget's class (N out of 10).
fn card_rating(card: ElementRef<'_>, s: &Selectors) -> Option<f64> {
    let text = card.select(&s.rating).next().map(html::text);
    text.and_then(|t| rating::parse(&t, 5.0))
        .filter(|(_, max)| *max == 5.0)
        .map(|(v, _)| v)
        .or_else(|| {
            let widget = card.select(&s.stars).next()?;
            let tenths = widget
                .value()
                .classes()
                .find_map(|c| c.strip_prefix("elv-stars-")?.parse::<f64>().ok())?;
            rating::rescale(tenths, 10.0, 5.0)
        })
}

/// What a card's badges say.
struct Badges {
    /// "Validated Reviewer" among them; none when the card shows no badge.
    validated: Option<bool>,
    /// "AI Translated": the text shown is G2's machine translation.
    translated: bool,
    /// The day of "Rating Updated (M/D/YYYY)".
    rating_updated: Option<String>,
    /// The rest, for `extra`: the other labels and what they say.
    extra: Value,
}

/// Reads the badges.
fn badges(card: ElementRef<'_>, s: &Selectors) -> Badges {
    let labels: Vec<String> = card
        .select(&s.badge)
        .map(html::text)
        .filter(|t| !t.is_empty())
        .collect();
    let has = |label: &str| labels.iter().any(|l| l.eq_ignore_ascii_case(label));
    let source = labels
        .iter()
        .find_map(|l| l.strip_prefix("Source:"))
        .map(|s| s.trim().to_owned());
    let rating_updated = labels.iter().find_map(|l| {
        let inner = l.strip_prefix("Rating Updated")?.trim();
        date::parse(inner.trim_start_matches('(').trim_end_matches(')'), None)
    });
    let others: Vec<&String> = labels
        .iter()
        .filter(|l| {
            !l.eq_ignore_ascii_case("Validated Reviewer")
                && !l.eq_ignore_ascii_case("AI Translated")
                && !l.starts_with("Rating Updated")
        })
        .collect();
    Badges {
        validated: (!labels.is_empty()).then(|| has("Validated Reviewer")),
        translated: has("AI Translated"),
        rating_updated,
        extra: json!({
            "badges": others,
            "current_user": has("Current User"),
            "incentivized": labels.iter().any(|l| l.starts_with("Incentivized")),
            "review_source": source,
        }),
    }
}

/// Maps one review card.
fn card(card: ElementRef<'_>, s: &Selectors, reviews_url: &str) -> Result<Review, String> {
    let name = card.select(&s.name).next().map(html::text);
    let lines: Vec<String> = card
        .select(&s.info)
        .map(html::text)
        .filter(|t| !t.is_empty())
        .collect();
    let reviewer = Reviewer::read(name.as_deref(), &lines);
    let date = card
        .select(&s.date)
        .filter_map(|m| m.attr("content"))
        .find(|c| c.len() == 10 && date::looks_iso(c))
        .map(str::to_owned);
    let title = card.select(&s.title).next().map(|t| {
        html::text(t)
            .trim_matches(|c| c == '"' || c == '“' || c == '”')
            .trim()
            .to_owned()
    });
    let permalink = html::first_attr(card, PERMALINK, "data-clipboard-text")
        .filter(|u| u.starts_with("https://"));
    let digits = card
        .value()
        .id()
        .and_then(|id| id.rsplit_once("-review-"))
        .map(|(_, d)| d.to_owned())
        .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
    let text = answers(card, s);
    let id = digits.clone().unwrap_or_else(|| {
        review::stable_id(
            "g2-",
            &[
                name.as_deref().unwrap_or_default(),
                date.as_deref().unwrap_or_default(),
                title.as_deref().unwrap_or_default(),
                text.as_deref().unwrap_or_default(),
            ],
        )
    });
    let helpful = card.select(&s.helpful).next().map(|h| {
        number::first_count(&html::text(h)).map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX))
    });
    let badges = badges(card, s);
    let mut extra = badges.extra;
    extra["reviewer_role"] = json!(reviewer.role);
    extra["company_size"] = json!(reviewer.company_size);
    extra["industry"] = json!(reviewer.industry);
    let builder = ReviewBuilder::new(id)
        .title(title.filter(|t| !t.is_empty()))
        .text_plain(text)
        .rating(card_rating(card, s), 5.0)
        .date(date)
        .updated_date(badges.rating_updated)
        .author_name(name.filter(|n| !n.is_empty()))
        .author_title(reviewer.title())
        .author_url(html::first_attr(card, PROFILE, "href").filter(|u| u.starts_with("https://")))
        .author_image(html::first_attr(card, AVATAR, "src").filter(|u| u.starts_with("https://")))
        .review_url(permalink.or_else(|| Some(reviews_url.to_owned())))
        .helpful_votes(helpful)
        .verified(badges.validated)
        .anonymous(reviewer.industry.is_some());
    let builder = if badges.translated {
        builder.translation(true, None, None)
    } else {
        builder
    };
    builder.extra(extra).build()
}
