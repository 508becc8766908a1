//! The jobs store in SQLite (`<data_dir>/jobs.sqlite3`), through rusqlite
//! with its bundled library: WAL mode, and one thread that owns the
//! connection and runs every statement in turn, so writes never contend.
//! Any SQLite tool can open the file; docs/operating.md lists its tables.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use rusqlite::{params, Connection};
use tokio::sync::{mpsc, oneshot};

use crate::changes::{Change, ChangeWrite, Fingerprinted};
use crate::model::{
    now_ms, Delivery, Export, Job, JobState, Millis, NewJob, NewSchedule, PendingDelivery,
    Schedule, Topic, Webhook,
};
use crate::store::{
    Attempt, ChangeQuery, Claim, DeliveryStore, JobEnd, JobStore, PageWrite, ReviewPage,
    ScheduleStore, StoreError,
};
use gleaner_seal::Seal;
use rows::{job_of, one_job, JOB_COLUMNS};

mod changes;
mod deliveries;
mod reviews;
mod rows;
mod schedules;
mod schema;
mod secret;

type Work = Box<dyn FnOnce(&mut Connection) + Send>;

/// The SQLite store: a handle to the thread that owns the connection, and
/// the key webhook secrets are sealed with at rest.
#[derive(Clone)]
pub struct SqliteStore {
    work: mpsc::UnboundedSender<Work>,
    seal: Arc<Seal>,
}

impl SqliteStore {
    /// Opens (or creates) the store at `path`, in WAL mode; webhook secrets
    /// are sealed with `seal`.
    pub fn open(path: &Path, seal: Arc<Seal>) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent() {
            gleaner_seal::private_files::create(dir)
                .map_err(|e| StoreError(format!("cannot create {}: {e}", dir.display())))?;
        }
        // SQLite gives its -wal and -shm files the database file's mode.
        gleaner_seal::private_files::private_file(path)
            .map_err(|e| StoreError(format!("cannot open {}: {e}", path.display())))?;
        let connection = Connection::open(path)
            .map_err(|e| StoreError(format!("cannot open {}: {e}", path.display())))?;
        connection
            .execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;")
            .map_err(|e| StoreError(format!("cannot set up {}: {e}", path.display())))?;
        let mut connection = connection;
        // Every transaction takes the write lock as it begins: one that read
        // first would fail at once, busy timeout or not, if another handle
        // on the file wrote in between.
        connection.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
        schema::migrate(&mut connection, &seal, path)?;
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
        hook.secret = secret::seal(&self.seal, &hook.secret).map_err(StoreError)?;
        Ok(Some(hook))
    }

    /// A stored secret opened; one stored in clear is taken as it is.
    fn opened(&self, stored: String) -> String {
        secret::open(&self.seal, stored)
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

#[async_trait]
impl JobStore for SqliteStore {
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
                 webhook_url, webhook_secret, schedule_id, export) \
                 VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?7, ?8, ?9, ?10)",
                params![
                    id,
                    job.owner,
                    job.endpoint,
                    job.request.to_string(),
                    job.total.map(|t| t as i64),
                    now_ms(),
                    url,
                    secret,
                    job.schedule_id,
                    job.export
                        .as_deref()
                        .map(|format| serde_json::json!(Export::pending(format)).to_string())
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
            let anchor = rows::anchor(c, "jobs", "job_id", before.as_deref())?;
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
                let chosen = crate::turns::take_turns(&unfinished, &running, max);
                let mut start = c.prepare_cached(
                    "UPDATE jobs SET state = 'running', started_at = COALESCE(started_at, ?2) \
                     WHERE job_id = ?1 AND state IN ('queued', 'running')",
                )?;
                let mut read =
                    c.prepare_cached(&format!("SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = ?1"))?;
                let mut jobs = Vec::new();
                let now = now_ms();
                for id in chosen {
                    start.execute(params![id, now])?;
                    jobs.push(read.query_row(params![id], job_of)?);
                }
                Ok(jobs)
            })
            .await?;
        Ok(jobs
            .into_iter()
            .map(|job| Claim {
                job,
                lease: Box::new(crate::store::NoLease),
                interrupted: 0,
            })
            .collect())
    }

    async fn commit_page(&self, id: &str, page: PageWrite) -> Result<u64, StoreError> {
        let id = id.to_owned();
        self.with(move |c| reviews::commit(c, &id, &page)).await
    }

    async fn finish_job(&self, id: &str, end: JobEnd) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.with(move |c| {
            let tx = c.transaction()?;
            let ended = tx.execute(
                "UPDATE jobs SET state = ?2, stop_reason = ?3, error = ?4, finished_at = ?5 \
                 WHERE job_id = ?1 AND state IN ('queued', 'running')",
                params![id, end.state.code(), end.stop_reason, end.error, now_ms()],
            )? == 1;
            if ended {
                schedules::run_ended(&tx, &id, end.state == JobState::Succeeded)?;
            }
            tx.commit()?;
            Ok(ended)
        })
        .await
    }

    async fn request_cancel(&self, owner: &str, id: &str) -> Result<Option<Job>, StoreError> {
        let (owner, id) = (owner.to_owned(), id.to_owned());
        self.with(move |c| {
            c.execute(
                "UPDATE jobs SET cancel_requested = 1 WHERE job_id = ?1 AND owner = ?2 \
                 AND state IN ('queued', 'running')",
                params![id, owner],
            )?;
            Ok(one_job(c, &id)?.filter(|j| j.owner == owner))
        })
        .await
    }

    async fn record_export(&self, id: &str, export: &Export) -> Result<(), StoreError> {
        let (id, text) = (id.to_owned(), serde_json::json!(export).to_string());
        self.with(move |c| {
            c.execute(
                "UPDATE jobs SET export = ?2 WHERE job_id = ?1",
                params![id, text],
            )?;
            Ok(())
        })
        .await
    }

    async fn reviews(&self, id: &str, after: u64, limit: usize) -> Result<ReviewPage, StoreError> {
        let id = id.to_owned();
        self.with(move |c| reviews::page(c, &id, after, limit))
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
}

