//! A tracked schedule's run: each page's new reviews get their fingerprints
//! kept, each known review read again is compared with its kept one, and a
//! run that walked the whole source from the top finds what was taken down.
//!
//! - Edits and replies are found among the reviews the run reads again: the
//!   newest `change_window` it delivered, or all of them on a full walk.
//! - A removal is only ever found by a full walk (`change_window: "all"`, or
//!   when `reconcile_every` is due) that started at the top and reached the
//!   source's end in one go: a review it never met is gone. A walk that
//!   stopped early, lost a page or ran out of budget finds none, and neither
//!   does a window run, whatever the source's order: a review outside what
//!   a run read is never guessed gone.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use super::model::{now_ms, Schedule};
use super::store::{Store, StoreError};
use crate::driver::{Known, StopAt};
use crate::record::{fingerprint, Review};
use gleaner_jobs::changes::{Change, ChangeKind, ChangeWrite, Fingerprinted, Window};

/// One tracked run's view of its schedule.
pub struct Tracker {
    schedule_id: String,
    job_id: String,
    /// The fingerprints kept when the run started.
    kept: HashMap<String, Fingerprinted>,
    /// Whether this run walks the whole source.
    pub walks_all: bool,
    /// What the run reads again.
    window: Window,
    /// The ids the run has met: new and known.
    met: Mutex<HashSet<String>>,
}

impl Tracker {
    /// The tracker of `schedule`'s run `job_id`, with what the store keeps;
    /// none when the schedule does not track changes.
    pub async fn open(
        store: &dyn Store,
        schedule: &Schedule,
        job_id: &str,
    ) -> Result<Option<Tracker>, StoreError> {
        let Some(tracking) = &schedule.tracking else {
            return Ok(None);
        };
        Ok(Some(Tracker {
            schedule_id: schedule.schedule_id.clone(),
            job_id: job_id.to_owned(),
            kept: store.fingerprints(&schedule.schedule_id).await?,
            walks_all: tracking.walks_all(now_ms()),
            window: tracking.window,
            met: Mutex::default(),
        }))
    }

    /// Where the run stops among the reviews delivered before: on a full
    /// walk nowhere; else at a known page once it has read the window.
    pub fn known(&self, delivered: &HashSet<String>, stop_at: StopAt) -> Known {
        let stop_at = match self.walks_all {
            true => StopAt::Never,
            false => stop_at,
        };
        let mut known = Known::of_ids(delivered, stop_at);
        known.track = true;
        known.reread = match self.window {
            Window::Newest(n) => n as usize,
            Window::All => usize::MAX,
        };
        known
    }

    /// What one page writes: the new reviews' fingerprints, and for each
    /// known one read again, its changes and new fingerprint.
    pub fn page(&self, new: &[Review], revisited: &[Review]) -> ChangeWrite {
        let mut write = ChangeWrite::default();
        let mut met = self.met.lock().unwrap_or_else(|p| p.into_inner());
        for review in new {
            met.insert(review.review_id.clone());
            write.seen.push(fingerprint::of(review));
        }
        let now = now_ms();
        for review in revisited {
            met.insert(review.review_id.clone());
            let current = fingerprint::of(review);
            match self.kept.get(&review.review_id) {
                // Delivered before tracking began: kept from now on.
                None => write.seen.push(current),
                Some(kept) if kept.fingerprint == current.fingerprint => {}
                Some(kept) => {
                    for (kind, pair) in fingerprint::changes(kept, &current) {
                        write
                            .changes
                            .push(self.change(kind, review, &current, pair, now));
                    }
                    write.seen.push(current);
                }
            }
        }
        write
    }

    /// The removals a full walk from the top found once it reached the end:
    /// every kept review it never met.
    pub fn removals(&self) -> ChangeWrite {
        let met = self.met.lock().unwrap_or_else(|p| p.into_inner());
        let now = now_ms();
        let mut write = ChangeWrite::default();
        let mut gone: Vec<&Fingerprinted> = self
            .kept
            .values()
            .filter(|k| !met.contains(&k.review_id))
            .collect();
        gone.sort_by(|a, b| a.review_id.cmp(&b.review_id));
        for kept in gone {
            let change = Change::new(
                ChangeKind::Removed,
                &self.schedule_id,
                &self.job_id,
                &kept.review_id,
                &format!("removed:{}", kept.fingerprint),
                (kept.snapshot.clone(), serde_json::Value::Null),
                now,
            );
            write.changes.push(change);
            write.removed.push(kept.review_id.clone());
        }
        write
    }

    fn change(
        &self,
        kind: ChangeKind,
        review: &Review,
        current: &Fingerprinted,
        pair: (serde_json::Value, serde_json::Value),
        now: i64,
    ) -> Change {
        Change::new(
            kind,
            &self.schedule_id,
            &self.job_id,
            &review.review_id,
            &current.fingerprint,
            pair,
            now,
        )
    }
}
