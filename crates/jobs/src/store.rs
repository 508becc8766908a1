//! The one interface between the jobs engine and where its state lives: jobs
//! with their positions and reviews, webhook attempts, schedules and the ids
//! they delivered. The single binary keeps it in SQLite ([`crate::sqlite`]);
//! a cluster keeps it elsewhere behind the same trait.

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use serde_json::Value;

use crate::changes::{Change, ChangeWrite, Fingerprinted};
use crate::model::{
    Delivery, Export, Job, JobState, Millis, NewJob, NewSchedule, PendingDelivery, Schedule, Topic,
    Webhook,
};

/// A storage failure. Callers answer it as a 503: the store is the server's,
/// and the client can only retry.
#[derive(Debug, thiserror::Error)]
#[error("the job store failed: {0}")]
pub struct StoreError(pub String);

/// One committed page of a job: its new reviews and where to resume after them.
#[derive(Debug, Clone)]
pub struct PageWrite {
    /// The reviews, as `(review_id, record JSON)`, in the source's order. A
    /// review the job already holds is not stored again.
    pub reviews: Vec<(String, String)>,
    /// The continuation token that resumes after them; none at the end.
    pub position: Option<String>,
    /// Pages the fetch used for them.
    pub pages: u64,
    /// For a tracked schedule's run: the page's fingerprints and changes.
    pub changes: ChangeWrite,
}

/// How a job ended.
#[derive(Debug, Clone)]
pub struct JobEnd {
    /// `succeeded`, `failed` or `cancelled`.
    pub state: JobState,
    /// Why it stopped, in the fetch answer's words.
    pub stop_reason: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
}

/// One webhook attempt, as the engine judged it.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// The receiver's HTTP status, when it answered.
    pub status: Option<u16>,
    /// Why the attempt failed, when it did.
    pub error: Option<String>,
    /// Whether the delivery is done (the engine's rule: a 2xx answer).
    pub delivered: bool,
    /// When the next attempt is due; none when delivered or out of attempts.
    pub next_attempt_at: Option<Millis>,
}

/// A page of a job's reviews, and the cursor of the next.
pub type ReviewPage = (Vec<Value>, Option<u64>);

/// Reviews read at a time by [`each_review`].
const EACH_PAGE: usize = 1_000;

/// Calls `each` on every review job `id` has stored so far, in order, reading
/// them a page at a time.
pub async fn each_review(
    store: &dyn Store,
    id: &str,
    mut each: impl FnMut(&Value) + Send,
) -> Result<(), StoreError> {
    let mut after = 0;
    loop {
        let (reviews, next) = store.reviews(id, after, EACH_PAGE).await?;
        reviews.iter().for_each(&mut each);
        match next {
            Some(n) if !reviews.is_empty() => after = n,
            _ => return Ok(()),
        }
    }
}

/// Workers that may take a job and stop without ending it (a crash, a lost
/// cluster) before the job fails instead of being taken again.
pub const MAX_INTERRUPTIONS: u32 = 19;

/// A worker's hold on a job it runs: kept alive while the job makes progress,
/// let go when it ends. In one process nobody else could take the job
/// ([`NoLease`]); in a cluster a job whose worker goes silent past its ack
/// wait goes to another replica's worker.
#[async_trait]
pub trait Lease: Send + Sync {
    /// The job is still being worked on (after each committed page, and on a
    /// timer while a page is fetched).
    async fn keep(&self);
    /// The job ended and its end is recorded: nobody needs to take it again.
    async fn done(&self);
}

/// The lease of a job in a single process: nothing to keep.
pub struct NoLease;

#[async_trait]
impl Lease for NoLease {
    async fn keep(&self) {}
    async fn done(&self) {}
}

/// A job a worker took, with its lease.
pub struct Claim {
    /// The job as stored when it was taken.
    pub job: Job,
    /// The worker's hold on it.
    pub lease: Box<dyn Lease>,
    /// Workers that took it before and went away without ending it.
    pub interrupted: u32,
}

/// Where jobs, webhook deliveries and schedules are kept: the three record
/// kinds, each behind its own trait, together.
pub trait Store: JobStore + DeliveryStore + ScheduleStore {}

impl<T: JobStore + DeliveryStore + ScheduleStore> Store for T {}

/// Jobs, their positions and their reviews.
#[async_trait]
pub trait JobStore: Send + Sync {
    /// Creates a queued job.
    async fn create_job(&self, job: NewJob) -> Result<Job, StoreError>;

    /// The job `id`, if it exists and (with `owner`) belongs to `owner`.
    async fn job(&self, owner: Option<&str>, id: &str) -> Result<Option<Job>, StoreError>;

