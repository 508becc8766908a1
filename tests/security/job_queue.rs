//! The job queue under a flood: a job's request is at most 16 KiB and a key
//! holds at most `max_queued_jobs_per_key` unfinished jobs; the dispatcher
//! reads only the jobs it can run, so 1,000 of the largest jobs the server
//! takes leave its memory near idle; and keys take turns, so another key's
//! job is not held up behind one key's backlog.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::common;
use super::process::{PeakRss, Process};
use crate::jobs::{finished, job_request, send, server, submit, submit_as, Site, HUB, KEY, QUERY};

pub(crate) const OTHER: &str = "jobs-key-two";

/// A job whose request is about `bytes` long as JSON, padded in the query's
/// fragment (which never reaches the site).
fn padded_job(bytes: usize) -> Value {
    let pad = "p".repeat(bytes.saturating_sub(64));
    json!({"endpoint": HUB, "request": {"query": format!("{QUERY}#{pad}")}})
}

#[tokio::test]
async fn a_jobs_request_is_at_most_16_kib() {
    let site = Site::with(5);
    let s = server(site.serve().await, |c| c.api_keys = vec![KEY.into()]).await;
    let (status, answer) = send(
        &s,
        reqwest::Method::POST,
        "/jobs",
        KEY,
        Some(padded_job(17 * 1024)),
    )
    .await;
    assert_eq!(status, 413, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("16384"),
        "{answer}"
    );
    let (status, answer) = send(
        &s,
        reqwest::Method::POST,
        "/jobs",
        KEY,
        Some(padded_job(15 * 1024)),
    )
    .await;
    assert_eq!(status, 202, "{answer}");
}

#[tokio::test]
async fn a_key_holds_at_most_its_share_of_unfinished_jobs() {
    let site = Site::with(5);
    *site.delay.lock().unwrap() = Duration::from_secs(5);
    let s = server(site.serve().await, |c| {
        c.api_keys = vec![KEY.into(), OTHER.into()];
        c.max_queued_jobs_per_key = 3;
    })
    .await;
    for _ in 0..3 {
        submit(&s, job_request(None)).await;
    }
    let r = s
        .client
        .post(s.url("/jobs"))
        .header("x-api-key", KEY)
        .json(&job_request(None))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    let answer: Value = r.json().await.unwrap();
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("max_queued_jobs_per_key"),
        "{answer}"
    );
    let (status, job) = send(
        &s,
        reqwest::Method::POST,
        "/jobs",
        OTHER,
        Some(job_request(None)),
    )
    .await;
    assert_eq!(status, 202, "another key has its own share: {job}");
}

/// Keys take turns: with one key's 500 jobs queued, another key's job ends
/// within three times the time it takes alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_keys_job_is_not_held_up_behind_a_backlog() {
    let site = Site::with(5);
    // Pages slow enough that the server's own overhead is small beside them.
    *site.delay.lock().unwrap() = Duration::from_millis(300);
    let s = server(site.serve().await, |c| {
        c.api_keys = vec![KEY.into(), OTHER.into()];
    })
    .await;
    assert_turns_taken(&s).await;
}

/// Times a job of [`OTHER`] on `s` alone, then behind 500 jobs of [`KEY`],
/// and asserts the second takes at most three times the first.
pub(crate) async fn assert_turns_taken(s: &common::Server) {
    let timed = |key: &'static str| async move {
        let started = Instant::now();
        let id = submit_as(s, key, job_request(None)).await;
        let done = finished(s, &id, key, Duration::from_secs(120)).await;
        assert_eq!(done["state"], "succeeded", "{done}");
        started.elapsed()
    };
    let alone = timed(OTHER).await;
    for _ in 0..500 {
        submit(s, job_request(None)).await;
    }
    let behind = timed(OTHER).await;
    eprintln!(
        "another key's job: {} ms alone, {} ms with 500 of one key's jobs queued",
        alone.as_millis(),
        behind.as_millis()
    );
    assert!(
        behind <= alone * 3,
        "{behind:?} behind a backlog against {alone:?} alone"
    );
}

/// 1,000 of the largest jobs the server takes, queued and run: its memory
/// stays within 100 MB of idle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_maximal_jobs_leave_memory_near_idle() {
    let site = Site::with(5);
    let addr = site.serve().await;
    let server = Process::start(
        &["customer-feedback-hub"],
        &[
            ("GLEANER_API_KEYS", KEY.into()),
            (
                "GLEANER_UPSTREAM_OVERRIDE",
                format!("www.trustpilot.com=http://{addr}"),
            ),
        ],
    );
    let client = reqwest::Client::new();
    let submit = |body: Value| {
        let (client, url) = (client.clone(), server.url("/jobs"));
        async move {
            let r = client
                .post(url)
                .header("x-api-key", KEY)
                .json(&body)
                .send()
                .await
                .unwrap();
            r.status().as_u16()
        }
    };
    // The largest request the server takes: nearly its whole body limit
    // where nothing smaller bounds it, else just under the job request limit.
    let mut size = 0;
    for candidate in [900 * 1024, 16 * 1024 - 256] {
        if submit(padded_job(candidate)).await == 202 {
            size = candidate;
            break;
        }
    }
    assert!(size > 0, "no padded job was taken");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle = server.rss_mib();
    let peak_rss = PeakRss::sample(server.child.id(), Duration::from_millis(20));
    let mut accepted = 0;
    for _ in 0..1_000 {
        if submit(padded_job(size)).await == 202 {
            accepted += 1;
        }
    }
    let started = Instant::now();
    loop {
        let list = client
            .get(server.url("/jobs?state=queued&limit=1"))
            .header("x-api-key", KEY)
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap();
        if list["jobs"].as_array().is_some_and(|j| j.is_empty()) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the queue never drained"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let peak = peak_rss.stop();
    eprintln!(
        "{accepted} jobs of {size} bytes: idle {idle:.0} MiB, peak {peak:.0} MiB (+{:.0})",
        peak - idle
    );
    assert!(
        peak - idle < 100.0,
        "memory grew from {idle:.0} MiB to {peak:.0} MiB with {accepted} jobs queued"
    );
}
