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
//! - Webhook deliveries are keys, each with a message on the send queue
//!   ([`crate::sends`]): a replica takes a due one from the queue and moves
//!   its next attempt forward (compare-and-set) before it sends; a failed
//!   attempt puts the message back with the delay until the next one.
//! - Which schedules are due comes from each replica's [`DueIndex`] of the
//!   schedules bucket, kept by a watch: an idle replica reads no key.
//! - Job records, schedules, deliveries (secrets and bodies) and reviews are
//!   sealed whole with the cluster's key ([`gleaner_seal`]).

use std::collections::{HashMap, HashSet};
use std::ops::Bound;
use std::sync::Arc;

use async_trait::async_trait;

use crate::index::{DueIndex, Index, Place, Span};
use crate::queue::Lane;
use crate::records::{self, ClusterError, Records};
use crate::resources::{DELIVERED_SUBJECT, REVIEWS_SUBJECT};
use crate::Link;
use gleaner_jobs::changes::{Change, ChangeWrite, Fingerprinted};
use gleaner_jobs::model::{
    now_ms, Delivery, Export, Job, JobState, Millis, NewJob, NewSchedule, PendingDelivery,
    Schedule, Topic, Webhook,
};
use gleaner_jobs::store::{
    Attempt, ChangeQuery, Claim, DeliveryStore, JobEnd, JobStore, PageWrite, ReviewPage,
    ScheduleStore, StoreError,
};
use lease::QueueLease;

mod changes;
mod deliveries;
mod lease;
mod reviews;
mod schedules;

/// Ended jobs' messages one claim acks at most before it returns.
const MAX_DROPPED_PER_CLAIM: usize = 1_000;

impl From<ClusterError> for StoreError {
    fn from(e: ClusterError) -> Self {
        StoreError(e.to_string())
    }
}

/// The jobs store on a cluster's streams and buckets.
pub struct JetStreamStore {
    cluster: Arc<Link>,
    /// The lane of each job this replica took, for the turns.
    taken: std::sync::Mutex<HashMap<String, Lane>>,
    /// The schedules by their next run.
    due_schedules: Arc<DueIndex>,
    /// The schedules by owner and creation time.
    schedules_by_owner: Arc<OwnerIndex>,
    /// The send-queue messages this replica took, by job id, until their
    /// attempts are recorded.
    held: std::sync::Mutex<HashMap<String, async_nats::jetstream::Message>>,
    /// The jobs by owner and creation time, with their state and end.
    by_owner: Arc<JobIndex>,
}

/// Jobs by `(owner, created_at)`, with what the lists and the retention
/// sweep filter on: the state and when the job ended.
type JobIndex = Index<(String, Millis), (JobState, Option<Millis>)>;

/// Schedules by `(owner, created_at)`.
type OwnerIndex = Index<(String, Millis), ()>;

/// Where a job stands in [`JobIndex`].
fn job_place(job: &Job) -> Place<(String, Millis), (JobState, Option<Millis>)> {
    Some((
        (job.owner.clone(), job.created_at),
        (job.state, job.finished_at),
    ))
}

impl JetStreamStore {
    /// The store on `cluster`; starts following its schedules and webhook
    /// deliveries (needs a tokio runtime).
    pub fn new(cluster: Arc<Link>) -> JetStreamStore {
        if cluster.resources.sends.created {
            tokio::spawn(deliveries::requeue_earlier(cluster.clone()));
        }
        JetStreamStore {
            due_schedules: schedules::index(&cluster),
            schedules_by_owner: schedules::by_owner(&cluster),
            held: Default::default(),
            by_owner: Index::follow(
                cluster.resources.jobs.clone(),
                cluster.seal.clone(),
                job_place,
            ),
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

    /// Keeps the send-queue message of `job_id`'s delivery until its
    /// attempt is recorded.
    fn hold(&self, job_id: &str, message: async_nats::jetstream::Message) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.insert(job_id.to_owned(), message);
    }

    /// The send-queue message of `job_id`'s delivery, if this replica holds it.
    fn release(&self, job_id: &str) -> Option<async_nats::jetstream::Message> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.remove(job_id)
    }

    fn reviews_subject(id: &str) -> String {
        format!("{REVIEWS_SUBJECT}.{id}")
    }

    fn delivered_subject(id: &str) -> String {
        format!("{DELIVERED_SUBJECT}.{id}")
    }

    /// Marks job `id` running (keeping its first start time), unless it
    /// ended or is gone; the job as it now is.
    async fn start(&self, id: &str) -> Result<Option<Job>, StoreError> {
        let mut open = false;
        let job = self
            .update_job(id, |j| {
                if j.state.is_final() {
                    return false;
                }
                open = true;
                j.state = JobState::Running;
                j.started_at = j.started_at.or(Some(now_ms()));
                true
            })
            .await?;
        Ok(job.filter(|_| open))
    }

    async fn update_job(
        &self,
        id: &str,
        change: impl FnMut(&mut Job) -> bool,
    ) -> Result<Option<Job>, StoreError> {
        let job = self.jobs().modify(id, change).await?;
        if let Some(job) = &job {
            self.by_owner.note(id, job_place(job));
        }
        Ok(job)
    }
}

fn owned_by(owner: Option<&str>) -> impl Fn(&Job) -> bool + '_ {
    move |j| owner.is_none_or(|o| j.owner == o)
}

