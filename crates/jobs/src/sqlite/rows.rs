//! Rows of the SQLite store read into the jobs model.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::Value;

use crate::model::{Cadence, Job, JobState, Schedule, Webhook};

/// The columns [`job_of`] reads, in order.
pub(super) const JOB_COLUMNS: &str = "job_id, owner, endpoint, request, total, state, position, reviews_collected, \
    pages_fetched, stop_reason, error, created_at, started_at, finished_at, webhook_url, webhook_secret, \
    schedule_id, cancel_requested, export";

/// Where a list page after (or before) `id` of `table` starts: its
/// `created_at` and id (`id_column`); none without an id, or for an unknown
/// one.
pub(super) fn anchor(
    c: &Connection,
    table: &str,
    id_column: &str,
    id: Option<&str>,
) -> rusqlite::Result<Option<(i64, String)>> {
    let Some(id) = id else { return Ok(None) };
    c.query_row(
        &format!("SELECT created_at, {id_column} FROM {table} WHERE {id_column} = ?1"),
        params![id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .optional()
}

/// A webhook from its stored URL and (sealed) secret.
fn webhook(url: Option<String>, secret: Option<String>) -> Option<Webhook> {
    Some(Webhook {
        url: url?,
        secret: secret.unwrap_or_default(),
    })
}

/// A job from a row of [`JOB_COLUMNS`].
pub(super) fn job_of(row: &Row<'_>) -> rusqlite::Result<Job> {
    let request: String = row.get(3)?;
    let state: String = row.get(5)?;
    Ok(Job {
        job_id: row.get(0)?,
        owner: row.get(1)?,
        endpoint: row.get(2)?,
        request: serde_json::from_str(&request).unwrap_or(Value::Null),
        total: row.get::<_, Option<i64>>(4)?.map(|t| t as u64),
        state: JobState::parse(&state).unwrap_or(JobState::Failed),
        position: row.get(6)?,
        reviews_collected: row.get::<_, i64>(7)? as u64,
        pages_fetched: row.get::<_, i64>(8)? as u64,
        stop_reason: row.get(9)?,
        error: row.get(10)?,
        created_at: row.get(11)?,
        started_at: row.get(12)?,
        finished_at: row.get(13)?,
        webhook: webhook(row.get(14)?, row.get(15)?),
        schedule_id: row.get(16)?,
        cancel_requested: row.get::<_, i64>(17)? != 0,
        export: row
            .get::<_, Option<String>>(18)?
            .and_then(|e| serde_json::from_str(&e).ok()),
    })
}

/// The columns [`schedule_of`] reads, in order.
pub(super) const SCHEDULE_COLUMNS: &str =
    "schedule_id, owner, endpoint, request, every_secs, cron, timezone, \
    webhook_url, webhook_secret, next_run_at, last_job_id, runs, skipped_runs, reviews_delivered, \
    caught_up, created_at, tracking, export";

/// A schedule from a row of [`SCHEDULE_COLUMNS`].
pub(super) fn schedule_of(row: &Row<'_>) -> rusqlite::Result<Schedule> {
    let request: String = row.get(3)?;
    let every: Option<i64> = row.get(4)?;
    let cron: Option<String> = row.get(5)?;
    let cadence = match (every, cron) {
        (Some(secs), _) => Cadence::Every(secs as u64),
        (None, expression) => Cadence::Cron {
            expression: expression.unwrap_or_default(),
            timezone: row.get(6)?,
        },
    };
    Ok(Schedule {
        schedule_id: row.get(0)?,
        owner: row.get(1)?,
        endpoint: row.get(2)?,
        request: serde_json::from_str(&request).unwrap_or(Value::Null),
        cadence,
        webhook: webhook(row.get(7)?, row.get(8)?),
        next_run_at: row.get(9)?,
        last_job_id: row.get(10)?,
        runs: row.get::<_, i64>(11)? as u64,
        skipped_runs: row.get::<_, i64>(12)? as u64,
        reviews_delivered: row.get::<_, i64>(13)? as u64,
        caught_up: row.get::<_, i64>(14)? != 0,
        created_at: row.get(15)?,
        tracking: row
            .get::<_, Option<String>>(16)?
            .and_then(|t| serde_json::from_str(&t).ok()),
        export: row.get(17)?,
    })
}

/// The job `id`, when there is one.
pub(super) fn one_job(c: &Connection, id: &str) -> rusqlite::Result<Option<Job>> {
    c.query_row(
        &format!("SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = ?1"),
        params![id],
        job_of,
    )
    .optional()
}
