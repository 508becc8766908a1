//! The review contract: what every review a plugin returns must be before it
//! becomes an API record. A review that breaks it fails the request as a
//! plugin fault on the host, and is refused when the SDK builds it.

use serde_json::Value;
use url::Url;

/// The review record's fields, in the order the API's guide lists them.
pub const FIELDS: &[&str] = &[
    "review_id",
    "review_title",
    "review_text",
    "review_rating",
    "rating_scale_max",
    "rating_out_of_5",
    "review_date",
    "review_date_precision",
    "updated_date",
    "author_name",
    "author_profile_image_url",
    "author_url",
    "author_title",
    "author_country",
    "review_url",
    "review_media",
    "review_reply",
    "helpful_votes",
    "language",
    "language_source",
    "verified",
    "recommends",
    "anonymous",
    "sub_ratings",
    "translation",
    "source",
    "extra",
];

/// Longest review id accepted, in bytes.
pub const MAX_ID_LEN: usize = 512;

/// The fields of a review the contract checks, borrowed from whichever type a
/// side holds them in.
#[derive(Debug, Clone, Default)]
pub struct Fields<'a> {
    /// The id.
    pub id: &'a str,
    /// The rating, on `rating_scale_max`.
    pub rating: Option<f64>,
    /// The top of the rating scale.
    pub rating_scale_max: Option<f64>,
    /// The review's date.
    pub date: Option<&'a str>,
    /// Named URLs: the author's image and page, the review's page.
    pub urls: Vec<(&'static str, Option<&'a str>)>,
    /// Media items: (type, URL).
    pub media: Vec<(&'a str, &'a str)>,
    /// The owner's reply's date.
    pub reply_date: Option<&'a str>,
    /// When the site says the review was edited.
    pub updated_date: Option<&'a str>,
    /// Aspect ratings: (name, rating, top of its scale).
    pub sub_ratings: Vec<(&'a str, f64, f64)>,
    /// The site's language label, and the translation's original language.
    pub languages: Vec<(&'static str, Option<&'a str>)>,
    /// Helpful votes.
    pub helpful_votes: Option<i64>,
    /// Source-specific fields, as JSON object text (or empty).
    pub extra_json: &'a str,
}

/// The [`Fields`] of a review of either side's WIT bindings (the host's and
/// the guest's `review` records have the same field names).
#[macro_export]
macro_rules! review_fields {
    ($r:expr) => {
        $crate::review::Fields {
            id: &$r.id,
            rating: $r.rating,
            rating_scale_max: $r.rating_scale_max,
            date: $r.date.as_deref(),
            urls: vec![
                (
                    "author_profile_image_url",
                    $r.author_profile_image_url.as_deref(),
                ),
                ("author_url", $r.author_url.as_deref()),
                ("review_url", $r.review_url.as_deref()),
            ],
            media: $r
                .media
                .iter()
                .map(|m| (m.media_type.as_str(), m.url.as_str()))
                .collect(),
            reply_date: $r.reply.as_ref().and_then(|reply| reply.date.as_deref()),
            updated_date: $r.updated_date.as_deref(),
            sub_ratings: $r
                .sub_ratings
                .iter()
                .map(|s| (s.name.as_str(), s.rating, s.scale_max))
                .collect(),
            languages: vec![
                ("language", $r.language.as_deref()),
                (
                    "translation original_language",
                    $r.translation
                        .as_ref()
                        .and_then(|t| t.original_language.as_deref()),
                ),
            ],
            helpful_votes: $r.helpful_votes,
            extra_json: &$r.extra_json,
        }
    };
}

/// Checks one review; the error says what is wrong.
pub fn check(r: &Fields<'_>) -> Result<(), String> {
    let id = r.id.trim();
    if id.is_empty() || id.len() > MAX_ID_LEN {
        return Err(format!(
            "the id must be 1 to {MAX_ID_LEN} bytes of non-blank text"
        ));
    }
    check_rating(r.rating, r.rating_scale_max)?;
    if let Some(date) = r.date {
        check_date(date)?;
    }
    for (field, url) in &r.urls {
        if let Some(url) = url.filter(|u| !u.trim().is_empty()) {
            check_url(url).map_err(|e| format!("{field}: {e}"))?;
        }
    }
    for (kind, url) in &r.media {
        check_url(url).map_err(|e| format!("media url: {e}"))?;
        if !matches!(*kind, "image" | "video") {
            return Err(format!(
                "media type {kind:?} must be \"image\" or \"video\""
            ));
        }
    }
    if let Some(date) = r.reply_date {
        check_date(date).map_err(|e| format!("reply: {e}"))?;
    }
    if let Some(date) = r.updated_date {
        check_date(date).map_err(|e| format!("updated date: {e}"))?;
    }
    if r.helpful_votes.is_some_and(|v| v < 0) {
        return Err("helpful votes cannot be negative".into());
    }
    let extra = r.extra_json.trim();
    if !extra.is_empty() && !matches!(serde_json::from_str::<Value>(extra), Ok(Value::Object(_))) {
        return Err("extra-json must be a JSON object, or empty".into());
    }
    Ok(())
}