#[async_trait]
impl JobStore for JetStreamStore {
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
            export: new.export.as_deref().map(Export::pending),
        };
        self.jobs().create(&job.job_id, &job).await?;
        self.by_owner.note(&job.job_id, job_place(&job));
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
        // The page before `before` (an unknown anchor: from the newest).
        let anchor = self.by_owner.anchor(before).await?;
        let span = Span::of_owner(owner, None, anchor, true);
        let wanted = |_: &_, (at, _): &(JobState, Option<Millis>)| state.is_none_or(|s| *at == s);
        let mut jobs = Vec::new();
        for id in self.by_owner.page(span, limit, wanted).await? {
            // One the index has and the bucket no longer: deleted meanwhile.
            jobs.extend(self.job(Some(owner), &id).await?);
        }
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
            match self.start(&id).await? {
                Some(job) => {
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

    async fn commit_page(&self, id: &str, page: PageWrite) -> Result<u64, StoreError> {
        reviews::commit(self, id, page).await
    }

    async fn finish_job(&self, id: &str, end: JobEnd) -> Result<bool, StoreError> {
        let mut ended = false;
        let job = self
            .update_job(id, |j| {
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
        if let (true, Some(job)) = (ended, job) {
            if let Some(schedule) = &job.schedule_id {
                let caught_up = end.state == JobState::Succeeded;
                schedules::run_ended(self, schedule, job.reviews_collected, caught_up).await?;
            }
        }
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

    async fn record_export(&self, id: &str, export: &Export) -> Result<(), StoreError> {
        self.update_job(id, |j| {
            j.export = Some(export.clone());
            true
        })
        .await?;
        Ok(())
    }

    async fn reviews(&self, id: &str, after: u64, limit: usize) -> Result<ReviewPage, StoreError> {
        reviews::page(self, id, after, limit).await
    }

    async fn delete_finished_before(&self, before: Millis) -> Result<u64, StoreError> {
        let r = &self.cluster.resources;
        let mut deleted = 0;
        let every = Span {
            from: Bound::Unbounded,
            to: Bound::Unbounded,
            newest_first: false,
        };
        let old = |_: &_, (state, ended): &(JobState, Option<Millis>)| {
            state.is_final() && ended.is_some_and(|t| t < before)
        };
        for id in self.by_owner.page(every, usize::MAX, old).await? {
            let Some(job) = self.job(None, &id).await? else {
                self.by_owner.note(&id, None);
                continue;
            };
            if !job.state.is_final() || job.finished_at.is_none_or(|t| t >= before) {
                continue;
            }
            if deliveries::pending(self, &job.job_id).await? {
                continue;
            }
            r.reviews
                .purge()
                .filter(Self::reviews_subject(&job.job_id))
                .await
                .map_err(records::fail)?;
            deliveries::delete(self, &job.job_id).await?;
            records::delete(&r.jobs, &job.job_id).await?;
            self.by_owner.note(&job.job_id, None);
            deleted += 1;
        }
        Ok(deleted)
    }
}

#[async_trait]
impl DeliveryStore for JetStreamStore {
    async fn queue_delivery(
        &self,
        job_id: &str,
        topic: Topic,
        webhook: &Webhook,
        body: &str,
    ) -> Result<(), StoreError> {
        deliveries::queue(self, job_id, topic, webhook, body).await
    }

    async fn due_deliveries(
        &self,
        now: Millis,
        lease_until: Millis,
    ) -> Result<Vec<PendingDelivery>, StoreError> {
        deliveries::due(self, now, lease_until).await
    }

    async fn record_attempt(
        &self,
        delivery: &PendingDelivery,
        attempt: Attempt,
    ) -> Result<(), StoreError> {
        deliveries::record_attempt(self, delivery, attempt).await
    }

    async fn delivery(&self, job_id: &str) -> Result<Option<Delivery>, StoreError> {
        deliveries::of_job(self, job_id).await
    }
}

#[async_trait]
impl ScheduleStore for JetStreamStore {
    async fn create_schedule(&self, new: NewSchedule) -> Result<Schedule, StoreError> {
        schedules::create(self, new).await
    }

    async fn schedule(
        &self,
        owner: Option<&str>,
        id: &str,
    ) -> Result<Option<Schedule>, StoreError> {
        schedules::one(self, owner, id).await
    }

    async fn schedules(
        &self,
        owner: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Schedule>, StoreError> {
        schedules::of_owner(self, owner, after, limit).await
    }

    async fn delete_schedule(&self, owner: &str, id: &str) -> Result<bool, StoreError> {
        schedules::delete(self, owner, id).await
    }

    async fn schedule_ran(
        &self,
        id: &str,
        job_id: Option<&str>,
        next_run_at: Millis,
    ) -> Result<(), StoreError> {
        schedules::ran(self, id, job_id, next_run_at).await
    }

    async fn delivered_ids(&self, id: &str) -> Result<HashSet<String>, StoreError> {
        schedules::delivered_ids(self, id).await
    }

    async fn fingerprints(&self, id: &str) -> Result<HashMap<String, Fingerprinted>, StoreError> {
        changes::fingerprints(self, id).await
    }

    async fn record_changes(
        &self,
        id: &str,
        write: ChangeWrite,
        walked_all_at: Option<Millis>,
    ) -> Result<(), StoreError> {
        changes::write(self, id, &write).await?;
        if let Some(at) = walked_all_at {
            schedules::walked_all(self, id, at).await?;
        }
        Ok(())
    }

    async fn changes(
        &self,
        id: &str,
        query: ChangeQuery<'_>,
    ) -> Result<Vec<(u64, Change)>, StoreError> {
        changes::page(self, id, query).await
    }

    async fn take_due_runs(&self, now: Millis) -> Result<Vec<Schedule>, StoreError> {
        schedules::take_due(self, now).await
    }
}
