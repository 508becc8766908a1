//! A tracked schedule's fingerprints and change records in the cluster,
//! each sealed with the cluster's key:
//! - a review's fingerprint is the one message kept on
//!   `gleaner.tracked.<schedule id>.<review id digest>`;
//! - changes go on `gleaner.changes.<schedule id>` in the order found, each
//!   with its event id as the message id, so one found again within the
//!   duplicate window is kept once (a receiver drops any other by its id).

use std::collections::HashMap;

use super::reviews::digest;
use super::JetStreamStore;
use crate::records;
use gleaner_jobs::changes::{Change, ChangeKind, ChangeWrite, Fingerprinted};
use gleaner_jobs::model::Millis;
use gleaner_jobs::store::{ChangeQuery, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A change as stored.
#[derive(Serialize, Deserialize)]
struct Stored {
    event_id: String,
    event: ChangeKind,
    review_id: String,
    run_job_id: String,
    detected_at: Millis,
    before: Value,
    after: Value,
}

fn tracked_subject(schedule: &str, review_id: &str) -> String {
    format!(
        "{}.{schedule}.{}",
        crate::resources::TRACKED_SUBJECT,
        digest(review_id)
    )
}

/// The label a schedule's fingerprints are sealed under.
fn tracked_label(schedule: &str) -> String {
    format!("{}.{schedule}", crate::resources::TRACKED_SUBJECT)
}

fn changes_subject(schedule: &str) -> String {
    format!("{}.{schedule}", crate::resources::CHANGES_SUBJECT)
}

/// Writes `write` for schedule `id`: fingerprints kept, changes appended,
/// removed reviews' fingerprints dropped.
pub(super) async fn write(
    store: &JetStreamStore,
    id: &str,
    write: &ChangeWrite,
) -> Result<(), StoreError> {
    let seal = &store.cluster.seal;
    let mut acks = Vec::new();
    let label = tracked_label(id);
    for f in &write.seen {
        let subject = tracked_subject(id, &f.review_id);
        let text = serde_json::to_vec(f).map_err(|e| StoreError(e.to_string()))?;
        let sealed = seal.seal(&label, &text).map_err(StoreError)?;
        let message_id = format!("{}.{}", digest(&subject), f.fingerprint);
        acks.push(store.publish(subject, sealed, &message_id).await?);
    }
    let subject = changes_subject(id);
    for c in &write.changes {
        let stored = Stored {
            event_id: c.event_id.clone(),
            event: c.event,
            review_id: c.review_id.clone(),
            run_job_id: c.run_job_id.clone(),
            detected_at: c.detected_at,
            before: c.before.clone(),
            after: c.after.clone(),
        };
        let text = serde_json::to_vec(&stored).map_err(|e| StoreError(e.to_string()))?;
        let sealed = seal.seal(&subject, &text).map_err(StoreError)?;
        acks.push(store.publish(subject.clone(), sealed, &c.event_id).await?);
    }
    for ack in acks {
        ack.await.map_err(records::fail)?;
    }
    let tracked = &store.cluster.resources.tracked;
    for review_id in &write.removed {
        tracked
            .purge()
            .filter(tracked_subject(id, review_id))
            .await
            .map_err(records::fail)?;
    }
    Ok(())
}

/// The fingerprints schedule `id` keeps, by review id.
pub(super) async fn fingerprints(
    store: &JetStreamStore,
    id: &str,
) -> Result<HashMap<String, Fingerprinted>, StoreError> {
    let label = tracked_label(id);
    let subject = format!("{label}.*");
    let stream = &store.cluster.resources.tracked;
    let mut kept = HashMap::new();
    let mut after = 0;
    loop {
        let (messages, more) = records::read_subject(stream, &subject, after, 10_000).await?;
        after = messages.last().map(|(seq, _)| *seq).unwrap_or(after);
        for (_, sealed) in messages {
            let opened = store.cluster.seal.open(&label, &sealed);
            let f = opened.and_then(|t| serde_json::from_slice::<Fingerprinted>(&t).ok());
            if let Some(f) = f {
                kept.insert(f.review_id.clone(), f);
            }
        }
        if !more {
            return Ok(kept);
        }
    }
}

/// Schedule `id`'s changes that `query` asks for.
pub(super) async fn page(
    store: &JetStreamStore,
    id: &str,
    query: ChangeQuery<'_>,
) -> Result<Vec<(u64, Change)>, StoreError> {
    let subject = changes_subject(id);
    let stream = &store.cluster.resources.changes;
    let mut found = Vec::new();
    let mut after = query.after;
    while found.len() < query.limit {
        let (messages, more) = records::read_subject(stream, &subject, after, 1_000).await?;
        after = messages.last().map(|(seq, _)| *seq).unwrap_or(after);
        for (seq, sealed) in messages {
            let Some(text) = store.cluster.seal.open(&subject, &sealed) else {
                continue;
            };
            let Ok(c) = serde_json::from_slice::<Stored>(&text) else {
                continue;
            };
            let wanted = query.since.is_none_or(|t| c.detected_at >= t)
                && query.run.is_none_or(|r| c.run_job_id == r);
            if wanted && found.len() < query.limit {
                found.push((
                    seq,
                    Change {
                        event_id: c.event_id,
                        event: c.event,
                        review_id: c.review_id,
                        schedule_id: id.to_owned(),
                        run_job_id: c.run_job_id,
                        detected_at: c.detected_at,
                        before: c.before,
                        after: c.after,
                    },
                ));
            }
        }
        if !more {
            break;
        }
    }
    Ok(found)
}

/// Deletes schedule `id`'s fingerprints and changes.
pub(super) async fn delete(store: &JetStreamStore, id: &str) -> Result<(), StoreError> {
    let r = &store.cluster.resources;
    r.tracked
        .purge()
        .filter(format!("{}.*", tracked_label(id)))
        .await
        .map_err(records::fail)?;
    r.changes
        .purge()
        .filter(changes_subject(id))
        .await
        .map_err(records::fail)?;
    Ok(())
}
