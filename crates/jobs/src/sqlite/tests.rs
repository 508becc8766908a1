//! Unit tests of the SQLite store.

use super::*;

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
    let due = store
        .due_deliveries(now_ms() + 1, now_ms() + 60_000)
        .await
        .unwrap();
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
