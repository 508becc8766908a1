//! The jobs engine ([`Jobs`]): four loops while the server serves. The
//! dispatcher runs at most `concurrency` jobs at once, each with the server's
//! [`Worker`]; the scheduler starts due schedules' runs; the webhook sender
//! hands due deliveries to the server's [`Sender`] within the lanes of
//! [`webhooks::Lanes`]; the retention sweep deletes old jobs. A job that asked
//! for an export has it written by the server's [`Exporter`] once it ends.
//! Every rule of a job's life is decided here, whichever store keeps it: a
//! job's first end is the one announced, "delivered" means a 2xx, and failed
//! attempts (of webhooks and exports alike) back off.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use tokio::sync::{Notify, Semaphore};

use crate::changes::{self, Change, ChangeCounts};
use crate::model::{
    now_ms, Export, ExportState, Job, JobState, JobStatus, Millis, NewJob, PendingDelivery,
    Schedule, Topic,
};
use crate::store::{self, Claim, Lease, Store, MAX_INTERRUPTIONS};
use crate::webhooks;

/// How often the loops look for work besides being woken.
const TICK: Duration = Duration::from_millis(500);

/// How long a replica holds a webhook delivery it is sending before another
/// attempt may take it (an attempt's own timeout is far shorter).
const DELIVERY_LEASE_MS: Millis = 120_000;

/// The engine's settings, from the server's configuration.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Jobs run at once on this server.
    pub concurrency: usize,
    /// The wait before a failed webhook delivery's second attempt; it doubles
    /// after each failure.
    pub webhook_retry_base: Duration,
    /// How long a finished job is kept.
    pub retention: Duration,
    /// The wait before a failed export's second attempt; it doubles after
    /// each failure, as a webhook's does ([`webhooks::backoff`]).
    pub export_retry_base: Duration,
}

/// How a job's run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// It reached its end, for the stop reason given.
    Succeeded(String),
    /// It failed, with what to tell its owner, and the stop reason if any.
    Failed(String, Option<String>),
    /// It was cancelled, with the stop reason if any.
    Cancelled(Option<String>),
}

/// Runs one job: the server's driver, called page after page, each page
/// committed to `store` (and the lease kept) before the next. It returns
/// when the job ends, is cancelled (`cancel` set), or fails.
#[async_trait]
pub trait Worker: Send + Sync + 'static {
    /// Drives `job` to its end.
    async fn drive(
        &self,
        store: &dyn Store,
        job: &Job,
        cancel: &AtomicBool,
        lease: &dyn Lease,
    ) -> End;
}

/// Sends one webhook delivery once, signed ([`webhooks::headers`]): the
/// status it was answered with, or why there was none.
#[async_trait]
pub trait Sender: Send + Sync + 'static {
    /// One attempt of `delivery`.
    async fn send(&self, delivery: &PendingDelivery) -> webhooks::Reply;
}

/// Writes a job's reviews, as its export asks, to the server's object
/// storage: the object's key and size, or why it could not.
#[async_trait]
pub trait Exporter: Send + Sync + 'static {
    /// The key `job`'s export is written to.
    fn key(&self, job: &Job, export: &Export) -> String;
    /// One attempt at writing every review `store` holds for `job` to `key`;
    /// the bytes written.
    async fn write(
        &self,
        store: Arc<dyn Store>,
        job: &Job,
        export: &Export,
        key: &str,
    ) -> Result<u64, String>;
}

/// The jobs engine.
pub struct Jobs {
    /// Where jobs live.
    pub store: Arc<dyn Store>,
    settings: Settings,
    worker: Arc<dyn Worker>,
    sender: Arc<dyn Sender>,
    /// Where exports are written, when the server has object storage.
    exporter: Option<Arc<dyn Exporter>>,
    /// Jobs that may run at once.
    slots: Arc<Semaphore>,
    /// The cancel flags of the jobs running here.
    running: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// Woken when a job is queued or a webhook is due.
    wake: Notify,
}

impl Jobs {
    /// The engine over `store`, running jobs with `worker`, sending
    /// webhooks with `sender` and writing exports with `exporter`.
    pub fn new(
        store: Arc<dyn Store>,
        settings: Settings,
        worker: Arc<dyn Worker>,
        sender: Arc<dyn Sender>,
        exporter: Option<Arc<dyn Exporter>>,
    ) -> Arc<Jobs> {
        let slots = Arc::new(Semaphore::new(settings.concurrency.max(1)));
        Arc::new(Jobs {
            store,
            settings,
            worker,
            sender,
            exporter,
            slots,
            running: Mutex::default(),
            wake: Notify::new(),
        })
    }

