//! The jobs section: reviews per second of one job against a local upstream
//! that answers each page after 100 ms, against the synchronous endpoint
//! followed by its continuation tokens over the same pages; and the size of
//! the jobs store per 10,000 reviews.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use axum::extract::Query;
use axum::routing::get;
use axum::Router;
use gleaner::config::Config;
use serde_json::{json, Value};

use crate::report::{self, Row};
use crate::root;

/// A Trustpilot-shaped upstream of `pages` pages, each answered after `delay`.
pub(crate) async fn upstream(
    pages: usize,
    delay: Duration,
) -> anyhow::Result<std::net::SocketAddr> {
    let reviews: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(
        root().join("plugins/customer-feedback-hub/tests/samples/trustpilot-nextdata-reviews.json"),
    )?)?;
    let router = Router::new().route(
        "/review/{domain}",
        get(move |Query(q): Query<HashMap<String, String>>| {
            let reviews = reviews.clone();
            async move {
                let page: usize = q
                    .get("page")
                    .and_then(|p| p.parse().ok())
                    .unwrap_or(1)
                    .max(1);
                tokio::time::sleep(delay).await;
                crate::paging::hub_page(&reviews, page - 1, pages, "job")
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(addr)
}

/// A server with every built plugin, its Trustpilot traffic sent to `upstream`,
/// its data in `data`, after `adjust` edits its configuration.
pub(crate) async fn server(
    upstream: std::net::SocketAddr,
    data: &std::path::Path,
    adjust: impl FnOnce(&mut Config),
) -> anyhow::Result<String> {
    let mut config = crate::local_config(data);
    adjust(&mut config);
    crate::serve_local(config, upstream).await
}

pub(crate) const QUERY: &str = "https://www.trustpilot.com/review/bench.example";

/// Runs one job to its end: its duration and review count.
async fn job(client: &reqwest::Client, base: &str) -> anyhow::Result<(Duration, u64)> {
    let started = Instant::now();
    let job: Value = client
        .post(format!("{base}/jobs"))
        .json(&json!({"endpoint": "/customer-feedback-hub/reviews", "request": {"query": QUERY}}))
        .send()
        .await?
        .json()
        .await?;
    let id = job["job_id"].as_str().unwrap_or_default();
    let reviews = wait(client, base, id).await?;
    Ok((started.elapsed(), reviews))
}

/// Waits for job `id` on `base` to succeed: the reviews it collected.
pub(crate) async fn wait(client: &reqwest::Client, base: &str, id: &str) -> anyhow::Result<u64> {
    loop {
        let job: Value = client
            .get(format!("{base}/jobs/{id}"))
            .send()
            .await?
            .json()
            .await?;
        match job["state"].as_str() {
            Some("succeeded") => return Ok(job["reviews_collected"].as_u64().unwrap_or(0)),
            Some("failed" | "cancelled") => anyhow::bail!("a bench job ended {job}"),
            _ => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// The synchronous endpoint followed by its tokens to the end: duration and count.
async fn synchronous(client: &reqwest::Client, base: &str) -> anyhow::Result<(Duration, u64)> {
    let started = Instant::now();
    let mut reviews = 0u64;
    let mut body = json!({"query": QUERY});
    loop {
        let answer: Value = client
            .post(format!("{base}/customer-feedback-hub/reviews"))
            .json(&body)
            .send()
            .await?
            .json()
            .await?;
        reviews += answer["all_reviews"].as_array().map_or(0, Vec::len) as u64;
        match answer["next_page"].as_str() {
            Some(token) => body["pagination_token"] = json!(token),
            None => return Ok((started.elapsed(), reviews)),
        }
    }
}

/// The store's size on disk: the database and its write-ahead log.
pub(crate) fn store_bytes(data: &std::path::Path) -> u64 {
    ["jobs.sqlite3", "jobs.sqlite3-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(data.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

/// The section.
pub async fn report() -> anyhow::Result<()> {
    report::section(
        "jobs",
        "One job against a local Trustpilot-shaped upstream that answers each page of 20 reviews after \
         100 ms (100 pages), against the synchronous endpoint followed by its continuation tokens over \
         the same pages; then the jobs store's size after a job of 10,000 reviews (upstream without delay).",
    );
    let client = reqwest::Client::new();
    let slow = upstream(100, Duration::from_millis(100)).await?;
    let data = tempfile::tempdir()?;
    let base = server(slow, data.path(), |_| {}).await?;
    let (job_time, job_reviews) = job(&client, &base).await?;
    let (sync_time, sync_reviews) = synchronous(&client, &base).await?;
    let rate = |n: u64, d: Duration| n as f64 / d.as_secs_f64();
    report::row(Row {
        what: format!("job, {job_reviews} reviews, 100 ms a page"),
        value: Some(format!(
            "{:.1} s, {:.0} reviews/s",
            job_time.as_secs_f64(),
            rate(job_reviews, job_time)
        )),
        ..Row::default()
    });
    report::row(Row {
        what: format!("synchronous endpoint and its tokens, {sync_reviews} reviews"),
        value: Some(format!(
            "{:.1} s, {:.0} reviews/s",
            sync_time.as_secs_f64(),
            rate(sync_reviews, sync_time)
        )),
        ratio: Some(format!(
            "job / synchronous: {:.2}x the rate",
            rate(job_reviews, job_time) / rate(sync_reviews, sync_time)
        )),
        ..Row::default()
    });

    let fast = upstream(500, Duration::ZERO).await?;
    let data = tempfile::tempdir()?;
    let base = server(fast, data.path(), |_| {}).await?;
    let empty = store_bytes(data.path());
    let (_, stored) = job(&client, &base).await?;
    // Fold the write-ahead log into the database before measuring it.
    let db = rusqlite::Connection::open(data.path().join("jobs.sqlite3"))?;
    db.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    let used = store_bytes(data.path()).saturating_sub(empty);
    report::row(Row {
        what: format!("jobs store after a job of {stored} reviews"),
        value: Some(format!(
            "{:.1} MiB, {:.1} MiB per 10,000 reviews",
            used as f64 / 1048576.0,
            used as f64 / 1048576.0 * 10_000.0 / stored.max(1) as f64
        )),
        ..Row::default()
    });
    Ok(())
}