#[async_trait]
impl DeliveryStore for SqliteStore {
    async fn queue_delivery(
        &self,
        job_id: &str,
        topic: Topic,
        webhook: &Webhook,
        body: &str,
    ) -> Result<(), StoreError> {
        let webhook = self
            .sealed(Some(webhook.clone()))?
            .expect("a webhook stays one");
        let (job_id, body) = (job_id.to_owned(), body.to_owned());
        self.with(move |c| deliveries::queue(c, &job_id, topic, &webhook, &body))
            .await
    }

    async fn due_deliveries(
        &self,
        now: Millis,
        lease_until: Millis,
    ) -> Result<Vec<PendingDelivery>, StoreError> {
        self.with(move |c| deliveries::due(c, now, lease_until))
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
        attempt: Attempt,
    ) -> Result<(), StoreError> {
        let id = delivery.id;
        self.with(move |c| deliveries::record_attempt(c, id, attempt))
            .await
    }

    async fn delivery(&self, job_id: &str) -> Result<Option<Delivery>, StoreError> {
        let job_id = job_id.to_owned();
        self.with(move |c| deliveries::of_job(c, &job_id)).await
    }
}

#[async_trait]
impl ScheduleStore for SqliteStore {
    async fn create_schedule(&self, mut schedule: NewSchedule) -> Result<Schedule, StoreError> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        schedule.webhook = self.sealed(schedule.webhook)?;
        self.with(move |c| schedules::create(c, &id, &schedule))
            .await
    }

    async fn schedule(
        &self,
        owner: Option<&str>,
        id: &str,
    ) -> Result<Option<Schedule>, StoreError> {
        let (owner, id) = (owner.map(str::to_owned), id.to_owned());
        let found = self.with(move |c| schedules::one(c, &id)).await?;
        Ok(found.filter(|s| owner.as_ref().is_none_or(|o| *o == s.owner)))
    }

    async fn schedules(
        &self,
        owner: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Schedule>, StoreError> {
        let (owner, after) = (owner.to_owned(), after.map(str::to_owned));
        self.with(move |c| schedules::of_owner(c, &owner, after.as_deref(), limit))
            .await
    }

    async fn delete_schedule(&self, owner: &str, id: &str) -> Result<bool, StoreError> {
        let (owner, id) = (owner.to_owned(), id.to_owned());
        self.with(move |c| schedules::delete(c, &owner, &id)).await
    }

    async fn schedule_ran(
        &self,
        id: &str,
        job_id: Option<&str>,
        next_run_at: Millis,
    ) -> Result<(), StoreError> {
        let (id, job_id) = (id.to_owned(), job_id.map(str::to_owned));
        self.with(move |c| schedules::ran(c, &id, job_id.as_deref(), next_run_at))
            .await
    }

    async fn delivered_ids(&self, id: &str) -> Result<HashSet<String>, StoreError> {
        let id = id.to_owned();
        self.with(move |c| schedules::delivered_ids(c, &id)).await
    }

    async fn fingerprints(&self, id: &str) -> Result<HashMap<String, Fingerprinted>, StoreError> {
        let id = id.to_owned();
        self.with(move |c| changes::fingerprints(c, &id)).await
    }

    async fn record_changes(
        &self,
        id: &str,
        write: ChangeWrite,
        walked_all_at: Option<Millis>,
    ) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.with(move |c| changes::record(c, &id, &write, walked_all_at))
            .await
    }

    async fn changes(
        &self,
        id: &str,
        query: ChangeQuery<'_>,
    ) -> Result<Vec<(u64, Change)>, StoreError> {
        let (id, run) = (id.to_owned(), query.run.map(str::to_owned));
        let (after, since, limit) = (query.after, query.since, query.limit);
        self.with(move |c| {
            let query = ChangeQuery {
                after,
                since,
                run: run.as_deref(),
                limit,
            };
            changes::page(c, &id, &query)
        })
        .await
    }

    async fn take_due_runs(&self, now: Millis) -> Result<Vec<Schedule>, StoreError> {
        self.with(move |c| schedules::take_due(c, now)).await
    }
}

#[cfg(test)]
mod tests;