fn check_rating(rating: Option<f64>, max: Option<f64>) -> Result<(), String> {
    let Some(rating) = rating else {
        return Ok(());
    };
    let Some(max) = max.filter(|m| m.is_finite() && *m > 0.0) else {
        return Err(format!(
            "rating {rating} comes without a positive rating-scale-max"
        ));
    };
    if !rating.is_finite() || !(0.0..=max).contains(&rating) {
        return Err(format!("rating {rating} is outside 0..={max}"));
    }
    Ok(())
}

/// ISO 8601 as [`crate::date::normalize`] reads it: `YYYY`, `YYYY-MM`,
/// `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`, or an RFC 3339 date-time (the offset may
/// be omitted).
pub fn check_date(date: &str) -> Result<(), String> {
    crate::date::normalize(date).map(|_| ())
}

/// A concept the record gives a field of its own, which a source's `extra`
/// must no longer carry under one of its former names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Concept {
    /// `verified`.
    Verified,
    /// `recommends`.
    Recommends,
    /// `anonymous`.
    Anonymous,
    /// `author_country`.
    Country,
    /// `sub_ratings`.
    SubRatings,
    /// `translation`.
    Translation,
    /// `updated_date`.
    Edited,
    /// `language`.
    Language,
}

/// The names under which sources kept the record's own concepts in `extra`.
pub const PROMOTED: &[(&str, Concept)] = &[
    ("verified", Concept::Verified),
    ("verified_purchase", Concept::Verified),
    ("verified_buyer", Concept::Verified),
    ("validated_reviewer", Concept::Verified),
    ("author_verified", Concept::Verified),
    ("is_verified", Concept::Verified),
    ("recommends", Concept::Recommends),
    ("recommended", Concept::Recommends),
    ("anonymous", Concept::Anonymous),
    ("anonymous_reviewer", Concept::Anonymous),
    ("author_redacted", Concept::Anonymous),
    ("country", Concept::Country),
    ("country_code", Concept::Country),
    ("reviewer_country_code", Concept::Country),
    ("buyer_country_code", Concept::Country),
    ("nationality", Concept::Country),
    ("ratings", Concept::SubRatings),
    ("sub_ratings", Concept::SubRatings),
    ("scores", Concept::SubRatings),
    ("is_machine_translated", Concept::Translation),
    ("ai_translated", Concept::Translation),
    ("translated_text", Concept::Translation),
    ("original_text", Concept::Translation),
    ("updated_date", Concept::Edited),
    ("edited_at", Concept::Edited),
    ("is_edited", Concept::Edited),
    ("language", Concept::Language),
];

/// A rule of the record a review breaks that the host can repair: in tests
/// it fails the plugin, in production it is logged, counted and repaired.
#[derive(Debug, Clone, PartialEq)]
pub enum Lapse {
    /// `extra` keeps a concept the record has a field for, under this key.
    Promoted(String, Concept),
    /// This aspect rating is outside its scale (or its scale is not positive).
    SubRating(String),
    /// This field holds no BCP 47 language tag.
    Language(&'static str),
}

impl Lapse {
    /// The rule's short name, for metrics.
    pub fn rule(&self) -> &'static str {
        match self {
            Lapse::Promoted(..) => "promoted_in_extra",
            Lapse::SubRating(_) => "sub_rating_scale",
            Lapse::Language(_) => "language_tag",
        }
    }
}

impl std::fmt::Display for Lapse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lapse::Promoted(key, concept) => write!(
                f,
                "extra keeps {key:?}, which the record has a field for ({concept:?}); set that field instead"
            ),
            Lapse::SubRating(name) => write!(
                f,
                "sub-rating {name:?} is outside 0..=its scale-max, or its scale-max is not positive"
            ),
            Lapse::Language(field) => {
                write!(f, "{field} is not a BCP 47 language tag (e.g. en, pt-BR)")
            }
        }
    }
}

/// The record's rules the host repairs when a review breaks them.
pub fn lapses(r: &Fields<'_>) -> Vec<Lapse> {
    let mut found = Vec::new();
    if let Ok(Value::Object(extra)) = serde_json::from_str::<Value>(r.extra_json) {
        for (key, concept) in PROMOTED {
            if extra.contains_key(*key) {
                found.push(Lapse::Promoted((*key).to_owned(), *concept));
            }
        }
    }
    for (name, rating, max) in &r.sub_ratings {
        if !sub_rating_fits(*rating, *max) {
            found.push(Lapse::SubRating((*name).to_owned()));
        }
    }
    for (field, tag) in &r.languages {
        if tag.is_some_and(|t| !is_language_tag(t)) {
            found.push(Lapse::Language(field));
        }
    }
    found
}

