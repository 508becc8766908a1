//! The jobs store of a cluster, on JetStream: any replica answers for any
//! job, and any replica's workers run it.
//!
//! - A job's record (state, counts, the position to resume from) is a key in
//!   the jobs bucket, changed by compare-and-set.
//! - Submitting puts the job's id in its owner's lane ([`super::queue`]);
//!   workers take the lanes in turns, send progress acks while they run a
//!   job, and ack it once its end is recorded. A worker that dies goes
//!   silent: after the ack wait the job goes to another worker, which
//!   resumes from the record's position.
//! - Reviews go to the reviews stream on the job's own subject, each with the
//!   message id `<job id>.<review id digest>`, so a page stored again after a
//!   crash stores nothing twice; the job's count is the subject's count.
//! - Schedules are keys too; a run is taken by compare-and-set on its next
//!   run time, so each period runs once across the cluster.
//! - Webhook deliveries are keys; a replica takes a due one by moving its
//!   next attempt forward (compare-and-set) before it sends.
//! - Job records, schedules, deliveries (secrets and bodies) and reviews are
//!   sealed whole with the cluster's key ([`crate::secrets::seal`]).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::message::{AckKind, Acker, PublishMessage};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::queue::Lane;
use super::records::{self, ClusterError, Records};
use super::resources::{DELIVERED_SUBJECT, REVIEWS_SUBJECT};
use super::Cluster;
use crate::jobs::model::{
    now_ms, Delivery, Job, JobState, Millis, NewJob, NewSchedule, PendingDelivery, Schedule,
    Webhook,
};
use crate::jobs::store::{Attempt, Claim, JobEnd, Lease, PageWrite, ReviewPage, Store, StoreError};

/// Ended jobs' messages one claim acks at most before it returns.
const MAX_DROPPED_PER_CLAIM: usize = 1_000;

impl From<ClusterError> for StoreError {
    fn from(e: ClusterError) -> Self {
        StoreError(e.to_string())
    }
}

/// A webhook delivery's record.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct DeliveryRecord {
    job_id: String,
    webhook: Webhook,
    body: String,
    attempts: u32,
    last_status: Option<u16>,
    last_error: Option<String>,
    next_attempt_at: Option<Millis>,
    delivered_at: Option<Millis>,
}

/// The jobs store on a cluster's streams and buckets.
pub struct JetStreamStore {
    cluster: Arc<Cluster>,
    /// The lane of each job this replica took, for the turns.
    taken: std::sync::Mutex<HashMap<String, Lane>>,
}

impl JetStreamStore {
    /// The store on `cluster`.
    pub fn new(cluster: Arc<Cluster>) -> JetStreamStore {
        JetStreamStore {
            cluster,
            taken: Default::default(),
        }
    }

    /// Jobs, their requests and positions, sealed with the cluster's key.
    fn jobs(&self) -> Records<'_> {
        Records::sealed(&self.cluster.resources.jobs, &self.cluster.seal)
    }

    /// Schedules, sealed with the cluster's key.
    fn schedules(&self) -> Records<'_> {
        Records::sealed(&self.cluster.resources.schedules, &self.cluster.seal)
    }

    /// Webhook deliveries (their bodies are job statuses), sealed with the
    /// cluster's key.
    fn webhooks(&self) -> Records<'_> {
        Records::sealed(&self.cluster.resources.webhooks, &self.cluster.seal)
    }

    fn reviews_subject(id: &str) -> String {
        format!("{REVIEWS_SUBJECT}.{id}")
    }

    fn delivered_subject(id: &str) -> String {
        format!("{DELIVERED_SUBJECT}.{id}")
    }

    /// Publishes `payload` on `subject` with a message id; whether it was new.
    async fn publish(
        &self,
        subject: String,
        payload: Vec<u8>,
        message_id: &str,
    ) -> Result<async_nats::jetstream::context::PublishAckFuture, StoreError> {
        self.cluster
            .js
            .send_publish(
                subject,
                PublishMessage::build()
                    .payload(payload.into())
                    .message_id(message_id),
            )
            .await
            .map_err(|e| records::fail(e).into())
    }

    /// Publishes each `(review id, payload)` on `subject` with the message
    /// id `<owner>.<review id digest>`, then waits for every ack.
    async fn publish_all<'a>(
        &self,
        subject: &str,
        owner: &str,
        messages: impl Iterator<Item = (&'a String, &'a [u8])>,
    ) -> Result<(), StoreError> {
        let mut acks = Vec::new();
        for (review_id, payload) in messages {
            let message_id = format!("{owner}.{}", digest(review_id));
            acks.push(
                self.publish(subject.to_owned(), payload.to_vec(), &message_id)
                    .await?,
            );
        }
        for ack in acks {
            ack.await.map_err(records::fail)?;
        }
        Ok(())
    }

    async fn update_job(
        &self,
        id: &str,
        change: impl FnMut(&mut Job) -> bool,
    ) -> Result<Option<Job>, StoreError> {
        Ok(self.jobs().modify(id, change).await?)
    }
}

