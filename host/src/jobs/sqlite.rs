//! The jobs store in SQLite (`<data_dir>/jobs.sqlite3`), through rusqlite
//! with its bundled library: WAL mode, and one thread that owns the
//! connection and runs every statement in turn, so writes never contend.
//! Any SQLite tool can open the file; docs/operating.md lists its tables.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::model::{
    now_ms, Cadence, Delivery, Job, JobState, Millis, NewJob, NewSchedule, PendingDelivery,
    Schedule, Webhook,
};
use super::store::{Claim, JobEnd, PageWrite, ReviewPage, Store, StoreError};
use crate::secrets::seal::Seal;

/// The schema, created when missing. Times are milliseconds since the epoch.
const SCHEMA: &str = r#"
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
"#;

type Work = Box<dyn FnOnce(&mut Connection) + Send>;

/// Due deliveries read per owner at a time.
const DUE_PER_OWNER: i64 = 16;

/// The SQLite store: a handle to the thread that owns the connection, and
/// the key webhook secrets are sealed with at rest.
#[derive(Clone)]
pub struct SqliteStore {
    work: mpsc::UnboundedSender<Work>,
    seal: Arc<Seal>,
}

/// What a sealed secret starts with in the store; one without it was stored
/// in clear by an older version, and is read as it is.
const SEALED: &str = "sealed:";

/// The label webhook secrets are sealed under.
const WEBHOOK_SECRET: &str = "jobs.webhook-secret";

impl SqliteStore {
    /// Opens (or creates) the store at `path`, in WAL mode; webhook secrets
    /// are sealed with `seal`.
    pub fn open(path: &Path, seal: Arc<Seal>) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent() {
            crate::config::data_dir::create(dir)
                .map_err(|e| StoreError(format!("cannot create {}: {e}", dir.display())))?;
        }
        // SQLite gives its -wal and -shm files the database file's mode.
        crate::config::data_dir::private_file(path)
            .map_err(|e| StoreError(format!("cannot open {}: {e}", path.display())))?;
        let connection = Connection::open(path)
            .map_err(|e| StoreError(format!("cannot open {}: {e}", path.display())))?;
        connection
            .execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;")
            .and_then(|()| connection.execute_batch(SCHEMA))
            .map_err(|e| StoreError(format!("cannot set up {}: {e}", path.display())))?;
        let (work, mut queue) = mpsc::unbounded_channel::<Work>();
        std::thread::Builder::new()
            .name("gleaner-jobs-store".into())
            .spawn(move || {
                let mut connection = connection;
                while let Some(job) = queue.blocking_recv() {
                    job(&mut connection);
                }
            })
            .map_err(|e| StoreError(format!("cannot start the store's thread: {e}")))?;
        Ok(SqliteStore { work, seal })
    }

    /// `hook` with its secret sealed (kept as it is when it already is: a
    /// schedule's sealed secret passes to its runs' jobs and deliveries).
    fn sealed(&self, hook: Option<Webhook>) -> Result<Option<Webhook>, StoreError> {
        let Some(mut hook) = hook else {
            return Ok(None);
        };
        if !hook.secret.starts_with(SEALED) {
            let sealed = self
                .seal
                .seal(WEBHOOK_SECRET, hook.secret.as_bytes())
                .map_err(StoreError)?;
            hook.secret = format!("{SEALED}{}", hex::encode(sealed));
        }
        Ok(Some(hook))
    }

    /// A stored secret opened; one stored in clear is taken as it is.
    fn opened(&self, stored: String) -> String {
        let Some(sealed) = stored.strip_prefix(SEALED) else {
            return stored;
        };
        let opened = hex::decode(sealed)
            .ok()
            .and_then(|bytes| self.seal.open(WEBHOOK_SECRET, &bytes));
        match opened {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => {
                tracing::warn!(
                    "a webhook secret in the jobs store does not open with this server's key \
                     (GLEANER_CLUSTER_KEY, else the token secret); its delivery is signed with none"
                );
                String::new()
            }
        }
    }

    /// Runs `f` on the store's thread.
    async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (reply, answer) = oneshot::channel();
        let job: Work = Box::new(move |c| {
            let _ = reply.send(f(c));
        });
        self.work
            .send(job)
            .map_err(|_| StoreError("the store's thread has stopped".into()))?;
        answer
            .await
            .map_err(|_| StoreError("the store's thread has stopped".into()))?
            .map_err(|e| {
                StoreError(format!(
                    "{e}; check the disk under GLEANER_DATA_DIR, then retry"
                ))
            })
    }
}

