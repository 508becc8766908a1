//! The cases of webhook deliveries and schedules: a delivery's lease, a
//! schedule's secret and runs across replicas, what its runs remember and
//! keep, retention, and exports.

use super::*;

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
