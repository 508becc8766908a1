//! The cases every jobs store passes, each written once against the
//! `Store` trait and run on every [`Backend`].

use std::collections::HashSet;
use std::time::{Duration, Instant};

use gleaner::jobs::changes::{Change, ChangeKind, ChangeWrite, Fingerprinted, Tracking, Window};
use gleaner::jobs::model::{
    now_ms, Cadence, Export, ExportState, Job, JobState, NewJob, NewSchedule, PendingDelivery,
    Schedule, Topic, Webhook,
};
use gleaner::jobs::store::{Attempt, ChangeQuery, Claim, JobEnd, PageWrite, Store};
use serde_json::json;

use super::Backend;

const SECRET: &str = "whsec-conformance-0123456789abcdef";

fn new_job(owner: &str) -> NewJob {
    NewJob {
        owner: owner.into(),
        endpoint: "/x/reviews".into(),
        request: json!({"query": "q"}),
        total: None,
        webhook: None,
        schedule_id: None,
        export: None,
    }
}

fn hook() -> Webhook {
    Webhook {
        url: "https://receiver.example/hook".into(),
        secret: SECRET.into(),
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
        changes: Default::default(),
    }
}

fn end(state: JobState) -> JobEnd {
    JobEnd {
        state,
        stop_reason: Some(format!("{state:?}").to_lowercase()),
        error: None,
    }
}

fn none() -> HashSet<String> {
    HashSet::new()
}

/// A schedule of `owner`, hourly, first due in an hour.
fn new_schedule(owner: &str) -> NewSchedule {
    NewSchedule {
        owner: owner.into(),
        endpoint: "/x/reviews".into(),
        request: json!({"query": "q"}),
        cadence: Cadence::Every(3_600),
        webhook: None,
        next_run_at: now_ms() + 3_600_000,
        tracking: None,
        export: None,
    }
}

/// Creates a job of `owner` and takes it as a worker does, leaving out the
/// jobs `held` already holds (and adding it to them): the store has no other
/// job waiting. The claim.
async fn started(store: &dyn Store, owner: &str, held: &mut HashSet<String>) -> Claim {
    let job = store.create_job(new_job(owner)).await.unwrap();
    let mut claims = store.claim_jobs(1, held).await.unwrap();
    let claim = claims.pop().expect("the new job is taken");
    assert_eq!(claim.job.job_id, job.job_id);
    assert_eq!(claim.job.state, JobState::Running, "taken is running");
    held.insert(job.job_id);
    claim
}

async fn stored(store: &dyn Store, id: &str) -> Job {
    store
        .job(None, id)
        .await
        .unwrap()
        .expect("the job is stored")
}

/// A job queued with `webhook`, ended, and its delivery queued as the
/// engine does: with the webhook the stored job holds.
async fn ended_with_delivery(store: &dyn Store, webhook: Webhook) -> Job {
    let job = store
        .create_job(NewJob {
            webhook: Some(webhook),
            ..new_job("k1")
        })
        .await
        .unwrap();
    assert!(store
        .finish_job(&job.job_id, end(JobState::Succeeded))
        .await
        .unwrap());
    let done = stored(store, &job.job_id).await;
    let webhook = done.webhook.clone().expect("the job keeps its webhook");
    store
        .queue_delivery(
            &done.job_id,
            Topic::End,
            &webhook,
            r#"{"event":"job.succeeded"}"#,
        )
        .await
        .unwrap();
    done
}

