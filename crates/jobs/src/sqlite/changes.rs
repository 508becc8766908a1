//! A tracked schedule's fingerprints and change records in the SQLite store:
//! fingerprints beside the delivered ids, changes numbered in the order
//! found, each event id kept once.

use std::collections::HashMap;

use rusqlite::{params, Connection, Transaction};
use serde_json::Value;

use crate::changes::{Change, ChangeKind, ChangeWrite, Fingerprinted, Tracking};
use crate::model::Millis;
use crate::store::ChangeQuery;

/// Writes `write` for schedule `id` inside `tx`.
pub(super) fn write(tx: &Transaction<'_>, id: &str, write: &ChangeWrite) -> rusqlite::Result<()> {
    let mut seen = tx.prepare_cached(
        "INSERT INTO schedule_delivered (schedule_id, review_id, fingerprint, snapshot) \
         VALUES (?1, ?2, ?3, ?4) ON CONFLICT (schedule_id, review_id) \
         DO UPDATE SET fingerprint = excluded.fingerprint, snapshot = excluded.snapshot",
    )?;
    for f in &write.seen {
        seen.execute(params![
            id,
            f.review_id,
            f.fingerprint,
            f.snapshot.to_string()
        ])?;
    }
    let mut change = tx.prepare_cached(
        "INSERT OR IGNORE INTO schedule_changes (schedule_id, event_id, event, review_id, \
         run_job_id, detected_at, before, after) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for c in &write.changes {
        change.execute(params![
            id,
            c.event_id,
            c.event.as_str(),
            c.review_id,
            c.run_job_id,
            c.detected_at,
            c.before.to_string(),
            c.after.to_string()
        ])?;
    }
    // A removed review stays delivered: one the site shows again is read
    // as known, and kept from then on.
    let mut removed = tx.prepare_cached(
        "UPDATE schedule_delivered SET fingerprint = NULL, snapshot = NULL \
         WHERE schedule_id = ?1 AND review_id = ?2",
    )?;
    for review_id in &write.removed {
        removed.execute(params![id, review_id])?;
    }
    Ok(())
}

/// Writes what a tracked run of schedule `id` found at its end, and when it
/// walked the whole source.
pub(super) fn record(
    c: &mut Connection,
    id: &str,
    found: &ChangeWrite,
    walked_all_at: Option<Millis>,
) -> rusqlite::Result<()> {
    let tx = c.transaction()?;
    write(&tx, id, found)?;
    if let Some(at) = walked_all_at {
        let tracking: Option<String> = tx.query_row(
            "SELECT tracking FROM schedules WHERE schedule_id = ?1",
            params![id],
            |r| r.get(0),
        )?;
        if let Some(mut tracking) = tracking.and_then(|t| serde_json::from_str::<Tracking>(&t).ok())
        {
            tracking.last_full_walk_at = Some(at);
            tx.execute(
                "UPDATE schedules SET tracking = ?2 WHERE schedule_id = ?1",
                params![id, serde_json::to_string(&tracking).unwrap_or_default()],
            )?;
        }
    }
    tx.commit()
}

/// The fingerprints schedule `id` keeps, by review id.
pub(super) fn fingerprints(
    c: &Connection,
    id: &str,
) -> rusqlite::Result<HashMap<String, Fingerprinted>> {
    let mut statement = c.prepare_cached(
        "SELECT review_id, fingerprint, snapshot FROM schedule_delivered \
         WHERE schedule_id = ?1 AND fingerprint IS NOT NULL",
    )?;
    let rows = statement.query_map(params![id], |r| {
        let snapshot: String = r.get(2)?;
        Ok(Fingerprinted {
            review_id: r.get(0)?,
            fingerprint: r.get(1)?,
            snapshot: serde_json::from_str(&snapshot).unwrap_or(Value::Null),
        })
    })?;
    rows.map(|f| f.map(|f| (f.review_id.clone(), f))).collect()
}

/// Schedule `id`'s changes that `query` asks for, with their numbers.
pub(super) fn page(
    c: &Connection,
    id: &str,
    query: &ChangeQuery<'_>,
) -> rusqlite::Result<Vec<(u64, Change)>> {
    let mut statement = c.prepare_cached(
        "SELECT seq, event_id, event, review_id, run_job_id, detected_at, before, after \
         FROM schedule_changes WHERE schedule_id = ?1 AND seq > ?2 AND detected_at >= ?3 \
         AND (?4 IS NULL OR run_job_id = ?4) ORDER BY seq LIMIT ?5",
    )?;
    let since = query.since.unwrap_or(Millis::MIN);
    let rows = statement.query_map(
        params![id, query.after as i64, since, query.run, query.limit as i64],
        |r| {
            let event: String = r.get(2)?;
            let json = |i: usize| -> rusqlite::Result<Value> {
                let text: String = r.get(i)?;
                Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
            };
            let change = Change {
                event_id: r.get(1)?,
                event: ChangeKind::parse(&event).unwrap_or(ChangeKind::Updated),
                review_id: r.get(3)?,
                schedule_id: id.to_owned(),
                run_job_id: r.get(4)?,
                detected_at: r.get(5)?,
                before: json(6)?,
                after: json(7)?,
            };
            Ok((r.get::<_, i64>(0)? as u64, change))
        },
    )?;
    rows.collect()
}
