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

mod schedules;
pub(crate) use schedules::*;

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