/// A short digest of a review id, for message ids.
fn digest(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..16])
}

fn owned_by(owner: Option<&str>) -> impl Fn(&Job) -> bool + '_ {
    move |j| owner.is_none_or(|o| j.owner == o)
}

/// A worker's hold on a job message: progress acks on a timer, and the ack
/// when the job's end is recorded.
struct QueueLease {
    acker: Arc<Acker>,
    heartbeat: tokio::task::JoinHandle<()>,
}

impl QueueLease {
    fn new(acker: Acker, ack_wait: Duration) -> QueueLease {
        let acker = Arc::new(acker);
        let beat = acker.clone();
        let heartbeat = tokio::spawn(async move {
            let every = (ack_wait / 3).max(Duration::from_millis(200));
            loop {
                tokio::time::sleep(every).await;
                if let Err(e) = beat.ack_with(AckKind::Progress).await {
                    tracing::warn!(error = %e, "cannot tell NATS a job is still running; another replica may take it after the ack wait");
                }
            }
        });
        QueueLease { acker, heartbeat }
    }
}

impl Drop for QueueLease {
    fn drop(&mut self) {
        self.heartbeat.abort();
    }
}

#[async_trait]
impl Lease for QueueLease {
    async fn keep(&self) {
        let _ = self.acker.ack_with(AckKind::Progress).await;
    }

    async fn done(&self) {
        self.heartbeat.abort();
        if let Err(e) = self.acker.ack().await {
            tracing::warn!(error = %e, "cannot ack a finished job; a worker will find it finished and drop it");
        }
    }
}

#[async_trait]
impl Store for JetStreamStore {
    async fn create_job(&self, new: NewJob) -> Result<Job, StoreError> {
        let job = Job {
            job_id: uuid::Uuid::new_v4().simple().to_string(),
            owner: new.owner,
            endpoint: new.endpoint,
            request: new.request,
            total: new.total,
            state: JobState::Queued,
            position: None,
            reviews_collected: 0,
            pages_fetched: 0,
            stop_reason: None,
            error: None,
            created_at: now_ms(),
            started_at: None,
            finished_at: None,
            webhook: new.webhook,
            schedule_id: new.schedule_id,
            cancel_requested: false,
        };
        self.jobs().create(&job.job_id, &job).await?;
        self.cluster
            .resources
            .queue
            .push(&job.owner, &job.job_id)
            .await?;
        Ok(job)
    }

    async fn job(&self, owner: Option<&str>, id: &str) -> Result<Option<Job>, StoreError> {
        let job = self.jobs().get::<Job>(id).await?;
        Ok(job.map(|(j, _)| j).filter(owned_by(owner)))
    }