/// Whether an aspect rating lies within its scale, whose top is positive.
pub fn sub_rating_fits(rating: f64, scale_max: f64) -> bool {
    scale_max.is_finite()
        && scale_max > 0.0
        && rating.is_finite()
        && (0.0..=scale_max).contains(&rating)
}

/// A BCP 47 tag as reviews carry them: a primary language subtag of 2 or 3
/// letters, then subtags of 1 to 8 letters or digits (`en`, `pt-BR`, `zh-Hant`).
pub fn is_language_tag(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let primary = parts.next().unwrap_or_default();
    (2..=3).contains(&primary.len())
        && primary.bytes().all(|b| b.is_ascii_alphabetic())
        && parts.all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

fn check_url(url: &str) -> Result<(), String> {
    match Url::parse(url.trim()) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(()),
        _ => Err(format!("{url:?} is not an absolute http(s) URL")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review() -> Fields<'static> {
        Fields {
            id: "r1",
            rating: Some(4.0),
            rating_scale_max: Some(5.0),
            date: Some("2023-12-07T11:23:40.000Z"),
            urls: vec![("author_url", Some("https://example.com/u/1"))],
            helpful_votes: Some(2),
            extra_json: "{\"a\":1}",
            ..Fields::default()
        }
    }

    #[test]
    fn a_good_review_passes() {
        check(&review()).unwrap();
        for date in [
            "2024",
            "2024-05-01T10:00",
            "2024-02-29",
            "2024-05",
            "2024-05-01T10:00:00",
            "2024-05-01T10:00:00+02:00",
        ] {
            check_date(date).unwrap();
        }
    }

    #[test]
    fn every_broken_rule_is_caught() {
        type Breaker = Box<dyn Fn(&mut Fields<'static>)>;
        let cases: Vec<(&str, Breaker)> = vec![
            ("id", Box::new(|r| r.id = "  ")),
            ("outside", Box::new(|r| r.rating = Some(99.0))),
            ("outside", Box::new(|r| r.rating = Some(-1.0))),
            ("outside", Box::new(|r| r.rating = Some(f64::NAN))),
            ("rating-scale-max", Box::new(|r| r.rating_scale_max = None)),
            ("ISO 8601", Box::new(|r| r.date = Some("yesterday"))),
            ("ISO 8601", Box::new(|r| r.date = Some("2024-02-30"))),
            (
                "author_url",
                Box::new(|r| r.urls = vec![("author_url", Some("/u/1"))]),
            ),
            (
                "author_url",
                Box::new(|r| r.urls = vec![("author_url", Some("javascript:alert(1)"))]),
            ),
            ("negative", Box::new(|r| r.helpful_votes = Some(-3))),
            ("extra-json", Box::new(|r| r.extra_json = "[1]")),
            (
                "media type",
                Box::new(|r| r.media = vec![("gif", "https://x.com/a.gif")]),
            ),
            ("reply", Box::new(|r| r.reply_date = Some("soon"))),
            (
                "updated date",
                Box::new(|r| r.updated_date = Some("2024-02-30")),
            ),
        ];
        for (needle, break_it) in cases {
            let mut r = review();
            break_it(&mut r);
            let err = check(&r).unwrap_err();
            assert!(err.contains(needle), "{needle}: {err}");
        }
    }

    #[test]
    fn each_repairable_rule_is_found() {
        let mut r = review();
        assert!(lapses(&r).is_empty());
        r.extra_json = r#"{"verified_purchase": true, "badge": "top"}"#;
        r.sub_ratings = vec![("staff", 90.0, 100.0), ("location", 11.0, 10.0)];
        r.languages = vec![("language", Some("english")), ("language", Some("pt-BR"))];
        let found = lapses(&r);
        assert_eq!(
            found,
            vec![
                Lapse::Promoted("verified_purchase".into(), Concept::Verified),
                Lapse::SubRating("location".into()),
                Lapse::Language("language"),
            ]
        );
        assert!(found[0].to_string().contains("set that field instead"));
    }

    #[test]
    fn language_tags() {
        for good in ["en", "de", "pt-BR", "zh-Hant", "yue", "sr-Latn-RS"] {
            assert!(is_language_tag(good), "{good}");
        }
        for bad in ["", "e", "english", "en_US", "en-", "12", "en-toolongsubtag"] {
            assert!(!is_language_tag(bad), "{bad}");
        }
    }
}
