//! One review as either reading of the page gives it, and its record.

use gleaner_sdk::date;
use gleaner_sdk::entities::decode;
use gleaner_sdk::review::{image, stable_id, ReviewBuilder};
use gleaner_sdk::types::Review;
use gleaner_sdk::FetchError;
use serde_json::{Map, Value};

/// Angi's star scale.
pub const SCALE: f64 = 5.0;

/// A review's text as the page holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// Text with HTML entities (`I&#39;ve`) and meaningful line breaks.
    Escaped(String),
    /// An HTML fragment (markup).
    Html(String),
}

/// A review read from the page, before it becomes a record.
#[derive(Debug, Clone, Default)]
pub struct Entry {
    /// The site's review id (none in the older markup).
    pub id: Option<String>,
    /// The reviewer's display name ("Carl S.").
    pub author: Option<String>,
    /// Stars, 1–5 (halves occur).
    pub rating: Option<f64>,
    /// The date as printed: "April 2026" or "04/2026".
    pub date_text: Option<String>,
    /// Angi's verification of the review.
    pub verified: Option<bool>,
    /// Whether the reviewer recommends the pro.
    pub recommends: Option<bool>,
    /// Aspect ratings on the star scale, named as the page labels them.
    pub sub_ratings: Vec<(String, f64)>,
    /// The review text.
    pub body: Option<Body>,
    /// The pro's response and who wrote it.
    pub reply: Option<(Body, Option<String>)>,
    /// Full-size photo URLs.
    pub photos: Vec<String>,
    /// Source-specific fields.
    pub extra: Map<String, Value>,
}

impl Entry {
    /// The review record. Reviews have no permalink: `review_url` is the profile.
    pub fn build(self, profile_url: &str) -> Result<Review, FetchError> {
        let date = self.date_text.as_deref().and_then(date::month);
        let id = self.id.clone().unwrap_or_else(|| {
            stable_id(
                "angi-",
                &[
                    self.author.as_deref().unwrap_or_default(),
                    self.date_text.as_deref().unwrap_or_default(),
                    &self.body.as_ref().map(body_text).unwrap_or_default(),
                ],
            )
        });
        let mut extra = self.extra;
        extra.insert("date_text".into(), self.date_text.clone().into());
        let mut builder = ReviewBuilder::new(id)
            .rating(self.rating, SCALE)
            .date(date)
            .author_name(self.author)
            .review_url(Some(profile_url.to_owned()))
            .verified(self.verified)
            .recommends(self.recommends)
            .extra(Value::Object(extra));
        for (name, rating) in self.sub_ratings {
            builder = builder.sub_rating(name, rating, SCALE);
        }
        builder = match self.body {
            Some(Body::Html(h)) => builder.text_html(Some(h)),
            Some(Body::Escaped(t)) => builder.text_plain(Some(decode(&t))),
            None => builder,
        };
        builder = match self.reply {
            Some((Body::Html(h), author)) => builder.reply_html(Some(h), None, author),
            Some((Body::Escaped(t), author)) => builder.reply(Some(decode(&t)), None, author),
            None => builder,
        };
        for url in self.photos {
            builder = builder.media(image(url));
        }
        builder.build().map_err(|e| {
            FetchError::Upstream(format!(
                "Angi's page holds a review the plugin cannot read: {e}"
            ))
        })
    }
}

/// A text as the page holds it: markup stays HTML; otherwise escaped text.
pub fn body(text: String) -> Body {
    let lower = text.to_ascii_lowercase();
    if ["<br", "<p>", "<p ", "<div", "<ul", "<li"]
        .iter()
        .any(|t| lower.contains(t))
    {
        Body::Html(text)
    } else {
        Body::Escaped(text)
    }
}

fn body_text(b: &Body) -> String {
    match b {
        Body::Escaped(t) | Body::Html(t) => t.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_keep_their_precision() {
        assert_eq!(date::month("April 2026").as_deref(), Some("2026-04"));
        assert_eq!(date::month("Sept. 2024").as_deref(), Some("2024-09"));
        assert_eq!(date::month("04/2026").as_deref(), Some("2026-04"));
        assert_eq!(date::month(" 12/2024 ").as_deref(), Some("2024-12"));
        assert_eq!(date::month("13/2024"), None);
        assert_eq!(date::month("Ma 2024"), None);
        assert_eq!(date::month("April"), None);
        assert_eq!(date::month("yesterday"), None);
    }

    #[test]
    fn entities_are_undone_and_spacing_kept() {
        assert_eq!(
            decode("I&#39;ve  retained\nthem &amp; more"),
            "I've  retained\nthem & more"
        );
        assert_eq!(decode("typed &amp;lt;3"), "typed &lt;3", "decoded once");
        assert_eq!(body("a<br>b".into()), Body::Html("a<br>b".into()));
        assert_eq!(body("a &lt; b".into()), Body::Escaped("a &lt; b".into()));
    }

    #[test]
    fn a_review_without_id_gets_a_stable_one() {
        let entry = || Entry {
            author: Some("Carl S.".into()),
            date_text: Some("04/2026".into()),
            body: Some(Body::Escaped("Polite.".into())),
            rating: Some(5.0),
            ..Entry::default()
        };
        let a = entry().build("https://www.angi.com/x").unwrap();
        let b = entry().build("https://www.angi.com/x").unwrap();
        assert_eq!(a.id, b.id);
        assert!(a.id.starts_with("angi-"));
        assert_eq!(a.date.as_deref(), Some("2026-04"));
        assert_eq!((a.verified, a.recommends), (None, None));
        assert!(a.sub_ratings.is_empty());
    }

    #[test]
    fn verification_recommendation_and_sub_ratings_are_fields() {
        let r = Entry {
            id: Some("r1".into()),
            date_text: Some("April 2026".into()),
            verified: Some(true),
            recommends: Some(false),
            sub_ratings: vec![("Price".into(), 4.0), ("On Time".into(), 5.0)],
            ..Entry::default()
        }
        .build("https://www.angi.com/x")
        .unwrap();
        assert_eq!((r.verified, r.recommends), (Some(true), Some(false)));
        let subs: Vec<(&str, f64, f64)> = r
            .sub_ratings
            .iter()
            .map(|s| (s.name.as_str(), s.rating, s.scale_max))
            .collect();
        assert_eq!(subs, vec![("Price", 4.0, 5.0), ("On Time", 5.0, 5.0)]);
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra, serde_json::json!({"date_text": "April 2026"}));
    }
}
