//! The paging section: fetch time against page count, the host fetching pages
//! one at a time against fetching them concurrently.
//!
//! A local Trustpilot-shaped upstream answers each page after a fixed delay,
//! 50 pages of 20 reviews, and customer-feedback-hub (which lists the pages it
//! can enumerate) fetches them through the real server: once with a per-host
//! concurrency of 8 and once with 1 (one page at a time, as a cursor chain or
//! a host without fetching ahead would). The figure is the fetch time over the
//! latency bound, 1 + ceil((pages - 1) / width) round trips.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use axum::extract::Query;
use axum::routing::get;
use axum::Router;
use gleaner::config::Config;
use serde_json::{json, Value};

use crate::report::{self, Summary};
use crate::root;

/// Pages the upstream serves.
const PAGES: usize = 50;
/// Reviews a page.
const PER_PAGE: usize = 20;
/// The upstream's delay before each answer.
const DELAY: Duration = Duration::from_millis(100);
/// The concurrent host's per-host concurrency.
const WIDTH: usize = 8;
/// The page counts measured.
const COUNTS: [usize; 8] = [1, 2, 5, 10, 20, 30, 40, PAGES];

/// The round trips a fetch of `pages` needs at best, `width` at a time after the first.
fn round_trips(pages: usize, width: usize) -> usize {
    1 + (pages - 1).div_ceil(width)
}

