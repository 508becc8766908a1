//! What the jobs API stores and answers: jobs with their status, webhook
//! deliveries, schedules. Plain data: the store keeps it, the API shapes it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::changes::Tracking;
use crate::stop::StopReason;

pub use crate::status::{ExportTarget, JobStatus, ScheduleBody, WebhookStatus, WebhookTarget};

pub use crate::clock::{now_ms, parse_rfc3339, rfc3339, Millis};

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Waiting for a worker.
    Queued,
    /// A worker is paging it.
    Running,
    /// It ended: the source had no more, or its total was reached.
    Succeeded,
    /// Its budget or its retries ran out; what it collected stays.
    Failed,
    /// Its owner cancelled it; what it collected stays.
    Cancelled,
}

impl JobState {
    /// Every state, in the words the API uses.
    pub const ALL: [JobState; 5] = [
        JobState::Queued,
        JobState::Running,
        JobState::Succeeded,
        JobState::Failed,
        JobState::Cancelled,
    ];

    /// The API's word for the state.
    pub fn code(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Succeeded => "succeeded",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
        }
    }

    /// The state a word names.
    pub fn parse(word: &str) -> Option<JobState> {
        JobState::ALL.into_iter().find(|s| s.code() == word)
    }

    /// Whether the job has ended.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            JobState::Succeeded | JobState::Failed | JobState::Cancelled
        )
    }
}

/// Where a job's end is announced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Webhook {
    /// The URL POSTed to.
    pub url: String,
    /// The secret the body is signed with.
    pub secret: String,
}

/// Where writing a job's export stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExportState {
    /// Waiting for the job to end, or for the next attempt after a failed one.
    Pending,
    /// The object is written.
    Written,
    /// Every attempt failed; the reviews stay readable from the job.
    Failed,
}

/// A job's reviews written as one object to the server's object storage
/// when the job ends, and how writing it went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Export {
    /// The object's format: `parquet`, `csv`, `ndjson` or `json`.
    pub format: String,
    /// Where writing it stands.
    pub state: ExportState,
    /// The object's key in the bucket, once an attempt was made.
    pub key: Option<String>,
    /// The object's size in bytes, once written.
    pub bytes: Option<u64>,
    /// Why the last attempt failed.
    pub error: Option<String>,
    /// Attempts made.
    pub attempts: u32,
}

impl Export {
    /// An export in `format` that has not been tried yet.
    pub fn pending(format: &str) -> Export {
        Export {
            format: format.to_owned(),
            state: ExportState::Pending,
            key: None,
            bytes: None,
            error: None,
            attempts: 0,
        }
    }
}

/// A job to create.
#[derive(Debug, Clone)]
pub struct NewJob {
    /// Who owns it (a digest of the API key that created it).
    pub owner: String,
    /// The source endpoint, e.g. `/customer-feedback-hub/reviews`.
    pub endpoint: String,
    /// The request body that endpoint takes, as submitted.
    pub request: Value,
    /// The job's total of reviews, if any.
    pub total: Option<u64>,
    /// Where its end is announced.
    pub webhook: Option<Webhook>,
    /// The schedule it runs for, if any.
    pub schedule_id: Option<String>,
    /// The format its reviews are written to object storage in when it
    /// ends, if they are.
    pub export: Option<String>,
}

/// A job as the store keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Its id.
    pub job_id: String,
    /// Who owns it.
    pub owner: String,
    /// The source endpoint.
    pub endpoint: String,
    /// The request, as submitted.
    pub request: Value,
    /// Its total of reviews, if any.
    pub total: Option<u64>,
    /// Its state.
    pub state: JobState,
    /// The continuation token that resumes after what it committed.
    pub position: Option<String>,
    /// Reviews stored.
    pub reviews_collected: u64,
    /// Pages fetched.
    pub pages_fetched: u64,
    /// Why it stopped, in the fetch answer's words.
    pub stop_reason: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// When it was created, started and finished.
    pub created_at: Millis,
    /// When a worker first took it.
    pub started_at: Option<Millis>,
    /// When it ended.
    pub finished_at: Option<Millis>,
    /// Where its end is announced.
    pub webhook: Option<Webhook>,
    /// The schedule it runs for.
    pub schedule_id: Option<String>,
    /// Whether its owner asked to cancel it.
    pub cancel_requested: bool,
    /// Its export to object storage, if it asked for one.
    #[serde(default)]
    pub export: Option<Export>,
}

/// What a job's webhook delivery has done so far.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Delivery {
    /// Attempts made.
    pub attempts: u32,
    /// The status the last attempt got (none: no answer).
    pub last_status: Option<u16>,
    /// When it was delivered (a 2xx).
    pub delivered_at: Option<Millis>,
    /// What went wrong last, without an answer.
    pub last_error: Option<String>,
    /// When the next attempt is due; none once delivered or given up.
    pub next_attempt_at: Option<Millis>,
}

