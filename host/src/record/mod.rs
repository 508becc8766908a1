//! The records the API returns: the review record (version 2: one meaning per
//! field whatever the source) and the forum post record ([`post`]).
//!
//! - [`country`]: a country as a site gives it, made ISO 3166-1 alpha-2;
//! - [`fingerprint`]: a review's content fingerprint, and what changed;
//! - [`language`]: the language of a review the site gives none for;
//! - [`repair`]: the record's rules a review breaks, found and repaired.

pub use gleaner_contract::country;
pub mod fingerprint;
pub mod insights;
pub mod language;
mod post;
pub mod repair;

pub use post::*;

use gleaner_contract::date::{self, RecordDate};
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use crate::bindings::types as wit;
use crate::text::{self, SourceText};

/// The version of the review record, in `extra_information.record_version`.
pub const RECORD_VERSION: u32 = 2;

pub use gleaner_contract::review::FIELDS;

/// A media item, shaped like docs/SPEC.md's post media.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Media {
    /// Height in pixels.
    pub height: Option<Number>,
    /// Source id.
    pub id: Option<String>,
    /// `image` or `video`.
    pub review_media_type: String,
    /// URL.
    pub review_media_url: String,
    /// Width in pixels.
    pub width: Option<Number>,
}

/// The owner's reply to a review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reply {
    /// Reply text, formatted like the review text.
    pub text: String,
    /// RFC 3339 UTC.
    pub date: Option<String>,
    /// How precise `date` is: `second`, `minute`, `day`, `month` or `year`.
    pub date_precision: Option<&'static str>,
    /// Who replied.
    pub author: Option<String>,
}

/// The rating of one aspect (cleanliness, staff), on its own scale.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubRating {
    /// The aspect, as the site names it.
    pub name: String,
    /// The rating.
    pub rating: f64,
    /// The top of its scale.
    pub scale_max: f64,
}

/// What the site says of a review shown translated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Translation {
    /// Translated by machine.
    pub is_machine_translated: bool,
    /// The text as written, where the site gives it.
    pub original_text: Option<String>,
    /// Its language (BCP 47), where the site gives it.
    pub original_language: Option<String>,
}

/// One review as every review-fetch endpoint returns it. Null where the source
/// lacks a value; docs/api.md gives each field's rule.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Review {
    /// Source id of the review.
    pub review_id: String,
    /// Title.
    pub review_title: Option<String>,
    /// Text, formatted per `is_text_formatted`.
    pub review_text: Option<String>,
    /// Rating on the source's scale.
    pub review_rating: Option<f64>,
    /// Top of that scale (e.g. 5).
    pub rating_scale_max: Option<f64>,
    /// The rating scaled to 0–5.
    pub rating_out_of_5: Option<f64>,
    /// RFC 3339 UTC date-time.
    pub review_date: Option<String>,
    /// How precise `review_date` is: `second`, `minute`, `day`, `month` or `year`.
    pub review_date_precision: Option<&'static str>,
    /// When the site says the review was edited, RFC 3339 UTC.
    pub updated_date: Option<String>,
    /// Author's display name.
    pub author_name: Option<String>,
    /// Author's avatar.
    pub author_profile_image_url: Option<String>,
    /// Author's profile page.
    pub author_url: Option<String>,
    /// Role, company or place; never a bare country.
    pub author_title: Option<String>,
    /// ISO 3166-1 alpha-2.
    pub author_country: Option<String>,
    /// Permalink of the review.
    pub review_url: Option<String>,
    /// Attached media.
    pub review_media: Vec<Media>,
    /// Owner reply.
    pub review_reply: Option<Reply>,
    /// Helpful votes.
    pub helpful_votes: Option<i64>,
    /// BCP 47 language tag.
    pub language: Option<String>,
    /// Where `language` comes from: `site` or `detected`.
    pub language_source: Option<&'static str>,
    /// The site's own verification of the author.
    pub verified: Option<bool>,
    /// Whether the author recommends what was reviewed.
    pub recommends: Option<bool>,
    /// The site hides the author's name.
    pub anonymous: bool,
    /// Ratings of aspects.
    pub sub_ratings: Vec<SubRating>,
    /// Set when the site shows the review translated.
    pub translation: Option<Translation>,
    /// The source label.
    pub source: String,
    /// Fields particular to the source.
    pub extra: Value,
    /// The signed receipt of where the review was read, when the request
    /// asked for `receipts` ([`crate::receipts`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Value>,
    /// `sentiment`, `rating_mismatch`, `keywords` and `duplicate_of`, when the request asked
    /// for `insights` (filled by the insights module): derived, so no receipt covers them.
    #[serde(flatten)]
    pub insights: Option<insights::ReviewInsights>,
}