    async fn jobs(
        &self,
        owner: &str,
        state: Option<JobState>,
        before: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Job>, StoreError> {
        let mut jobs: Vec<Job> = self
            .jobs()
            .all::<Job>()
            .await?
            .into_iter()
            .filter(|j| j.owner == owner)
            .collect();
        let key = |j: &Job| (j.created_at, j.job_id.clone());
        let cut = before.and_then(|b| jobs.iter().find(|j| j.job_id == b).map(key));
        jobs.retain(|j| state.is_none_or(|s| j.state == s));
        if let Some(cut) = cut {
            jobs.retain(|j| key(j) < cut);
        }
        jobs.sort_by_key(|j| std::cmp::Reverse(key(j)));
        jobs.truncate(limit);
        Ok(jobs)
    }

    async fn unfinished_jobs(&self) -> Result<Vec<Job>, StoreError> {
        let mut jobs: Vec<Job> = self
            .jobs()
            .all::<Job>()
            .await?
            .into_iter()
            .filter(|j| !j.state.is_final())
            .collect();
        jobs.sort_by_key(|j| (j.created_at, j.job_id.clone()));
        Ok(jobs)
    }

    async fn unfinished_count(&self, owner: &str) -> Result<usize, StoreError> {
        let count = self.cluster.resources.queue.unfinished(owner).await?;
        Ok(usize::try_from(count).unwrap_or(usize::MAX))
    }

    /// Owners take turns: the lane with the fewest jobs running here goes
    /// first (among equals, the one whose turn it is), then one job from each
    /// lane holding one, round after round, until `max` are taken or every
    /// lane is empty. A message whose
    /// job has ended (cancelled while waiting) is acked and the lane asked
    /// again, a bounded number of times per call.
    async fn claim_jobs(
        &self,
        max: usize,
        running: &HashSet<String>,
    ) -> Result<Vec<Claim>, StoreError> {
        let queue = &self.cluster.resources.queue;
        let mut lanes = queue.lanes_in_turn().await?;
        let load = {
            let mut taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
            taken.retain(|id, _| running.contains(id));
            let mut load: HashMap<Lane, usize> = HashMap::new();
            for lane in taken.values() {
                *load.entry(lane.clone()).or_default() += 1;
            }
            load
        };
        lanes
            .make_contiguous()
            .sort_by_key(|lane| load.get(lane).copied().unwrap_or(0));
        let mut claims = Vec::new();
        let mut dropped = 0;
        while claims.len() < max {
            let Some(lane) = lanes.pop_front() else { break };
            let Some(message) = queue.next(&lane).await? else {
                continue; // nothing in it no worker holds: out of this call
            };
            let delivered = message.info().map(|i| i.delivered).unwrap_or(1);
            let id = String::from_utf8_lossy(&message.payload).into_owned();
            let (_, acker) = message.split();
            if running.contains(&id) {
                // Redelivered while this replica still runs it (its progress
                // acks were lost): its own run goes on.
                lanes.push_back(lane);
                continue;
            }
            match self.job(None, &id).await? {
                Some(job) if !job.state.is_final() => {
                    self.taken
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(id, lane.clone());
                    claims.push(Claim {
                        job,
                        lease: Box::new(QueueLease::new(acker, self.cluster.settings.ack_wait())),
                        interrupted: delivered.saturating_sub(1) as u32,
                    });
                    lanes.push_back(lane);
                }
                // Ended (cancelled while queued, or acked late) or deleted.
                _ => {
                    acker.ack().await.map_err(records::fail)?;
                    dropped += 1;
                    if dropped < MAX_DROPPED_PER_CLAIM {
                        lanes.push_front(lane);
                    }
                }
            }
        }
        Ok(claims)
    }

    async fn start_job(&self, id: &str) -> Result<(), StoreError> {
        self.update_job(id, |j| {
            if j.state.is_final() {
                return false;
            }
            j.state = JobState::Running;
            j.started_at = j.started_at.or(Some(now_ms()));
            true
        })
        .await?;
        Ok(())
    }

    async fn commit_page(&self, id: &str, page: PageWrite) -> Result<u64, StoreError> {
        let Some(job) = self.job(None, id).await? else {
            return Err(StoreError(format!(
                "job {id} is gone from the cluster's store"
            )));
        };
        let subject = Self::reviews_subject(id);
        // Each review sealed with the cluster's key, its subject the label.
        let sealed: Vec<(&String, Vec<u8>)> = page
            .reviews
            .iter()
            .map(|(r, text)| {
                let sealed = self.cluster.seal.seal(&subject, text.as_bytes());
                sealed.map(|bytes| (r, bytes)).map_err(StoreError)
            })
            .collect::<Result<_, _>>()?;
        let reviews = sealed.iter().map(|(r, bytes)| (*r, bytes.as_slice()));
        self.publish_all(&subject, id, reviews).await?;
        if let Some(schedule) = &job.schedule_id {
            // Every id of the page, new or not: one stored before a crash is
            // delivered by this run all the same.
            let ids = page.reviews.iter().map(|(r, _)| (r, r.as_bytes()));
            self.publish_all(&Self::delivered_subject(schedule), schedule, ids)
                .await?;
        }
        let stored = records::count(&self.cluster.resources.reviews, &subject).await?;
        let mut added = 0;
        self.update_job(id, |j| {
            added = stored.saturating_sub(j.reviews_collected);
            j.reviews_collected = stored.max(j.reviews_collected);
            j.position = page.position.clone();
            j.pages_fetched += page.pages;
            true
        })
        .await?;
        Ok(added)
    }

    async fn finish_job(&self, id: &str, end: JobEnd) -> Result<bool, StoreError> {
        let mut ended = false;
        self.update_job(id, |j| {
            // The first end is kept.
            if j.state.is_final() {
                return false;
            }
            ended = true;
            j.state = end.state;
            j.stop_reason = end.stop_reason.clone();
            j.error = end.error.clone();
            j.finished_at = Some(now_ms());
            true
        })
        .await?;
        Ok(ended)
    }

    async fn request_cancel(&self, owner: &str, id: &str) -> Result<Option<Job>, StoreError> {
        let Some(job) = self.job(Some(owner), id).await? else {
            return Ok(None);
        };
        if job.state.is_final() {
            return Ok(Some(job));
        }
        self.update_job(id, |j| {
            j.cancel_requested = true;
            true
        })
        .await
    }

    async fn reviews(&self, id: &str, after: u64, limit: usize) -> Result<ReviewPage, StoreError> {
        let subject = Self::reviews_subject(id);
        let (messages, more) =
            records::read_subject(&self.cluster.resources.reviews, &subject, after, limit).await?;
        let next = messages.last().map(|(seq, _)| *seq).filter(|_| more);
        let reviews = messages
            .into_iter()
            .map(|(_, sealed)| {
                self.cluster
                    .seal
                    .open(&subject, &sealed)
                    .and_then(|text| serde_json::from_slice(&text).ok())
                    .unwrap_or(Value::Null)
            })
            .collect();
        Ok((reviews, next))
    }

    async fn delete_finished_before(&self, before: Millis) -> Result<u64, StoreError> {
        let r = &self.cluster.resources;
        let mut deleted = 0;
        for job in self.jobs().all::<Job>().await? {
            if !job.state.is_final() || job.finished_at.is_none_or(|t| t >= before) {
                continue;
            }
            let delivery = self.webhooks().get::<DeliveryRecord>(&job.job_id).await?;
            if delivery
                .is_some_and(|(d, _)| d.delivered_at.is_none() && d.next_attempt_at.is_some())
            {
                continue;
            }
            r.reviews
                .purge()
                .filter(Self::reviews_subject(&job.job_id))
                .await
                .map_err(records::fail)?;
            records::delete(&r.webhooks, &job.job_id).await?;
            records::delete(&r.jobs, &job.job_id).await?;
            deleted += 1;
        }
        Ok(deleted)
    }

    async fn queue_delivery(
        &self,
        job_id: &str,
        webhook: &Webhook,
        body: &str,
    ) -> Result<(), StoreError> {
        let record = DeliveryRecord {
            job_id: job_id.to_owned(),
            webhook: webhook.clone(),
            body: body.to_owned(),
            attempts: 0,
            last_status: None,
            last_error: None,
            next_attempt_at: Some(now_ms()),
            delivered_at: None,
        };
        self.webhooks().put(job_id, &record).await?;
        Ok(())
    }

    async fn due_deliveries(
        &self,
        now: Millis,
        lease_until: Millis,
    ) -> Result<Vec<PendingDelivery>, StoreError> {
        let mut due = Vec::new();
        for record in self.webhooks().all::<DeliveryRecord>().await? {
            if record.next_attempt_at.is_none_or(|t| t > now) {
                continue;
            }
            // Take it: move its next attempt past the time a send takes.
            let Some((mut current, revision)) = self
                .webhooks()
                .get::<DeliveryRecord>(&record.job_id)
                .await?
            else {
                continue;
            };
            if current.next_attempt_at.is_none_or(|t| t > now) {
                continue;
            }
            current.next_attempt_at = Some(lease_until);
            if self
                .webhooks()
                .swap(&current.job_id, &current, revision)
                .await?
            {
                let owner = self
                    .job(None, &current.job_id)
                    .await?
                    .map(|job| job.owner)
                    .unwrap_or_default();
                due.push(PendingDelivery {
                    id: 0,
                    owner,
                    webhook: current.webhook,
                    job_id: current.job_id,
                    body: current.body,
                    attempts: current.attempts,
                });
            }
        }
        Ok(due)
    }

    async fn record_attempt(
        &self,
        delivery: &PendingDelivery,
        attempt: Attempt,
    ) -> Result<(), StoreError> {
        self.webhooks()
            .modify::<DeliveryRecord>(&delivery.job_id, |d| {
                d.attempts += 1;
                d.last_status = attempt.status;
                d.last_error = attempt.error.clone();
                d.next_attempt_at = attempt.next_attempt_at;
                if attempt.delivered {
                    d.delivered_at = Some(now_ms());
                }
                true
            })
            .await?;
        Ok(())
    }

    async fn delivery(&self, job_id: &str) -> Result<Option<Delivery>, StoreError> {
        let record = self.webhooks().get::<DeliveryRecord>(job_id).await?;
        Ok(record.map(|(d, _)| Delivery {
            attempts: d.attempts,
            last_status: d.last_status,
            delivered_at: d.delivered_at,
            last_error: d.last_error,
            next_attempt_at: d.next_attempt_at,
        }))
    }

    async fn create_schedule(&self, new: NewSchedule) -> Result<Schedule, StoreError> {
        let schedule = Schedule {
            schedule_id: uuid::Uuid::new_v4().simple().to_string(),
            owner: new.owner,
            endpoint: new.endpoint,
            request: new.request,
            cadence: new.cadence,
            webhook: new.webhook,
            next_run_at: new.next_run_at,
            last_job_id: None,
            runs: 0,
            skipped_runs: 0,
            reviews_delivered: 0,
            caught_up: false,
            created_at: now_ms(),
        };
        self.schedules()
            .create(&schedule.schedule_id, &schedule)
            .await?;
        Ok(schedule)
    }

    async fn schedule(
        &self,
        owner: Option<&str>,
        id: &str,
    ) -> Result<Option<Schedule>, StoreError> {
        let schedule = self.schedules().get::<Schedule>(id).await?;
        Ok(schedule
            .map(|(s, _)| s)
            .filter(|s| owner.is_none_or(|o| s.owner == o)))
    }

    async fn schedules(&self, owner: &str) -> Result<Vec<Schedule>, StoreError> {
        let mut all: Vec<Schedule> = self
            .schedules()
            .all::<Schedule>()
            .await?
            .into_iter()
            .filter(|s| s.owner == owner)
            .collect();
        all.sort_by_key(|s| (s.created_at, s.schedule_id.clone()));
        Ok(all)
    }

    async fn delete_schedule(&self, owner: &str, id: &str) -> Result<bool, StoreError> {
        if self.schedule(Some(owner), id).await?.is_none() {
            return Ok(false);
        }
        let r = &self.cluster.resources;
        records::delete(&r.schedules, id).await?;
        r.delivered
            .purge()
            .filter(Self::delivered_subject(id))
            .await
            .map_err(records::fail)?;
        Ok(true)
    }

    async fn due_schedules(&self, now: Millis) -> Result<Vec<Schedule>, StoreError> {
        let mut due: Vec<Schedule> = self
            .schedules()
            .all::<Schedule>()
            .await?
            .into_iter()
            .filter(|s| s.next_run_at <= now)
            .collect();
        due.sort_by_key(|s| s.next_run_at);
        Ok(due)
    }

    async fn claim_schedule_run(
        &self,
        id: &str,
        due: Millis,
        next: Millis,
    ) -> Result<bool, StoreError> {
        let Some((mut schedule, revision)) = self.schedules().get::<Schedule>(id).await? else {
            return Ok(false);
        };
        if schedule.next_run_at != due {
            return Ok(false);
        }
        schedule.next_run_at = next;
        Ok(self.schedules().swap(id, &schedule, revision).await?)
    }

    async fn schedule_ran(
        &self,
        id: &str,
        job_id: Option<&str>,
        next_run_at: Millis,
    ) -> Result<(), StoreError> {
        self.schedules()
            .modify::<Schedule>(id, |s| {
                s.next_run_at = next_run_at;
                match job_id {
                    Some(job) => {
                        s.last_job_id = Some(job.to_owned());
                        s.runs += 1;
                    }
                    None => s.skipped_runs += 1,
                }
                true
            })
            .await?;
        Ok(())
    }

    async fn schedule_run_ended(
        &self,
        id: &str,
        delivered: u64,
        caught_up: bool,
    ) -> Result<(), StoreError> {
        self.schedules()
            .modify::<Schedule>(id, |s| {
                s.reviews_delivered += delivered;
                s.caught_up = caught_up;
                true
            })
            .await?;
        Ok(())
    }

    async fn delivered_ids(&self, id: &str) -> Result<HashSet<String>, StoreError> {
        let subject = Self::delivered_subject(id);
        let mut ids = HashSet::new();
        let mut after = 0;
        loop {
            let (messages, more) =
                records::read_subject(&self.cluster.resources.delivered, &subject, after, 10_000)
                    .await?;
            after = messages.last().map(|(seq, _)| *seq).unwrap_or(after);
            ids.extend(
                messages
                    .into_iter()
                    .map(|(_, id)| String::from_utf8_lossy(&id).into_owned()),
            );
            if !more {
                return Ok(ids);
            }
        }
    }
}