/// The deliveries `store` takes once time reaches `at`, leased for a
/// minute: a store may hand a delivery out again only as its clock passes
/// (JetStream's queue does, by its ack wait and `Nak(delay)`), so this asks
/// until it gets one, at `at` or at the clock when that is later.
async fn due_from(store: &dyn Store, at: i64, within: Duration) -> Vec<PendingDelivery> {
    let deadline = Instant::now() + within;
    loop {
        let now = now_ms().max(at);
        let due = store.due_deliveries(now, now + 60_000).await.unwrap();
        if !due.is_empty() || Instant::now() > deadline {
            return due;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn delivered() -> Attempt {
    Attempt {
        status: Some(204),
        error: None,
        delivered: true,
        next_attempt_at: None,
    }
}

pub(crate) async fn a_job_is_claimed_by_one_worker_owners_taking_turns(b: &dyn Backend) {
    let store = b.replica().await;
    let mut ids = Vec::new();
    for owner in ["k1", "k1", "k1", "k2"] {
        let job = store.create_job(new_job(owner)).await.unwrap();
        assert_eq!(job.state, JobState::Queued);
        assert_eq!((job.reviews_collected, job.pages_fetched), (0, 0));
        ids.push(job.job_id);
    }
    assert_eq!(store.unfinished_count("k1").await.unwrap(), 3);
    assert_eq!(store.unfinished_count("k2").await.unwrap(), 1);
    // Two slots: one for each owner, though k1 queued first.
    let first = store.claim_jobs(2, &none()).await.unwrap();
    let owners: HashSet<_> = first.iter().map(|c| c.job.owner.clone()).collect();
    assert_eq!(owners, HashSet::from(["k1".into(), "k2".into()]));
    assert!(first.iter().all(|c| c.interrupted == 0));
    // What this worker runs is not handed to it again.
    let running: HashSet<String> = first.iter().map(|c| c.job.job_id.clone()).collect();
    let rest = store.claim_jobs(10, &running).await.unwrap();
    let rest_ids: HashSet<String> = rest.iter().map(|c| c.job.job_id.clone()).collect();
    assert_eq!(rest_ids.len(), 2, "the two other jobs of k1");
    assert!(rest_ids.is_disjoint(&running));
    let all: HashSet<String> = running.union(&rest_ids).cloned().collect();
    assert_eq!(all, ids.iter().cloned().collect());
    let running: HashSet<String> = all;
    assert!(store.claim_jobs(10, &running).await.unwrap().is_empty());
    // Each taken is running from its first start.
    for claim in first.iter().chain(&rest) {
        let taken = stored(&*store, &claim.job.job_id).await;
        assert_eq!(taken.state, JobState::Running);
        assert_eq!(taken.started_at, claim.job.started_at);
        assert!(taken.started_at.is_some());
    }
    for claim in first.into_iter().chain(rest) {
        assert!(store
            .finish_job(&claim.job.job_id, end(JobState::Succeeded))
            .await
            .unwrap());
        claim.lease.done().await;
    }
    assert!(store.claim_jobs(10, &none()).await.unwrap().is_empty());
}

pub(crate) async fn a_claim_let_go_is_claimed_again_where_it_stopped(b: &dyn Backend) {
    let first = b.replica().await;
    let job = first.create_job(new_job("k1")).await.unwrap();
    let claims = first.claim_jobs(1, &none()).await.unwrap();
    assert_eq!(claims.len(), 1);
    let started_at = claims[0].job.started_at;
    first
        .commit_page(&job.job_id, page(&["a", "b"], Some("after-b")))
        .await
        .unwrap();
    // The worker goes away without ending the job.
    drop(claims);
    drop(first);
    let other = b.replica().await;
    let deadline = Instant::now() + b.lease() * 3 + Duration::from_secs(5);
    let claim = loop {
        let mut claims = other.claim_jobs(1, &none()).await.unwrap();
        if let Some(claim) = claims.pop() {
            break claim;
        }
        assert!(Instant::now() < deadline, "the job was never taken again");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(claim.job.job_id, job.job_id);
    assert_eq!(claim.job.state, JobState::Running);
    assert_eq!(claim.job.position.as_deref(), Some("after-b"));
    assert_eq!(claim.job.reviews_collected, 2);
    assert_eq!(claim.job.started_at, started_at, "its first start is kept");
    other
        .finish_job(&job.job_id, end(JobState::Succeeded))
        .await
        .unwrap();
    claim.lease.done().await;
}

pub(crate) async fn a_job_that_ended_is_not_claimed(b: &dyn Backend) {
    let store = b.replica().await;
    let job = store.create_job(new_job("k1")).await.unwrap();
    // Cancelled while queued: the engine ends it before any worker takes it.
    store.request_cancel("k1", &job.job_id).await.unwrap();
    assert!(store
        .finish_job(&job.job_id, end(JobState::Cancelled))
        .await
        .unwrap());
    assert!(store.claim_jobs(10, &none()).await.unwrap().is_empty());
    // It stops counting against its owner's quota (on JetStream once the
    // server has taken the ack of its queue message).
    let deadline = Instant::now() + Duration::from_secs(5);
    while store.unfinished_count("k1").await.unwrap() != 0 {
        assert!(
            Instant::now() < deadline,
            "an ended job still counts as unfinished"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let later = store.create_job(new_job("k1")).await.unwrap();
    let claims = store.claim_jobs(10, &none()).await.unwrap();
    let ids: Vec<_> = claims.iter().map(|c| c.job.job_id.clone()).collect();
    assert_eq!(ids, [later.job_id]);
}

pub(crate) async fn cancel_in_every_state_and_the_first_end_kept(b: &dyn Backend) {
    let store = b.replica().await;
    let mut held = none();
    let running = started(&*store, "k1", &mut held).await.job;
    let asked = store.request_cancel("k1", &running.job_id).await.unwrap();
    let asked = asked.expect("the owner's job");
    assert!(asked.cancel_requested);
    assert_eq!(asked.state, JobState::Running);
    assert!(stored(&*store, &running.job_id).await.cancel_requested);

    for state in [JobState::Succeeded, JobState::Failed, JobState::Cancelled] {
        let job = started(&*store, "k1", &mut held).await.job;
        assert!(store.finish_job(&job.job_id, end(state)).await.unwrap());
        let ended = stored(&*store, &job.job_id).await;
        let asked = store.request_cancel("k1", &job.job_id).await.unwrap();
        let asked = asked.expect("the owner's job");
        assert_eq!(asked.state, state, "cancelling a {state:?} job");
        assert!(!asked.cancel_requested, "cancelling a {state:?} job");
        assert_eq!(asked.finished_at, ended.finished_at);
        // A second end (a worker that ran on) changes nothing.
        let again = JobEnd {
            state: JobState::Failed,
            stop_reason: None,
            error: Some("late".into()),
        };
        assert!(!store.finish_job(&job.job_id, again).await.unwrap());
        let kept = stored(&*store, &job.job_id).await;
        assert_eq!(kept.state, state);
        assert_eq!(kept.stop_reason, ended.stop_reason);
        assert_eq!(kept.error, None);
    }

    let queued = store.create_job(new_job("k1")).await.unwrap();
    let asked = store.request_cancel("k1", &queued.job_id).await.unwrap();
    let asked = asked.expect("the owner's job");
    assert!(asked.cancel_requested);
    assert_eq!(asked.state, JobState::Queued);

    let other = store.request_cancel("k2", &queued.job_id).await.unwrap();
    assert!(other.is_none(), "another owner's job is not found");
    let unknown = store.request_cancel("k1", "no-such-job").await.unwrap();
    assert!(unknown.is_none());
}

pub(crate) async fn pages_are_stored_once_and_read_back_in_order(b: &dyn Backend) {
    let store = b.replica().await;
    let job = started(&*store, "k1", &mut none()).await.job;
    let id = &job.job_id;
    let added = store.commit_page(id, page(&["a", "b"], Some("t1"))).await;
    assert_eq!(added.unwrap(), 2);
    // A page committed again after a crash stores nothing twice.
    let added = store.commit_page(id, page(&["b", "c"], Some("t2"))).await;
    assert_eq!(added.unwrap(), 1);
    let added = store.commit_page(id, page(&[], None)).await;
    assert_eq!(added.unwrap(), 0);
    let job = stored(&*store, id).await;
    assert_eq!(
        job.position, None,
        "the last page's position, none at the end"
    );
    assert_eq!((job.reviews_collected, job.pages_fetched), (3, 3));
    let (first, next) = store.reviews(id, 0, 2).await.unwrap();
    assert_eq!(
        first,
        [json!({"review_id": "a"}), json!({"review_id": "b"})]
    );
    let (rest, end) = store.reviews(id, next.unwrap(), 2).await.unwrap();
    assert_eq!(rest, [json!({"review_id": "c"})]);
    assert_eq!(end, None);
    let (all, end) = store.reviews(id, 0, 3).await.unwrap();
    assert_eq!(
        (all.len(), end),
        (3, None),
        "an exact last page has no next"
    );
    assert!(store.job(Some("k2"), id).await.unwrap().is_none());
    assert!(store.job(Some("k1"), id).await.unwrap().is_some());
}

pub(crate) async fn jobs_list_newest_first_by_owner_and_state(b: &dyn Backend) {
    let store = b.replica().await;
    let mut ids = Vec::new();
    for n in 0..5 {
        ids.push(store.create_job(new_job("k1")).await.unwrap().job_id);
        if n == 1 {
            // The second is taken by a worker (the first held elsewhere).
            let held = HashSet::from([ids[0].clone()]);
            let claims = store.claim_jobs(1, &held).await.unwrap();
            let taken: Vec<_> = claims.iter().map(|c| c.job.job_id.as_str()).collect();
            assert_eq!(taken, [ids[1].as_str()]);
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    store.create_job(new_job("k2")).await.unwrap();
    let listed = |jobs: Vec<Job>| jobs.into_iter().map(|j| j.job_id).collect::<Vec<_>>();
    let first = store.jobs("k1", None, None, 3).await.unwrap();
    assert_eq!(listed(first), [ids[4].as_str(), &ids[3], &ids[2]]);
    let rest = store.jobs("k1", None, Some(&ids[2]), 3).await.unwrap();
    assert_eq!(listed(rest), [ids[1].as_str(), &ids[0]]);
    let running = store.jobs("k1", Some(JobState::Running), None, 10).await;
    assert_eq!(listed(running.unwrap()), [ids[1].as_str()]);
    let queued = store.jobs("k1", Some(JobState::Queued), Some(&ids[3]), 10);
    assert_eq!(listed(queued.await.unwrap()), [ids[2].as_str(), &ids[0]]);
    assert_eq!(store.jobs("k3", None, None, 10).await.unwrap().len(), 0);
}

pub(crate) async fn a_failed_attempt_and_its_retry_time_outlive_a_restart(b: &dyn Backend) {
    let first = b.replica().await;
    let job = ended_with_delivery(&*first, hook()).await;
    let now = now_ms();
    let due = first.due_deliveries(now, now + 60_000).await.unwrap();
    assert_eq!(due.len(), 1);
    let taken = &due[0];
    assert_eq!(taken.job_id, job.job_id);
    assert_eq!(taken.owner, "k1");
    assert_eq!(taken.webhook.url, hook().url);
    assert_eq!(taken.webhook.secret, SECRET, "the secret opens as it was");
    assert_eq!(taken.body, r#"{"event":"job.succeeded"}"#);
    assert_eq!(taken.attempts, 0);
    let failed = Attempt {
        status: Some(500),
        error: Some("the receiver answered 500".into()),
        delivered: false,
        next_attempt_at: Some(now + 1_000),
    };
    first.record_attempt(taken, failed).await.unwrap();
    let record = first.delivery(&job.job_id).await.unwrap().unwrap();
    assert_eq!(record.attempts, 1);
    assert_eq!(record.last_status, Some(500));
    assert_eq!(record.delivered_at, None);
    assert_eq!(record.next_attempt_at, Some(now + 1_000));
    drop(first);
    let restarted = b.replica().await;
    let early = restarted.due_deliveries(now + 999, now + 60_000).await;
    assert!(early.unwrap().is_empty(), "not due before its retry time");
    let due = due_from(&*restarted, now + 1_000, Duration::from_secs(10)).await;
    assert_eq!(due.len(), 1);
    assert_eq!(
        (due[0].attempts, due[0].webhook.secret.as_str()),
        (1, SECRET)
    );
    let record = restarted.delivery(&job.job_id).await.unwrap().unwrap();
    assert_eq!(
        record.last_error.as_deref(),
        Some("the receiver answered 500")
    );
}

pub(crate) async fn a_delivery_is_taken_once_until_its_lease_lapses(b: &dyn Backend) {
    let (one, two) = (b.replica().await, b.replica().await);
    let job = ended_with_delivery(&*one, hook()).await;
    let now = now_ms();
    let (a, c) = tokio::join!(
        one.due_deliveries(now, now + 60_000),
        two.due_deliveries(now, now + 60_000)
    );
    let taken: Vec<PendingDelivery> = [a.unwrap(), c.unwrap()].concat();
    assert_eq!(taken.len(), 1, "two replicas took the same delivery");
    let leased = one.due_deliveries(now + 59_999, now + 120_000).await;
    assert!(leased.unwrap().is_empty(), "taken again within its lease");
    // The sender went away without recording its attempt: the lease lapses.
    let lapsed = due_from(&*two, now + 60_000, b.lease() * 3 + Duration::from_secs(5)).await;
    assert_eq!(lapsed.len(), 1);
    assert_eq!(lapsed[0].job_id, job.job_id);
    two.record_attempt(&lapsed[0], delivered()).await.unwrap();
    let record = one.delivery(&job.job_id).await.unwrap().unwrap();
    assert!(record.delivered_at.is_some());
    assert_eq!((record.attempts, record.last_status), (1, Some(204)));
    assert_eq!(record.next_attempt_at, None);
    let after = one.due_deliveries(now + 10_000_000, now + 20_000_000).await;
    assert!(
        after.unwrap().is_empty(),
        "a delivered webhook is never sent again"
    );
}

pub(crate) async fn a_schedules_secret_reaches_its_runs_deliveries(b: &dyn Backend) {
    let store = b.replica().await;
    let schedule = store
        .create_schedule(NewSchedule {
            webhook: Some(hook()),
            ..new_schedule("k1")
        })
        .await
        .unwrap();
    // A run is a job made from the schedule as stored, as the engine makes it.
    let kept = store.schedule(None, &schedule.schedule_id).await.unwrap();
    let webhook = kept
        .unwrap()
        .webhook
        .expect("the schedule keeps its webhook");
    assert_eq!(webhook.url, hook().url);
    ended_with_delivery(&*store, webhook).await;
    let now = now_ms();
    let due = store.due_deliveries(now, now + 60_000).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].webhook.secret, SECRET);
}

pub(crate) async fn a_schedule_run_fires_once_across_replicas(b: &dyn Backend) {
    let (one, two) = (b.replica().await, b.replica().await);
    let due_at = now_ms() - 1;
    let schedule = one
        .create_schedule(NewSchedule {
            owner: "k1".into(),
            endpoint: "/x/reviews".into(),
            request: json!({"query": "q"}),
            cadence: Cadence::Cron {
                expression: "0 6 * * *".into(),
                timezone: Some("Europe/Paris".into()),
            },
            webhook: None,
            next_run_at: due_at,
            tracking: None,
            export: None,
        })
        .await
        .unwrap();
    let id = &schedule.schedule_id;
    assert_eq!(schedule.next_run_at, due_at);
    assert!(
        matches!(schedule.cadence, Cadence::Cron { ref timezone, .. } if timezone.as_deref() == Some("Europe/Paris"))
    );
    // Another replica may learn of a new schedule a moment later.
    let deadline = Instant::now() + Duration::from_secs(5);
    while two.schedules("k1", None, 10).await.unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the other replica never saw it");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let now = now_ms();
    let (a, c) = tokio::join!(one.take_due_runs(now), two.take_due_runs(now));
    let taken: Vec<Schedule> = a.unwrap().into_iter().chain(c.unwrap()).collect();
    assert_eq!(taken.len(), 1, "the run was taken by exactly one replica");
    // Its next run is the cadence's next after now, in the schedule's zone.
    let next = gleaner::jobs::cadence::next_after(&schedule.cadence, now);
    assert_eq!(taken[0].next_run_at, next);
    assert!(next > now && next <= now + 86_400_000);
    assert!(one.take_due_runs(now_ms()).await.unwrap().is_empty());
    assert!(two.take_due_runs(now_ms()).await.unwrap().is_empty());
    // Its run as a job: what the job delivers is counted once it ends.
    let run = one
        .create_job(NewJob {
            schedule_id: Some(id.clone()),
            ..new_job("k1")
        })
        .await
        .unwrap();
    one.schedule_ran(id, Some(&run.job_id), next).await.unwrap();
    two.schedule_ran(id, None, next + 1).await.unwrap();
    let ids = ["r1", "r2", "r3", "r4", "r5"];
    one.commit_page(&run.job_id, page(&ids, None))
        .await
        .unwrap();
    let midway = two.schedule(None, id).await.unwrap().unwrap();
    assert_eq!((midway.reviews_delivered, midway.caught_up), (0, false));
    assert!(one
        .finish_job(&run.job_id, end(JobState::Succeeded))
        .await
        .unwrap());
    let seen = two.schedule(Some("k1"), id).await.unwrap().unwrap();
    assert_eq!((seen.runs, seen.skipped_runs), (1, 1));
    assert_eq!(seen.last_job_id.as_deref(), Some(run.job_id.as_str()));
    assert_eq!(seen.next_run_at, next + 1);
    assert_eq!((seen.reviews_delivered, seen.caught_up), (5, true));
    assert!(two.schedule(Some("k2"), id).await.unwrap().is_none());
}

pub(crate) async fn a_schedules_runs_remember_what_they_delivered(b: &dyn Backend) {
    let store = b.replica().await;
    let mut made = Vec::new();
    for _ in 0..2 {
        let schedule = store
            .create_schedule(NewSchedule {
                cadence: Cadence::Every(60),
                next_run_at: now_ms() + 60_000,
                ..new_schedule("k1")
            })
            .await
            .unwrap();
        made.push(schedule.schedule_id);
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let id = &made[0];
    for ids in [&["a", "b"][..], &["b", "c"][..]] {
        let run = store
            .create_job(NewJob {
                schedule_id: Some(id.clone()),
                ..new_job("k1")
            })
            .await
            .unwrap();
        store
            .commit_page(&run.job_id, page(ids, None))
            .await
            .unwrap();
    }
    let delivered = store.delivered_ids(id).await.unwrap();
    let expected: HashSet<String> = ["a", "b", "c"].map(String::from).into();
    assert_eq!(delivered, expected);
    assert!(store.delivered_ids(&made[1]).await.unwrap().is_empty());
    let ids = |page: Vec<Schedule>| page.into_iter().map(|s| s.schedule_id).collect::<Vec<_>>();
    let listed = store.schedules("k1", None, 10).await.unwrap();
    assert_eq!(ids(listed), made, "oldest first");
    let first = store.schedules("k1", None, 1).await.unwrap();
    assert_eq!(ids(first), made[..1]);
    let next = store.schedules("k1", Some(&made[0]), 10).await.unwrap();
    assert_eq!(ids(next), made[1..], "the page after the first");
    let last = store.schedules("k1", Some(&made[1]), 10).await.unwrap();
    assert!(last.is_empty());
    assert!(store.schedules("k2", None, 10).await.unwrap().is_empty());
    assert!(!store.delete_schedule("k2", id).await.unwrap());
    assert!(store.delete_schedule("k1", id).await.unwrap());
    assert!(!store.delete_schedule("k1", id).await.unwrap());
    assert!(store.schedule(None, id).await.unwrap().is_none());
    assert!(store.delivered_ids(id).await.unwrap().is_empty());
}

pub(crate) async fn retention_deletes_ended_jobs_with_what_they_hold(b: &dyn Backend) {
    let store = b.replica().await;
    let before_any = now_ms() - 1;
    // Ended, with reviews and a delivered webhook: deleted.
    let done = ended_with_delivery(&*store, hook()).await;
    store
        .commit_page(&done.job_id, page(&["a"], None))
        .await
        .unwrap();
    let now = now_ms();
    let due = store.due_deliveries(now, now + 60_000).await.unwrap();
    store.record_attempt(&due[0], delivered()).await.unwrap();
    // Ended, its webhook out of attempts: deleted.
    let given_up = ended_with_delivery(&*store, hook()).await;
    let now = now_ms();
    let due = store.due_deliveries(now, now + 60_000).await.unwrap();
    let last = Attempt {
        status: None,
        error: Some("connection refused".into()),
        delivered: false,
        next_attempt_at: None,
    };
    store.record_attempt(&due[0], last).await.unwrap();
    // Ended, its webhook still to be retried: kept until it is done.
    let retrying = ended_with_delivery(&*store, hook()).await;
    // Not ended: kept.
    let queued = store.create_job(new_job("k1")).await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;

    assert_eq!(store.delete_finished_before(before_any).await.unwrap(), 0);
    assert_eq!(store.delete_finished_before(now_ms()).await.unwrap(), 2);
    for gone in [&done.job_id, &given_up.job_id] {
        assert!(store.job(None, gone).await.unwrap().is_none());
        assert!(store.delivery(gone).await.unwrap().is_none());
        assert!(store.reviews(gone, 0, 10).await.unwrap().0.is_empty());
    }
    for kept in [&retrying.job_id, &queued.job_id] {
        assert!(store.job(None, kept).await.unwrap().is_some());
    }
    assert!(store.delivery(&retrying.job_id).await.unwrap().is_some());
}

/// A fingerprint as a tracked run keeps it.
fn kept(review_id: &str, fingerprint: &str, text: &str) -> Fingerprinted {
    Fingerprinted {
        review_id: review_id.into(),
        fingerprint: fingerprint.into(),
        snapshot: json!({"review_text": text}),
    }
}

pub(crate) async fn a_tracked_schedule_keeps_fingerprints_and_each_change_once(b: &dyn Backend) {
    let (one, two) = (b.replica().await, b.replica().await);
    let tracking = Tracking {
        window: Window::Newest(200),
        reconcile_every: Some(7 * 86_400),
        last_full_walk_at: None,
    };
    let schedule = one
        .create_schedule(NewSchedule {
            tracking: Some(tracking.clone()),
            ..new_schedule("k1")
        })
        .await
        .unwrap();
    let id = &schedule.schedule_id;
    assert_eq!(schedule.tracking.as_ref(), Some(&tracking));
    let run = |n: u32| NewJob {
        schedule_id: Some(id.clone()),
        request: json!({"query": "q", "run": n}),
        ..new_job("k1")
    };
    // The first run delivers a and b, with their fingerprints.
    let first = one.create_job(run(1)).await.unwrap();
    let mut delivered = page(&["a", "b"], None);
    delivered.changes.seen = vec![kept("a", "fa1", "A"), kept("b", "fb1", "B")];
    one.commit_page(&first.job_id, delivered).await.unwrap();
    let fingerprints = two.fingerprints(id).await.unwrap();
    assert_eq!(fingerprints.len(), 2);
    assert_eq!(fingerprints["a"], kept("a", "fa1", "A"));
    // The second finds a edited (its page committed twice, as after a
    // crash), then b gone at the end of a full walk.
    let second = one.create_job(run(2)).await.unwrap();
    let pair = (json!({"review_text": "A"}), json!({"review_text": "A!"}));
    let edit = Change::new(
        ChangeKind::Updated,
        id,
        &second.job_id,
        "a",
        "fa2",
        pair,
        now_ms(),
    );
    let mut again = page(&[], None);
    again.changes.seen = vec![kept("a", "fa2", "A!")];
    again.changes.changes = vec![edit.clone()];
    one.commit_page(&second.job_id, again.clone())
        .await
        .unwrap();
    two.commit_page(&second.job_id, again).await.unwrap();
    let removal = Change::new(
        ChangeKind::Removed,
        id,
        &second.job_id,
        "b",
        "removed:fb1",
        (json!({"review_text": "B"}), serde_json::Value::Null),
        now_ms(),
    );
    let walked = now_ms();
    let end = ChangeWrite {
        changes: vec![removal.clone()],
        removed: vec!["b".into()],
        ..Default::default()
    };
    two.record_changes(id, end, Some(walked)).await.unwrap();
    let all = |after| ChangeQuery {
        after,
        limit: 10,
        ..Default::default()
    };
    let found = one.changes(id, all(0)).await.unwrap();
    let events: Vec<_> = found.iter().map(|(_, c)| c.clone()).collect();
    assert_eq!(
        events,
        [edit.clone(), removal.clone()],
        "each change once, in order"
    );
    assert!(found[0].0 < found[1].0);
    let rest = one.changes(id, all(found[0].0)).await.unwrap();
    assert_eq!(rest.len(), 1, "a page after the first's cursor");
    assert_eq!(rest[0].1, removal);
    let of_first = ChangeQuery {
        run: Some(&first.job_id),
        ..all(0)
    };
    assert!(one.changes(id, of_first).await.unwrap().is_empty());
    let later = ChangeQuery {
        since: Some(now_ms() + 60_000),
        ..all(0)
    };
    assert!(one.changes(id, later).await.unwrap().is_empty());
    let fingerprints = one.fingerprints(id).await.unwrap();
    assert_eq!(fingerprints.len(), 1, "a removed review's fingerprint goes");
    assert_eq!(fingerprints["a"].fingerprint, "fa2");
    assert!(
        one.delivered_ids(id).await.unwrap().contains("b"),
        "it stays delivered"
    );
    let stored = two.schedule(None, id).await.unwrap().unwrap();
    let last = stored.tracking.and_then(|t| t.last_full_walk_at);
    assert_eq!(last, Some(walked));
    assert!(one.delete_schedule("k1", id).await.unwrap());
    assert!(two.changes(id, all(0)).await.unwrap().is_empty());
    assert!(two.fingerprints(id).await.unwrap().is_empty());
}

/// A job's export format, and each attempt's outcome, are kept; a schedule's
/// export format reaches the runs made from it as stored.
pub(crate) async fn an_export_and_how_it_went_outlive_a_restart(b: &dyn Backend) {
    let store = b.replica().await;
    let job = store
        .create_job(NewJob {
            export: Some("parquet".into()),
            ..new_job("k1")
        })
        .await
        .unwrap();
    assert_eq!(job.export, Some(Export::pending("parquet")));
    let failed = Export {
        key: Some("exports/x/j.parquet".into()),
        error: Some("writing s3 object: connection refused".into()),
        attempts: 1,
        ..Export::pending("parquet")
    };
    store.record_export(&job.job_id, &failed).await.unwrap();
    let again = b.replica().await;
    assert_eq!(stored(&*again, &job.job_id).await.export, Some(failed));
    let written = Export {
        state: ExportState::Written,
        key: Some("exports/x/j.parquet".into()),
        bytes: Some(1234),
        error: None,
        attempts: 2,
        format: "parquet".into(),
    };
    again.record_export(&job.job_id, &written).await.unwrap();
    let status = stored(&*store, &job.job_id).await.status(None);
    assert_eq!(status.export, Some(written));
    // A job without an export shows none.
    let plain = store.create_job(new_job("k1")).await.unwrap();
    assert_eq!(stored(&*store, &plain.job_id).await.export, None);
    let schedule = store
        .create_schedule(NewSchedule {
            export: Some("csv".into()),
            ..new_schedule("k1")
        })
        .await
        .unwrap();
    let kept = again
        .schedule(None, &schedule.schedule_id)
        .await
        .unwrap()
        .expect("the schedule is stored");
    assert_eq!(kept.export.as_deref(), Some("csv"));
    assert_eq!(kept.body().export.map(|e| e.format).as_deref(), Some("csv"));
}
