//! Jobs, schedules, webhooks and `sync_cursor`, against a local
//! Trustpilot-shaped site whose reviews can grow at the top, fail a page,
//! or answer slowly (`fixture.rs`). The SIGKILL test runs the server as a
//! process; the others in the test process. Schedules, webhooks and the
//! command line have their own files.

mod cli;
mod fixture;
mod schedules;
mod webhooks;

pub(crate) use fixture::*;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common;

#[tokio::test]
async fn a_job_of_600_reviews_is_read_back_in_full_in_order() {
    let site = Site::with(600);
    let s = keyed(&site).await;
    let started = Instant::now();
    let id = submit(&s, job_request(None)).await;
    let done = finished(&s, &id, KEY, Duration::from_secs(60)).await;
    let elapsed = started.elapsed();
    assert_eq!(done["state"], "succeeded", "{done}");
    assert_eq!(done["stop_reason"], "exhausted");
    assert_eq!(done["reviews_collected"], 600);
    assert_eq!(done["pages_fetched"], 30);
    let ids = job_ids(&s, &id, KEY).await;
    assert_eq!(
        ids,
        site.ids(),
        "the source's ids, in its order, none twice"
    );
    // The same as JSON Lines.
    let r = s
        .client
        .get(s.url(&format!("/jobs/{id}/reviews")))
        .header("x-api-key", KEY)
        .header("accept", "application/x-ndjson")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "application/x-ndjson");
    let text = r.text().await.unwrap();
    assert_eq!(common::jsonl_ids(&text), ids);
    // As files: one JSON array, CSV by name or by Accept, from a cursor on.
    let export = |query: &str, accept: &str| {
        let request = s
            .client
            .get(s.url(&format!("/jobs/{id}/reviews{query}")))
            .header("x-api-key", KEY)
            .header("accept", accept);
        async move {
            let r = request.send().await.unwrap();
            let kind = r.headers()["content-type"].to_str().unwrap().to_owned();
            (r.status().as_u16(), kind, r.text().await.unwrap())
        }
    };
    let (status, kind, text) = export("?format=json", "*/*").await;
    assert_eq!((status, kind.as_str()), (200, "application/json"));
    let array: Vec<Value> = serde_json::from_str(&text).unwrap();
    let array_ids: Vec<&str> = array
        .iter()
        .map(|r| r["review_id"].as_str().unwrap())
        .collect();
    assert_eq!(array_ids, ids);
    for (query, accept) in [("?format=csv", "*/*"), ("", "text/csv")] {
        let (status, kind, text) = export(query, accept).await;
        assert_eq!((status, kind.as_str()), (200, "text/csv; charset=utf-8"));
        let mut rows = csv::Reader::from_reader(text.as_bytes());
        let header: Vec<String> = rows.headers().unwrap().iter().map(str::to_owned).collect();
        assert_eq!(header, gleaner::record::FIELDS);
        let csv_ids: Vec<String> = rows.records().map(|r| r.unwrap()[0].to_owned()).collect();
        assert_eq!(csv_ids, ids);
    }
    let path = format!("/jobs/{id}/reviews?limit=590");
    let (_, first) = send(&s, reqwest::Method::GET, &path, KEY, None).await;
    let cursor = first["next_cursor"].as_str().unwrap();
    let (_, _, text) = export(&format!("?format=ndjson&cursor={cursor}"), "*/*").await;
    assert_eq!(common::jsonl_ids(&text), ids[590..]);
    let (status, _, text) = export("?format=xml", "*/*").await;
    assert_eq!(status, 400);
    assert!(
        text.contains("`format`") && text.contains("json, ndjson, csv"),
        "{text}"
    );
    eprintln!(
        "jobs: 600 reviews over 30 pages in {:.2} s",
        elapsed.as_secs_f64()
    );

    // A job's total, past one request's maximum, and the refusals at submission.
    let (status, body) = send(
        &s,
        reqwest::Method::POST,
        "/jobs",
        KEY,
        Some(job_request(Some(250_000))),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        body["error"].as_str().unwrap().contains("job_max_reviews"),
        "{body}"
    );
    let (status, body) = send(
        &s,
        reqwest::Method::POST,
        "/jobs",
        KEY,
        Some(json!({"endpoint": "/features/review-chunk", "request": {"review_text": "x"}})),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("/customer-feedback-hub/reviews"),
        "{body}"
    );
    let (status, body) = send(
        &s,
        reqwest::Method::POST,
        "/jobs",
        KEY,
        Some(json!({"endpoint": HUB, "request": {"query": QUERY, "sort_type": "sideways"}})),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        body["error"].as_str().unwrap().contains("sort_type"),
        "the endpoint's own 400: {body}"
    );
    for list in ["/jobs?state=", "/jobs?state=done", "/jobs?limit=0"] {
        let (status, body) = send(&s, reqwest::Method::GET, list, KEY, None).await;
        assert_eq!(status, 400, "{list}: {body}");
        let error = body["error"].as_str().unwrap();
        assert!(
            error.contains("succeeded") || error.contains("limit"),
            "{list}: names the field and its values: {body}"
        );
    }
}