/// Page `p` (0-based) of a Trustpilot-shaped item of `pages` pages of
/// `PER_PAGE`: the fixture's review objects in turn, with ids naming the page.
pub(crate) fn hub_page(reviews: &[Value], p: usize, pages: usize, prefix: &str) -> String {
    let list: Vec<Value> = (0..PER_PAGE)
        .map(|i| {
            let mut r = reviews[(p * PER_PAGE + i) % reviews.len()].clone();
            r["id"] = json!(format!("{prefix}-{p:05}-{i:02}"));
            r
        })
        .collect();
    let data = json!({"props": {"pageProps": {
        "businessUnit": {"displayName": "Bench", "numberOfReviews": pages * PER_PAGE},
        "reviews": list,
        "filters": {"pagination": {"totalPages": pages}}
    }}});
    format!(r#"<html><script id="__NEXT_DATA__" type="application/json">{data}</script></html>"#)
}

/// Serves page `page` (1-based) of `PAGES`, each after `DELAY`: the real review
/// objects of the customer-feedback-hub fixture, with ids of their page.
async fn upstream() -> anyhow::Result<std::net::SocketAddr> {
    let reviews: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(
        root().join("plugins/customer-feedback-hub/tests/samples/trustpilot-nextdata-reviews.json"),
    )?)?;
    let pages: Vec<String> = (0..PAGES)
        .map(|p| hub_page(&reviews, p, PAGES, "bench"))
        .collect();
    let router = Router::new().route(
        "/review/{domain}",
        get(move |Query(q): Query<HashMap<String, String>>| {
            let pages = pages.clone();
            async move {
                let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
                tokio::time::sleep(DELAY).await;
                pages[page.clamp(1, PAGES) - 1].clone()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(addr)
}

/// A plugin directory holding customer-feedback-hub with `width` as its
/// upstream concurrency.
fn plugin_dir(width: usize) -> anyhow::Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    let staged = crate::staged_plugins();
    let manifest = std::fs::read_to_string(staged.join("customer-feedback-hub.toml"))?;
    let manifest: Vec<String> = manifest
        .lines()
        .map(|line| {
            if line.trim_start().starts_with("upstream_concurrency") {
                format!("upstream_concurrency = {width}")
            } else {
                line.to_owned()
            }
        })
        .collect();
    std::fs::write(
        dir.path().join("customer-feedback-hub.toml"),
        manifest.join("\n"),
    )?;
    std::fs::copy(
        staged.join("customer-feedback-hub.wasm"),
        dir.path().join("customer-feedback-hub.wasm"),
    )?;
    Ok(dir)
}

/// A server with that plugin, its upstream overridden to the local one.
async fn server(
    width: usize,
    upstream: std::net::SocketAddr,
    cache: &Path,
) -> anyhow::Result<(String, tempfile::TempDir)> {
    let dir = plugin_dir(width)?;
    let config = Config {
        addr: "127.0.0.1:0".parse()?,
        plugin_dir: dir.path().to_owned(),
        cache_dir: Some(cache.to_owned()),
        data_dir: crate::bench_dir().join("data"),
        watch: false,
        fetch_budget_ms: 120_000,
        ..Config::default()
    };
    let base = crate::serve_local(config, upstream).await?;
    Ok((format!("{base}/customer-feedback-hub/reviews"), dir))
}

/// Fetch times of `pages` pages over `runs` runs, checking every answer is whole.
async fn fetch_times(url: &str, pages: usize, runs: usize) -> anyhow::Result<Vec<Duration>> {
    let client = reqwest::Client::new();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let body: Value = client
            .post(url)
            .json(&json!({
                "query": "https://www.trustpilot.com/review/bench.example",
                "reviews_to_fetch": pages * PER_PAGE,
            }))
            .send()
            .await?
            .json()
            .await?;
        times.push(started.elapsed());
        let got = body["all_reviews"].as_array().map_or(0, Vec::len);
        anyhow::ensure!(
            got == pages * PER_PAGE && body["extra_information"]["pages_fetched"] == json!(pages),
            "the paging bench fetched {got} reviews, not {}: {}",
            pages * PER_PAGE,
            body["message"]
        );
    }
    Ok(times)
}

/// Measures one host: (pages, summary) per page count.
async fn series(
    width: usize,
    upstream: std::net::SocketAddr,
    runs: usize,
) -> anyhow::Result<Vec<(usize, Summary)>> {
    let (url, _dir) = server(width, upstream, &root().join("target/gleaner-cache")).await?;
    fetch_times(&url, 2, 1).await?; // warm-up
    let mut points = Vec::new();
    for pages in COUNTS {
        // One page at a time is slow: fewer runs for its long fetches.
        let n = if width == 1 && pages > 10 {
            runs.min(3)
        } else {
            runs
        };
        let times = fetch_times(&url, pages, n).await?;
        let bound = DELAY * round_trips(pages, width) as u32;
        let label = if width == 1 {
            format!("{pages} pages, one at a time")
        } else {
            format!("{pages} pages, {width} at a time")
        };
        let s = report::samples(
            &label,
            &times,
            Some(format!(
                "{} of the latency bound {}",
                report::times(Summary::of(&times).median.as_secs_f64() / bound.as_secs_f64()),
                report::duration(bound)
            )),
        );
        points.push((pages, s));
    }
    Ok(points)
}

/// Measures and reports the paging section.
pub async fn report() -> anyhow::Result<()> {
    report::section(
        "paging",
        &format!(
            "{PAGES} pages of {PER_PAGE} reviews from a local upstream answering each request after {} ms, \
             fetched through the server by customer-feedback-hub with upstream_concurrency {WIDTH} \
             (the host fetches the pages the plugin lists ahead) and with 1 (one page at a time). \
             The latency bound is 1 + ceil((pages - 1) / concurrency) round trips.",
            DELAY.as_millis()
        ),
    );
    let upstream = upstream().await?;
    let concurrent = series(WIDTH, upstream, 5).await?;
    let sequential = series(1, upstream, 5).await?;
    let last = |s: &[(usize, Summary)]| s.last().expect("points").1.median;
    let (c, q) = (last(&concurrent), last(&sequential));
    let bound = DELAY * round_trips(PAGES, WIDTH) as u32;
    report::note(format!(
        "{PAGES} pages: {} concurrently, {:.2}× the bound of {} (goal ≤ 1.5×); one at a time {}; \
         {:.1}× faster (goal ≥ 3×).",
        report::duration(c),
        c.as_secs_f64() / bound.as_secs_f64(),
        report::duration(bound),
        report::duration(q),
        q.as_secs_f64() / c.as_secs_f64(),
    ));
    let points = |s: &[(usize, Summary)]| -> Vec<(u32, Duration)> {
        s.iter().map(|(p, sum)| (*p as u32, sum.median)).collect()
    };
    let file = "paging.svg";
    crate::chart::fetch_time_chart(
        &crate::bench_dir().join(file),
        &format!(
            "Fetch time against pages ({} ms a request)",
            DELAY.as_millis()
        ),
        &points(&sequential),
        &points(&concurrent),
    )?;
    report::image("fetch time against page count", file);
    Ok(())
}
