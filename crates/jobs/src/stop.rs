//! Why a fetch, or a job, stopped: the fetch answer's `stop_reason`, a
//! job's, and their schema in the OpenAPI document all come from this one
//! definition.

use serde_json::Value;

/// Why a fetch, or a job, stopped.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The source has no more reviews.
    Exhausted,
    /// `reviews_to_fetch` reviews were collected.
    LimitReached,
    /// A dated source went past `sync_date`: older reviews on a newest-first
    /// source, newer ones on an oldest-first source.
    PastSyncDate,
    /// The time budget ran out.
    #[serde(rename = "time_budget")]
    Budget,
    /// The source failed after some reviews were collected.
    SourceError,
    /// The source serves no further, though the item has more reviews (a feed
    /// capped at N pages); the plugin says why in its metadata's `source_limit`.
    SourceLimit,
    /// The fetch reached reviews delivered before (a `sync_cursor`'s, or a
    /// schedule's earlier runs'): everything after them was delivered.
    CaughtUp,
}

impl StopReason {
    /// The word the API uses for it.
    pub fn code(self) -> String {
        match serde_json::to_value(self) {
            Ok(Value::String(word)) => word,
            // A unit variant always serializes to its name.
            _ => format!("{self:?}"),
        }
    }

    /// The reason a word names.
    pub fn parse(word: &str) -> Option<StopReason> {
        serde_json::from_value(Value::String(word.to_owned())).ok()
    }
}
