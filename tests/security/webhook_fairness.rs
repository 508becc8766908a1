//! Webhook deliveries go out at once, within lanes per API key and per
//! receiver: receivers of one key that never answer delay only that key's
//! deliveries, never another key's.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common;
use crate::jobs::{finished, job_request, server, submit_as, Site};

const SLOW_KEY: &str = "jobs-key-slow";
const FAST_KEY: &str = "jobs-key-fast";
const SECRET: &str = "the-receiver-secret-0123";

/// Submits a job for `key` whose webhook goes to `url`; its id.
async fn job_with_hook(s: &common::Server, key: &str, url: &str) -> String {
    let mut body = job_request(None);
    body["webhook"] = json!({"url": url, "secret": SECRET});
    submit_as(s, key, body).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hanging_receivers_of_one_key_never_delay_another_keys_webhook() {
    let site = Site::with(5);
    let addr = site.serve().await;
    // Five receivers that take the request and never answer.
    let mut hanging = Vec::new();
    for _ in 0..5 {
        hanging.push(
            common::upstream(axum::Router::new().route(
                "/hook",
                axum::routing::post(|| async {
                    tokio::time::sleep(Duration::from_secs(300)).await;
                    axum::http::StatusCode::OK
                }),
            ))
            .await,
        );
    }
    let arrived: Arc<Mutex<Option<Instant>>> = Arc::default();
    let mark = arrived.clone();
    let fast = common::upstream(axum::Router::new().route(
        "/hook",
        axum::routing::post(move || {
            let mark = mark.clone();
            async move {
                mark.lock().unwrap().get_or_insert_with(Instant::now);
                axum::http::StatusCode::OK
            }
        }),
    ))
    .await;
    let receivers = hanging.clone();
    let s = server(addr, move |c| {
        c.api_keys = vec![SLOW_KEY.into(), FAST_KEY.into()];
        for (i, r) in receivers.iter().enumerate() {
            c.upstream_override
                .insert(format!("slow-{i}.example"), format!("http://{r}"));
        }
        c.upstream_override
            .insert("fast.example".into(), format!("http://{fast}"));
    })
    .await;
    for i in 0..5 {
        let id = job_with_hook(&s, SLOW_KEY, &format!("https://slow-{i}.example/hook")).await;
        finished(&s, &id, SLOW_KEY, Duration::from_secs(20)).await;
    }
    // The slow key's deliveries are now hanging; the fast key's job ends.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let id = job_with_hook(&s, FAST_KEY, "https://fast.example/hook").await;
    finished(&s, &id, FAST_KEY, Duration::from_secs(20)).await;
    let ended = Instant::now();
    let within = Duration::from_secs(5);
    loop {
        if let Some(at) = *arrived.lock().unwrap() {
            let waited = at.saturating_duration_since(ended);
            eprintln!(
                "the other key's webhook arrived {} ms after its job ended",
                waited.as_millis()
            );
            break;
        }
        assert!(
            ended.elapsed() < within,
            "the other key's webhook waited over {within:?} behind five hanging receivers"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
