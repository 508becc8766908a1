//! Webhook deliveries on the cluster's send queue: a failed attempt comes
//! back from the queue after its delay, to whichever replica takes it, and a
//! delivery an earlier version left pending is still sent.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gleaner::jobs::store::{DeliveryStore, JobStore};
use serde_json::{json, Value};

use super::nats::Nats;
use crate::common;
use crate::jobs::{finished, job_request, send, Site, HUB, KEY};

/// A webhook receiver on `hooks.example` answering `answers` in turn, then
/// 200; the bodies it was sent.
async fn receiver(answers: &[u16]) -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let answers = Arc::new(Mutex::new(answers.iter().copied().collect::<VecDeque<_>>()));
    let keep = seen.clone();
    let addr = common::upstream(axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: String| {
            let (keep, answers) = (keep.clone(), answers.clone());
            async move {
                keep.lock().unwrap().push(body);
                let status = answers.lock().unwrap().pop_front().unwrap_or(200);
                axum::http::StatusCode::from_u16(status).unwrap()
            }
        }),
    ))
    .await;
    (addr, seen)
}

/// Messages left on the send queue.
async fn queued(nats: &Nats) -> u64 {
    let cluster = super::connect(nats.url(), |_| {}).await.unwrap();
    let mut sends = cluster
        .js
        .get_stream(gleaner::cluster::sends::WEBHOOK_SENDS)
        .await
        .unwrap();
    sends.info().await.unwrap().state.messages
}

/// Waits until job `id` of [`KEY`] shows its webhook delivered, as `server`
/// answers; the job's status.
async fn delivered(server: &common::Server, id: &str, within: Duration) -> Value {
    let started = Instant::now();
    loop {
        let (_, job) = send(
            server,
            reqwest::Method::GET,
            &format!("/jobs/{id}"),
            KEY,
            None,
        )
        .await;
        if job["webhook"]["delivered_at"].is_string() {
            return job;
        }
        assert!(started.elapsed() < within, "never delivered: {job}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn a_failed_webhook_comes_back_from_the_queue_after_its_delay_and_is_sent_once() {
    let nats = Nats::start();
    let site = Site::with(5);
    let addr = site.serve().await;
    let (hooks, seen) = receiver(&[500, 502]).await;
    let hooked = |c: &mut gleaner::config::Config| {
        c.upstream_override
            .insert("hooks.example".into(), format!("http://{hooks}"));
        c.webhook_retry_base_ms = 300;
    };
    let a = super::replica_with(&nats, addr, "a", hooked).await;
    let b = super::replica_with(&nats, addr, "b", hooked).await;
    let mut body = job_request(None);
    body["webhook"] =
        json!({"url": "http://hooks.example/hook", "secret": "a-receiver-secret-0123456789abcd"});
    let (status, job) = send(&a, reqwest::Method::POST, "/jobs", KEY, Some(body)).await;
    assert_eq!(status, 202, "{job}");
    let id = job["job_id"].as_str().unwrap().to_owned();
    finished(&b, &id, KEY, Duration::from_secs(30)).await;
    let job = delivered(&a, &id, Duration::from_secs(30)).await;
    assert_eq!(job["webhook"]["attempts"], 3, "{job}");
    assert_eq!(job["webhook"]["last_status"], 200, "{job}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        seen.lock().unwrap().len(),
        3,
        "two failures, then one success"
    );
    assert_eq!(queued(&nats).await, 0, "the delivered message is acked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn a_delivery_an_earlier_version_left_pending_is_sent() {
    let nats = Nats::start();
    let site = Site::with(5);
    let addr = site.serve().await;
    let (hooks, seen) = receiver(&[]).await;
    // A job that ended with its delivery pending, as an earlier version
    // kept it: a record in the webhooks bucket, with no send queue.
    let cluster = super::connect(nats.url(), |_| {}).await.unwrap();
    let store = gleaner::cluster::jobs::JetStreamStore::new(cluster.link.clone());
    let webhook = gleaner::jobs::model::Webhook {
        url: "http://hooks.example/hook".into(),
        secret: "a-receiver-secret-0123456789abcd".into(),
    };
    let job = store
        .create_job(gleaner::jobs::model::NewJob {
            owner: cluster.owner_id(KEY),
            endpoint: HUB.into(),
            request: job_request(None)["request"].clone(),
            total: None,
            webhook: Some(webhook.clone()),
            schedule_id: None,
            export: None,
        })
        .await
        .unwrap();
    let end = gleaner::jobs::store::JobEnd {
        state: gleaner::jobs::model::JobState::Succeeded,
        stop_reason: Some("exhausted".into()),
        error: None,
    };
    assert!(store.finish_job(&job.job_id, end).await.unwrap());
    store
        .queue_delivery(
            &job.job_id,
            gleaner::jobs::model::Topic::End,
            &webhook,
            r#"{"event":"job.succeeded"}"#,
        )
        .await
        .unwrap();
    cluster
        .js
        .delete_stream(gleaner::cluster::sends::WEBHOOK_SENDS)
        .await
        .unwrap();

    let a = super::replica_with(&nats, addr, "a", |c| {
        c.upstream_override
            .insert("hooks.example".into(), format!("http://{hooks}"));
    })
    .await;
    let status = delivered(&a, &job.job_id, Duration::from_secs(30)).await;
    assert_eq!(status["webhook"]["attempts"], 1, "{status}");
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        [r#"{"event":"job.succeeded"}"#]
    );
    assert_eq!(queued(&nats).await, 0);
}
