//! review-insights: what one review's text says, offline. Its language (the
//! detector the record uses), its sentiment in that language (a trained
//! model with VADER in English, lexicons elsewhere), whether the text
//! contradicts the reviewer's stars (where two scorers can agree), and its key phrases (YAKE). Every table
//! is built into the component; the model, the lexicons, VADER's tables, the
//! stop words and the tokenizer's patterns are built once, before the first
//! call (`prepare`).

pub mod cjk;
pub mod japanese;
pub mod keywords;
pub mod lexicon;
pub mod mismatch;
pub mod model;
pub mod sentiment;

use gleaner_sdk::request;
use gleaner_text::language;
use serde::{Deserialize, Serialize};

pub use sentiment::{Label, Sentiment};

gleaner_sdk::export_processor!(process, prepare = prepare);

use exports::gleaner::plugin::processor_plugin::{Output, ProcessError};

/// The request, as the manifest declares it (the host has checked types,
/// bounds and lengths).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Input {
    /// The caller's id of the review, echoed back.
    pub review_id: Option<String>,
    /// The review's plain text.
    pub review_text: String,
    /// The reviewer's rating, on `rating_scale_max`'s scale.
    pub review_rating: Option<f64>,
    /// The best rating on the scale; 5 when none is given.
    pub rating_scale_max: Option<f64>,
    /// The review's language when the caller knows it (BCP 47).
    pub language: Option<String>,
}

/// The answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Insights {
    /// The request's id, or "".
    pub review_id: String,
    /// The BCP 47 primary tag, or none for a text too short to tell.
    pub language: Option<String>,
    /// The detector's confidence, 1 for a language the caller gave.
    pub language_confidence: Option<f64>,
    /// The sentiment, or none for a language without a lexicon here.
    pub sentiment: Option<Sentiment>,
    /// Whether the text clearly contradicts the stars ([`mismatch`]); none
    /// without a rating, or in a language it is not decided in.
    pub rating_mismatch: Option<bool>,
    /// 0 to 5 key phrases, best first.
    pub keywords: Vec<String>,
    /// Why a value is missing, one sentence each.
    pub notices: Vec<String>,
}

/// The scale a rating is on when the request names none.
pub const DEFAULT_SCALE: f64 = 5.0;

fn prepare() {
    sentiment::prepare();
    keywords::prepare();
    // One review through every step, language detection included: what each
    // builds on its first use is built now, not in every call's instance.
    let _ = insights(&Input {
        review_id: None,
        review_text: "The room was clean and the staff were friendly, but breakfast was cold."
            .into(),
        review_rating: Some(4.0),
        rating_scale_max: None,
        language: None,
    });
}

fn process(input: String) -> Result<Output, ProcessError> {
    let input: Input = request::input(&input).map_err(ProcessError::InvalidInput)?;
    let insights = insights(&input).map_err(ProcessError::InvalidInput)?;
    // Strings, finite numbers and arrays of strings: serialising cannot fail,
    // and the host checks the answer against the manifest either way.
    let body = serde_json::to_string(&insights).unwrap_or_default();
    Ok(Output {
        body,
        engine: "rules".into(),
    })
}

/// The insights of one review; an error (a 400) names a field whose value
/// contradicts another.
pub fn insights(input: &Input) -> Result<Insights, String> {
    let scale = input.rating_scale_max.unwrap_or(DEFAULT_SCALE);
    if let Some(rating) = input.review_rating {
        if rating > scale {
            return Err(format!(
                "`review_rating` is {rating}, above the scale's best ({scale}); give a rating from 0 to rating_scale_max (5 when omitted)"
            ));
        }
    }
    let text = input.review_text.trim();
    let mut notices = Vec::new();
    let given = input
        .language
        .as_deref()
        .map(str::trim)
        .filter(|tag| !tag.is_empty())
        .map(|tag| primary(&language::canonical(tag)));
    let (tag, confidence) = match given {
        Some(tag) => (Some(tag), Some(1.0)),
        None => match language::detect_with_confidence(text) {
            Some(found) => (Some(found.tag), Some(round(found.confidence, 3))),
            None => {
                notices.push(format!(
                    "the text is too short to tell its language (under {} characters, a Han, kana or Hangul character counting as two) or in none the detector knows; give `language` to have it scored",
                    language::MIN_CHARS
                ));
                (None, None)
            }
        },
    };
    let scores = tag.as_deref().and_then(|tag| {
        let found = sentiment::scores(tag, text);
        if found.is_none() {
            notices.push(format!(
                "no sentiment lexicon for `{tag}` here (supported: {}), so sentiment and rating_mismatch are null",
                sentiment::LANGUAGES.join(", ")
            ));
        }
        found
    });
    let rating_mismatch = match (input.review_rating, &scores, tag.as_deref()) {
        (Some(rating), Some(found), Some(tag)) => {
            let decided = mismatch::contradicts(tag, rating, scale, found, text);
            if decided.is_none() {
                notices.push(format!(
                    "rating_mismatch is decided in {} only, where two scorers can agree; in `{tag}` most flags of its one scorer were wrong, so it is null: weigh `sentiment` against the stars instead",
                    mismatch::LANGUAGES.join(", ")
                ));
            }
            decided
        }
        _ => None,
    };
    let sentiment = match (tag.as_deref(), &scores) {
        (Some(tag), Some(whole)) => Some(sentiment::answer(tag, text, whole)),
        _ => None,
    };
    let keywords = match tag.as_deref() {
        Some(tag) => {
            let found = keywords::extract(tag, text);
            if found.is_none() {
                notices.push(format!(
                    "no stop words for `{tag}` here (supported: {}), so keywords is empty",
                    keywords::LANGUAGES.join(", ")
                ));
            }
            found.unwrap_or_default()
        }
        None => Vec::new(),
    };
    Ok(Insights {
        review_id: input.review_id.clone().unwrap_or_default(),
        language: tag,
        language_confidence: confidence,
        sentiment,
        rating_mismatch,
        keywords,
        notices,
    })
}

/// The primary subtag of a BCP 47 tag: `pt` for `pt-BR`.
fn primary(tag: &str) -> String {
    tag.split('-').next().unwrap_or(tag).to_owned()
}

fn round(value: f64, places: i32) -> f64 {
    let factor = 10f64.powi(places);
    (value * factor).round() / factor
}

#[cfg(test)]
mod tests;
