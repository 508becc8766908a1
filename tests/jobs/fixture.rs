//! What the jobs tests share: a Trustpilot-shaped site whose reviews can grow
//! at the top, fail a page or answer slowly; a server reading it; and the
//! client calls (submit, wait, read back, schedules, webhook receivers).

use std::collections::{BTreeSet, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::Query;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use serde_json::{json, Value};

use crate::common;

pub(crate) const HUB: &str = "/customer-feedback-hub/reviews";

pub(crate) const QUERY: &str = "https://www.trustpilot.com/review/jobs.example";

pub(crate) const PAGE: usize = 20;

/// When a request reached the site, and the cookie header it carried.
pub(crate) type Arrival = (Instant, Option<String>);

/// A review site: its reviews newest first, pages of 20.
#[derive(Clone, Default)]
pub(crate) struct Site {
    pub(crate) reviews: Arc<Mutex<Vec<Value>>>,
    /// Pages that answer 500 while set.
    pub(crate) failing: Arc<Mutex<BTreeSet<usize>>>,
    /// Pages that answer 503 this many more times.
    pub(crate) flaky: Arc<Mutex<HashMap<usize, usize>>>,
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
pub(crate) async fn add_schedule(s: &common::Server, cadence: Value) -> Value {
    let mut body = json!({"endpoint": HUB, "request": {"query": QUERY}});
    body.as_object_mut()
        .unwrap()
        .extend(cadence.as_object().unwrap().clone());
    let (status, schedule) = send(s, reqwest::Method::POST, "/schedules", KEY, Some(body)).await;
    assert_eq!(status, 201, "{schedule}");
    schedule
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