const JOB_COLUMNS: &str = "job_id, owner, endpoint, request, total, state, position, reviews_collected, \
    pages_fetched, stop_reason, error, created_at, started_at, finished_at, webhook_url, webhook_secret, \
    schedule_id, cancel_requested";

fn webhook(url: Option<String>, secret: Option<String>) -> Option<Webhook> {
    Some(Webhook {
        url: url?,
        secret: secret.unwrap_or_default(),
    })
}

fn job_of(row: &Row<'_>) -> rusqlite::Result<Job> {
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
    })
}

const SCHEDULE_COLUMNS: &str =
    "schedule_id, owner, endpoint, request, every_secs, cron, timezone, \
    webhook_url, webhook_secret, next_run_at, last_job_id, runs, skipped_runs, reviews_delivered, \
    caught_up, created_at";

fn schedule_of(row: &Row<'_>) -> rusqlite::Result<Schedule> {
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
    })
}

fn one_job(c: &Connection, id: &str) -> rusqlite::Result<Option<Job>> {
    c.query_row(
        &format!("SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = ?1"),
        params![id],
        job_of,
    )
    .optional()
}

#[async_trait]
impl Store for SqliteStore {
    async fn create_job(&self, mut job: NewJob) -> Result<Job, StoreError> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        job.webhook = self.sealed(job.webhook)?;
        self.with(move |c| {
            let (url, secret) = match &job.webhook {
                Some(w) => (Some(w.url.clone()), Some(w.secret.clone())),
                None => (None, None),
            };
            c.execute(
                "INSERT INTO jobs (job_id, owner, endpoint, request, total, state, created_at, \
                 webhook_url, webhook_secret, schedule_id) VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?7, ?8, ?9)",
                params![
                    id,
                    job.owner,
                    job.endpoint,
                    job.request.to_string(),
                    job.total.map(|t| t as i64),
                    now_ms(),
                    url,
                    secret,
                    job.schedule_id
                ],
            )?;
            Ok(one_job(c, &id)?.expect("the job just inserted"))
        })
        .await
    }

    async fn job(&self, owner: Option<&str>, id: &str) -> Result<Option<Job>, StoreError> {
        let (owner, id) = (owner.map(str::to_owned), id.to_owned());
        let job = self.with(move |c| one_job(c, &id)).await?;
        Ok(job.filter(|j| owner.as_ref().is_none_or(|o| *o == j.owner)))
    }

    async fn jobs(
        &self,
        owner: &str,
        state: Option<JobState>,
        before: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Job>, StoreError> {
        let (owner, before) = (owner.to_owned(), before.map(str::to_owned));
        self.with(move |c| {
            // The page after `before`: older jobs, or older-created ties by id.
            let anchor = match &before {
                Some(id) => c
                    .query_row(
                        "SELECT created_at, job_id FROM jobs WHERE job_id = ?1",
                        params![id],
                        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)),
                    )
                    .optional()?,
                None => None,
            };
            let (at, tie) = anchor.unwrap_or((i64::MAX, String::new()));
            let mut statement = c.prepare(&format!(
                "SELECT {JOB_COLUMNS} FROM jobs WHERE owner = ?1 \
                 AND (?2 IS NULL OR state = ?2) \
                 AND (created_at < ?3 OR (created_at = ?3 AND job_id < ?4)) \
                 ORDER BY created_at DESC, job_id DESC LIMIT ?5"
            ))?;
            let rows = statement.query_map(
                params![owner, state.map(JobState::code), at, tie, limit as i64],
                job_of,
            )?;
            rows.collect()
        })
        .await
    }

    async fn unfinished_jobs(&self) -> Result<Vec<Job>, StoreError> {
        self.with(|c| {
            let mut statement = c.prepare(&format!(
                "SELECT {JOB_COLUMNS} FROM jobs WHERE state IN ('queued', 'running') ORDER BY created_at, job_id"
            ))?;
            let rows = statement.query_map([], job_of)?;
            rows.collect()
        })
        .await
    }

    async fn unfinished_count(&self, owner: &str) -> Result<usize, StoreError> {
        let owner = owner.to_owned();
        self.with(move |c| {
            c.query_row(
                "SELECT COUNT(*) FROM jobs WHERE owner = ?1 AND state IN ('queued', 'running')",
                params![owner],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as usize)
        })
        .await
    }

    /// Takes at most `max` jobs, reading only the ids and owners of the
    /// others: owners take turns (the owner with the fewest jobs running here
    /// goes next, oldest job first), so one key's backlog never holds up
    /// another key's job.
    async fn claim_jobs(
        &self,
        max: usize,
        running: &HashSet<String>,
    ) -> Result<Vec<Claim>, StoreError> {
        if max == 0 {
            return Ok(Vec::new());
        }
        let running = running.clone();
        let jobs = self
            .with(move |c| {
                let mut heads = c.prepare_cached(
                    "SELECT job_id, owner FROM jobs WHERE state IN ('queued', 'running') \
                     ORDER BY created_at, job_id",
                )?;
                let unfinished: Vec<(String, String)> = heads
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()?;
                let chosen = super::turns::take_turns(&unfinished, &running, max);
                let mut read =
                    c.prepare_cached(&format!("SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = ?1"))?;
                let mut jobs = Vec::new();
                for id in chosen {
                    jobs.push(read.query_row(params![id], job_of)?);
                }
                Ok(jobs)
            })
            .await?;
        Ok(jobs
            .into_iter()
            .map(|job| Claim {
                job,
                lease: Box::new(super::store::NoLease),
                interrupted: 0,
            })
            .collect())
    }

    async fn start_job(&self, id: &str) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.with(move |c| {
            c.execute(
                "UPDATE jobs SET state = 'running', started_at = COALESCE(started_at, ?2) \
                 WHERE job_id = ?1 AND state IN ('queued', 'running')",
                params![id, now_ms()],
            )
            .map(drop)
        })
        .await
    }

    async fn commit_page(&self, id: &str, page: PageWrite) -> Result<u64, StoreError> {
        let id = id.to_owned();
        self.with(move |c| {
            let tx = c.transaction()?;
            let (next, schedule): (i64, Option<String>) = tx.query_row(
                "SELECT COALESCE((SELECT MAX(seq) FROM job_reviews WHERE job_id = ?1), 0), \
                 (SELECT schedule_id FROM jobs WHERE job_id = ?1)",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            let mut seq = next;
            let mut added = 0u64;
            {
                let mut insert = tx.prepare_cached(
                    "INSERT OR IGNORE INTO job_reviews (job_id, seq, review_id, review) VALUES (?1, ?2, ?3, ?4)",
                )?;
                let mut delivered = tx.prepare_cached(
                    "INSERT OR IGNORE INTO schedule_delivered (schedule_id, review_id) VALUES (?1, ?2)",
                )?;
                for (review_id, review) in &page.reviews {
                    if insert.execute(params![id, seq + 1, review_id, review])? == 1 {
                        seq += 1;
                        added += 1;
                        if let Some(schedule) = &schedule {
                            delivered.execute(params![schedule, review_id])?;
                        }
                    }
                }
            }
            tx.execute(
                "UPDATE jobs SET position = ?2, reviews_collected = reviews_collected + ?3, \
                 pages_fetched = pages_fetched + ?4 WHERE job_id = ?1",
                params![id, page.position, added as i64, page.pages as i64],
            )?;
            tx.commit()?;
            Ok(added)
        })
        .await
    }

    async fn finish_job(&self, id: &str, end: JobEnd) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.with(move |c| {
            c.execute(
                "UPDATE jobs SET state = ?2, stop_reason = ?3, error = ?4, finished_at = ?5 WHERE job_id = ?1",
                params![id, end.state.code(), end.stop_reason, end.error, now_ms()],
            )
            .map(drop)
        })
        .await
    }

    async fn request_cancel(&self, owner: &str, id: &str) -> Result<Option<Job>, StoreError> {
        let (owner, id) = (owner.to_owned(), id.to_owned());
        self.with(move |c| {
            c.execute(
                "UPDATE jobs SET cancel_requested = 1 WHERE job_id = ?1 AND owner = ?2",
                params![id, owner],
            )?;
            Ok(one_job(c, &id)?.filter(|j| j.owner == owner))
        })
        .await
    }

    async fn reviews(&self, id: &str, after: u64, limit: usize) -> Result<ReviewPage, StoreError> {
        let id = id.to_owned();
        self.with(move |c| {
            let mut statement = c.prepare_cached(
                "SELECT seq, review FROM job_reviews WHERE job_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
            )?;
            let rows: Vec<(i64, String)> = statement
                .query_map(params![id, after as i64, limit as i64 + 1], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?
                .collect::<rusqlite::Result<_>>()?;
            let more = rows.len() > limit;
            let page: Vec<(i64, String)> = rows.into_iter().take(limit).collect();
            let next = page.last().map(|(seq, _)| *seq as u64).filter(|_| more);
            let reviews = page
                .into_iter()
                .map(|(_, text)| serde_json::from_str(&text).unwrap_or(Value::Null))
                .collect();
            Ok((reviews, next))
        })
        .await
    }

    async fn delete_finished_before(&self, before: Millis) -> Result<u64, StoreError> {
        self.with(move |c| {
            let tx = c.transaction()?;
            let old = "SELECT job_id FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?1 \
                       AND state IN ('succeeded', 'failed', 'cancelled')";
            tx.execute(
                &format!("DELETE FROM job_reviews WHERE job_id IN ({old})"),
                params![before],
            )?;
            tx.execute(
                &format!("DELETE FROM webhook_deliveries WHERE job_id IN ({old}) AND (delivered_at IS NOT NULL OR next_attempt_at IS NULL)"),
                params![before],
            )?;
            let deleted = tx.execute(
                "DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?1 \
                 AND state IN ('succeeded', 'failed', 'cancelled') \
                 AND job_id NOT IN (SELECT job_id FROM webhook_deliveries)",
                params![before],
            )?;
            tx.commit()?;
            Ok(deleted as u64)
        })
        .await
    }

    async fn queue_delivery(
        &self,
        job_id: &str,
        webhook: &Webhook,
        body: &str,
    ) -> Result<(), StoreError> {
        let webhook = self
            .sealed(Some(webhook.clone()))?
            .expect("a webhook stays one");
        let (job_id, body) = (job_id.to_owned(), body.to_owned());
        self.with(move |c| {
            c.execute(
                "INSERT OR REPLACE INTO webhook_deliveries (job_id, url, secret, body, attempts, next_attempt_at) \
                 VALUES (?1, ?2, ?3, ?4, 0, ?5)",
                params![job_id, webhook.url, webhook.secret, body, now_ms()],
            )
            .map(drop)
        })
        .await
    }

    async fn due_deliveries(&self, now: Millis) -> Result<Vec<PendingDelivery>, StoreError> {
        self.with(move |c| {
            // The first few due deliveries of every owner, so one owner's
            // backlog never hides another's.
            let mut statement = c.prepare_cached(
                "SELECT id, job_id, url, secret, body, attempts, owner FROM ( \
                   SELECT d.id, d.job_id, d.url, d.secret, d.body, d.attempts, j.owner, \
                     ROW_NUMBER() OVER (PARTITION BY j.owner ORDER BY d.next_attempt_at, d.id) AS turn \
                   FROM webhook_deliveries d JOIN jobs j ON j.job_id = d.job_id \
                   WHERE d.delivered_at IS NULL AND d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= ?1) \
                 WHERE turn <= ?2 ORDER BY turn LIMIT 256",
            )?;
            let rows = statement.query_map(params![now, DUE_PER_OWNER], |r| {
                Ok(PendingDelivery {
                    id: r.get(0)?,
                    job_id: r.get(1)?,
                    owner: r.get(6)?,
                    webhook: Webhook {
                        url: r.get(2)?,
                        secret: r.get(3)?,
                    },
                    body: r.get(4)?,
                    attempts: r.get::<_, i64>(5)? as u32,
                })
            })?;
            rows.collect::<rusqlite::Result<Vec<PendingDelivery>>>()
        })
        .await
        .map(|due| {
            due.into_iter()
                .map(|mut d| {
                    d.webhook.secret = self.opened(std::mem::take(&mut d.webhook.secret));
                    d
                })
                .collect()
        })
    }

    async fn record_attempt(
        &self,
        delivery: &PendingDelivery,
        status: Option<u16>,
        error: Option<String>,
        next_attempt_at: Option<Millis>,
    ) -> Result<(), StoreError> {
        let id = delivery.id;
        self.with(move |c| {
            let delivered = status.is_some_and(|s| (200..300).contains(&s));
            c.execute(
                "UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?2, last_error = ?3, \
                 next_attempt_at = ?4, delivered_at = CASE WHEN ?5 THEN ?6 ELSE delivered_at END WHERE id = ?1",
                params![id, status, error, next_attempt_at, delivered, now_ms()],
            )
            .map(drop)
        })
        .await
    }

    async fn delivery(&self, job_id: &str) -> Result<Option<Delivery>, StoreError> {
        let job_id = job_id.to_owned();
        self.with(move |c| {
            c.query_row(
                "SELECT attempts, last_status, delivered_at, last_error, next_attempt_at FROM webhook_deliveries WHERE job_id = ?1",
                params![job_id],
                |r| {
                    let delivered_at: Option<i64> = r.get(2)?;
                    let next: Option<i64> = r.get(4)?;
                    Ok(Delivery {
                        attempts: r.get::<_, i64>(0)? as u32,
                        last_status: r.get::<_, Option<i64>>(1)?.map(|s| s as u16),
                        delivered_at,
                        last_error: r.get(3)?,
                        next_attempt_at: next,
                    })
                },
            )
            .optional()
        })
        .await
    }

    async fn create_schedule(&self, mut schedule: NewSchedule) -> Result<Schedule, StoreError> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        schedule.webhook = self.sealed(schedule.webhook)?;
        self.with(move |c| {
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
                 webhook_url, webhook_secret, next_run_at, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
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
                    now_ms()
                ],
            )?;
            c.query_row(
                &format!("SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE schedule_id = ?1"),
                params![id],
                schedule_of,
            )
        })
        .await
    }

    async fn schedule(
        &self,
        owner: Option<&str>,
        id: &str,
    ) -> Result<Option<Schedule>, StoreError> {
        let (owner, id) = (owner.map(str::to_owned), id.to_owned());
        let found = self
            .with(move |c| {
                c.query_row(
                    &format!("SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE schedule_id = ?1"),
                    params![id],
                    schedule_of,
                )
                .optional()
            })
            .await?;
        Ok(found.filter(|s| owner.as_ref().is_none_or(|o| *o == s.owner)))
    }

    async fn schedules(&self, owner: &str) -> Result<Vec<Schedule>, StoreError> {
        let owner = owner.to_owned();
        self.with(move |c| {
            let mut statement = c.prepare(&format!(
                "SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE owner = ?1 ORDER BY created_at, schedule_id"
            ))?;
            let rows = statement.query_map(params![owner], schedule_of)?;
            rows.collect()
        })
        .await
    }

    async fn delete_schedule(&self, owner: &str, id: &str) -> Result<bool, StoreError> {
        let (owner, id) = (owner.to_owned(), id.to_owned());
        self.with(move |c| {
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
            }
            tx.commit()?;
            Ok(deleted > 0)
        })
        .await
    }

    async fn due_schedules(&self, now: Millis) -> Result<Vec<Schedule>, StoreError> {
        self.with(move |c| {
            let mut statement = c.prepare(&format!(
                "SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE next_run_at <= ?1 ORDER BY next_run_at"
            ))?;
            let rows = statement.query_map(params![now], schedule_of)?;
            rows.collect()
        })
        .await
    }

    async fn claim_schedule_run(
        &self,
        id: &str,
        due: Millis,
        next: Millis,
    ) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.with(move |c| {
            let changed = c.execute(
                "UPDATE schedules SET next_run_at = ?3 WHERE schedule_id = ?1 AND next_run_at = ?2",
                params![id, due, next],
            )?;
            Ok(changed == 1)
        })
        .await
    }

    async fn schedule_ran(
        &self,
        id: &str,
        job_id: Option<&str>,
        next_run_at: Millis,
    ) -> Result<(), StoreError> {
        let (id, job_id) = (id.to_owned(), job_id.map(str::to_owned));
        self.with(move |c| {
            match &job_id {
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
        })
        .await
    }

    async fn schedule_run_ended(
        &self,
        id: &str,
        delivered: u64,
        caught_up: bool,
    ) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.with(move |c| {
            c.execute(
                "UPDATE schedules SET reviews_delivered = reviews_delivered + ?2, caught_up = ?3 WHERE schedule_id = ?1",
                params![id, delivered as i64, caught_up],
            )
            .map(drop)
        })
        .await
    }

    async fn delivered_ids(&self, id: &str) -> Result<HashSet<String>, StoreError> {
        let id = id.to_owned();
        self.with(move |c| {
            let mut statement = c.prepare_cached(
                "SELECT review_id FROM schedule_delivered WHERE schedule_id = ?1",
            )?;
            let rows = statement.query_map(params![id], |r| r.get::<_, String>(0))?;
            rows.collect()
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn store() -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().unwrap();
        let seal = Arc::new(Seal::new(None, b"a-token-secret-of-at-least-32-bytes!!"));
        let store = SqliteStore::open(&dir.path().join("jobs.sqlite3"), seal).unwrap();
        (dir, store)
    }

    fn new_job(owner: &str) -> NewJob {
        NewJob {
            owner: owner.into(),
            endpoint: "/x/reviews".into(),
            request: json!({"query": "q"}),
            total: None,
            webhook: None,
            schedule_id: None,
        }
    }

    fn page(ids: &[&str], position: Option<&str>) -> PageWrite {
        PageWrite {
            reviews: ids
                .iter()
                .map(|id| (id.to_string(), json!({"review_id": id}).to_string()))
                .collect(),
            position: position.map(str::to_owned),
            pages: 1,
        }
    }

    #[tokio::test]
    async fn pages_commit_with_their_position_and_never_twice() {
        let (_dir, store) = store();
        let job = store.create_job(new_job("k1")).await.unwrap();
        assert_eq!(job.state, JobState::Queued);
        store.start_job(&job.job_id).await.unwrap();
        assert_eq!(
            store
                .commit_page(&job.job_id, page(&["a", "b"], Some("t1")))
                .await
                .unwrap(),
            2
        );
        // A page committed again after a crash stores nothing twice.
        assert_eq!(
            store
                .commit_page(&job.job_id, page(&["b", "c"], Some("t2")))
                .await
                .unwrap(),
            1
        );
        let stored = store.job(Some("k1"), &job.job_id).await.unwrap().unwrap();
        assert_eq!(stored.position.as_deref(), Some("t2"));
        assert_eq!(stored.reviews_collected, 3);
        assert_eq!(stored.pages_fetched, 2);
        let (first, next) = store.reviews(&job.job_id, 0, 2).await.unwrap();
        assert_eq!(
            first,
            [json!({"review_id": "a"}), json!({"review_id": "b"})]
        );
        let (rest, end) = store.reviews(&job.job_id, next.unwrap(), 2).await.unwrap();
        assert_eq!(rest, [json!({"review_id": "c"})]);
        assert_eq!(end, None);
        assert!(
            store.job(Some("k2"), &job.job_id).await.unwrap().is_none(),
            "another owner"
        );
        assert_eq!(store.unfinished_jobs().await.unwrap().len(), 1);
        store
            .finish_job(
                &job.job_id,
                JobEnd {
                    state: JobState::Succeeded,
                    stop_reason: Some("exhausted".into()),
                    error: None,
                },
            )
            .await
            .unwrap();
        assert!(store.unfinished_jobs().await.unwrap().is_empty());
        assert_eq!(store.delete_finished_before(now_ms() + 1).await.unwrap(), 1);
        assert!(store.job(None, &job.job_id).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn jobs_list_newest_first_by_owner_and_state() {
        let (_dir, store) = store();
        let mut ids = Vec::new();
        for _ in 0..5 {
            ids.push(store.create_job(new_job("k1")).await.unwrap().job_id);
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        store.create_job(new_job("k2")).await.unwrap();
        let first = store.jobs("k1", None, None, 3).await.unwrap();
        let listed: Vec<_> = first.iter().map(|j| j.job_id.clone()).collect();
        assert_eq!(listed, [ids[4].clone(), ids[3].clone(), ids[2].clone()]);
        let rest = store.jobs("k1", None, Some(&ids[2]), 3).await.unwrap();
        assert_eq!(rest.len(), 2);
        assert!(store
            .jobs("k1", Some(JobState::Running), None, 10)
            .await
            .unwrap()
            .is_empty());
    }
}
