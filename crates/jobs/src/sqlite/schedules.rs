//! Schedules in the SQLite store: their rows, the compare-and-set that takes
//! a run, what each run did, and the review ids a schedule's runs delivered.
//! Webhook secrets arrive sealed and leave sealed; the store opens them.

use std::collections::HashSet;

use rusqlite::{params, Connection, OptionalExtension};

use super::rows::{schedule_of, SCHEDULE_COLUMNS};
use crate::model::{now_ms, Cadence, Millis, NewSchedule, Schedule};

/// Stores `schedule` as `id`; the schedule as stored.
pub(super) fn create(
    c: &Connection,
    id: &str,
    schedule: &NewSchedule,
) -> rusqlite::Result<Schedule> {
    let (every, cron, timezone) = match &schedule.cadence {
        Cadence::Every(secs) => (Some(*secs as i64), None, None),
        Cadence::Cron {
            expression,
            timezone,
        } => (None, Some(expression.clone()), timezone.clone()),
    };
    let (url, secret) = match &schedule.webhook {
        Some(w) => (Some(w.url.clone()), Some(w.secret.clone())),
        None => (None, None),
    };
    c.execute(
        "INSERT INTO schedules (schedule_id, owner, endpoint, request, every_secs, cron, timezone, \
         webhook_url, webhook_secret, next_run_at, created_at, tracking, export) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            id,
            schedule.owner,
            schedule.endpoint,
            schedule.request.to_string(),
            every,
            cron,
            timezone,
            url,
            secret,
            schedule.next_run_at,
            now_ms(),
            schedule
                .tracking
                .as_ref()
                .map(|t| serde_json::to_string(t).unwrap_or_default()),
            schedule.export,
        ],
    )?;
    c.query_row(
        &format!("SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE schedule_id = ?1"),
        params![id],
        schedule_of,
    )
}

/// The schedule `id`, when there is one.
pub(super) fn one(c: &Connection, id: &str) -> rusqlite::Result<Option<Schedule>> {
    c.query_row(
        &format!("SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE schedule_id = ?1"),
        params![id],
        schedule_of,
    )
    .optional()
}

/// `owner`'s schedules, oldest first.
pub(super) fn of_owner(
    c: &Connection,
    owner: &str,
    after: Option<&str>,
    limit: usize,
) -> rusqlite::Result<Vec<Schedule>> {
    // The page after `after`: later schedules, or later-created ties by id.
    let anchor = super::rows::anchor(c, "schedules", "schedule_id", after)?;
    let (at, tie) = anchor.unwrap_or((i64::MIN, String::new()));
    let mut statement = c.prepare_cached(&format!(
        "SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE owner = ?1 \
         AND (created_at > ?2 OR (created_at = ?2 AND schedule_id > ?3)) \
         ORDER BY created_at, schedule_id LIMIT ?4"
    ))?;
    let rows = statement.query_map(params![owner, at, tie, limit as i64], schedule_of)?;
    rows.collect()
}

/// Deletes `owner`'s schedule `id` and the review ids its runs delivered;
/// whether there was one.
pub(super) fn delete(c: &mut Connection, owner: &str, id: &str) -> rusqlite::Result<bool> {
    let tx = c.transaction()?;
    let deleted = tx.execute(
        "DELETE FROM schedules WHERE schedule_id = ?1 AND owner = ?2",
        params![id, owner],
    )?;
    if deleted > 0 {
        tx.execute(
            "DELETE FROM schedule_delivered WHERE schedule_id = ?1",
            params![id],
        )?;
        tx.execute(
            "DELETE FROM schedule_changes WHERE schedule_id = ?1",
            params![id],
        )?;
    }
    tx.commit()?;
    Ok(deleted > 0)
}

/// The schedules whose next run is due at `now`, the most overdue first.
/// Takes the runs due at `now`: each due schedule's next run moved to the
/// one after, unless another handle on the file moved it first.
pub(super) fn take_due(c: &mut Connection, now: Millis) -> rusqlite::Result<Vec<Schedule>> {
    let tx = c.transaction()?;
    let due: Vec<Schedule> = {
        let mut statement = tx.prepare_cached(&format!(
            "SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE next_run_at <= ?1 ORDER BY next_run_at"
        ))?;
        let rows = statement.query_map(params![now], schedule_of)?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut taken = Vec::new();
    for mut schedule in due {
        let next = crate::cadence::next_run(&schedule, now);
        let changed = tx.execute(
            "UPDATE schedules SET next_run_at = ?3 WHERE schedule_id = ?1 AND next_run_at = ?2",
            params![schedule.schedule_id, schedule.next_run_at, next],
        )?;
        if changed == 1 {
            schedule.next_run_at = next;
            taken.push(schedule);
        }
    }
    tx.commit()?;
    Ok(taken)
}

pub(super) fn ran(
    c: &Connection,
    id: &str,
    job_id: Option<&str>,
    next_run_at: Millis,
) -> rusqlite::Result<()> {
    match job_id {
        Some(job) => c.execute(
            "UPDATE schedules SET next_run_at = ?2, last_job_id = ?3, runs = runs + 1 WHERE schedule_id = ?1",
            params![id, next_run_at, job],
        ),
        None => c.execute(
            "UPDATE schedules SET next_run_at = ?2, skipped_runs = skipped_runs + 1 WHERE schedule_id = ?1",
            params![id, next_run_at],
        ),
    }
    .map(drop)
}

/// Records, on the schedule whose run job `job_id` was (if any), how the run
/// ended: the reviews it delivered, and whether it caught up.
pub(super) fn run_ended(c: &Connection, job_id: &str, caught_up: bool) -> rusqlite::Result<()> {
    c.execute(
        "UPDATE schedules SET reviews_delivered = reviews_delivered + j.reviews_collected, \
         caught_up = ?2 FROM (SELECT schedule_id, reviews_collected FROM jobs WHERE job_id = ?1) AS j \
         WHERE schedules.schedule_id = j.schedule_id",
        params![job_id, caught_up],
    )
    .map(drop)
}

/// The ids of the reviews schedule `id`'s runs delivered.
pub(super) fn delivered_ids(c: &Connection, id: &str) -> rusqlite::Result<HashSet<String>> {
    let mut statement =
        c.prepare_cached("SELECT review_id FROM schedule_delivered WHERE schedule_id = ?1")?;
    let rows = statement.query_map(params![id], |r| r.get::<_, String>(0))?;
    rows.collect()
}
