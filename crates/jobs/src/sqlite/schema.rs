//! The store's schema and its migrations. `PRAGMA user_version` says how
//! many steps a file has had: opening runs the rest in order, each in one
//! transaction with the version it reaches, and refuses a file written by a
//! newer version. A file made before versioning (version 0) has the tables
//! of step 1 already; their `IF NOT EXISTS` keeps it as it is.

use std::path::Path;

use rusqlite::{params, Connection, Transaction};

use super::secret;
use crate::store::StoreError;
use gleaner_seal::Seal;

/// One migration step.
struct Step {
    /// What it does, for the error when it fails.
    what: &'static str,
    /// The step, inside its transaction.
    run: fn(&Transaction<'_>, &Seal) -> rusqlite::Result<()>,
}

/// The steps in order; a file at version `n` has had the first `n`.
const STEPS: &[Step] = &[
    Step {
        what: "create the tables",
        run: create_tables,
    },
    Step {
        what: "seal the webhook secrets kept in clear",
        run: seal_clear_secrets,
    },
    Step {
        what: "index the schedules by their next run and by owner",
        run: index_due_schedules,
    },
    Step {
        what: "add change tracking to the schedules",
        run: track_changes,
    },
    Step {
        what: "give each webhook delivery its topic",
        run: delivery_topics,
    },
    Step {
        what: "add exports to object storage to jobs and schedules",
        run: exports,
    },
];

/// The schema version this build writes.
pub(super) const VERSION: i64 = STEPS.len() as i64;

/// Brings the store at `path` to [`VERSION`].
pub(super) fn migrate(c: &mut Connection, seal: &Seal, path: &Path) -> Result<(), StoreError> {
    let failed = |what: &str, e: rusqlite::Error| {
        StoreError(format!(
            "cannot {what} in {}: {e}; check the disk under GLEANER_DATA_DIR, then restart",
            path.display()
        ))
    };
    let found: i64 = c
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|e| failed("read the schema version", e))?;
    if found > VERSION {
        return Err(StoreError(format!(
            "{} has jobs schema version {found}, written by a newer Gleaner; this one knows \
             versions up to {VERSION}: run that newer Gleaner (or a later one), or set \
             GLEANER_DATA_DIR to another directory",
            path.display()
        )));
    }
    for (done, step) in STEPS.iter().enumerate().skip(found.max(0) as usize) {
        let tx = c.transaction().map_err(|e| failed(step.what, e))?;
        (step.run)(&tx, seal)
            .and_then(|()| tx.pragma_update(None, "user_version", done as i64 + 1))
            .and_then(|()| tx.commit())
            .map_err(|e| failed(step.what, e))?;
    }
    Ok(())
}

/// Step 1: the tables and indexes. Times are milliseconds since the epoch.
fn create_tables(tx: &Transaction<'_>, _: &Seal) -> rusqlite::Result<()> {
    tx.execute_batch(
        r#"
CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    request TEXT NOT NULL,
    total INTEGER,
    state TEXT NOT NULL,
    position TEXT,
    reviews_collected INTEGER NOT NULL DEFAULT 0,
    pages_fetched INTEGER NOT NULL DEFAULT 0,
    stop_reason TEXT,
    error TEXT,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    webhook_url TEXT,
    webhook_secret TEXT,
    schedule_id TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS jobs_by_owner ON jobs (owner, created_at);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state, created_at);
CREATE TABLE IF NOT EXISTS job_reviews (
    job_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    review_id TEXT NOT NULL,
    review TEXT NOT NULL,
    PRIMARY KEY (job_id, seq),
    UNIQUE (job_id, review_id)
);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id INTEGER PRIMARY KEY,
    job_id TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    secret TEXT NOT NULL,
    body TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_status INTEGER,
    last_error TEXT,
    next_attempt_at INTEGER,
    delivered_at INTEGER
);
CREATE INDEX IF NOT EXISTS deliveries_due ON webhook_deliveries (next_attempt_at);
CREATE TABLE IF NOT EXISTS schedules (
    schedule_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    request TEXT NOT NULL,
    every_secs INTEGER,
    cron TEXT,
    timezone TEXT,
    webhook_url TEXT,
    webhook_secret TEXT,
    next_run_at INTEGER NOT NULL,
    last_job_id TEXT,
    runs INTEGER NOT NULL DEFAULT 0,
    skipped_runs INTEGER NOT NULL DEFAULT 0,
    reviews_delivered INTEGER NOT NULL DEFAULT 0,
    caught_up INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS schedule_delivered (
    schedule_id TEXT NOT NULL,
    review_id TEXT NOT NULL,
    PRIMARY KEY (schedule_id, review_id)
) WITHOUT ROWID;
"#,
    )
}

