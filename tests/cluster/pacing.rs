//! A host's pace holds across replicas: their requests together keep it.

use std::time::{Duration, Instant};

use serde_json::json;

use super::nats::Nats;
use super::replica_with;
use crate::jobs::{fetch, Site, QUERY};

/// The most requests in any window of `width` starting at an arrival.
fn worst_window(arrivals: &[Instant], width: Duration) -> usize {
    (0..arrivals.len())
        .map(|i| {
            arrivals[i..]
                .iter()
                .take_while(|a| a.duration_since(arrivals[i]) < width)
                .count()
        })
        .max()
        .unwrap_or(0)
}

/// The gaps between arrivals, in ms.
fn gaps(arrivals: &[Instant]) -> Vec<u128> {
    arrivals
        .windows(2)
        .map(|w| w[1].duration_since(w[0]).as_millis())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn two_requests_a_second_to_a_host_hold_across_three_replicas() {
    let nats = Nats::start();
    let site = Site::with(200);
    let addr = site.serve().await;
    // Two requests a second to the site, from the whole cluster.
    let paced = |c: &mut gleaner::config::Config| {
        c.pacing.insert(
            "www.trustpilot.com".into(),
            gleaner::capabilities::http::pacing::Pace {
                requests_per_minute: 120,
                ..Default::default()
            },
        );
    };
    let a = replica_with(&nats, addr, "a", paced).await;
    let b = replica_with(&nats, addr, "b", paced).await;
    let c = replica_with(&nats, addr, "c", paced).await;
    site.arrivals.lock().unwrap().clear();
    let started = Instant::now();
    let body = json!({"query": QUERY, "reviews_to_fetch": 80});
    let (ra, rb, rc) = tokio::join!(
        fetch(&a, body.clone()),
        fetch(&b, body.clone()),
        fetch(&c, body)
    );
    let elapsed = started.elapsed();
    for (status, answer) in [ra, rb, rc] {
        assert_eq!(status, 200, "{answer}");
        assert_eq!(
            answer["all_reviews"].as_array().unwrap().len(),
            80,
            "{answer}"
        );
    }
    let arrivals: Vec<Instant> = site.arrivals.lock().unwrap().iter().map(|a| a.0).collect();
    let n = arrivals.len();
    assert!(n >= 12, "three fetches of at least four pages: {n}");
    let worst = worst_window(&arrivals, Duration::from_secs(1));
    assert!(
        worst <= 2,
        "{worst} requests within one second: {:?}",
        gaps(&arrivals)
    );
    let shortest = gaps(&arrivals).into_iter().min().unwrap_or(0);
    let span = arrivals[n - 1].duration_since(arrivals[0]);
    assert!(
        span.as_millis() >= 500 * (n as u128 - 1),
        "{n} requests 500 ms apart took {span:?}"
    );
    eprintln!(
        "cluster: 2 requests/s to one host from 3 replicas: {n} requests in {:.2} s; worst 1-s window {worst} (counted at the site), shortest gap {shortest} ms",
        elapsed.as_secs_f64(),
    );
}