impl Job {
    /// The status the API answers (`GET /jobs/{id}`), with its webhook's
    /// delivery when it has a webhook.
    pub fn status(&self, delivery: Option<&Delivery>) -> JobStatus {
        let time = |t: Option<Millis>| t.map(rfc3339);
        let webhook = self.webhook.as_ref().map(|_| {
            let d = delivery.cloned().unwrap_or_default();
            WebhookStatus {
                attempts: d.attempts,
                last_status: d.last_status,
                last_error: d.last_error,
                next_attempt_at: time(d.next_attempt_at),
                delivered_at: time(d.delivered_at),
            }
        });
        JobStatus {
            job_id: self.job_id.clone(),
            endpoint: self.endpoint.clone(),
            state: self.state,
            reviews_collected: self.reviews_collected,
            pages_fetched: self.pages_fetched,
            stop_reason: self.stop_reason.as_deref().and_then(StopReason::parse),
            error: self.error.clone(),
            created_at: rfc3339(self.created_at),
            started_at: time(self.started_at),
            finished_at: time(self.finished_at),
            reviews_to_fetch: self.total,
            schedule_id: self.schedule_id.clone(),
            webhook,
            export: self.export.clone(),
            insights: None,
        }
    }
}

/// How often a schedule runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cadence {
    /// Every so many seconds.
    Every(u64),
    /// A five-field cron expression, in a time zone (UTC when none).
    Cron {
        /// The expression.
        expression: String,
        /// An IANA time zone, e.g. `Europe/Paris`.
        timezone: Option<String>,
    },
}

/// A schedule to create.
#[derive(Debug, Clone)]
pub struct NewSchedule {
    /// Who owns it.
    pub owner: String,
    /// The source endpoint.
    pub endpoint: String,
    /// The request each run sends.
    pub request: Value,
    /// How often it runs.
    pub cadence: Cadence,
    /// Where each run's end is announced.
    pub webhook: Option<Webhook>,
    /// When it first runs.
    pub next_run_at: Millis,
    /// Change tracking, when on.
    pub tracking: Option<Tracking>,
    /// The format each run's reviews are written to object storage in.
    pub export: Option<String>,
}

/// A schedule as the store keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// Its id.
    pub schedule_id: String,
    /// Who owns it.
    pub owner: String,
    /// The source endpoint.
    pub endpoint: String,
    /// The request each run sends.
    pub request: Value,
    /// How often it runs.
    pub cadence: Cadence,
    /// Where each run's end is announced.
    pub webhook: Option<Webhook>,
    /// When it runs next.
    pub next_run_at: Millis,
    /// Its latest run's job.
    pub last_job_id: Option<String>,
    /// Runs started.
    pub runs: u64,
    /// Runs skipped because the previous one was still going.
    pub skipped_runs: u64,
    /// Reviews its runs delivered, all together.
    pub reviews_delivered: u64,
    /// Whether its last run reached the end: only then may the next stop at
    /// the first page it delivered entirely before.
    pub caught_up: bool,
    /// When it was created.
    pub created_at: Millis,
    /// Change tracking, when on.
    #[serde(default)]
    pub tracking: Option<Tracking>,
    /// The format each run's reviews are written to object storage in.
    #[serde(default)]
    pub export: Option<String>,
}

impl Schedule {
    /// The schedule as the API answers it (`GET /schedules/{id}`).
    pub fn body(&self) -> ScheduleBody {
        let (every, cron, timezone) = match &self.cadence {
            Cadence::Every(secs) => (Some(crate::cadence::describe(*secs)), None, None),
            Cadence::Cron {
                expression,
                timezone,
            } => (
                None,
                Some(expression.clone()),
                Some(timezone.clone().unwrap_or_else(|| "UTC".to_owned())),
            ),
        };
        ScheduleBody {
            schedule_id: self.schedule_id.clone(),
            endpoint: self.endpoint.clone(),
            request: self.request.clone(),
            next_run_at: rfc3339(self.next_run_at),
            last_job_id: self.last_job_id.clone(),
            runs: self.runs,
            skipped_runs: self.skipped_runs,
            reviews_delivered: self.reviews_delivered,
            created_at: rfc3339(self.created_at),
            every,
            cron,
            timezone,
            webhook: self.webhook.as_ref().map(|hook| WebhookTarget {
                url: hook.url.clone(),
            }),
            track_changes: self.tracking.is_some(),
            change_window: self.tracking.as_ref().map(|t| t.window.to_json()),
            reconcile_every: self
                .tracking
                .as_ref()
                .and_then(|t| t.reconcile_every)
                .map(crate::cadence::describe),
            export: self.export.as_ref().map(|format| ExportTarget {
                format: format.clone(),
            }),
        }
    }
}

/// What a webhook delivery announces: a job's end (a schedule's run with
/// it), or the changes a tracked schedule's run found. A job has at most one
/// delivery of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Topic {
    /// `job.<state>` or `schedule.run`.
    #[default]
    End,
    /// `review.changed`.
    Changes,
}

impl Topic {
    /// Its name in the stores.
    pub fn code(self) -> &'static str {
        match self {
            Topic::End => "end",
            Topic::Changes => "changes",
        }
    }

    /// Reads a stored name.
    pub fn parse(code: &str) -> Topic {
        match code {
            "changes" => Topic::Changes,
            _ => Topic::End,
        }
    }
}

/// A webhook delivery waiting for its next attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingDelivery {
    /// Its id.
    pub id: i64,
    /// The job it announces.
    pub job_id: String,
    /// What it announces.
    pub topic: Topic,
    /// Who owns that job: deliveries take turns by owner.
    pub owner: String,
    /// Where it goes.
    pub webhook: Webhook,
    /// The body, exactly as signed and sent.
    pub body: String,
    /// Attempts made so far.
    pub attempts: u32,
}