    /// `owner`'s jobs, newest first, optionally in one state, created before
    /// `before` (a job id from the previous page), at most `limit`.
    async fn jobs(
        &self,
        owner: &str,
        state: Option<JobState>,
        before: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Job>, StoreError>;

    /// How many jobs of `owner` have not ended.
    async fn unfinished_count(&self, owner: &str) -> Result<usize, StoreError>;

    /// Takes at most `max` jobs to run here, owners taking turns, leaving
    /// out those in `running` (this process runs them already): queued jobs,
    /// and those a worker took and let go without ending (a restart, a
    /// worker gone silent past its lease). A job is held by one worker at a
    /// time; each one taken is marked running (keeping its first start time).
    async fn claim_jobs(
        &self,
        max: usize,
        running: &HashSet<String>,
    ) -> Result<Vec<Claim>, StoreError>;

    /// Stores one page of a job and its new position in one transaction; for
    /// a schedule's run, records the ids as delivered by the schedule too.
    /// Returns how many reviews were new to the job.
    async fn commit_page(&self, id: &str, page: PageWrite) -> Result<u64, StoreError>;

    /// Records a job's end, unless it has ended already: the first end is
    /// kept. For a schedule's run, the schedule records how its run ended
    /// too: the reviews it delivered, and whether it reached the end of what
    /// was new (it succeeded). Whether this call ended the job.
    async fn finish_job(&self, id: &str, end: JobEnd) -> Result<bool, StoreError>;

    /// Asks for a job to be cancelled; the job, or none when `owner` has no
    /// such job. A job that has ended is returned unchanged.
    async fn request_cancel(&self, owner: &str, id: &str) -> Result<Option<Job>, StoreError>;

    /// Records how writing job `id`'s export stands.
    async fn record_export(&self, id: &str, export: &Export) -> Result<(), StoreError>;

    /// A job's reviews after review number `after` (0: from the first), at
    /// most `limit`, with the cursor of the next page (none when no more are
    /// stored yet).
    async fn reviews(&self, id: &str, after: u64, limit: usize) -> Result<ReviewPage, StoreError>;

    /// Deletes the jobs that ended before `before`, with their reviews and
    /// deliveries; how many.
    async fn delete_finished_before(&self, before: Millis) -> Result<u64, StoreError>;
}

/// The webhook deliveries announcing jobs' ends, and their attempts.
#[async_trait]
pub trait DeliveryStore: Send + Sync {
    /// Queues the webhook delivery of `topic` for a job, due at once, in
    /// place of one queued before.
    async fn queue_delivery(
        &self,
        job_id: &str,
        topic: Topic,
        webhook: &Webhook,
        body: &str,
    ) -> Result<(), StoreError>;

    /// Takes the deliveries due at `now`, moving each one's next attempt to
    /// `lease_until`: until then, or until its attempt is recorded, no other
    /// call (of this replica or another) takes it again.
    async fn due_deliveries(
        &self,
        now: Millis,
        lease_until: Millis,
    ) -> Result<Vec<PendingDelivery>, StoreError>;

    /// Records one attempt.
    async fn record_attempt(
        &self,
        delivery: &PendingDelivery,
        attempt: Attempt,
    ) -> Result<(), StoreError>;

    /// What the delivery of a job's end has done.
    async fn delivery(&self, job_id: &str) -> Result<Option<Delivery>, StoreError>;
}

/// Schedules, their runs, and the review ids their runs delivered.
#[async_trait]
pub trait ScheduleStore: Send + Sync {
    /// Creates a schedule.
    async fn create_schedule(&self, schedule: NewSchedule) -> Result<Schedule, StoreError>;

    /// The schedule `id`, if it exists and (with `owner`) belongs to `owner`.
    async fn schedule(&self, owner: Option<&str>, id: &str)
        -> Result<Option<Schedule>, StoreError>;

    /// `owner`'s schedules, oldest first, created after `after` (a schedule
    /// id from the previous page; an unknown one starts from the oldest), at
    /// most `limit`.
    async fn schedules(
        &self,
        owner: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Schedule>, StoreError>;

    /// Deletes `owner`'s schedule `id` (its jobs stay); whether it existed.
    async fn delete_schedule(&self, owner: &str, id: &str) -> Result<bool, StoreError>;

    /// Takes the runs due at `now` for this worker: each due schedule's next
    /// run moves to the one after ([`crate::cadence::next_run`]), unless
    /// another worker moved it first. So a schedule runs once per period,
    /// however many replicas look at it. The schedules taken, each with its
    /// new next run.
    async fn take_due_runs(&self, now: Millis) -> Result<Vec<Schedule>, StoreError>;

    /// Records a run: started as `job_id` (or skipped, with none), and when
    /// the next is due.
    async fn schedule_ran(
        &self,
        id: &str,
        job_id: Option<&str>,
        next_run_at: Millis,
    ) -> Result<(), StoreError>;

    /// The review ids a schedule's runs delivered.
    async fn delivered_ids(&self, id: &str) -> Result<HashSet<String>, StoreError>;

    /// The fingerprints a tracked schedule keeps, by review id.
    async fn fingerprints(&self, id: &str) -> Result<HashMap<String, Fingerprinted>, StoreError>;

    /// Writes what a tracked run found at its end (the reviews it found
    /// removed, and their changes); `walked_all_at` records a walk to the
    /// end of the source.
    async fn record_changes(
        &self,
        id: &str,
        write: ChangeWrite,
        walked_all_at: Option<Millis>,
    ) -> Result<(), StoreError>;

    /// A schedule's change records in the order found, a page at a time.
    async fn changes(
        &self,
        id: &str,
        query: ChangeQuery<'_>,
    ) -> Result<Vec<(u64, Change)>, StoreError>;
}

/// Which of a schedule's changes to read.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChangeQuery<'a> {
    /// Those after this sequence number (a page's cursor).
    pub after: u64,
    /// Those found at or after this time.
    pub since: Option<Millis>,
    /// Those one run (job) found.
    pub run: Option<&'a str>,
    /// At most this many.
    pub limit: usize,
}
