//! One slow site cannot starve every route: a website processor stuck on a site
//! that drips one byte a second fills only its own share of request slots.

use std::time::Duration;

use serde_json::json;

use super::common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_upstream_fills_only_its_plugins_share() {
    let upstream = common::dripping_site(60).await;
    let s = common::start(&["domain-to-asset", "review-chunk"], |c| {
        c.replay = None;
        c.max_concurrent_requests = 256;
        c.max_concurrent_per_plugin = 64;
        // All test clients share one address; the per-client limits are not under test.
        c.max_connections_per_client = 4096;
        c.max_in_flight_per_client = 4096;
        c.upstream_override.insert(
            "domain-to-asset:drip.example".into(),
            format!("http://{upstream}"),
        );
    })
    .await;
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(512)
        .build()
        .unwrap();
    let mut slow = tokio::task::JoinSet::new();
    for _ in 0..300 {
        let client = client.clone();
        let url = s.url("/features/domain-to-asset");
        slow.spawn(async move {
            client
                .post(url)
                .json(&json!({"query": "http://drip.example/"}))
                .timeout(Duration::from_secs(60))
                .send()
                .await
                .map(|r| r.status().as_u16())
        });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut chunk_statuses = std::collections::BTreeMap::new();
    for _ in 0..200 {
        let (status, _) = s
            .post(
                "/features/review-chunk",
                json!({"review_text": "Quick. Kind."}),
            )
            .await;
        *chunk_statuses.entry(status).or_insert(0) += 1;
    }
    let mut slow_statuses = std::collections::BTreeMap::new();
    while let Some(r) = slow.join_next().await {
        let status = r
            .unwrap()
            .map(|s| s.to_string())
            .unwrap_or_else(|e| e.to_string());
        *slow_statuses.entry(status).or_insert(0) += 1;
    }
    eprintln!("bulkheads: review-chunk {chunk_statuses:?}; domain-to-asset {slow_statuses:?}");
    assert_eq!(
        chunk_statuses.get(&200),
        Some(&200),
        "review-chunk never answers 503 while the slow plugin is full: {chunk_statuses:?}"
    );
    assert_eq!(
        slow_statuses.get("503"),
        Some(&236),
        "beyond its 64 slots the slow plugin answers 503 at once: {slow_statuses:?}"
    );
}
