//! No one client starves the others. One API key spreading 256 requests over
//! four slow routes holds only its own limit of requests in flight (the rest
//! get 429 at once, naming the limit); eight keys from eight addresses doing
//! the same fill only the share of the server that plugins reaching sites
//! may hold. Either way a client of a fast route, from another address, is
//! answered every time.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::common;

/// The four slow routes and a request for each.
fn slow_requests() -> [(&'static str, Value); 4] {
    [
        (
            "/features/domain-to-asset",
            json!({"query": "http://drip.example/"}),
        ),
        (
            "/public/v1/wol-meta-info",
            json!({"email": "a@example.com", "website": "http://drip.example/"}),
        ),
        (
            "/customer-feedback-hub/reviews",
            json!({"query": "https://www.trustpilot.com/review/drip.example"}),
        ),
        (
            "/venue-guide/reviews",
            json!({"query": "4b0588a1f964a520b2b322e3"}),
        ),
    ]
}

async fn server(keys: Vec<String>) -> common::Server {
    let upstream = common::dripping_site(30).await;
    common::start(
        &[
            "domain-to-asset",
            "wol-meta-info",
            "customer-feedback-hub",
            "venue-guide",
            "review-chunk",
        ],
        move |c| {
            c.replay = None;
            c.api_keys = keys;
            for (plugin, host) in [
                ("domain-to-asset", "drip.example"),
                ("wol-meta-info", "drip.example"),
                ("customer-feedback-hub", "www.trustpilot.com"),
                ("venue-guide", "api.foursquare.com"),
            ] {
                c.upstream_override
                    .insert(format!("{plugin}:{host}"), format!("http://{upstream}"));
            }
            c.plugins.insert(
                "venue-guide".into(),
                [("api_key".to_owned(), "fsq-test-key".to_owned())].into(),
            );
        },
    )
    .await
}

/// A client whose requests come from `address` (any of 127.0.0.0/8 here).
pub(super) fn client_from(address: IpAddr) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(address)
        .pool_max_idle_per_host(512)
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

/// Starts `per_key` requests for each of `keys` (each key from its own
/// address), spread over the slow routes; returns their tasks.
fn flood(
    s: &common::Server,
    keys: &[(String, IpAddr)],
    per_key: usize,
) -> tokio::task::JoinSet<Answer> {
    let mut tasks = tokio::task::JoinSet::new();
    for (key, address) in keys {
        let client = client_from(*address);
        for i in 0..per_key {
            let (path, body) = slow_requests()[i % 4].clone();
            let (client, key, url) = (client.clone(), key.clone(), s.url(path));
            tasks.spawn(async move {
                let r = client
                    .post(url)
                    .header("x-api-key", key)
                    .json(&body)
                    .send()
                    .await
                    .unwrap();
                let status = r.status().as_u16();
                let retry = r
                    .headers()
                    .get("retry-after")
                    .map(|v| v.to_str().unwrap().to_owned());
                (status, retry, r.text().await.unwrap())
            });
        }
    }
    tasks
}

/// A client of the fast route, from its own address: statuses and the p95.
async fn healthy(s: &common::Server, key: &str, n: usize) -> (usize, f64) {
    let client = client_from("127.0.0.3".parse().unwrap());
    let mut ok = 0;
    let mut times = Vec::new();
    for _ in 0..n {
        let started = Instant::now();
        let r = client
            .post(s.url("/features/review-chunk"))
            .header("x-api-key", key)
            .json(&json!({"review_text": "Quick check-in. Kind staff."}))
            .send()
            .await
            .unwrap();
        ok += usize::from(r.status() == 200);
        r.bytes().await.unwrap();
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (ok, times[(times.len() * 95).div_ceil(100) - 1])
}

fn tally(results: &[Answer]) -> BTreeMap<u16, usize> {
    let mut by = BTreeMap::new();
    for (status, _, _) in results {
        *by.entry(*status).or_insert(0) += 1;
    }
    by
}

/// What a flood's requests were answered: status, `Retry-After`, body.
type Answer = (u16, Option<String>, String);

/// Floods the slow routes with `per_key` requests for each of `keys`, and
/// meanwhile sends 200 requests to the fast route with the healthy key: how
/// many of those were answered 200, their p95 in ms, and the flood's answers
/// with their count by status.
async fn flood_beside_healthy(
    s: &common::Server,
    keys: &[(String, IpAddr)],
    per_key: usize,
) -> (usize, f64, Vec<Answer>, BTreeMap<u16, usize>) {
    let mut tasks = flood(s, keys, per_key);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (ok, p95) = healthy(s, "healthy-key-01", 200).await;
    let mut results = Vec::new();
    while let Some(r) = tasks.join_next().await {
        results.push(r.unwrap());
    }
    let by = tally(&results);
    (ok, p95, results, by)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_key_flooding_slow_routes_holds_only_its_own_share() {
    let s = server(vec!["flood-key-0001".into(), "healthy-key-01".into()]).await;
    let keys = [("flood-key-0001".to_owned(), "127.0.0.2".parse().unwrap())];
    let (ok, p95, results, by) = flood_beside_healthy(&s, &keys, 256).await;
    eprintln!(
        "one key floods four slow routes: healthy route {ok}/200 answered 200, p95 {p95:.2} ms; flood {by:?}"
    );
    assert_eq!(ok, 200, "the fast route is always answered");
    assert_eq!(
        by.get(&429),
        Some(&224),
        "beyond its 32 in flight, the key gets 429: {by:?}"
    );
    let refused = results.iter().find(|(s, _, _)| *s == 429).unwrap();
    assert_eq!(refused.1.as_deref(), Some("1"), "429 carries Retry-After");
    assert!(refused.2.contains("max_in_flight_per_key"), "{}", refused.2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_routes_together_never_take_the_fast_routes_share() {
    let keys: Vec<(String, IpAddr)> = (0..8)
        .map(|i| {
            (
                format!("flood-key-{i:04}"),
                format!("127.0.1.{}", i + 1).parse().unwrap(),
            )
        })
        .collect();
    let mut all: Vec<String> = keys.iter().map(|(k, _)| k.clone()).collect();
    all.push("healthy-key-01".into());
    let s = server(all).await;
    let (ok, p95, results, by) = flood_beside_healthy(&s, &keys, 32).await;
    eprintln!(
        "eight keys flood four slow routes: healthy route {ok}/200 answered 200, p95 {p95:.2} ms; flood {by:?}"
    );
    assert_eq!(ok, 200, "the reserved share keeps the fast route answered");
    assert_eq!(
        by.get(&503),
        Some(&112),
        "plugins that reach sites hold at most 256 - 64 requests, less the last quarter \
         kept for plugins below their floor: {by:?}"
    );
    let refused = results.iter().find(|(s, _, _)| *s == 503).unwrap();
    assert!(
        refused.2.contains("reserved_for_local_plugins"),
        "{}",
        refused.2
    );
}

#[tokio::test]
async fn one_address_is_limited_like_one_key() {
    let s = server(Vec::new()).await;
    let keys = [(String::new(), "127.0.0.4".parse().unwrap())];
    let mut tasks = flood(&s, &keys, 40);
    let mut results = Vec::new();
    while let Some(r) = tasks.join_next().await {
        results.push(r.unwrap());
    }
    let by = tally(&results);
    assert_eq!(by.get(&429), Some(&8), "one address, 32 in flight: {by:?}");
    let refused = results.iter().find(|(s, _, _)| *s == 429).unwrap();
    assert!(
        refused.2.contains("max_in_flight_per_client"),
        "{}",
        refused.2
    );
}
