//! What the server keeps on disk is for it alone: the data directory (the
//! token secret, the jobs store with its webhook secrets) is 0700 and its
//! files 0600, and a store file left readable by others is narrowed.

use std::os::unix::fs::PermissionsExt;

use crate::common;

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn the_data_directory_and_its_files_are_private() {
    let plugins = common::plugin_dir(&["review-chunk"]);
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("state");
    let mut config = common::config(&plugins);
    config.data_dir = data.clone();
    config.token_secret = None;
    let app = gleaner::App::build(config.clone()).await.unwrap();
    drop(app);
    assert_eq!(mode(&data), 0o700, "the data directory");
    for file in ["token-secret", "jobs.sqlite3"] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
    // A store another tool left readable by everyone is narrowed at start.
    std::fs::set_permissions(data.join("jobs.sqlite3"), PermissionsExt::from_mode(0o644)).unwrap();
    drop(gleaner::App::build(config).await.unwrap());
    assert_eq!(mode(&data.join("jobs.sqlite3")), 0o600);
}

/// Webhook secrets are sealed in the jobs store (jobs, schedules and
/// deliveries alike), and still sign every delivery.
#[tokio::test]
async fn webhook_secrets_are_sealed_in_the_jobs_store() {
    use std::time::{Duration, Instant};

    use serde_json::json;

    use crate::jobs::{
        finished, job_request, receiver, send, server, submit, Site, HUB, KEY, QUERY,
    };

    let data = tempfile::tempdir().unwrap();
    let site = Site::with(5);
    let (hooks, seen) = receiver(|_| axum::http::StatusCode::OK).await;
    let dir = data.path().to_owned();
    let s = server(site.serve().await, move |c| {
        c.api_keys = vec![KEY.into()];
        c.data_dir = dir;
        c.upstream_override
            .insert("hooks.example".into(), format!("http://{hooks}"));
    })
    .await;
    let job_secret = "job-secret-nobody-may-read-0123456";
    let schedule_secret = "schedule-secret-nobody-may-read-789";
    let mut body = job_request(None);
    body["webhook"] = json!({"url": "https://hooks.example/hook", "secret": job_secret});
    let id = submit(&s, body).await;
    finished(&s, &id, KEY, Duration::from_secs(20)).await;
    let schedule = json!({
        "endpoint": HUB, "request": {"query": QUERY}, "every": "1d",
        "webhook": {"url": "https://hooks.example/hook", "secret": schedule_secret},
    });
    let (status, answer) = send(&s, reqwest::Method::POST, "/schedules", KEY, Some(schedule)).await;
    assert_eq!(status, 201, "{answer}");
    let started = Instant::now();
    while seen.lock().unwrap().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(20), "no delivery");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for file in ["jobs.sqlite3", "jobs.sqlite3-wal"] {
        let bytes = std::fs::read(data.path().join(file)).unwrap_or_default();
        for secret in [job_secret, schedule_secret] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{file} holds a webhook secret in clear"
            );
        }
    }
}
