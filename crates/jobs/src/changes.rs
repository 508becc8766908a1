//! A schedule's review lifecycle: with `track_changes` on, each run
//! re-reads the newest reviews it delivered and compares each one's content
//! fingerprint with the one kept, and a full walk finds the reviews a site
//! took down. What it finds are change records, kept per schedule and read a
//! page at a time.
//!
//! This crate keeps and answers them; which fields make a fingerprint, and
//! what counts as a change, is the server's rule about the review record.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::clock::{rfc3339, Millis};

/// The newest delivered reviews a tracked run re-reads by default.
pub const DEFAULT_WINDOW: u32 = 200;
/// The most a window may name.
pub const MAX_WINDOW: u32 = 10_000;

/// How much of what it delivered a tracked schedule's run re-reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    /// The newest `n` reviews it delivered.
    Newest(u32),
    /// Every review, to the end of the source, on every run.
    All,
}

impl Window {
    /// The window as the API writes it: a number, or `"all"`.
    pub fn to_json(self) -> Value {
        match self {
            Window::Newest(n) => Value::from(n),
            Window::All => Value::from("all"),
        }
    }
}

/// Change tracking on a schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tracking {
    /// What each run re-reads.
    pub window: Window,
    /// A full walk this often, in seconds, so removals further back than
    /// the window are found too.
    pub reconcile_every: Option<u64>,
    /// When a run last walked to the end of the source.
    #[serde(default)]
    pub last_full_walk_at: Option<Millis>,
}

impl Tracking {
    /// Whether a run starting at `now` walks the whole source.
    pub fn walks_all(&self, now: Millis) -> bool {
        match (self.window, self.reconcile_every) {
            (Window::All, _) => true,
            (_, None) => false,
            (_, Some(every)) => self.last_full_walk_at.is_none_or(|last| {
                now.saturating_sub(last) >= (every as i64).saturating_mul(1_000)
            }),
        }
    }
}

/// A delivered review's content as a tracked schedule keeps it: the
/// fingerprint of the fields that carry meaning, and those fields
/// themselves, for a change's `before`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fingerprinted {
    /// The review's id.
    pub review_id: String,
    /// The digest of its meaningful fields.
    pub fingerprint: String,
    /// Those fields (and its date, which says where it stands).
    pub snapshot: Value,
}

/// What a change is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub enum ChangeKind {
    /// The author changed the text, title or rating.
    #[serde(rename = "review.updated")]
    Updated,
    /// The business replied.
    #[serde(rename = "review.reply_added")]
    ReplyAdded,
    /// The business changed its reply.
    #[serde(rename = "review.reply_updated")]
    ReplyUpdated,
    /// The site no longer shows the review.
    #[serde(rename = "review.removed")]
    Removed,
}

impl ChangeKind {
    /// Its name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Updated => "review.updated",
            ChangeKind::ReplyAdded => "review.reply_added",
            ChangeKind::ReplyUpdated => "review.reply_updated",
            ChangeKind::Removed => "review.removed",
        }
    }

    /// Reads a wire name.
    pub fn parse(name: &str) -> Option<ChangeKind> {
        [
            ChangeKind::Updated,
            ChangeKind::ReplyAdded,
            ChangeKind::ReplyUpdated,
            ChangeKind::Removed,
        ]
        .into_iter()
        .find(|k| k.as_str() == name)
    }
}

impl fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One change a run found.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// Stable across retries and replicas: the digest of the schedule, the
    /// review, the kind and the content it changed to.
    pub event_id: String,
    /// What changed.
    pub event: ChangeKind,
    /// The review.
    pub review_id: String,
    /// The schedule.
    pub schedule_id: String,
    /// The run (job) that found it.
    pub run_job_id: String,
    /// When.
    pub detected_at: Millis,
    /// The fields that changed, as they were (null for a removal's after).
    pub before: Value,
    /// The fields that changed, as they are now.
    pub after: Value,
}

impl Change {
    /// A change, its event id made from what identifies it: the same change
    /// found twice (a retried page, another replica) has the same id.
    pub fn new(
        event: ChangeKind,
        schedule_id: &str,
        run_job_id: &str,
        review_id: &str,
        to: &str,
        (before, after): (Value, Value),
        detected_at: Millis,
    ) -> Change {
        let mut digest = Sha256::new();
        for part in [schedule_id, review_id, event.as_str(), to] {
            digest.update(part.as_bytes());
            digest.update([0]);
        }
        Change {
            event_id: format!("chg_{}", hex::encode(&digest.finalize()[..16])),
            event,
            review_id: review_id.to_owned(),
            schedule_id: schedule_id.to_owned(),
            run_job_id: run_job_id.to_owned(),
            detected_at,
            before,
            after,
        }
    }

    /// The change as the API answers it.
    pub fn body(&self) -> ChangeBody {
        ChangeBody {
            event_id: self.event_id.clone(),
            event: self.event,
            review_id: self.review_id.clone(),
            schedule_id: self.schedule_id.clone(),
            run_job_id: self.run_job_id.clone(),
            detected_at: rfc3339(self.detected_at),
            before: self.before.clone(),
            after: self.after.clone(),
        }
    }
}