/// Step 2: the webhook secrets that versions before it stored in clear, sealed.
fn seal_clear_secrets(tx: &Transaction<'_>, seal: &Seal) -> rusqlite::Result<()> {
    for (table, key, column) in [
        ("jobs", "job_id", "webhook_secret"),
        ("schedules", "schedule_id", "webhook_secret"),
        ("webhook_deliveries", "job_id", "secret"),
    ] {
        let clear: Vec<(String, String)> = tx
            .prepare(&format!(
                "SELECT {key}, {column} FROM {table} WHERE {column} IS NOT NULL"
            ))?
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?
            .into_iter()
            .filter(|(_, stored): &(String, String)| !secret::is_sealed(stored))
            .collect();
        for (id, stored) in clear {
            let sealed = secret::seal(seal, &stored)
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(e.into()))?;
            tx.execute(
                &format!("UPDATE {table} SET {column} = ?1 WHERE {key} = ?2"),
                params![sealed, id],
            )?;
        }
    }
    Ok(())
}

/// Step 3: due schedules read from an index in run order, not by a scan of
/// every schedule each time the scheduler looks; an owner's schedules listed
/// a page at a time.
fn index_due_schedules(tx: &Transaction<'_>, _: &Seal) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE INDEX IF NOT EXISTS schedules_due ON schedules (next_run_at);
         CREATE INDEX IF NOT EXISTS schedules_by_owner ON schedules (owner, created_at);",
    )
}

/// Step 4: change tracking. A schedule's tracking settings; each delivered
/// review's fingerprint and the fields it covers; and the change records,
/// numbered in the order found, each event id kept once.
fn track_changes(tx: &Transaction<'_>, _: &Seal) -> rusqlite::Result<()> {
    tx.execute_batch(
        "ALTER TABLE schedules ADD COLUMN tracking TEXT;
         ALTER TABLE schedule_delivered ADD COLUMN fingerprint TEXT;
         ALTER TABLE schedule_delivered ADD COLUMN snapshot TEXT;
         CREATE TABLE schedule_changes (
             seq INTEGER PRIMARY KEY AUTOINCREMENT,
             schedule_id TEXT NOT NULL,
             event_id TEXT NOT NULL,
             event TEXT NOT NULL,
             review_id TEXT NOT NULL,
             run_job_id TEXT NOT NULL,
             detected_at INTEGER NOT NULL,
             before TEXT NOT NULL,
             after TEXT NOT NULL,
             UNIQUE (schedule_id, event_id)
         );
         CREATE INDEX schedule_changes_by_schedule ON schedule_changes (schedule_id, seq);
         CREATE INDEX schedule_changes_by_run ON schedule_changes (run_job_id);",
    )
}

/// Step 5: a job may have a delivery of each topic (its end, and a tracked
/// run's changes): the deliveries table rebuilt with `topic`, one delivery
/// per job and topic. Every delivery before it announced a job's end.
fn delivery_topics(tx: &Transaction<'_>, _: &Seal) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE webhook_deliveries_topics (
             id INTEGER PRIMARY KEY,
             job_id TEXT NOT NULL,
             topic TEXT NOT NULL DEFAULT 'end',
             url TEXT NOT NULL,
             secret TEXT NOT NULL,
             body TEXT NOT NULL,
             attempts INTEGER NOT NULL DEFAULT 0,
             last_status INTEGER,
             last_error TEXT,
             next_attempt_at INTEGER,
             delivered_at INTEGER,
             UNIQUE (job_id, topic)
         );
         INSERT INTO webhook_deliveries_topics (id, job_id, url, secret, body, attempts,
             last_status, last_error, next_attempt_at, delivered_at)
           SELECT id, job_id, url, secret, body, attempts, last_status, last_error,
             next_attempt_at, delivered_at FROM webhook_deliveries;
         DROP TABLE webhook_deliveries;
         ALTER TABLE webhook_deliveries_topics RENAME TO webhook_deliveries;
         CREATE INDEX deliveries_due ON webhook_deliveries (next_attempt_at);",
    )
}

/// Step 6: a job's export to object storage (its format and how writing it
/// went, as JSON), and the format a schedule's runs export in.
fn exports(tx: &Transaction<'_>, _: &Seal) -> rusqlite::Result<()> {
    tx.execute_batch(
        "ALTER TABLE jobs ADD COLUMN export TEXT;
         ALTER TABLE schedules ADD COLUMN export TEXT;",
    )
}
