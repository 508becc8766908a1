//! Jobs and schedules shared by replicas through JetStream.

use std::time::{Duration, Instant};

use serde_json::json;

use super::nats::Nats;
use super::{replica, replica_env};
use crate::common;
use crate::jobs::{
    fetch, finished, get_keyed, job_ids, job_request, send, submit, submit_to, Site, HUB, KEY,
    QUERY,
};
use crate::security::process::Process;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn a_job_whose_replica_is_killed_completes_on_another_with_every_review_once() {
    let nats = Nats::start();
    let site = Site::with(600);
    *site.delay.lock().unwrap() = Duration::from_millis(40);
    let addr = site.serve().await;
    let mut a = Process::start(&["customer-feedback-hub"], &replica_env(&nats, addr, "a"));
    let id = submit_to(a.url("/jobs")).await;
    // Replica A runs it; B joins once A is a few pages in, so the job is A's.
    let started = Instant::now();
    while get_keyed(a.url(&format!("/jobs/{id}"))).await["pages_fetched"]
        .as_u64()
        .unwrap_or(0)
        < 3
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "A never ran the job"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let b = replica(&nats, addr, "b").await;
    let before = get_keyed(a.url(&format!("/jobs/{id}"))).await;
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    let killed = Instant::now();
    let pages_then = before["pages_fetched"].as_u64().unwrap();
    let taken_over = loop {
        let (_, job) = send(&b, reqwest::Method::GET, &format!("/jobs/{id}"), KEY, None).await;
        if job["pages_fetched"].as_u64().unwrap_or(0) > pages_then + 1
            || job["state"] == "succeeded"
        {
            break killed.elapsed();
        }
        assert!(
            killed.elapsed() < Duration::from_secs(30),
            "B never took the job: {job}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let done = finished(&b, &id, KEY, Duration::from_secs(60)).await;
    assert_eq!(done["state"], "succeeded", "{done}");
    assert_eq!(done["reviews_collected"], 600, "{done}");
    let ids = job_ids(&b, &id, KEY).await;
    assert_eq!(
        ids,
        site.ids(),
        "every review exactly once, in the source's order"
    );
    eprintln!(
        "cluster: replica A killed {pages_then} pages into a 30-page job; B went on after {:.2} s (ack wait 2 s); 600/600 reviews, none twice",
        taken_over.as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn any_replica_answers_for_any_job_and_a_schedule_runs_once_per_period() {
    let nats = Nats::start();
    let site = Site::with(30);
    let addr = site.serve().await;
    let a = replica(&nats, addr, "a").await;
    let b = replica(&nats, addr, "b").await;
    let health = b.get_json("/healthz").await;
    assert_eq!(health["cluster"]["nats"], "connected", "{health}");
    assert_eq!(health["cluster"]["replica"], "b", "{health}");

    let id = submit(&a, job_request(None)).await;
    let done = finished(&b, &id, KEY, Duration::from_secs(30)).await;
    assert_eq!(done["state"], "succeeded", "{done}");
    assert_eq!(done["reviews_collected"], 30);
    assert_eq!(job_ids(&b, &id, KEY).await, site.ids());
    let (status, list) = send(&b, reqwest::Method::GET, "/jobs", KEY, None).await;
    assert_eq!(status, 200);
    assert_eq!(list["jobs"][0]["job_id"], id.as_str(), "{list}");
    let (status, _) = send(
        &b,
        reqwest::Method::GET,
        &format!("/jobs/{id}"),
        "another",
        None,
    )
    .await;
    assert_eq!(status, 401, "an unknown key");

    // A schedule added on A; both replicas' schedulers see its run due.
    let body = json!({"endpoint": HUB, "request": {"query": QUERY}, "every": "1h"});
    let (status, schedule) = send(&a, reqwest::Method::POST, "/schedules", KEY, Some(body)).await;
    assert_eq!(status, 201, "{schedule}");
    let sid = schedule["schedule_id"].as_str().unwrap().to_owned();
    let cluster = super::connect(nats.url(), |_| {}).await.unwrap();
    // Its next run moved to now, in the bucket both replicas watch.
    let records =
        gleaner::cluster::records::Records::sealed(&cluster.resources.schedules, &cluster.seal);
    let now = gleaner::jobs::model::now_ms();
    let moved = records
        .modify::<gleaner::jobs::model::Schedule>(&sid, |s| {
            s.next_run_at = now;
            true
        })
        .await
        .unwrap();
    assert!(moved.is_some(), "moved due now");
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (_, seen) = send(
        &b,
        reqwest::Method::GET,
        &format!("/schedules/{sid}"),
        KEY,
        None,
    )
    .await;
    assert_eq!(seen["runs"], 1, "one run across two replicas: {seen}");
    let run = seen["last_job_id"].as_str().unwrap().to_owned();
    let done = finished(&a, &run, KEY, Duration::from_secs(30)).await;
    assert_eq!(done["reviews_collected"], 30, "{done}");
    let (_, list) = send(&a, reqwest::Method::GET, "/jobs", KEY, None).await;
    assert_eq!(
        list["jobs"].as_array().unwrap().len(),
        2,
        "the job and one run: {list}"
    );
    let next = seen["next_run_at"].as_str().unwrap();
    assert!(next > schedule["created_at"].as_str().unwrap(), "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn a_nats_outage_leaves_fetches_answering_and_jobs_resume_when_it_returns() {
    let mut nats = Nats::start();
    let site = Site::with(600);
    *site.delay.lock().unwrap() = Duration::from_millis(40);
    let addr = site.serve().await;
    let a = replica(&nats, addr, "outage-a").await;
    let id = submit(&a, job_request(None)).await;
    let started = Instant::now();
    loop {
        let (_, job) = send(&a, reqwest::Method::GET, &format!("/jobs/{id}"), KEY, None).await;
        if job["pages_fetched"].as_u64().unwrap_or(0) >= 3 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{job}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    nats.stop();
    let down = Instant::now();
    let mut answered = 0;
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    let mut saw_disconnected = false;
    while down.elapsed() < Duration::from_secs(4) {
        let (status, _) = fetch(&a, json!({"query": QUERY, "reviews_to_fetch": 20})).await;
        *statuses.entry(status).or_default() += 1;
        answered += usize::from(status == 200);
        let health = a.get_json("/healthz").await;
        if health["cluster"]["nats"] == "disconnected" {
            saw_disconnected = true;
            assert_eq!(health["cluster"]["shared_state"], false, "{health}");
        }
    }
    assert!(saw_disconnected, "/healthz said NATS was away");
    let metrics = a
        .client
        .get(a.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("gleaner_cluster_connected{replica=\"outage-a\"} 0"),
        "the metric shows it"
    );
    assert_eq!(
        statuses.keys().copied().collect::<Vec<_>>(),
        vec![200],
        "{statuses:?}"
    );
    nats.restart();
    let back = Instant::now();
    loop {
        let health = a.get_json("/healthz").await;
        if health["cluster"]["nats"] == "connected" {
            break;
        }
        assert!(back.elapsed() < Duration::from_secs(30), "{health}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let reconnected = back.elapsed();
    let done = finished(&a, &id, KEY, Duration::from_secs(120)).await;
    assert_eq!(done["state"], "succeeded", "{done}");
    assert_eq!(done["reviews_collected"], 600, "{done}");
    assert_eq!(job_ids(&a, &id, KEY).await, site.ids(), "every review once");
    eprintln!(
        "cluster: NATS down 4 s: {answered} synchronous fetches, all 200; reconnected {:.2} s after it returned; the job then completed with 600/600 reviews",
        reconnected.as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn a_webhook_is_sent_once_signed_and_its_secret_is_sealed_in_the_buckets() {
    use hmac::{Hmac, Mac};
    use std::sync::{Arc, Mutex};
    let nats = Nats::start();
    let site = Site::with(30);
    let addr = site.serve().await;
    let seen: Arc<Mutex<Vec<(axum::http::HeaderMap, String)>>> = Arc::default();
    let keep = seen.clone();
    let receiver = common::upstream(axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
            let keep = keep.clone();
            async move {
                keep.lock().unwrap().push((headers, body));
                axum::http::StatusCode::OK
            }
        }),
    ))
    .await;
    let hooked = |c: &mut gleaner::config::Config| {
        c.upstream_override
            .insert("hooks.example".into(), format!("http://{receiver}"));
    };
    let a = super::replica_with(&nats, addr, "a", hooked).await;
    let b = super::replica_with(&nats, addr, "b", hooked).await;
    let secret = "the-cluster-receiver-secret-0123";
    let mut body = job_request(None);
    body["webhook"] = json!({"url": "http://hooks.example/hook", "secret": secret});
    let (status, job) = send(&a, reqwest::Method::POST, "/jobs", KEY, Some(body)).await;
    assert_eq!(status, 202, "{job}");
    let id = job["job_id"].as_str().unwrap().to_owned();
    finished(&b, &id, KEY, Duration::from_secs(30)).await;
    let started = Instant::now();
    loop {
        let (_, job) = send(&b, reqwest::Method::GET, &format!("/jobs/{id}"), KEY, None).await;
        if job["webhook"]["delivered_at"].is_string() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never delivered: {job}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let deliveries = seen.lock().unwrap().clone();
    assert_eq!(deliveries.len(), 1, "one delivery from two replicas");
    let (headers, raw) = &deliveries[0];
    let header = headers["gleaner-signature"].to_str().unwrap();
    let (t, v1) = header.split_once(',').unwrap();
    let delivery = headers["gleaner-delivery-id"].to_str().unwrap();
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{}.{delivery}.{raw}", t.strip_prefix("t=").unwrap()).as_bytes());
    assert_eq!(
        v1.strip_prefix("v1=").unwrap(),
        hex::encode(mac.finalize().into_bytes())
    );
    // Nowhere in the buckets in clear: each record is sealed whole.
    let cluster = super::connect(nats.url(), |_| {}).await.unwrap();
    for bucket in [&cluster.resources.jobs, &cluster.resources.webhooks] {
        let raw = bucket.get(id.as_str()).await.unwrap().expect("a record");
        let text = String::from_utf8_lossy(&raw);
        assert!(
            !text.contains(secret) && !text.contains("/hook"),
            "a record in clear: {text}"
        );
    }
}