/// Turns WIT text into [`SourceText`].
pub fn source_text(t: &wit::Text) -> SourceText {
    match t {
        wit::Text::Plain(s) => SourceText::Plain(s.clone()),
        wit::Text::Html(s) => SourceText::Html(s.clone()),
    }
}

/// Parses a plugin's `extra-json` (empty means an empty object).
pub fn extra_object(json: &str) -> Value {
    if json.trim().is_empty() {
        return Value::Object(Default::default());
    }
    match serde_json::from_str::<Value>(json) {
        Ok(v @ Value::Object(_)) => v,
        _ => Value::Object(Default::default()),
    }
}

impl Review {
    /// Builds the record from a plugin's review after checking it against the
    /// review contract: fields trimmed, text formatted once, dates made RFC
    /// 3339 UTC, the rating scaled, the country made alpha-2 and the language
    /// detected where the site gives none, here. The record's repairable
    /// rules the review broke are returned beside it, already repaired.
    /// `declared` is the source's `[source.extra]`, which `extra` is checked against.
    pub fn from_wit(
        review: &wit::Review,
        source: &str,
        formatted: bool,
        declared: Option<&crate::manifest::OutputSpec>,
    ) -> Result<(Review, Vec<repair::Lapse>), crate::contract::ContractError> {
        crate::contract::check_review(review)?;
        let format = |t: &wit::Text| text::format(&source_text(t), formatted);
        let date = |d: &Option<String>| -> Option<RecordDate> {
            // Checked by the contract above.
            d.as_deref().and_then(|d| date::normalize(d).ok())
        };
        let posted = date(&review.date);
        let mut record = Review {
            review_id: review.id.trim().to_owned(),
            review_title: non_empty(&review.title),
            review_text: review.text.as_ref().map(format).filter(|t| !t.is_empty()),
            review_rating: review.rating,
            rating_scale_max: review.rating_scale_max,
            rating_out_of_5: out_of_5(review.rating, review.rating_scale_max),
            review_date_precision: posted.as_ref().map(|d| d.precision.as_str()),
            review_date: posted.map(|d| d.utc),
            updated_date: date(&review.updated_date).map(|d| d.utc),
            author_name: non_empty(&review.author_name),
            author_profile_image_url: non_empty(&review.author_profile_image_url),
            author_url: non_empty(&review.author_url),
            author_title: non_empty(&review.author_title),
            author_country: None,
            review_url: non_empty(&review.review_url),
            review_media: review
                .media
                .iter()
                .map(|m| Media {
                    height: m.height.map(Number::from),
                    id: m.id.clone(),
                    review_media_type: m.media_type.clone(),
                    review_media_url: m.url.trim().to_owned(),
                    width: m.width.map(Number::from),
                })
                .collect(),
            // A reply without text shows nothing: the review has none.
            review_reply: review.reply.as_ref().and_then(|r| {
                let text = Some(format(&r.text)).filter(|t| !t.is_empty())?;
                let replied = date(&r.date);
                Some(Reply {
                    text,
                    date_precision: replied.as_ref().map(|d| d.precision.as_str()),
                    date: replied.map(|d| d.utc),
                    author: non_empty(&r.author),
                })
            }),
            helpful_votes: review.helpful_votes,
            language: non_empty(&review.language),
            language_source: None,
            verified: review.verified,
            recommends: review.recommends,
            anonymous: review.anonymous,
            sub_ratings: review
                .sub_ratings
                .iter()
                .map(|s| SubRating {
                    name: s.name.trim().to_owned(),
                    rating: s.rating,
                    scale_max: s.scale_max,
                })
                .collect(),
            translation: review.translation.as_ref().map(|t| Translation {
                is_machine_translated: t.is_machine_translated,
                original_text: non_empty(&t.original_text),
                original_language: non_empty(&t.original_language),
            }),
            source: source.to_owned(),
            extra: extra_object(&review.extra_json),
            receipt: None,
            insights: None,
        };
        let fields = gleaner_contract::review_fields!(review);
        let mut lapses = repair::repair(&mut record, &fields, review.author_country.as_deref());
        if let (Some(declared), Value::Object(extra)) = (declared, &record.extra) {
            lapses.extend(
                declared
                    .mismatches(extra)
                    .into_iter()
                    .map(repair::Lapse::Extra),
            );
        }
        language::settle(&mut record);
        lapses.shrink_to_fit();
        Ok((record, lapses))
    }
}

/// A trimmed, non-empty copy.
fn non_empty(s: &Option<String>) -> Option<String> {
    s.as_ref()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// `rating` on a scale topping at `max`, scaled to 0–5 and rounded to
/// hundredths (hostel 90/100 → 4.5).
pub fn out_of_5(rating: Option<f64>, max: Option<f64>) -> Option<f64> {
    let (rating, max) = (rating?, max?);
    (max > 0.0).then(|| (rating / max * 500.0).round() / 100.0)
}
