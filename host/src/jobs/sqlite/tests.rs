//! Unit tests of the SQLite store.

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

/// A store file as servers wrote it before schema versioning.
const UNVERSIONED: &str = include_str!("fixtures/unversioned.sql");

fn raw(path: &Path, sql: &str) -> Vec<String> {
    let c = Connection::open(path).unwrap();
    let mut statement = c.prepare(sql).unwrap();
    let rows = statement.query_map([], |row| row.get::<_, String>(0));
    rows.unwrap().map(Result::unwrap).collect()
}

#[tokio::test]
async fn a_file_of_the_unversioned_schema_is_migrated_and_its_secrets_sealed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jobs.sqlite3");
    Connection::open(&path)
        .unwrap()
        .execute_batch(UNVERSIONED)
        .unwrap();
    let seal = Arc::new(Seal::new(None, b"a-token-secret-of-at-least-32-bytes!!"));
    let store = SqliteStore::open(&path, seal.clone()).unwrap();
    assert_eq!(
        raw(
            &path,
            "SELECT CAST(user_version AS TEXT) FROM pragma_user_version"
        ),
        [schema::VERSION.to_string()]
    );
    let stored = [
        raw(&path, "SELECT webhook_secret FROM jobs"),
        raw(&path, "SELECT secret FROM webhook_deliveries"),
        raw(&path, "SELECT webhook_secret FROM schedules"),
    ]
    .concat();
    assert_eq!(stored.len(), 3);
    for value in &stored {
        assert!(secret::is_sealed(value), "{value} is not sealed");
        assert!(!value.contains("clear-"), "{value} holds the secret");
    }
    // What the old server stored opens as it was.
    let job = store.job(Some("k1"), "job-old-1").await.unwrap().unwrap();
    let opened = secret::open(&seal, job.webhook.unwrap().secret);
    assert_eq!(opened, "clear-job-secret");
    let schedule = store.schedule(Some("k1"), "sched-old-1").await.unwrap();
    let opened = secret::open(&seal, schedule.unwrap().webhook.unwrap().secret);
    assert_eq!(opened, "clear-schedule-secret");
    let due = store.due_deliveries(now_ms() + 1).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].webhook.secret, "clear-delivery-secret");
    drop(store);
    // Opening again runs no step twice: the sealed values stay as they are.
    SqliteStore::open(&path, seal).unwrap();
    let again = [
        raw(&path, "SELECT webhook_secret FROM jobs"),
        raw(&path, "SELECT secret FROM webhook_deliveries"),
        raw(&path, "SELECT webhook_secret FROM schedules"),
    ]
    .concat();
    assert_eq!(again, stored);
}

#[test]
fn a_file_of_a_newer_schema_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jobs.sqlite3");
    let newer = schema::VERSION + 1;
    Connection::open(&path)
        .unwrap()
        .execute_batch(&format!("PRAGMA user_version = {newer};"))
        .unwrap();
    let seal = Arc::new(Seal::new(None, b"a-token-secret-of-at-least-32-bytes!!"));
    let Err(StoreError(message)) = SqliteStore::open(&path, seal) else {
        panic!("a newer file was opened");
    };
    assert!(message.contains(&format!("version {newer}")), "{message}");
    assert!(message.contains("GLEANER_DATA_DIR"), "{message}");
    assert_eq!(
        raw(
            &path,
            "SELECT CAST(user_version AS TEXT) FROM pragma_user_version"
        ),
        [newer.to_string()]
    );
    assert!(raw(&path, "SELECT name FROM sqlite_master").is_empty());
}
