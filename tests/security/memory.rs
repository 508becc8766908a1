//! Memory under hostile load: concurrent memory bombs stay under the server-wide
//! cap on live instances' memory, overflow answers 503, and memory is given back.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::process::{PeakRss, Process};

const BOMBS: usize = 32;
const POOL_MIB: f64 = 512.0;

/// One memory bomb: the status and the error it was answered.
async fn bomb(client: &reqwest::Client, url: &str) -> (u16, String) {
    let r = client
        .post(url)
        .json(&json!({"mode": "memory"}))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let body: serde_json::Value = r.json().await.unwrap();
    let error = body["error"].as_str().unwrap_or_default().to_owned();
    (status, error)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_bombs_stay_under_the_total_cap() {
    let server = Process::start(
        &["test-misbehave"],
        &[
            ("GLEANER_MAX_TOTAL_MEMORY_MIB", format!("{POOL_MIB}")),
            // The pool alone: one plugin may take all of it here.
            ("GLEANER_MAX_PLUGIN_MEMORY_SHARE", "100".into()),
        ],
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

    let peak_rss = PeakRss::sample(server.child.id(), Duration::from_millis(10));
    let mut bombs = tokio::task::JoinSet::new();
    for _ in 0..BOMBS {
        let (client, url) = (client.clone(), url.clone());
        bombs.spawn(async move { bomb(&client, &url).await });
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
    let peak = peak_rss.stop();
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_plugin_cannot_take_the_whole_pool() {
    let server = Process::start(
        &["test-misbehave", "review-chunk"],
        &[
            ("GLEANER_MAX_TOTAL_MEMORY_MIB", format!("{POOL_MIB}")),
            ("GLEANER_MAX_PLUGIN_MEMORY_SHARE", "50".into()),
            // Every caller is on loopback: the per-address limit stays out of the way.
            ("GLEANER_MAX_IN_FLIGHT_PER_CLIENT", "1000".into()),
        ],
    );
    let client = reqwest::Client::new();
    let bombing = Arc::new(AtomicBool::new(true));
    // 64 callers re-sending memory bombs for as long as the other plugin is asked.
    let mut bombers = tokio::task::JoinSet::new();
    for _ in 0..64 {
        let (client, url, bombing) = (
            client.clone(),
            server.url("/test/misbehave"),
            bombing.clone(),
        );
        bombers.spawn(async move {
            let mut share_refusals = 0usize;
            while bombing.load(Ordering::Relaxed) {
                let (status, error) = bomb(&client, &url).await;
                share_refusals +=
                    usize::from(status == 503 && error.contains("max_plugin_memory_share"));
            }
            share_refusals
        });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut chunk = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (client, url) = (client.clone(), server.url("/features/review-chunk"));
        chunk.spawn(async move {
            let mut statuses = Vec::new();
            for _ in 0..25 {
                let r = client
                    .post(&url)
                    .json(&json!({"review_text": "Spotless room. The staff upgraded us for free."}))
                    .send()
                    .await
                    .unwrap();
                statuses.push(r.status().as_u16());
            }
            statuses
        });
    }
    let mut statuses = std::collections::BTreeMap::new();
    while let Some(r) = chunk.join_next().await {
        for s in r.unwrap() {
            *statuses.entry(s).or_insert(0usize) += 1;
        }
    }
    bombing.store(false, Ordering::Relaxed);
    let mut share_refusals = 0;
    while let Some(r) = bombers.join_next().await {
        share_refusals += r.unwrap();
    }
    eprintln!(
        "memory share: 64 callers bombing test-misbehave, review-chunk answered {statuses:?}; \
         {share_refusals} bombs refused at the plugin's share"
    );
    assert_eq!(
        statuses.get(&200),
        Some(&200),
        "review-chunk is always answered: {statuses:?}"
    );
    assert!(share_refusals > 0, "the bombs met the plugin's share");
}
