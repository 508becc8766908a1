//! Jobs, schedules, webhooks and `sync_cursor`, against a local
//! Trustpilot-shaped site whose reviews can grow at the top, fail a page,
//! or answer slowly. The SIGKILL test runs the server as a process; the
//! others in the test process.

use std::collections::{BTreeSet, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::Query;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::common;

pub(crate) const HUB: &str = "/customer-feedback-hub/reviews";
pub(crate) const QUERY: &str = "https://www.trustpilot.com/review/jobs.example";
const PAGE: usize = 20;

/// When a request reached the site, and the cookie header it carried.
pub(crate) type Arrival = (Instant, Option<String>);

/// A review site: its reviews newest first, pages of 20.
#[derive(Clone, Default)]
pub(crate) struct Site {
    pub(crate) reviews: Arc<Mutex<Vec<Value>>>,
    /// Pages that answer 500 while set.
    failing: Arc<Mutex<BTreeSet<usize>>>,
    /// Pages that answer 503 this many more times.
    flaky: Arc<Mutex<HashMap<usize, usize>>>,
    pub(crate) delay: Arc<Mutex<Duration>>,
    made: Arc<AtomicUsize>,
    /// When each request arrived, and the session cookie it carried.
    pub(crate) arrivals: Arc<Mutex<Vec<Arrival>>>,
    /// While set, every page is a Cloudflare challenge.
    pub(crate) walled: Arc<std::sync::atomic::AtomicBool>,
}

impl Site {
    pub(crate) fn with(n: usize) -> Site {
        let site = Site::default();
        site.add_older(n);
        site
    }

    fn review(&self, i: usize) -> Value {
        let template = &common::trustpilot_pages()[0][0];
        let mut r = template.clone();
        r["id"] = json!(format!("rev-{i:06}"));
        r["text"] = json!(format!("Review number {i}. Fine service."));
        r["title"] = json!(format!("Review {i}"));
        // Later reviews are newer: six hours apart.
        let at = 1_700_000_000 + (i as i64 - 1_000_000) * 6 * 3_600;
        let date = time::OffsetDateTime::from_unix_timestamp(at).unwrap();
        let text = date
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap();
        r["dates"]["publishedDate"] = json!(text);
        r
    }

    /// Adds `n` reviews older than every present one (at the end).
    fn add_older(&self, n: usize) {
        let mut all = self.reviews.lock().unwrap();
        for _ in 0..n {
            let i = 1_000_000 - self.made.fetch_add(1, Ordering::Relaxed);
            let review = self.review(i);
            all.push(review);
        }
    }

    /// Adds `n` reviews newer than every present one (at the top).
    pub(crate) fn add_newer(&self, n: usize) {
        let mut all = self.reviews.lock().unwrap();
        for _ in 0..n {
            let i = 1_000_000 + self.made.fetch_add(1, Ordering::Relaxed);
            all.insert(0, self.review(i));
        }
    }

    pub(crate) fn ids(&self) -> Vec<String> {
        let all = self.reviews.lock().unwrap();
        all.iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect()
    }

    pub(crate) async fn serve(&self) -> SocketAddr {
        let site = self.clone();
        let router = axum::Router::new().route(
            "/review/{domain}",
            axum::routing::get(
                move |Query(q): Query<HashMap<String, String>>, headers: HeaderMap| {
                    let site = site.clone();
                    async move {
                        let cookie = headers
                            .get("cookie")
                            .and_then(|c| c.to_str().ok())
                            .map(str::to_owned);
                        let first_visit = cookie.is_none();
                        site.arrivals.lock().unwrap().push((Instant::now(), cookie));
                        if site.walled.load(Ordering::Relaxed) {
                            return (
                                StatusCode::FORBIDDEN,
                                [("cf-mitigated", "challenge")],
                                "<html><title>Just a moment...</title></html>",
                            )
                                .into_response();
                        }
                        let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
                        let delay = *site.delay.lock().unwrap();
                        tokio::time::sleep(delay).await;
                        let flaky = site.flaky.lock().unwrap().get_mut(&page).map(|left| {
                            let was = *left;
                            *left = was.saturating_sub(1);
                            was
                        });
                        if flaky.is_some_and(|was| was > 0) {
                            return (StatusCode::SERVICE_UNAVAILABLE, "busy").into_response();
                        }
                        if site.failing.lock().unwrap().contains(&page) {
                            return (StatusCode::INTERNAL_SERVER_ERROR, "down").into_response();
                        }
                        let all = site.reviews.lock().unwrap().clone();
                        let pages = all.len().div_ceil(PAGE).max(1);
                        let slice: Vec<Value> = all
                            .iter()
                            .skip((page - 1) * PAGE)
                            .take(PAGE)
                            .cloned()
                            .collect();
                        let html = common::trustpilot_html(&slice, pages as u64);
                        if first_visit {
                            // A visitor cookie, as real sites set on a first visit.
                            let n = site.arrivals.lock().unwrap().len();
                            let visitor = format!("sid=v{n}; Path=/");
                            return (StatusCode::OK, [("set-cookie", visitor)], html)
                                .into_response();
                        }
                        (StatusCode::OK, html).into_response()
                    }
                },
            ),
        );
        common::upstream(router).await
    }
}

pub(crate) async fn server(
    site: SocketAddr,
    adjust: impl FnOnce(&mut gleaner::config::Config),
) -> common::Server {
    common::start(&["customer-feedback-hub", "review-chunk"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert("www.trustpilot.com".into(), format!("http://{site}"));
        adjust(c);
    })
    .await
}

pub(crate) async fn send(
    s: &common::Server,
    method: reqwest::Method,
    path: &str,
    key: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = s
        .client
        .request(method, s.url(path))
        .header("x-api-key", key);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

pub(crate) const KEY: &str = "jobs-key-one";

/// A server for `site` that takes [`KEY`].
pub(crate) async fn keyed(site: &Site) -> common::Server {
    server(site.serve().await, |c| c.api_keys = vec![KEY.into()]).await
}

/// A server for `site` that takes each of `keys`.
pub(crate) async fn server_with_keys(site: &Site, keys: &[&str]) -> common::Server {
    let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    server(site.serve().await, move |c| c.api_keys = keys).await
}

/// A synchronous fetch from the source endpoint.
pub(crate) async fn fetch(s: &common::Server, body: Value) -> (u16, Value) {
    send(s, reqwest::Method::POST, HUB, KEY, Some(body)).await
}

/// What a webhook receiver got: each delivery's headers and body.
pub(crate) type Deliveries = Arc<Mutex<Vec<(HeaderMap, String)>>>;

/// A webhook receiver at `/hook` that keeps every delivery and answers the
/// n-th (from 1) with `answer(n)`; its address and what it got.
pub(crate) async fn receiver(
    answer: impl Fn(usize) -> StatusCode + Clone + Send + Sync + 'static,
) -> (SocketAddr, Deliveries) {
    let seen: Deliveries = Arc::default();
    let keep = seen.clone();
    let addr = common::upstream(axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let (keep, answer) = (keep.clone(), answer.clone());
            async move {
                let mut all = keep.lock().unwrap();
                all.push((headers, body));
                answer(all.len())
            }
        }),
    ))
    .await;
    (addr, seen)
}

