//! Review insights on fetched reviews: with a request's `insights: true`,
//! each review carries `sentiment`, `rating_mismatch` and `keywords`, from
//! the review-insights processor plugin (`/features/review-insights`), the
//! same plugin and answer the route gives. The host checks what the plugin
//! answers as it checks any plugin: a label outside the three, a score
//! outside -1..1 or more than five key phrases is refused, never passed on.
//!
//! Each review also carries `duplicate_of`: the earliest review of the same
//! fetch or job whose text it nearly repeats (MinHash over shingles, in
//! [`gleaner_text::near_duplicate`]), which the host finds itself, since it
//! needs every review of the job at once.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde::Deserialize;
use serde_json::json;

use gleaner_text::near_duplicate::NearDuplicates;

use crate::error::ApiError;
use crate::record::insights::{ReviewInsights, Sentiment};
use crate::record::Review;
use crate::registry::Registry;
use crate::runtime::{LoadedPlugin, Runtime};

/// The processor's route.
pub const ROUTE: &str = "/features/review-insights";

/// The most key phrases a review carries.
pub const MOST_KEYWORDS: usize = 5;

pub use crate::record::insights::Label;

/// The longest key phrase kept, in characters.
pub const KEYWORD_CHARS: usize = 200;

/// The longest text sent to the processor, in characters (its `max_length`):
/// a longer review is scored on its beginning.
pub const TEXT_CHARS: usize = 20_000;

/// The most reviews of one fetch or job kept for near-duplicate comparison
/// (about 0.6 KB each): later ones are compared with these, not kept.
pub const MOST_COMPARED: usize = 100_000;

/// The processor's answer, as much of it as the record takes.
#[derive(Debug, Deserialize)]
struct Answer {
    sentiment: Option<Sentiment>,
    rating_mismatch: Option<bool>,
    keywords: Vec<String>,
}

/// The review-insights plugin, found for one fetch or job, and the texts
/// of the reviews it has seen so far.
pub struct Insights {
    runtime: Arc<Runtime>,
    plugin: Arc<LoadedPlugin>,
    seen: Mutex<NearDuplicates>,
}

impl Insights {
    /// The plugin serving [`ROUTE`]; a 400 naming `insights` when none does.
    pub fn find(registry: &Registry, runtime: &Arc<Runtime>) -> Result<Insights, ApiError> {
        let plugin = registry.get(ROUTE).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "`insights` needs the review-insights processor, and no plugin serves {ROUTE} on this server; install plugins/review-insights, or send the request without insights"
            ))
        })?;
        Ok(Insights {
            runtime: runtime.clone(),
            plugin,
            seen: Mutex::new(NearDuplicates::with_limit(MOST_COMPARED)),
        })
    }

    /// Takes a review stored before (a resumed job's), so later reviews that
    /// nearly repeat it point at it.
    pub fn seen_before(&self, review_id: &str, text: &str) {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .check(review_id, text);
    }

    /// Adds the insights of each review in `reviews`, before `deadline`.
    pub async fn add(
        &self,
        reviews: &mut [Review],
        request_id: &str,
        deadline: Instant,
    ) -> Result<(), ApiError> {
        for review in reviews {
            let mut insights = self.of(review, request_id, deadline).await?;
            if let Some(text) = &review.review_text {
                insights.duplicate_of = self
                    .seen
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .check(&review.review_id, text);
            }
            review.insights = Some(insights);
        }
        Ok(())
    }

    /// The insights of one review: none worth asking for without a text.
    async fn of(
        &self,
        review: &Review,
        request_id: &str,
        deadline: Instant,
    ) -> Result<ReviewInsights, ApiError> {
        let Some(text) = review
            .review_text
            .as_deref()
            .filter(|t| !t.trim().is_empty())
        else {
            return Ok(ReviewInsights::default());
        };
        let text: String = text.chars().take(TEXT_CHARS).collect();
        // A rating above its scale is the source's to answer for, not a
        // reason to refuse the review: it is sent without one.
        let rating = match (review.review_rating, review.rating_scale_max) {
            (Some(r), Some(max)) if r >= 0.0 && r <= max && (1.0..=100.0).contains(&max) => {
                Some((r, max))
            }
            (Some(r), None) if (0.0..=5.0).contains(&r) => Some((r, 5.0)),
            _ => None,
        };
        let input = json!({
            "review_id": review.review_id,
            "review_text": text,
            "review_rating": rating.map(|(r, _)| r),
            "rating_scale_max": rating.map(|(_, max)| max),
            "language": review.language.as_deref().map(|l| l.chars().take(35).collect::<String>()),
        });
        let name = &self.plugin.manifest.name;
        let output = self
            .runtime
            .process(&self.plugin, request_id, &input.to_string(), deadline)
            .await
            .map_err(ApiError::from)?
            .map_err(|e| {
                ApiError::PluginFailed(format!(
                    "plugin {name} refused review {}: {e:?}",
                    review.review_id
                ))
            })?;
        checked(&output.body).map_err(|e| ApiError::PluginFailed(format!("plugin {name} {e}")))
    }
}

/// The plugin's answer, checked: the record takes nothing it does not.
fn checked(body: &str) -> Result<ReviewInsights, String> {
    let answer: Answer = serde_json::from_str(body)
        .map_err(|e| format!("answered what review insights are not: {e}"))?;
    if let Some(s) = &answer.sentiment {
        if !(s.score.is_finite() && (-1.0..=1.0).contains(&s.score)) {
            return Err(format!(
                "answered a sentiment score of {} (not -1..1)",
                s.score
            ));
        }
    }
    if answer.keywords.len() > MOST_KEYWORDS {
        return Err(format!(
            "answered {} key phrases, more than {MOST_KEYWORDS}",
            answer.keywords.len()
        ));
    }
    let keywords = answer
        .keywords
        .into_iter()
        .map(|k| crate::text::single_line(&k))
        .filter(|k| !k.is_empty() && k.chars().count() <= KEYWORD_CHARS)
        .collect();
    Ok(ReviewInsights {
        sentiment: answer.sentiment,
        rating_mismatch: answer.rating_mismatch,
        keywords,
        duplicate_of: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checked_answer_keeps_what_the_record_takes() {
        let found = checked(
            r#"{"review_id":"r","language":"en","language_confidence":0.9,
                "sentiment":{"label":"negative","score":-0.7},"rating_mismatch":true,
                "keywords":["rude  staff","dirty room"],"notices":[]}"#,
        )
        .unwrap();
        assert_eq!(found.sentiment.unwrap().label, Label::Negative);
        assert_eq!(found.rating_mismatch, Some(true));
        assert_eq!(found.keywords, ["rude staff", "dirty room"]);
    }

    #[test]
    fn an_answer_out_of_bounds_is_refused() {
        let score =
            r#"{"sentiment":{"label":"positive","score":3},"rating_mismatch":null,"keywords":[]}"#;
        assert!(checked(score).unwrap_err().contains("-1..1"));
        let label =
            r#"{"sentiment":{"label":"great","score":0.5},"rating_mismatch":null,"keywords":[]}"#;
        assert!(checked(label).is_err());
        let many =
            r#"{"sentiment":null,"rating_mismatch":null,"keywords":["a","b","c","d","e","f"]}"#;
        assert!(checked(many).unwrap_err().contains("more than 5"));
    }
}
