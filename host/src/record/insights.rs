//! What a request's `insights` adds to a review: its sentiment, whether that
//! contradicts its stars, its key phrases, and the earlier review it nearly
//! repeats; the server's insights module fills them, the first three from the
//! review-insights plugin.

use serde::{Deserialize, Serialize};

/// A review's sentiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sentiment {
    /// `positive`, `neutral` or `negative`.
    pub label: Label,
    /// From -1 to 1.
    pub score: f64,
}

/// A sentiment label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    /// A score of 0.05 or more.
    Positive,
    /// Between the two.
    Neutral,
    /// A score of -0.05 or less.
    Negative,
}

/// What `insights: true` adds to a review.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReviewInsights {
    /// The text's sentiment; null for a language without a model, or no text.
    pub sentiment: Option<Sentiment>,
    /// Whether the text clearly contradicts the stars; null without both,
    /// and in a language the processor does not decide it in.
    pub rating_mismatch: Option<bool>,
    /// Up to five key phrases, best first.
    pub keywords: Vec<String>,
    /// The id of the earliest review in the same fetch or job whose text
    /// this one's is a near-duplicate of; null when there is none.
    pub duplicate_of: Option<String>,
}
