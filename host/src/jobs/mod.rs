//! Crawl jobs, schedules that deliver only new reviews, and signed webhooks,
//! on an embedded store. A job pages a source as far as its total (up to
//! `job_max_reviews`) within its own budget (`job_max_duration_secs`), with
//! the same driver, plugins, sessions and pacing as the synchronous
//! endpoints; each page is committed with the position after it before the
//! next is used, so a restart resumes every unfinished job where it stopped.
//!
//! - [`model`]: what is stored and answered;
//! - [`store`]: the one storage trait, and [`sqlite`] its embedded
//!   implementation;
//! - [`runner`]: one job's run;
//! - [`webhooks`]: signing and delivering a job's end;
//! - [`cadence`]: when a schedule runs;
//! - [`turns`]: which queued job runs next, owners taking turns.
//!
//! The engine ([`Jobs`]) runs four loops while the server serves: the
//! dispatcher (at most `jobs_concurrency` jobs at once), the scheduler, the
//! webhook sender and the retention sweep.

pub mod cadence;
pub mod model;
mod runner;
pub mod sqlite;
pub mod status;
pub mod store;
pub mod turns;
pub mod webhooks;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::sync::{Notify, Semaphore};

use model::{now_ms, Job, JobState, JobStatus, NewJob, PendingDelivery, Schedule};
use store::Store;

use crate::config::Config;
use crate::registry::Registry;
use crate::runtime::bulkhead::Bulkheads;
use crate::runtime::Runtime;
use crate::token::TokenKey;

/// How often the loops look for work besides being woken.
const TICK: Duration = Duration::from_millis(500);

/// How long a replica holds a webhook delivery it is sending before another
/// attempt may take it (an attempt's own timeout is far shorter).
const DELIVERY_LEASE_MS: model::Millis = 120_000;

/// What the engine runs jobs with: the server's own parts.
#[derive(Clone)]
pub struct Parts {
    /// The runtime plugins run in.
    pub runtime: Arc<Runtime>,
    /// Which plugin serves which route.
    pub registry: Arc<Registry>,
    /// The key continuation tokens are signed with.
    pub tokens: Arc<TokenKey>,
    /// The request pools a job's calls take their slots in.
    pub bulkheads: Arc<Bulkheads>,
    /// The configuration.
    pub config: Arc<Config>,
}

/// The jobs engine.
pub struct Jobs {
    /// Where jobs live.
    pub store: Arc<dyn Store>,
    parts: Parts,
    /// Jobs that may run at once.
    slots: Arc<Semaphore>,
    /// The cancel flags of the jobs running here.
    running: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// Woken when a job is queued or a webhook is due.
    wake: Notify,
}

impl Jobs {
    /// The engine over `store`.
    pub fn new(store: Arc<dyn Store>, parts: Parts) -> Arc<Jobs> {
        let slots = Arc::new(Semaphore::new(parts.config.jobs_concurrency.max(1)));
        Arc::new(Jobs {
            store,
            parts,
            slots,
            running: Mutex::default(),
            wake: Notify::new(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.parts.config
    }

    /// The server's parts.
    pub fn parts(&self) -> &Parts {
        &self.parts
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

    /// Asks `owner`'s job `id` to stop; a queued job is cancelled at once.
    pub async fn cancel(&self, owner: &str, id: &str) -> Result<Option<Job>, store::StoreError> {
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
    fn run(self: Arc<Jobs>, claim: store::Claim) {
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
            runner::run(&self, claim, &flag).await;
            self.running
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            drop(slot);
            self.wake.notify_waiters();
        });
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
        let mut new_reviews = None;
        if let Some(schedule) = &done.schedule_id {
            let caught_up = state == JobState::Succeeded;
            self.store
                .schedule_run_ended(schedule, done.reviews_collected, caught_up)
                .await?;
            new_reviews = Some(done.reviews_collected);
        }
        if let Some(hook) = &done.webhook {
            let status = JobStatus {
                webhook: None,
                ..done.status(None)
            };
            let mut status = json!(status);
            let body = match new_reviews {
                Some(n) => {
                    status["new_reviews"] = json!(n);
                    json!({ "event": "schedule.run", "job": status })
                }
                None => json!({ "event": format!("job.{}", state.code()), "job": status }),
            };
            self.store
                .queue_delivery(&done.job_id, hook, &body.to_string())
                .await?;
            self.wake.notify_waiters();
        }
        Ok(())
    }

    /// Sends due webhook deliveries, one attempt each, at once within the
    /// lanes of [`webhooks::Lanes`], and records them.
    async fn webhook_loop(self: Arc<Jobs>) {
        let lanes = Arc::new(webhooks::Lanes::default());
        let policy = Arc::new(webhooks::policy());
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
                            let (lanes, policy) = (lanes.clone(), policy.clone());
                            tokio::spawn(self.clone().deliver(lanes, policy, id, delivery));
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
        policy: Arc<crate::capabilities::http::policy::Policy>,
        id: String,
        delivery: PendingDelivery,
    ) {
        let turn = lanes.turn(&delivery).await;
        let http = &self.parts.runtime.services().webhooks;
        let (status, error) = webhooks::attempt(http, &policy, &delivery).await;
        drop(turn);
        let delivered = status.is_some_and(|s| (200..300).contains(&s));
        let base = Duration::from_millis(self.parts.config.webhook_retry_base_ms.max(1));
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
            match self.store.due_schedules(now_ms()).await {
                Ok(due) => {
                    for schedule in due {
                        if let Err(e) = self.run_schedule(&schedule, false).await {
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
    /// still going (the skip is recorded). `now` runs it outside its cadence
    /// (its next run stays when it was). The job, when one was started.
    pub async fn run_schedule(
        &self,
        schedule: &Schedule,
        now: bool,
    ) -> Result<Option<Job>, store::StoreError> {
        let next = if now {
            schedule.next_run_at
        } else {
            cadence::next_after(&schedule.cadence, now_ms().max(schedule.next_run_at))
        };
        let id = &schedule.schedule_id;
        if !now
            && !self
                .store
                .claim_schedule_run(id, schedule.next_run_at, next)
                .await?
        {
            // Another replica's scheduler took this run.
            return Ok(None);
        }
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
            })
            .await?;
        self.store
            .schedule_ran(&schedule.schedule_id, Some(&job.job_id), next)
            .await?;
        Ok(Some(job))
    }

    /// Deletes finished jobs older than the retention period, hourly.
    async fn retention_loop(self: Arc<Jobs>) {
        let keep = self.parts.config.job_retention_secs as i64 * 1_000;
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
