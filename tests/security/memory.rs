//! Memory under hostile load: concurrent memory bombs stay under the server-wide
//! cap on live instances' memory, overflow answers 503, and memory is given back.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::process::Process;

const BOMBS: usize = 32;
const POOL_MIB: f64 = 512.0;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_bombs_stay_under_the_total_cap() {
    let server = Process::start(
        &["test-misbehave"],
        &[("GLEANER_MAX_TOTAL_MEMORY_MIB", format!("{POOL_MIB}"))],
    );
    let url = server.url("/test/misbehave");
    let client = reqwest::Client::new();
    for _ in 0..5 {
        let r = client
            .post(&url)
            .json(&json!({"mode": "ok"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let before = server.rss_mib();

    let pid = server.child.id();
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = std::thread::spawn({
        let sampling = sampling.clone();
        move || {
            let mut peak: f64 = 0.0;
            while sampling.load(Ordering::Relaxed) {
                peak = peak.max(super::process::rss_mib(pid).unwrap_or(0.0));
                std::thread::sleep(Duration::from_millis(10));
            }
            peak
        }
    });
    let mut bombs = tokio::task::JoinSet::new();
    for _ in 0..BOMBS {
        let (client, url) = (client.clone(), url.clone());
        bombs.spawn(async move {
            let r = client
                .post(&url)
                .json(&json!({"mode": "memory"}))
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            let body: serde_json::Value = r.json().await.unwrap();
            (
                status,
                body["error"].as_str().unwrap_or_default().to_owned(),
            )
        });
    }
    let mut statuses = std::collections::BTreeMap::new();
    while let Some(r) = bombs.join_next().await {
        let (status, error) = r.unwrap();
        match status {
            500 => assert!(error.contains("memory cap of 64 MiB"), "{error}"),
            503 => assert!(error.contains("max_total_memory_mib"), "{error}"),
            other => panic!("a memory bomb answered {other}: {error}"),
        }
        *statuses.entry(status).or_insert(0) += 1;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    sampling.store(false, Ordering::Relaxed);
    let peak = sampler.join().unwrap();
    let after = server.rss_mib();
    let r = client
        .post(&url)
        .json(&json!({"mode": "ok"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "the server still answers");
    eprintln!(
        "memory bombs: {BOMBS} at once, pool {POOL_MIB} MiB, answers {statuses:?}; \
         RSS MiB before {before:.1}, peak {peak:.1}, after {after:.1}"
    );
    assert!(
        peak < before + POOL_MIB + 128.0,
        "live instances stay under the pool: peak {peak:.1} MiB"
    );
    assert!(
        after < before + 64.0,
        "memory is given back: {before:.1} MiB before, {after:.1} MiB after"
    );
}
