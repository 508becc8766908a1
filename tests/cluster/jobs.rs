//! Jobs and schedules shared by replicas through JetStream.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::nats::Nats;
use super::{enabled, replica, replica_env};
use crate::common;
use crate::jobs::{fetch, finished, job_ids, job_request, send, submit, Site, HUB, KEY, QUERY};
use crate::security::process::Process;

/// `GET path` on a process replica with [`KEY`].
async fn get(url: String) -> Value {
    reqwest::Client::new()
        .get(url)
        .header("x-api-key", KEY)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_whose_replica_is_killed_completes_on_another_with_every_review_once() {
    if !enabled() {
        return;
    }
    let nats = Nats::start();
    let site = Site::with(600);
    *site.delay.lock().unwrap() = Duration::from_millis(40);
    let addr = site.serve().await;
    let mut a = Process::start(&["customer-feedback-hub"], &replica_env(&nats, addr, "a"));
    let r = reqwest::Client::new()
        .post(a.url("/jobs"))
        .header("x-api-key", KEY)
        .json(&job_request(None))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let id = r.json::<Value>().await.unwrap()["job_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Replica A runs it; B joins once A is a few pages in, so the job is A's.
    let started = Instant::now();
    while get(a.url(&format!("/jobs/{id}"))).await["pages_fetched"]
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
    let before = get(a.url(&format!("/jobs/{id}"))).await;
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
async fn any_replica_answers_for_any_job_and_a_schedule_runs_once_per_period() {
    if !enabled() {
        return;
    }
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
    let mut config = gleaner::config::Config {
        token_secret: Some(common::TOKEN_SECRET.into()),
        ..Default::default()
    };
    config.cluster.nats_url = Some(nats.url());
    let cluster = gleaner::cluster::Cluster::connect(&config).await.unwrap();
    let store = gleaner::cluster::jobs::JetStreamStore::new(cluster);
    use gleaner::jobs::store::Store;
    let due = store
        .schedule(None, &sid)
        .await
        .unwrap()
        .unwrap()
        .next_run_at;
    let now = gleaner::jobs::model::now_ms();
    assert!(
        store.claim_schedule_run(&sid, due, now).await.unwrap(),
        "moved due now"
    );
    assert!(
        !store.claim_schedule_run(&sid, due, now).await.unwrap(),
        "a second claim of the same run loses"
    );
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
async fn a_nats_outage_leaves_fetches_answering_and_jobs_resume_when_it_returns() {
    if !enabled() {
        return;
    }
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
