//! The changes section: what tracking a schedule's changes costs. The same
//! local Trustpilot-shaped upstream (pages of 20 reviews, newest first, each
//! answered after 100 ms) is scheduled untracked, tracked with the default window (200),
//! and tracked with `change_window: "all"`; each schedule's second run (the
//! site unchanged) is timed and its pages counted. Then the fingerprint
//! store's size: the jobs store after a tracked and an untracked first run
//! of 10,000 reviews.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use std::collections::HashMap;

use axum::extract::Query;
use axum::routing::get;
use axum::Router;

use crate::jobs::{server, store_bytes, wait, QUERY};
use crate::report::{self, Row};
use crate::root;

/// Reviews a page holds.
const PER_PAGE: usize = 20;

/// A Trustpilot-shaped upstream of `pages` pages of the fixture's reviews,
/// newest first (each an hour older than the one before, as a schedule's
/// sources are), each page answered after `delay`.
async fn upstream(pages: usize, delay: Duration) -> anyhow::Result<std::net::SocketAddr> {
    let reviews: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(
        root().join("plugins/customer-feedback-hub/tests/samples/trustpilot-nextdata-reviews.json"),
    )?)?;
    let page = move |p: usize| {
        let list: Vec<Value> = (0..PER_PAGE)
            .map(|i| {
                let n = p * PER_PAGE + i;
                let mut r = reviews[n % reviews.len()].clone();
                r["id"] = json!(format!("changes-{n:06}"));
                let at = 1_760_000_000 - n as i64 * 3_600;
                let day = time::OffsetDateTime::from_unix_timestamp(at)
                    .ok()
                    .and_then(|d| {
                        d.format(&time::format_description::well_known::Rfc3339)
                            .ok()
                    });
                r["dates"]["publishedDate"] = json!(day);
                r
            })
            .collect();
        let data = json!({"props": {"pageProps": {
            "businessUnit": {"displayName": "Bench", "numberOfReviews": pages * PER_PAGE},
            "reviews": list,
            "filters": {"pagination": {"totalPages": pages}}
        }}});
        format!(
            r#"<html><script id="__NEXT_DATA__" type="application/json">{data}</script></html>"#
        )
    };
    let router = Router::new().route(
        "/review/{domain}",
        get(move |Query(q): Query<HashMap<String, String>>| {
            let page = page.clone();
            async move {
                let p: usize = q
                    .get("page")
                    .and_then(|p| p.parse().ok())
                    .unwrap_or(1)
                    .max(1);
                tokio::time::sleep(delay).await;
                page(p - 1)
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(addr)
}

/// Adds a schedule of the upstream's query with `tracking` (extra fields of
/// its body) on `base`; its id.
async fn schedule(client: &reqwest::Client, base: &str, tracking: Value) -> anyhow::Result<String> {
    let mut body = json!({
        "endpoint": "/customer-feedback-hub/reviews",
        "request": {"query": QUERY},
        "every": "1d",
    });
    if let (Some(body), Some(extra)) = (body.as_object_mut(), tracking.as_object()) {
        body.extend(extra.clone());
    }
    let schedule: Value = client
        .post(format!("{base}/schedules"))
        .json(&body)
        .send()
        .await?
        .json()
        .await?;
    schedule["schedule_id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| anyhow::anyhow!("no schedule: {schedule}"))
}

/// Runs schedule `id` once to its end: the run's time and pages.
async fn run(client: &reqwest::Client, base: &str, id: &str) -> anyhow::Result<(Duration, u64)> {
    let started = Instant::now();
    let run: Value = client
        .post(format!("{base}/schedules/{id}/run"))
        .send()
        .await?
        .json()
        .await?;
    let job = run["job_id"].as_str().unwrap_or_default().to_owned();
    wait(client, base, &job).await?;
    let status: Value = client
        .get(format!("{base}/jobs/{job}"))
        .send()
        .await?
        .json()
        .await?;
    Ok((
        started.elapsed(),
        status["pages_fetched"].as_u64().unwrap_or(0),
    ))
}

/// Adds a schedule with `tracking` and runs it twice: the second run's time
/// and pages.
async fn second_run(
    client: &reqwest::Client,
    base: &str,
    tracking: Value,
) -> anyhow::Result<(Duration, u64)> {
    let id = schedule(client, base, tracking).await?;
    run(client, base, &id).await?;
    run(client, base, &id).await
}

/// Runs one schedule with `tracking` once over `pages` pages without delay:
/// the store's growth.
async fn store_growth(tracking: Value, pages: usize) -> anyhow::Result<u64> {
    let client = reqwest::Client::new();
    let fast = upstream(pages, Duration::ZERO).await?;
    let data = tempfile::tempdir()?;
    let base = server(fast, data.path(), |_| {}).await?;
    let empty = store_bytes(data.path());
    let id = schedule(&client, &base, tracking).await?;
    run(&client, &base, &id).await?;
    let db = rusqlite::Connection::open(data.path().join("jobs.sqlite3"))?;
    db.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    Ok(store_bytes(data.path()).saturating_sub(empty))
}

/// The section.
pub async fn report() -> anyhow::Result<()> {
    report::section(
        "changes",
        "A schedule's second run over an unchanged local Trustpilot-shaped upstream (50 pages of 20 \
         reviews, each page answered after 100 ms): untracked, tracked with the default window of \
         200, and tracked with change_window \"all\"; then the jobs store after a first run of 10,000 \
         reviews, tracked and not (upstream without delay).",
    );
    let client = reqwest::Client::new();
    let slow = upstream(50, Duration::from_millis(100)).await?;
    let data = tempfile::tempdir()?;
    let base = server(slow, data.path(), |_| {}).await?;
    let plain = second_run(&client, &base, json!({})).await?;
    for (what, tracking) in [
        ("untracked", None),
        ("tracked, window 200", Some(json!({"track_changes": true}))),
        (
            "tracked, window \"all\"",
            Some(json!({"track_changes": true, "change_window": "all"})),
        ),
    ] {
        let (time, pages) = match tracking {
            None => plain,
            Some(t) => second_run(&client, &base, t).await?,
        };
        report::row(Row {
            what: format!("second run, {what}"),
            value: Some(format!("{:.2} s, {pages} pages", time.as_secs_f64())),
            ratio: Some(format!(
                "{:.1}x the untracked time",
                time.as_secs_f64() / plain.0.as_secs_f64().max(1e-9)
            )),
            ..Row::default()
        });
    }
    let untracked = store_growth(json!({}), 500).await?;
    let tracked = store_growth(json!({"track_changes": true}), 500).await?;
    let mib = |b: u64| b as f64 / 1048576.0;
    report::row(Row {
        what: "jobs store after a first run of 10,000 reviews".into(),
        value: Some(format!(
            "untracked {:.1} MiB, tracked {:.1} MiB: fingerprints {:.2} MiB per 10,000 reviews",
            mib(untracked),
            mib(tracked),
            mib(tracked.saturating_sub(untracked))
        )),
        ..Row::default()
    });
    Ok(())
}