    /// Starts the loops; unfinished jobs found in the store resume at once.
    pub fn start(self: &Arc<Jobs>) {
        tokio::spawn(self.clone().dispatch());
        tokio::spawn(self.clone().schedule_loop());
        tokio::spawn(self.clone().webhook_loop());
        tokio::spawn(self.clone().retention_loop());
    }

    /// Queues a job; workers take it at once when a slot is free.
    pub async fn submit(&self, job: NewJob) -> Result<Job, store::StoreError> {
        let job = self.store.create_job(job).await?;
        self.wake.notify_waiters();
        Ok(job)
    }

    /// Asks `owner`'s job `id` to stop; a queued job is cancelled at once
    /// (and its export written, empty).
    pub async fn cancel(
        self: &Arc<Jobs>,
        owner: &str,
        id: &str,
    ) -> Result<Option<Job>, store::StoreError> {
        let Some(job) = self.store.request_cancel(owner, id).await? else {
            return Ok(None);
        };
        if let Some(flag) = self
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
        {
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if job.state == JobState::Queued && !self.is_running(id) {
            self.end(&job, JobState::Cancelled, None, None).await?;
            let (jobs, id) = (self.clone(), id.to_owned());
            tokio::spawn(async move { jobs.export(&id).await });
        }
        self.store.job(Some(owner), id).await
    }

    fn is_running(&self, id: &str) -> bool {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(id)
    }

    /// Takes queued and interrupted jobs, each when a slot is free.
    async fn dispatch(self: Arc<Jobs>) {
        loop {
            let wake = self.wake.notified();
            let free = self.slots.available_permits();
            if free > 0 {
                let running: HashSet<String> = self
                    .running
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .keys()
                    .cloned()
                    .collect();
                match self.store.claim_jobs(free, &running).await {
                    Ok(claims) => {
                        for claim in claims {
                            self.clone().run(claim);
                        }
                    }
                    Err(e) => tracing::error!(error = %e, "cannot take the queued jobs"),
                }
            }
            tokio::select! {
                _ = wake => {}
                _ = tokio::time::sleep(TICK) => {}
            }
        }
    }

    /// Runs a claimed job in its own task, holding a slot.
    fn run(self: Arc<Jobs>, claim: Claim) {
        let Ok(slot) = self.slots.clone().try_acquire_owned() else {
            // Only the dispatcher takes slots, and it claimed no more than were free.
            return;
        };
        let id = claim.job.job_id.clone();
        let flag = Arc::new(AtomicBool::new(claim.job.cancel_requested));
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), flag.clone());
        tokio::spawn(async move {
            let ended = self.finish(claim, &flag).await;
            self.running
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            drop(slot);
            self.wake.notify_waiters();
            if ended {
                self.export(&id).await;
            }
        });
    }

    /// Runs a claimed job to its end and records it; lets go of its lease
    /// once the end is recorded (so a crash before that hands the job to
    /// another worker). Whether its end is recorded.
    async fn finish(&self, claim: Claim, cancel: &AtomicBool) -> bool {
        let Claim {
            job,
            lease,
            interrupted,
        } = claim;
        let end = if interrupted >= MAX_INTERRUPTIONS {
            End::Failed(
                format!(
                    "its workers stopped {interrupted} times before it ended (a replica crashing on it, \
                     or losing the cluster); its reviews so far stay. Submit it again to go on"
                ),
                None,
            )
        } else {
            self.worker
                .drive(self.store.as_ref(), &job, cancel, lease.as_ref())
                .await
        };
        let (state, stop, error) = match end {
            End::Succeeded(stop) => (JobState::Succeeded, Some(stop), None),
            End::Failed(error, stop) => (JobState::Failed, stop, Some(error)),
            End::Cancelled(stop) => (JobState::Cancelled, stop, None),
        };
        tracing::info!(job = %job.job_id, endpoint = %job.endpoint, state = state.code(), error = error.as_deref().unwrap_or(""), "job ended");
        match self.end(&job, state, stop, error).await {
            Ok(()) => {
                lease.done().await;
                true
            }
            Err(e) => {
                tracing::error!(job = %job.job_id, error = %e, "cannot record a job's end; it resumes at the next start");
                false
            }
        }
    }

    /// Writes the export job `id` asked for, if any and not written yet:
    /// attempt after attempt, each recorded, waiting as [`webhooks::backoff`]
    /// says after each failure, until one succeeds or it says to stop.
    pub async fn export(&self, id: &str) {
        let job = match self.store.job(None, id).await {
            Ok(Some(job)) => job,
            Ok(None) => return,
            Err(e) => {
                tracing::error!(job = %id, error = %e, "cannot read an ended job to export it");
                return;
            }
        };
        let Some(mut export) = job.export.clone() else {
            return;
        };
        if export.state != ExportState::Pending {
            return;
        }
        let Some(exporter) = &self.exporter else {
            export.state = ExportState::Failed;
            export.error = Some(
                "the server has no object storage now; its operator sets GLEANER_EXPORT_S3_URL \
                 (see docs/operating.md). The reviews stay readable at GET /jobs/{id}/reviews"
                    .into(),
            );
            self.record_export(id, &export).await;
            return;
        };
        let key = exporter.key(&job, &export);
        export.key = Some(key.clone());
        let base = self
            .settings
            .export_retry_base
            .max(Duration::from_millis(1));
        loop {
            let written = exporter
                .write(self.store.clone(), &job, &export, &key)
                .await;
            export.attempts += 1;
            let error = match written {
                Ok(bytes) => {
                    export.state = ExportState::Written;
                    export.bytes = Some(bytes);
                    export.error = None;
                    tracing::info!(job = %id, %key, bytes, "export written");
                    self.record_export(id, &export).await;
                    return;
                }
                Err(error) => error,
            };
            let wait = webhooks::backoff(export.attempts, base);
            tracing::warn!(job = %id, %key, attempt = export.attempts, %error, last = wait.is_none(), "export attempt failed");
            export.error = Some(error);
            if wait.is_none() {
                export.state = ExportState::Failed;
            }
            self.record_export(id, &export).await;
            match wait {
                Some(wait) => tokio::time::sleep(wait).await,
                None => return,
            }
        }
    }

    async fn record_export(&self, id: &str, export: &Export) {
        if let Err(e) = self.store.record_export(id, export).await {
            tracing::error!(job = %id, error = %e, "cannot record how an export went");
        }
    }

    /// Records a job's end, announces it, and for a schedule's run, what it
    /// delivered.
    async fn end(
        &self,
        job: &Job,
        state: JobState,
        stop_reason: Option<String>,
        error: Option<String>,
    ) -> Result<(), store::StoreError> {
        let end = store::JobEnd {
            state,
            stop_reason,
            error,
        };
        if !self.store.finish_job(&job.job_id, end).await? {
            // It had ended already, and that end was announced.
            return Ok(());
        }
        let Some(done) = self.store.job(None, &job.job_id).await? else {
            return Ok(());
        };
        // The store recorded the run's end on its schedule with the job's.
        let new_reviews = done.schedule_id.as_ref().map(|_| done.reviews_collected);
        let found = self.run_changes(&done).await?;
        if let Some(hook) = &done.webhook {
            let status = JobStatus {
                webhook: None,
                ..done.status(None)
            };
            let mut status = json!(status);
            let body = match new_reviews {
                Some(n) => {
                    status["new_reviews"] = json!(n);
                    if let Some((counts, _)) = &found {
                        status["changes"] = json!(counts);
                    }
                    json!({ "event": "schedule.run", "job": status })
                }
                None => json!({ "event": format!("job.{}", state.code()), "job": status }),
            };
            self.store
                .queue_delivery(&done.job_id, Topic::End, hook, &body.to_string())
                .await?;
            if let Some((counts, changes)) = found.filter(|(c, _)| c.total() > 0) {
                let body = changes::batch(&done, counts, &changes);
                self.store
                    .queue_delivery(&done.job_id, Topic::Changes, hook, &body.to_string())
                    .await?;
            }
            self.wake.notify_waiters();
        }
        Ok(())
    }

    /// What a tracked schedule's run found: the counts, and its changes in
    /// the order found (at most [`changes::MAX_PER_RUN_READ`]); none for a
    /// job that is not such a run.
    async fn run_changes(
        &self,
        done: &Job,
    ) -> Result<Option<(ChangeCounts, Vec<(u64, Change)>)>, store::StoreError> {
        let Some(schedule_id) = &done.schedule_id else {
            return Ok(None);
        };
        let tracked = self.store.schedule(None, schedule_id).await?;
        if tracked.is_none_or(|s| s.tracking.is_none()) {
            return Ok(None);
        }
        let query = store::ChangeQuery {
            run: Some(&done.job_id),
            limit: changes::MAX_PER_RUN_READ,
            ..Default::default()
        };
        let found = self.store.changes(schedule_id, query).await?;
        let mut counts = ChangeCounts::default();
        for (_, change) in &found {
            counts.add(change.event);
        }
        Ok(Some((counts, found)))
    }

    /// Sends due webhook deliveries, one attempt each, at once within the
    /// lanes of [`webhooks::Lanes`], and records them.
    async fn webhook_loop(self: Arc<Jobs>) {
        let lanes = Arc::new(webhooks::Lanes::default());
        loop {
            let wake = self.wake.notified();
            let now = now_ms();
            match self
                .store
                .due_deliveries(now, now + DELIVERY_LEASE_MS)
                .await
            {
                Ok(due) => {
                    for delivery in due {
                        let id = webhooks::delivery_id(&delivery);
                        if lanes.claim(&id) {
                            tokio::spawn(self.clone().deliver(lanes.clone(), id, delivery));
                        }
                    }
                }
                Err(e) => tracing::error!(error = %e, "cannot read the due webhooks"),
            }
            lanes.tidy();
            tokio::select! {
                _ = wake => {}
                _ = tokio::time::sleep(TICK) => {}
            }
        }
    }

    /// One attempt of `delivery` once its turn comes, recorded.
    async fn deliver(
        self: Arc<Jobs>,
        lanes: Arc<webhooks::Lanes>,
        id: String,
        delivery: PendingDelivery,
    ) {
        let turn = lanes.turn(&delivery).await;
        let (status, error) = self.sender.send(&delivery).await;
        drop(turn);
        let delivered = status.is_some_and(|s| (200..300).contains(&s));
        let base = self
            .settings
            .webhook_retry_base
            .max(Duration::from_millis(1));
        let next = match delivered {
            true => None,
            false => webhooks::next_attempt(delivery.attempts + 1, base, now_ms()),
        };
        tracing::info!(job = %delivery.job_id, attempt = delivery.attempts + 1, ?status, error = error.as_deref().unwrap_or(""), delivered, "webhook attempt");
        let attempt = store::Attempt {
            status,
            error,
            delivered,
            next_attempt_at: next,
        };
        if let Err(e) = self.store.record_attempt(&delivery, attempt).await {
            tracing::error!(error = %e, "cannot record a webhook attempt");
        }
        lanes.release(&id);
    }

    /// Starts the runs of due schedules.
    async fn schedule_loop(self: Arc<Jobs>) {
        loop {
            match self.store.take_due_runs(now_ms()).await {
                Ok(taken) => {
                    for schedule in taken {
                        if let Err(e) = self.run_schedule(&schedule).await {
                            tracing::error!(schedule = %schedule.schedule_id, error = %e, "cannot start a schedule's run");
                        }
                    }
                }
                Err(e) => tracing::error!(error = %e, "cannot read the due schedules"),
            }
            tokio::time::sleep(TICK).await;
        }
    }

    /// Starts one run of `schedule` as a job, unless its previous run is
    /// still going (the skip is recorded): a run taken when due (its next
    /// run already moved on), or one asked for now, outside its cadence (its
    /// next run stays when it was). The job, when one was started.
    pub async fn run_schedule(
        &self,
        schedule: &Schedule,
    ) -> Result<Option<Job>, store::StoreError> {
        let next = schedule.next_run_at;
        if let Some(last) = &schedule.last_job_id {
            let going = self
                .store
                .job(None, last)
                .await?
                .is_some_and(|j| !j.state.is_final());
            if going {
                tracing::info!(schedule = %schedule.schedule_id, job = %last, "a schedule's run is skipped: the previous one is still going");
                self.store
                    .schedule_ran(&schedule.schedule_id, None, next)
                    .await?;
                return Ok(None);
            }
        }
        let job = self
            .submit(NewJob {
                owner: schedule.owner.clone(),
                endpoint: schedule.endpoint.clone(),
                request: schedule.request.clone(),
                total: None,
                webhook: schedule.webhook.clone(),
                schedule_id: Some(schedule.schedule_id.clone()),
                export: schedule.export.clone(),
            })
            .await?;
        self.store
            .schedule_ran(&schedule.schedule_id, Some(&job.job_id), next)
            .await?;
        Ok(Some(job))
    }

    /// Deletes finished jobs older than the retention period, hourly.
    async fn retention_loop(self: Arc<Jobs>) {
        let keep = self.settings.retention.as_millis() as Millis;
        loop {
            match self.store.delete_finished_before(now_ms() - keep).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(jobs = n, "deleted jobs past their retention"),
                Err(e) => tracing::error!(error = %e, "cannot delete old jobs"),
            }
            tokio::time::sleep(Duration::from_secs(3_600)).await;
        }
    }

    /// A job's status, with its webhook delivery.
    pub async fn status(&self, job: &Job) -> Result<JobStatus, store::StoreError> {
        let delivery = match job.webhook {
            Some(_) => self.store.delivery(&job.job_id).await?,
            None => None,
        };
        Ok(job.status(delivery.as_ref()))
    }
}