/// Submits a job; its id, once it is accepted.
pub(crate) async fn submit(s: &common::Server, body: Value) -> String {
    submit_as(s, KEY, body).await
}

/// Submits a job with API key `key`; its id, once it is accepted.
pub(crate) async fn submit_as(s: &common::Server, key: &str, body: Value) -> String {
    let (status, job) = send(s, reqwest::Method::POST, "/jobs", key, Some(body)).await;
    assert_eq!(status, 202, "{job}");
    job["job_id"].as_str().unwrap().to_owned()
}

/// Adds a schedule of the site's query with `cadence` (every, or cron and
/// timezone); the schedule.
async fn add_schedule(s: &common::Server, cadence: Value) -> Value {
    let mut body = json!({"endpoint": HUB, "request": {"query": QUERY}});
    body.as_object_mut()
        .unwrap()
        .extend(cadence.as_object().unwrap().clone());
    let (status, schedule) = send(s, reqwest::Method::POST, "/schedules", KEY, Some(body)).await;
    assert_eq!(status, 201, "{schedule}");
    schedule
}

/// `GET /schedules` lists a page at a time, oldest first, `next_after`
/// leading to the next; another key's schedule is no anchor.
#[tokio::test]
async fn schedules_list_a_page_at_a_time() {
    let site = Site::with(5);
    let s = server_with_keys(&site, &[KEY, "another-key-of-at-least-16"]).await;
    let mut made = Vec::new();
    for _ in 0..3 {
        let schedule = add_schedule(&s, json!({"every": "1h"})).await;
        made.push(schedule["schedule_id"].as_str().unwrap().to_owned());
        // Created in the same millisecond, two would list by id instead.
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
    let ids = |page: &Value| -> Vec<String> {
        let listed = page["schedules"].as_array().unwrap();
        listed
            .iter()
            .map(|s| s["schedule_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let (status, first) = send(&s, reqwest::Method::GET, "/schedules?limit=2", KEY, None).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(ids(&first), made[..2]);
    let after = first["next_after"].as_str().unwrap();
    let path = format!("/schedules?limit=2&after={after}");
    let (_, rest) = send(&s, reqwest::Method::GET, &path, KEY, None).await;
    assert_eq!(ids(&rest), made[2..]);
    assert!(rest["next_after"].is_null(), "{rest}");
    let (_, all) = send(&s, reqwest::Method::GET, "/schedules", KEY, None).await;
    assert_eq!(ids(&all), made, "the default page holds them all");
    let path = format!("/schedules?after={}", made[0]);
    let other = "another-key-of-at-least-16";
    let (status, answer) = send(&s, reqwest::Method::GET, &path, other, None).await;
    assert_eq!(status, 400, "another key's schedule as anchor: {answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("`after`"),
        "{answer}"
    );
    for bad in [
        "/schedules?limit=0",
        "/schedules?limit=501",
        "/schedules?page=2",
    ] {
        let (status, answer) = send(&s, reqwest::Method::GET, bad, KEY, None).await;
        assert_eq!(status, 400, "{bad}: {answer}");
    }
}

/// Waits for a job to end; its status.
pub(crate) async fn finished(s: &common::Server, id: &str, key: &str, within: Duration) -> Value {
    let started = Instant::now();
    loop {
        let (_, job) = send(s, reqwest::Method::GET, &format!("/jobs/{id}"), key, None).await;
        if matches!(
            job["state"].as_str(),
            Some("succeeded" | "failed" | "cancelled")
        ) {
            return job;
        }
        assert!(started.elapsed() < within, "job {id} did not end: {job}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Every review id of a job, read page by page.
pub(crate) async fn job_ids(s: &common::Server, id: &str, key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor = String::new();
    loop {
        let path = format!("/jobs/{id}/reviews?limit=137&cursor={cursor}");
        let (status, page) = send(s, reqwest::Method::GET, &path, key, None).await;
        assert_eq!(status, 200, "{page}");
        for r in page["reviews"].as_array().unwrap() {
            out.push(r["review_id"].as_str().unwrap().to_owned());
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => return out,
        }
    }
}

/// `GET url` with [`KEY`], as JSON: for a server run as a process.
pub(crate) async fn get_keyed(url: String) -> Value {
    let r = reqwest::Client::new()
        .get(url)
        .header("x-api-key", KEY)
        .send()
        .await
        .unwrap();
    r.json().await.unwrap()
}

/// Submits [`job_request`]`(None)` to `url` (a process's `/jobs`) with
/// [`KEY`]; the job's id.
pub(crate) async fn submit_to(url: String) -> String {
    submit_body_to(url, &job_request(None)).await
}

/// Submits the job `body` to `url` (a process's `/jobs`) with [`KEY`]; the
/// job's id.
pub(crate) async fn submit_body_to(url: String, body: &Value) -> String {
    let r = reqwest::Client::new()
        .post(url)
        .header("x-api-key", KEY)
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    r.json::<Value>().await.unwrap()["job_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The environment of a server process that keeps its jobs in `data`, takes
/// [`KEY`] and reads the site at `addr` as Trustpilot.
pub(crate) fn process_env(
    addr: std::net::SocketAddr,
    data: &std::path::Path,
) -> [(&'static str, String); 4] {
    [
        ("GLEANER_DATA_DIR", data.display().to_string()),
        (
            "GLEANER_TOKEN_SECRET",
            "a-token-secret-of-at-least-32-bytes!!".to_owned(),
        ),
        (
            "GLEANER_UPSTREAM_OVERRIDE",
            format!("www.trustpilot.com=http://{addr}"),
        ),
        ("GLEANER_API_KEYS", KEY.to_owned()),
    ]
}

pub(crate) fn job_request(total: Option<u64>) -> Value {
    let mut request = json!({"query": QUERY});
    if let Some(t) = total {
        request["reviews_to_fetch"] = json!(t);
    }
    json!({"endpoint": HUB, "request": request})
}

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
async fn a_webhook_is_retried_until_answered_and_signed() {
    let site = Site::with(30);
    let addr = site.serve().await;
    let (receiver, seen) = receiver(|n| match n < 3 {
        true => StatusCode::INTERNAL_SERVER_ERROR,
        false => StatusCode::OK,
    })
    .await;
    let s = server(addr, move |c| {
        c.api_keys = vec![KEY.into()];
        c.webhook_retry_base_ms = 100;
        c.upstream_override
            .insert("hooks.example".into(), format!("http://{receiver}"));
    })
    .await;
    let secret = "the-receiver-secret-0123";
    let mut body = job_request(None);
    body["webhook"] = json!({"url": "http://hooks.example/hook", "secret": secret});
    let (status, job) = send(&s, reqwest::Method::POST, "/jobs", KEY, Some(body)).await;
    assert_eq!(status, 202, "{job}");
    let id = job["job_id"].as_str().unwrap().to_owned();
    finished(&s, &id, KEY, Duration::from_secs(30)).await;
    let started = Instant::now();
    let status = loop {
        let (_, job) = send(&s, reqwest::Method::GET, &format!("/jobs/{id}"), KEY, None).await;
        if job["webhook"]["delivered_at"].is_string() {
            break job;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never delivered: {job}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status["webhook"]["attempts"], 3, "{status}");
    assert_eq!(status["webhook"]["last_status"], 200);
    let deliveries = seen.lock().unwrap().clone();
    assert_eq!(deliveries.len(), 3);
    let (headers, raw) = &deliveries[2];
    let event: Value = serde_json::from_str(raw).unwrap();
    assert_eq!(event["event"], "job.succeeded");
    assert_eq!(event["job"]["job_id"], id.as_str());
    assert_eq!(event["job"]["reviews_collected"], 30);
    // The signature, checked with this test's own HMAC code.
    let header = headers["gleaner-signature"].to_str().unwrap();
    let (t, v1) = header.split_once(',').unwrap();
    let t = t.strip_prefix("t=").unwrap();
    let v1 = v1.strip_prefix("v1=").unwrap();
    let delivery = headers["gleaner-delivery-id"].to_str().unwrap();
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{delivery}.{raw}").as_bytes());
    assert_eq!(v1, hex::encode(mac.finalize().into_bytes()));
    // Every attempt of one delivery carries the same id.
    for (other, _) in &deliveries[..2] {
        assert_eq!(other["gleaner-delivery-id"], delivery);
    }
    let age = gleaner::jobs::model::now_ms() / 1000 - t.parse::<i64>().unwrap();
    assert!((0..300).contains(&age), "a fresh timestamp: {age} s");
}

#[tokio::test]
async fn a_webhook_on_a_private_address_is_refused_at_submission() {
    let site = Site::with(1);
    let s = keyed(&site).await;
    for url in [
        "http://127.0.0.1:9/hook",
        "http://10.0.0.1/hook",
        "http://169.254.169.254/latest",
        "http://localhost/hook",
        "ftp://example.com/",
    ] {
        let mut body = job_request(None);
        body["webhook"] = json!({"url": url, "secret": "0123456789abcdef0123"});
        let (status, answer) = send(&s, reqwest::Method::POST, "/jobs", KEY, Some(body)).await;
        assert_eq!(status, 400, "{url}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains("webhook.url"),
            "{url}: {answer}"
        );
    }
}

/// With private receivers allowed, loopback webhooks are taken; link-local
/// ones (cloud metadata) never are. (Private ranges are checked by the guard's
/// unit tests: no test sends anything to an address off this machine.)
#[tokio::test]
async fn allowing_private_receivers_takes_loopback_but_never_link_local() {
    let site = Site::with(1);
    let s = server(site.serve().await, |c| {
        c.api_keys = vec![KEY.into()];
        c.webhook_allow_private = true;
    })
    .await;
    for (url, wanted) in [
        ("http://127.0.0.1:9/hook", 202),
        ("http://localhost:9/hook", 202),
        ("http://169.254.169.254/latest", 400),
    ] {
        let mut body = job_request(None);
        body["webhook"] = json!({"url": url, "secret": "0123456789abcdef0123"});
        let (status, answer) = send(&s, reqwest::Method::POST, "/jobs", KEY, Some(body)).await;
        assert_eq!(status, wanted, "{url}: {answer}");
    }
}

/// Runs a schedule once and waits for its job; the job's status and review ids.
pub(crate) async fn run_once(s: &common::Server, schedule: &str) -> (Value, Vec<String>) {
    let (status, job) = send(
        s,
        reqwest::Method::POST,
        &format!("/schedules/{schedule}/run"),
        KEY,
        None,
    )
    .await;
    assert_eq!(status, 202, "{job}");
    let id = job["job_id"].as_str().unwrap().to_owned();
    let done = finished(s, &id, KEY, Duration::from_secs(60)).await;
    let ids = job_ids(s, &id, KEY).await;
    (done, ids)
}

#[tokio::test]
async fn a_schedule_delivers_only_new_reviews() {
    let site = Site::with(600);
    let s = keyed(&site).await;
    let schedule = add_schedule(&s, json!({"every": "1d"})).await;
    assert_eq!(schedule["every"], "1d");
    let id = schedule["schedule_id"].as_str().unwrap().to_owned();
    let mut delivered = Vec::new();
    let mut all_ids = Vec::new();
    for added in [0usize, 5, 0, 12] {
        site.add_newer(added);
        let before = site.ids();
        let (job, ids) = run_once(&s, &id).await;
        assert_eq!(job["state"], "succeeded", "{job}");
        if !delivered.is_empty() {
            assert_eq!(ids, before[..added], "exactly the new ones, newest first");
            assert!(
                job["pages_fetched"].as_u64().unwrap() <= 2,
                "a caught-up run reads a page or two: {job}"
            );
        }
        delivered.push(ids.len());
        all_ids.extend(ids);
    }
    assert_eq!(delivered, [600, 5, 0, 12]);
    let distinct: BTreeSet<_> = all_ids.iter().collect();
    assert_eq!(distinct.len(), all_ids.len(), "none twice");
    let (_, schedule) = send(
        &s,
        reqwest::Method::GET,
        &format!("/schedules/{id}"),
        KEY,
        None,
    )
    .await;
    assert_eq!(schedule["runs"], 4);
    assert_eq!(schedule["reviews_delivered"], 617);
}

#[tokio::test]
async fn a_run_that_fails_halfway_leaves_the_rest_to_the_next() {
    let site = Site::with(100);
    let addr = site.serve().await;
    let s = server(addr, |c| {
        c.api_keys = vec![KEY.into()];
        // A short budget, so the failing run gives up soon.
        c.job_max_duration_secs = 3;
    })
    .await;
    let schedule = add_schedule(&s, json!({"every": "1d"})).await;
    let id = schedule["schedule_id"].as_str().unwrap().to_owned();
    let first_ids = site.ids();
    site.failing.lock().unwrap().insert(3);
    let (job, ids) = run_once(&s, &id).await;
    assert_eq!(job["state"], "failed", "{job}");
    assert_eq!(ids, first_ids[..40], "it delivered what it collected");
    site.failing.lock().unwrap().clear();
    site.add_newer(5);
    let now = site.ids();
    let (job, ids) = run_once(&s, &id).await;
    assert_eq!(job["state"], "succeeded", "{job}");
    let mut expected: Vec<String> = now[..5].to_vec();
    expected.extend(first_ids[40..].iter().cloned());
    assert_eq!(
        ids, expected,
        "the new ones and the missing ones, none twice"
    );
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

#[tokio::test]
async fn a_run_is_skipped_while_the_previous_one_is_going() {
    let site = Site::with(200);
    *site.delay.lock().unwrap() = Duration::from_millis(400);
    let s = keyed(&site).await;
    let schedule = add_schedule(&s, json!({"every": "1h"})).await;
    let id = schedule["schedule_id"].as_str().unwrap().to_owned();
    let run = format!("/schedules/{id}/run");
    let (status, job) = send(&s, reqwest::Method::POST, &run, KEY, None).await;
    assert_eq!(status, 202, "{job}");
    let (status, body) = send(&s, reqwest::Method::POST, &run, KEY, None).await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("still going"),
        "{body}"
    );
    let (_, schedule) = send(
        &s,
        reqwest::Method::GET,
        &format!("/schedules/{id}"),
        KEY,
        None,
    )
    .await;
    assert_eq!(schedule["skipped_runs"], 1, "{schedule}");
    assert_eq!(schedule["last_job_id"], job["job_id"], "{schedule}");
    let job = job["job_id"].as_str().unwrap();
    let done = finished(&s, job, KEY, Duration::from_secs(60)).await;
    assert_eq!(done["reviews_collected"], 200, "{done}");
    let (status, _) = send(&s, reqwest::Method::POST, &run, KEY, None).await;
    assert_eq!(status, 202, "once it ended, the next run starts");
}

/// Runs the `gleaner` binary against `s` with `args`; its exit status,
/// stdout and stderr.
async fn cli(s: &common::Server, args: &[&str]) -> (bool, String, String) {
    let mut command = std::process::Command::new(crate::common::server_binary());
    command
        .args(args)
        .env("GLEANER_SERVER", s.url(""))
        .env("GLEANER_API_KEY", KEY);
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_submits_follows_and_reads_jobs_and_schedules() {
    let site = Site::with(45);
    let s = keyed(&site).await;
    let (ok, out, err) = cli(&s, &["jobs", "submit", HUB, "--query", QUERY, "--wait"]).await;
    assert!(ok, "{out}\n{err}");
    let job: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(job["state"], "succeeded", "{out}");
    assert!(
        err.contains("succeeded: 45 reviews"),
        "the end is reported: {err}"
    );
    let id = job["job_id"].as_str().unwrap();

    let (ok, out, err) = cli(&s, &["jobs", "reviews", id, "--format", "jsonl"]).await;
    assert!(ok, "{err}");
    assert_eq!(common::jsonl_ids(&out), site.ids());
    let (ok, out, _) = cli(&s, &["jobs", "reviews", id, "--format", "csv"]).await;
    assert!(ok);
    let mut rows = csv::Reader::from_reader(out.as_bytes());
    assert_eq!(rows.records().count(), 45);
    let (ok, out, _) = cli(&s, &["jobs", "list", "--state", "succeeded"]).await;
    assert!(ok);
    assert!(out.contains(id), "{out}");
    let (ok, _, err) = cli(&s, &["jobs", "status", "no-such-job"]).await;
    assert!(!ok);
    assert!(err.contains("404") || err.contains("no job"), "{err}");

    let (ok, out, err) = cli(
        &s,
        &["schedules", "add", HUB, "--query", QUERY, "--every", "1d"],
    )
    .await;
    assert!(ok, "{err}");
    let schedule: Value = serde_json::from_str(&out).unwrap();
    let sid = schedule["schedule_id"].as_str().unwrap();
    site.add_newer(2);
    let (ok, out, err) = cli(&s, &["schedules", "run", sid, "--wait"]).await;
    assert!(ok, "{out}\n{err}");
    let run: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        run["reviews_collected"], 47,
        "the first run delivers everything: {run}"
    );
    let (ok, out, _) = cli(&s, &["schedules", "list"]).await;
    assert!(ok && out.contains(sid), "{out}");
    let (ok, _, err) = cli(&s, &["schedules", "remove", sid]).await;
    assert!(ok, "{err}");
    let (_, out, _) = cli(&s, &["schedules", "list"]).await;
    assert!(!out.contains(sid), "{out}");
}