#[tokio::test]
async fn another_key_sees_nothing() {
    let site = Site::with(30);
    let addr = site.serve().await;
    let s = server(addr, |c| {
        c.api_keys = vec![KEY.into(), "jobs-key-two".into()]
    })
    .await;
    let job = submit(&s, job_request(None)).await;
    let schedule = add_schedule(&s, json!({"cron": "0 3 * * *", "timezone": "Europe/Paris"})).await;
    assert_eq!(schedule["cron"], "0 3 * * *", "{schedule}");
    let schedule = schedule["schedule_id"].as_str().unwrap().to_owned();
    let other = "jobs-key-two";
    for (method, path) in [
        (reqwest::Method::GET, format!("/jobs/{job}")),
        (reqwest::Method::DELETE, format!("/jobs/{job}")),
        (reqwest::Method::GET, format!("/jobs/{job}/reviews")),
        (reqwest::Method::GET, format!("/schedules/{schedule}")),
        (reqwest::Method::DELETE, format!("/schedules/{schedule}")),
        (reqwest::Method::POST, format!("/schedules/{schedule}/run")),
    ] {
        let (status, body) = send(&s, method.clone(), &path, other, None).await;
        assert_eq!(status, 404, "{method} {path}: {body}");
    }
    let (_, jobs) = send(&s, reqwest::Method::GET, "/jobs", other, None).await;
    assert_eq!(jobs["jobs"], json!([]));
    let (_, schedules) = send(&s, reqwest::Method::GET, "/schedules", other, None).await;
    assert_eq!(schedules["schedules"], json!([]));
    let (status, _) = send(&s, reqwest::Method::GET, &format!("/jobs/{job}"), KEY, None).await;
    assert_eq!(status, 200, "the owner still sees it");
    let r = s.client.get(s.url("/jobs")).send().await.unwrap();
    assert_eq!(r.status(), 401, "no key, no jobs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_jobs_at_once_run_four_at_a_time_beside_the_synchronous_api() {
    let site = Site::with(60);
    *site.delay.lock().unwrap() = Duration::from_millis(100);
    let addr = site.serve().await;
    let s = Arc::new(server(addr, |c| c.api_keys = vec![KEY.into()]).await);
    let mut ids = Vec::new();
    for _ in 0..50 {
        ids.push(submit(&s, job_request(None)).await);
    }
    let mut most = 0;
    let mut chunk_ok = 0;
    let started = Instant::now();
    loop {
        let (_, running) = send(
            &s,
            reqwest::Method::GET,
            "/jobs?state=running&limit=500",
            KEY,
            None,
        )
        .await;
        most = most.max(running["jobs"].as_array().unwrap().len());
        let (status, _) = send(
            &s,
            reqwest::Method::POST,
            "/features/review-chunk",
            KEY,
            Some(json!({"review_text": "Quick. Kind."})),
        )
        .await;
        assert_eq!(status, 200, "the synchronous API keeps answering");
        chunk_ok += 1;
        let (_, done) = send(
            &s,
            reqwest::Method::GET,
            "/jobs?state=succeeded&limit=500",
            KEY,
            None,
        )
        .await;
        if done["jobs"].as_array().unwrap().len() == 50 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the jobs did not all end"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    eprintln!("jobs: 50 jobs in {:.1} s, at most {most} running at once; {chunk_ok} synchronous requests answered meanwhile", started.elapsed().as_secs_f64());
    assert!(
        most <= 4,
        "at most jobs_concurrency jobs run at once: {most}"
    );
    assert!(most >= 2, "jobs do run side by side: {most}");
}

#[tokio::test]
async fn a_sync_cursor_returns_exactly_the_reviews_since() {
    let site = Site::with(60);
    let s = keyed(&site).await;
    let (status, first) = fetch(&s, json!({"query": QUERY, "reviews_to_fetch": 20})).await;
    assert_eq!(status, 200, "{first}");
    let cursor = first["sync_cursor"]
        .as_str()
        .expect("a newest-first answer carries a sync_cursor")
        .to_owned();
    site.add_newer(5);
    let since = site.ids()[..5].to_vec();
    let (status, next) = fetch(&s, json!({"query": QUERY, "sync_cursor": cursor})).await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(common::ids(&next), since);
    assert_eq!(next["extra_information"]["stop_reason"], "caught_up");
    assert_eq!(next["extra_information"]["complete"], true);
    // Another query, or a cursor altered, is refused.
    let (status, body) = fetch(
        &s,
        json!({"query": "https://www.trustpilot.com/review/other.example", "sync_cursor": cursor}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("sync_cursor"),
        "{body}"
    );
    let (status, _) = fetch(
        &s,
        json!({"query": QUERY, "sync_cursor": format!("{cursor}x")}),
    )
    .await;
    assert_eq!(status, 400);

    // The reviews a cursor names are taken down: the fetch still stops, at
    // the first review older than the oldest it named.
    let (_, answer) = fetch(&s, json!({"query": QUERY})).await;
    let cursor = answer["sync_cursor"].as_str().unwrap().to_owned();
    site.reviews.lock().unwrap().drain(..20);
    site.add_newer(3);
    let since = site.ids()[..3].to_vec();
    let (status, next) = fetch(&s, json!({"query": QUERY, "sync_cursor": cursor})).await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(common::ids(&next), since);
    assert_eq!(next["extra_information"]["stop_reason"], "caught_up");
}

#[tokio::test]
async fn a_cancelled_job_keeps_what_it_collected() {
    let site = Site::with(400);
    *site.delay.lock().unwrap() = Duration::from_millis(150);
    let s = keyed(&site).await;
    let id = submit(&s, job_request(None)).await;
    let started = Instant::now();
    loop {
        let (_, job) = send(&s, reqwest::Method::GET, &format!("/jobs/{id}"), KEY, None).await;
        if job["reviews_collected"].as_u64().unwrap() >= 40 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(20));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (status, _) = send(
        &s,
        reqwest::Method::DELETE,
        &format!("/jobs/{id}"),
        KEY,
        None,
    )
    .await;
    assert_eq!(status, 200);
    let done = finished(&s, &id, KEY, Duration::from_secs(20)).await;
    assert_eq!(done["state"], "cancelled", "{done}");
    let kept = job_ids(&s, &id, KEY).await;
    assert!(kept.len() >= 40 && kept.len() < 400, "{}", kept.len());
    assert_eq!(kept, site.ids()[..kept.len()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_survives_sigkill_three_times_with_every_review_once() {
    use crate::security::process::Process;
    let site = Site::with(600);
    *site.delay.lock().unwrap() = Duration::from_millis(40);
    let addr = site.serve().await;
    let data = tempfile::tempdir().unwrap();
    let env = process_env(addr, data.path());
    let get = get_keyed;
    let mut server = Process::start(&["customer-feedback-hub"], &env);
    let id = submit_to(server.url("/jobs")).await;
    // Kill points spread over the run, from a seed printed for a rerun.
    let seed = fastrand::u64(..);
    eprintln!("sigkill seed {seed}");
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut resumed_in = Vec::new();
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(rng.u64(150..500))).await;
        let before = get(server.url(&format!("/jobs/{id}"))).await;
        server.child.kill().unwrap();
        server.child.wait().unwrap();
        let killed = Instant::now();
        let pages_then = before["pages_fetched"].as_u64().unwrap_or(0);
        server = Process::start(&["customer-feedback-hub"], &env);
        loop {
            let job = get(server.url(&format!("/jobs/{id}"))).await;
            let pages = job["pages_fetched"].as_u64().unwrap_or(0);
            if pages > pages_then || job["state"] == "succeeded" {
                resumed_in.push(killed.elapsed());
                break;
            }
            assert!(
                killed.elapsed() < Duration::from_secs(60),
                "the job never resumed: {job}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    let started = Instant::now();
    let done = loop {
        let job = get(server.url(&format!("/jobs/{id}"))).await;
        if job["state"] != "running" && job["state"] != "queued" {
            break job;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{job}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(done["state"], "succeeded", "{done}");
    assert_eq!(done["reviews_collected"], 600);
    let mut ids = Vec::new();
    let mut cursor = String::new();
    loop {
        let page = get(server.url(&format!("/jobs/{id}/reviews?limit=1000&cursor={cursor}"))).await;
        for r in page["reviews"].as_array().unwrap() {
            ids.push(r["review_id"].as_str().unwrap().to_owned());
        }
        match page["next_cursor"].as_str() {
            Some(c) => cursor = c.to_owned(),
            None => break,
        }
    }
    assert_eq!(ids, site.ids(), "every review exactly once, in order");
    eprintln!(
        "jobs: SIGKILL to resumed paging: {}",
        resumed_in
            .iter()
            .map(|d| format!("{:.2} s", d.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

#[tokio::test]
async fn upstream_trouble_is_retried_and_the_job_completes() {
    let site = Site::with(100);
    // The third page answers 503 five times, then recovers: more than the
    // host's own retries of one request (two), so the job retries too.
    site.flaky.lock().unwrap().insert(3, 5);
    let s = keyed(&site).await;
    let id = submit(&s, job_request(None)).await;
    let done = finished(&s, &id, KEY, Duration::from_secs(60)).await;
    assert_eq!(done["state"], "succeeded", "{done}");
    assert_eq!(done["error"], Value::Null);
    assert_eq!(
        job_ids(&s, &id, KEY).await,
        site.ids(),
        "every review once, in order"
    );
    assert_eq!(
        site.flaky.lock().unwrap()[&3],
        0,
        "the page was asked again"
    );
}