/// A change record as the API answers it (`GET /schedules/{id}/changes`,
/// the `review.changed` webhook).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangeBody {
    /// Stable across retries and replicas: a receiver drops one it has seen.
    pub event_id: String,
    /// `review.updated`, `review.reply_added`, `review.reply_updated` or
    /// `review.removed`.
    pub event: ChangeKind,
    /// The review's id.
    pub review_id: String,
    /// The schedule.
    pub schedule_id: String,
    /// The run (job) that found it.
    pub run_job_id: String,
    /// When it was found (RFC 3339).
    pub detected_at: String,
    /// The fields that changed, as they were.
    #[schema(value_type = Object)]
    pub before: Value,
    /// The fields that changed, as they are now (null once removed).
    #[schema(value_type = Object)]
    pub after: Value,
}

/// What a tracked run writes besides its new reviews: the fingerprints it
/// read (new reviews', and changed ones'), the changes it found, and the
/// reviews it found removed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeWrite {
    /// Fingerprints to keep, in place of any kept before.
    pub seen: Vec<Fingerprinted>,
    /// Changes found; one whose event id is kept already is not kept twice.
    pub changes: Vec<Change>,
    /// Reviews whose fingerprints go: the site took them down. They stay
    /// delivered, so one shown again is not delivered as new.
    pub removed: Vec<String>,
}

impl ChangeWrite {
    /// Whether it writes nothing.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty() && self.changes.is_empty() && self.removed.is_empty()
    }
}

/// Changes found by one run, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ChangeCounts {
    /// `review.updated`.
    pub updated: u64,
    /// `review.reply_added`.
    pub reply_added: u64,
    /// `review.reply_updated`.
    pub reply_updated: u64,
    /// `review.removed`.
    pub removed: u64,
}

impl ChangeCounts {
    /// Counts one more of `kind`.
    pub fn add(&mut self, kind: ChangeKind) {
        match kind {
            ChangeKind::Updated => self.updated += 1,
            ChangeKind::ReplyAdded => self.reply_added += 1,
            ChangeKind::ReplyUpdated => self.reply_updated += 1,
            ChangeKind::Removed => self.removed += 1,
        }
    }

    /// All of them.
    pub fn total(&self) -> u64 {
        self.updated + self.reply_added + self.reply_updated + self.removed
    }
}

/// Changes a `review.changed` delivery carries at most; the rest are read
/// from `GET /schedules/{id}/changes` after its `next_cursor`.
pub const MAX_PER_DELIVERY: usize = 500;
/// Changes of one run read at most to count them.
pub const MAX_PER_RUN_READ: usize = 1_000_000;

/// The `review.changed` body announcing what run `job` found: its counts,
/// its first [`MAX_PER_DELIVERY`] changes, and the cursor of the rest.
pub fn batch(job: &crate::model::Job, counts: ChangeCounts, found: &[(u64, Change)]) -> Value {
    let sent = &found[..found.len().min(MAX_PER_DELIVERY)];
    let next_cursor = match found.len() > MAX_PER_DELIVERY {
        true => sent.last().map(|(seq, _)| seq.to_string()),
        false => None,
    };
    serde_json::json!({
        "event": "review.changed",
        "schedule_id": job.schedule_id,
        "run_job_id": job.job_id,
        "counts": counts,
        "changes": sent.iter().map(|(_, c)| c.body()).collect::<Vec<_>>(),
        "next_cursor": next_cursor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_event_id_names_the_change_not_the_run_that_found_it() {
        let pair = (json!({"review_rating": 5}), json!({"review_rating": 2}));
        let a = Change::new(
            ChangeKind::Updated,
            "s",
            "job-1",
            "r",
            "fp2",
            pair.clone(),
            1,
        );
        let b = Change::new(
            ChangeKind::Updated,
            "s",
            "job-2",
            "r",
            "fp2",
            pair.clone(),
            9,
        );
        assert_eq!(a.event_id, b.event_id, "a retry or another replica: one id");
        let c = Change::new(ChangeKind::Updated, "s", "job-2", "r", "fp3", pair, 9);
        assert_ne!(a.event_id, c.event_id, "a later edit is a new change");
        assert!(a.event_id.starts_with("chg_") && a.event_id.len() == 36);
    }

    #[test]
    fn kinds_read_and_write_their_wire_names() {
        for kind in [
            ChangeKind::Updated,
            ChangeKind::ReplyAdded,
            ChangeKind::ReplyUpdated,
            ChangeKind::Removed,
        ] {
            assert_eq!(ChangeKind::parse(kind.as_str()), Some(kind));
            assert_eq!(json!(kind), json!(kind.as_str()));
        }
        assert_eq!(ChangeKind::parse("review.created"), None);
    }

    #[test]
    fn a_full_walk_comes_with_all_or_when_reconciling_is_due() {
        let mut t = Tracking {
            window: Window::Newest(200),
            reconcile_every: None,
            last_full_walk_at: None,
        };
        assert!(!t.walks_all(1_000_000));
        t.reconcile_every = Some(7 * 86_400);
        assert!(t.walks_all(1_000_000), "never walked: walk now");
        t.last_full_walk_at = Some(1_000_000);
        assert!(!t.walks_all(1_000_000 + 86_400_000));
        assert!(t.walks_all(1_000_000 + 7 * 86_400_000));
        t.window = Window::All;
        assert!(t.walks_all(1_000_001));
    }
}
