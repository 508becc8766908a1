//! A review found in the markup as the record: author; `reviewRating` on
//! its `bestRating`/`worstRating` scale (schema.org's default is 1 to 5, and
//! a review without a rating has none, never a 5); `datePublished`, else
//! `dateCreated`; `reviewBody`, else `description`; `name` as the title;
//! the item reviewed. Where the markup contradicts itself (a rating above
//! its best, a date more than a day after the page was served) the review
//! is kept and flagged in `extra`.

use gleaner_sdk::date::{self, Served};
use gleaner_sdk::review::{stable_id, ReviewBuilder};
use gleaner_sdk::types::Review;
use serde_json::{json, Value};

use crate::schema::{self, FoundReview};
use crate::values::{count, first, name, number, text, url};

/// The prefix of the ids made from a review's content.
pub const ID_PREFIX: &str = "wp-";

/// What a review is read against.
pub struct Context {
    /// The page's URL.
    pub page_url: String,
    /// When the page was served, from its `Date` header.
    pub served: Option<Served>,
}

/// A review as read, with what makes it the same review in another syntax.
pub struct Mapped {
    /// The review.
    pub review: Review,
    /// The same review read twice (in two syntaxes, or twice in one) has
    /// the same key.
    pub key: String,
    /// How the markup contradicts itself, if it does.
    pub flags: Vec<&'static str>,
}

/// The rating as the record takes it: the value on a scale from 0 or 1 to
/// `max`; with the flags it raises and the markup's rating when that was
/// not usable as given.
struct Rating {
    value: Option<(f64, f64)>,
    flags: Vec<&'static str>,
    raw: Option<Value>,
}

fn rating(node: &Value) -> Rating {
    let rating = &node["reviewRating"];
    let (value, best, worst) = match first(rating) {
        Some(Value::Object(map)) => (
            map.get("ratingValue").and_then(number),
            map.get("bestRating").and_then(number),
            map.get("worstRating").and_then(number),
        ),
        Some(other) => (number(other), None, None),
        None => (None, None, None),
    };
    let Some(value) = value else {
        return Rating {
            value: None,
            flags: Vec::new(),
            raw: None,
        };
    };
    let (best, worst) = (best.unwrap_or(5.0), worst.unwrap_or(1.0));
    let raw = Some(json!({"value": value, "best": best, "worst": worst}));
    let flagged = |flag| Rating {
        value: None,
        flags: vec![flag],
        raw: raw.clone(),
    };
    if best <= worst || best <= 0.0 {
        return flagged("bad_scale");
    }
    if value > best {
        return flagged("rating_above_best");
    }
    if value < worst {
        return flagged("rating_below_worst");
    }
    // A scale from 0 or 1 is the record's; any other is moved to start at 0.
    let (value, max) = match worst {
        w if w == 0.0 || w == 1.0 => (value, best),
        w => (value - w, best - w),
    };
    Rating {
        value: Some((value, max)),
        flags: Vec::new(),
        raw: (worst != 0.0 && worst != 1.0).then_some(raw).flatten(),
    }
}

/// The item a review is of, as `{type, name, url}`.
pub fn item_summary(item: &Value) -> Option<Value> {
    let types = schema::types(item);
    let name = item.get("name").and_then(text);
    let link = item.get("url").and_then(url);
    if types.is_empty() && name.is_none() && link.is_none() {
        return None;
    }
    Some(json!({"type": types.first(), "name": name, "url": link}))
}

/// What makes a review the same review wherever it is read: its author,
/// its text (or title) and its day, folded.
pub fn key(author: Option<&str>, text: Option<&str>, day: Option<&str>) -> String {
    format!(
        "{}|{}|{}",
        fold(author.unwrap_or_default(), 60),
        fold(text.unwrap_or_default(), 160),
        day.and_then(|d| d.get(..10)).unwrap_or_default()
    )
}

/// Lower-case letters and digits of `s`, at most `limit` of them.
fn fold(s: &str, limit: usize) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .take(limit)
        .collect()
}

/// Maps one found review; none for one that says nothing (no text, no
/// title, no rating).
pub fn review(found: &FoundReview, ctx: &Context) -> Option<Mapped> {
    let node = &found.node;
    if let Value::String(s) = node {
        // A review given as bare text.
        let body = text(&Value::String(s.clone()))?;
        let key = format!("|{}|", fold(&body, 160));
        let id = stable_id(ID_PREFIX, &["", "", &body]);
        let review = ReviewBuilder::new(id)
            .text_plain(Some(body))
            .extra(json!({"syntax": found.syntax.name(), "item_reviewed": found.item.as_ref().and_then(item_summary), "flags": [], "markup_rating": null}))
            .build()
            .ok()?;
        return Some(Mapped {
            review,
            key,
            flags: Vec::new(),
        });
    }
    let author = node.get("author").and_then(name);
    let body = node
        .get("reviewBody")
        .and_then(text)
        .or_else(|| node.get("description").and_then(text));
    let title = node
        .get("name")
        .and_then(text)
        .filter(|t| Some(t) != body.as_ref());
    let written = node
        .get("datePublished")
        .and_then(text)
        .or_else(|| node.get("dateCreated").and_then(text));
    let day = written.as_deref().and_then(|d| date::parse(d, None));
    let mut rated = rating(node);
    if body.is_none() && title.is_none() && rated.value.is_none() {
        return None;
    }
    let mut flags = std::mem::take(&mut rated.flags);
    if let (Some(day), Some(served)) = (&day, ctx.served) {
        if in_future(day, served) {
            flags.push("date_in_future");
        }
    }
    let id = node
        .get("@id")
        .and_then(text)
        .filter(|id| !id.starts_with("_:"))
        .or_else(|| node.get("url").and_then(url))
        .or_else(|| node.get("identifier").and_then(identifier))
        .unwrap_or_else(|| {
            stable_id(
                ID_PREFIX,
                &[
                    author.as_deref().unwrap_or_default(),
                    day.as_deref().unwrap_or_default(),
                    body.as_deref().unwrap_or_default(),
                ],
            )
        });
    let key = key(
        author.as_deref(),
        body.as_deref().or(title.as_deref()),
        day.as_deref(),
    );
    let author_node = first(node.get("author").unwrap_or(&Value::Null));
    let author_url = author_node.and_then(|a| a.get("url")).and_then(url);
    let author_image = author_node.and_then(|a| a.get("image")).and_then(url);
    let body_is_html = body
        .as_deref()
        .is_some_and(|b| b.contains('<') && b.contains('>'));
    let mut builder = ReviewBuilder::new(id)
        .title(title)
        .date(day)
        .author_name(author)
        .author_url(author_url)
        .author_image(author_image)
        .review_url(node.get("url").and_then(url).filter(|u| *u != ctx.page_url))
        .language(node.get("inLanguage").and_then(text))
        .helpful_votes(node.get("upvoteCount").and_then(count).map(|c| c as i64))
        .extra(json!({
            "syntax": found.syntax.name(),
            "item_reviewed": found.item.as_ref().and_then(item_summary),
            "flags": flags,
            "markup_rating": rated.raw,
        }));
    builder = match body_is_html {
        true => builder.text_html(body),
        false => builder.text_plain(body),
    };
    if let Some((value, max)) = rated.value {
        builder = builder.rating(Some(value), max);
    }
    let review = builder.build().ok()?;
    Some(Mapped { review, key, flags })
}

