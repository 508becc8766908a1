//! The shapes of the jobs API, each defined once: a job's status (`GET
//! /jobs/{id}`, the lists, the webhook bodies, `gleaner jobs`), a schedule's
//! body, and the webhook a request gives. Their serde shape is the wire, and
//! the schema derived from each is the OpenAPI document's component.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::model::JobState;
use crate::stop::StopReason;

/// A job's status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JobStatus {
    /// The job's id.
    pub job_id: String,
    /// The source endpoint it pages.
    pub endpoint: String,
    /// Where it is in its life.
    pub state: JobState,
    /// Reviews stored so far.
    pub reviews_collected: u64,
    /// Pages fetched so far.
    pub pages_fetched: u64,
    /// Why it stopped, in the fetch answer's words.
    pub stop_reason: Option<StopReason>,
    /// Why it failed.
    pub error: Option<String>,
    /// When it was submitted (RFC 3339).
    pub created_at: String,
    /// When a worker first took it (RFC 3339).
    pub started_at: Option<String>,
    /// When it ended (RFC 3339).
    pub finished_at: Option<String>,
    /// The job's total, when the request gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviews_to_fetch: Option<u64>,
    /// The schedule it ran for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_id: Option<String>,
    /// Its webhook's delivery, when it has a webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<WebhookStatus>,
    /// Its export to object storage, when it asked for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export: Option<crate::model::Export>,
    /// The sentiment of its reviews at a glance, when its request asks for
    /// `insights`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insights: Option<InsightsSummary>,
}

/// The share of each sentiment label among a job's reviews, how many
/// contradict their stars, and how many nearly repeat an earlier one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InsightsSummary {
    /// Reviews with a sentiment.
    pub scored: u64,
    /// Reviews without one: no text, or a language without a model.
    pub unscored: u64,
    /// The share of scored reviews labelled positive, from 0 to 1.
    pub positive: f64,
    /// The share labelled neutral.
    pub neutral: f64,
    /// The share labelled negative.
    pub negative: f64,
    /// Reviews whose text clearly contradicts their stars.
    pub rating_mismatches: u64,
    /// Reviews whose text nearly repeats an earlier review's
    /// (`duplicate_of` set).
    pub near_duplicates: u64,
}

/// Counts reviews, as stored, into an [`InsightsSummary`].
#[derive(Debug, Clone, Default)]
pub struct InsightsTally {
    labels: [u64; 3],
    unscored: u64,
    mismatches: u64,
    duplicates: u64,
}

impl InsightsTally {
    /// Counts one stored review (its JSON).
    pub fn add(&mut self, review: &serde_json::Value) {
        match review["sentiment"]["label"].as_str() {
            Some("positive") => self.labels[0] += 1,
            Some("neutral") => self.labels[1] += 1,
            Some("negative") => self.labels[2] += 1,
            _ => self.unscored += 1,
        }
        self.mismatches += u64::from(review["rating_mismatch"] == true);
        self.duplicates += u64::from(review["duplicate_of"].is_string());
    }

    /// The summary of the reviews counted; shares to four decimals.
    pub fn summary(&self) -> InsightsSummary {
        let scored: u64 = self.labels.iter().sum();
        let share = |n: u64| match scored {
            0 => 0.0,
            all => (n as f64 / all as f64 * 10_000.0).round() / 10_000.0,
        };
        InsightsSummary {
            scored,
            unscored: self.unscored,
            positive: share(self.labels[0]),
            neutral: share(self.labels[1]),
            negative: share(self.labels[2]),
            rating_mismatches: self.mismatches,
            near_duplicates: self.duplicates,
        }
    }
}

#[cfg(test)]
mod insights_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tally_counts_labels_and_mismatches() {
        let mut tally = InsightsTally::default();
        for review in [
            json!({"sentiment": {"label": "positive", "score": 0.8}, "rating_mismatch": false}),
            json!({"sentiment": {"label": "positive", "score": 0.6}, "rating_mismatch": true, "duplicate_of": "r1"}),
            json!({"sentiment": {"label": "negative", "score": -0.6}, "rating_mismatch": null}),
            json!({"sentiment": null, "rating_mismatch": null}),
        ] {
            tally.add(&review);
        }
        let s = tally.summary();
        assert_eq!((s.scored, s.unscored, s.rating_mismatches), (3, 1, 1));
        assert_eq!(s.near_duplicates, 1);
        assert_eq!((s.positive, s.neutral, s.negative), (0.6667, 0.0, 0.3333));
    }
}

/// Where the delivery of a job's webhook stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookStatus {
    /// Deliveries attempted.
    pub attempts: u32,
    /// The status the last attempt got (null: no answer).
    pub last_status: Option<u16>,
    /// Why the last attempt got no answer (refused, timed out, no
    /// connection); null when it got one.
    pub last_error: Option<String>,
    /// When the next attempt is due (RFC 3339); null once delivered or given
    /// up after 8 attempts.
    pub next_attempt_at: Option<String>,
    /// When a 2xx answered it (RFC 3339).
    pub delivered_at: Option<String>,
}

/// A schedule as the API answers it (`POST /schedules`, `GET /schedules`,
/// `GET /schedules/{id}`): its cadence as `every`, or `cron` with
/// `timezone`; its webhook's URL, never its secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Schedule)]
pub struct ScheduleBody {
    /// The schedule's id.
    pub schedule_id: String,
    /// The source endpoint each run pages.
    pub endpoint: String,
    /// The request each run sends.
    #[schema(value_type = Object)]
    pub request: serde_json::Value,
    /// When it runs next (RFC 3339).
    pub next_run_at: String,
    /// Its latest run's job.
    pub last_job_id: Option<String>,
    /// Runs started.
    pub runs: u64,
    /// Runs skipped because the previous one was still going.
    pub skipped_runs: u64,
    /// New reviews its runs delivered, all together.
    pub reviews_delivered: u64,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// Its interval, e.g. `6h`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<String>,
    /// Its cron expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cron: Option<String>,
    /// The cron expression's time zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Where each run's end is announced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<WebhookTarget>,
    /// Whether its runs look for edits, replies and removals.
    #[serde(default)]
    pub track_changes: bool,
    /// How many of the newest delivered reviews each run re-reads, or
    /// `"all"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub change_window: Option<serde_json::Value>,
    /// How often a run walks the whole source, e.g. `7d`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconcile_every: Option<String>,
    /// Where each run's reviews are written, when they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export: Option<ExportTarget>,
}

/// Where a schedule's runs are announced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookTarget {
    /// The URL each run's end is POSTed to.
    pub url: String,
}

/// The webhook a job or schedule request gives.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Webhook)]
pub struct WebhookRequest {
    /// A public http(s) URL; POSTed the job's end, signed with
    /// `Gleaner-Signature`.
    pub url: String,
    /// At least 16 characters; signs every delivery.
    #[schema(min_length = 16)]
    pub secret: String,
}

/// What a schedule's runs write to object storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportTarget {
    /// The object's format: `parquet`, `csv`, `ndjson` or `json`.
    pub format: String,
}