/// An `identifier`: text, or a `PropertyValue`'s `value`.
fn identifier(v: &Value) -> Option<String> {
    match first(v)? {
        Value::Object(map) => map.get("value").and_then(text),
        other => text(other),
    }
}

/// Whether `day` (ISO, day precision or better) is more than a day after
/// the day the page was served.
fn in_future(day: &str, served: Served) -> bool {
    let (y, m, d) = served.day();
    let limit = date::days_from_civil(y, m, d) + 1;
    let Some(iso) = day.get(..10) else {
        return false;
    };
    let parts: Vec<&str> = iso.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return false;
    };
    match (y.parse(), m.parse(), d.parse()) {
        (Ok(y), Ok(m), Ok(d)) => date::days_from_civil(y, m, d) > limit,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markup::Syntax;

    fn map(node: Value) -> Option<Mapped> {
        let found = FoundReview {
            node,
            item: Some(json!({"@type": "Product", "name": "Kettle"})),
            syntax: Syntax::JsonLd,
        };
        let ctx = Context {
            page_url: "https://shop.example/p".into(),
            served: Served::from_http("Sun, 01 Mar 2026 10:00:00 GMT"),
        };
        review(&found, &ctx)
    }

    fn extra(m: &Mapped) -> Value {
        serde_json::from_str(&m.review.extra_json).unwrap()
    }

    #[test]
    fn every_field_is_mapped() {
        let m = map(json!({
            "@type": "Review",
            "author": {"@type": "Person", "name": "Ann", "url": "https://shop.example/u/ann"},
            "reviewRating": {"ratingValue": "8", "bestRating": "10", "worstRating": "0"},
            "datePublished": "2026-02-01",
            "name": "Great",
            "reviewBody": "Boils fast.",
            "url": "https://shop.example/p#r1",
            "inLanguage": "en"
        }))
        .unwrap();
        let r = &m.review;
        assert_eq!(r.id, "https://shop.example/p#r1");
        assert_eq!(r.author_name.as_deref(), Some("Ann"));
        assert_eq!((r.rating, r.rating_scale_max), (Some(8.0), Some(10.0)));
        assert_eq!(r.date.as_deref(), Some("2026-02-01"));
        assert_eq!(r.title.as_deref(), Some("Great"));
        assert_eq!(extra(&m)["item_reviewed"]["name"], "Kettle");
        assert!(m.flags.is_empty());
    }

    #[test]
    fn a_missing_rating_is_none_and_the_default_scale_is_five() {
        let m = map(json!({"reviewBody": "No stars here", "author": "Bo"})).unwrap();
        assert_eq!(m.review.rating, None);
        let m = map(json!({"reviewBody": "x", "reviewRating": {"ratingValue": 4}})).unwrap();
        assert_eq!(m.review.rating_scale_max, Some(5.0));
        assert!(map(json!({"author": "nobody said anything"})).is_none());
    }

    #[test]
    fn contradictions_are_kept_and_flagged() {
        let m =
            map(json!({"reviewBody": "x", "reviewRating": {"ratingValue": 6, "bestRating": 5}}))
                .unwrap();
        assert_eq!(m.review.rating, None);
        assert_eq!(m.flags, ["rating_above_best"]);
        assert_eq!(extra(&m)["markup_rating"]["value"], 6.0);
        let m = map(json!({"reviewBody": "x", "datePublished": "2026-03-05"})).unwrap();
        assert_eq!(m.flags, ["date_in_future"]);
        let m = map(json!({"reviewBody": "x", "datePublished": "2026-03-02"})).unwrap();
        assert!(
            m.flags.is_empty(),
            "a day ahead is time zones, not a contradiction"
        );
    }

    #[test]
    fn the_same_review_in_two_syntaxes_has_one_key() {
        let a = map(json!({"author": {"name": "Ann"}, "reviewBody": "Boils fast!", "datePublished": "2026-02-01T10:00:00Z"})).unwrap();
        let b = map(
            json!({"author": "ann", "description": "Boils  fast", "datePublished": "2026-02-01"}),
        )
        .unwrap();
        assert_eq!(a.key, b.key);
    }
}
