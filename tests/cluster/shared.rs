//! What replicas share besides jobs: wall back-offs, fetch sessions (so a
//! token continues anywhere) and the plugin cache, sealed.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::nats::Nats;
use super::{replica, replica_env};
use crate::common;
use crate::jobs::{fetch, Site, KEY, QUERY};
use crate::security::process::Process;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn a_wall_met_on_one_replica_backs_the_host_off_on_another_before_it_sends() {
    let nats = Nats::start();
    let site = Site::with(40);
    let addr = site.serve().await;
    let a = replica(&nats, addr, "a").await;
    let b = Process::start(&["customer-feedback-hub"], &replica_env(&nats, addr, "b"));
    site.walled.store(true, Ordering::Relaxed);
    let (status, body) = fetch(&a, json!({"query": QUERY})).await;
    assert_eq!(status, 502, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("Cloudflare"),
        "{body}"
    );
    let sent = site.arrivals.lock().unwrap().len();
    // B hears of it through the bucket it watches, and says so in its metrics.
    let started = Instant::now();
    let series = ["host=\"www.trustpilot.com\"", "wall=\"cloudflare\""];
    while b.metric("gleaner_upstream_backoffs_total", &series).await < 1.0 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "B never heard of the wall"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let heard = started.elapsed();
    let r = reqwest::Client::new()
        .post(b.url("/customer-feedback-hub/reviews"))
        .header("x-api-key", KEY)
        .json(&json!({"query": QUERY}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 502);
    let body: serde_json::Value = r.json().await.unwrap();
    let error = body["error"].as_str().unwrap();
    assert!(
        error.contains("replica a") && error.contains("GLEANER_WALL_BACKOFF_SECS"),
        "{error}"
    );
    assert_eq!(
        site.arrivals.lock().unwrap().len(),
        sent,
        "B sent nothing to the walled host"
    );
    assert!(
        b.metric("gleaner_upstream_held_back_total", &[series[0]])
            .await
            >= 1.0
    );
    eprintln!(
        "cluster: a wall met on A was in B's back-off {:.0} ms after A answered; B then sent 0 requests to the host",
        heard.as_secs_f64() * 1000.0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn a_token_minted_on_one_replica_continues_on_another_in_the_same_session() {
    let nats = Nats::start();
    let site = Site::with(60);
    let addr = site.serve().await;
    let a = replica(&nats, addr, "a").await;
    let b = replica(&nats, addr, "b").await;
    let (status, first) = fetch(&a, json!({"query": QUERY, "reviews_to_fetch": 20})).await;
    assert_eq!(status, 200, "{first}");
    let token = first["next_page"]
        .as_str()
        .expect("a continuation")
        .to_owned();
    let set = site.arrivals.lock().unwrap().len();
    let (status, second) = fetch(&b, json!({"query": QUERY, "pagination_token": token})).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(
        second["extra_information"]["session"], "continued",
        "{second}"
    );
    let arrivals = site.arrivals.lock().unwrap().clone();
    assert!(arrivals[0].1.is_none(), "the first visit carries no cookie");
    let cookie = arrivals[set].1.clone();
    assert_eq!(
        cookie.as_deref(),
        Some("sid=v1"),
        "B sent the cookie the site gave A"
    );
    let ids = |v: &serde_json::Value| -> Vec<String> {
        v["all_reviews"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["review_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let both: Vec<String> = ids(&first).into_iter().chain(ids(&second)).collect();
    assert_eq!(both, site.ids()[..both.len()], "page two follows page one");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn the_plugin_cache_is_shared_sealed_and_expires_per_key() {
    use gleaner::capabilities::cache::CacheStore;
    let nats = Nats::start();
    let join = |seal_key: Option<String>| {
        let url = nats.url();
        async move {
            let cluster = super::connect(url, |c| c.seal_key = seal_key)
                .await
                .unwrap();
            let config = gleaner::config::Config::default();
            let services =
                gleaner::services(&config, Default::default(), None, None, false).unwrap();
            cluster.share(&services);
            (cluster, services.cache)
        }
    };
    let (cluster, one): (_, Arc<CacheStore>) = join(None).await;
    let (_, two) = join(None).await;
    let (_, stranger) = join(Some("cd".repeat(32))).await;
    let secret = "api-key-scraped-0123456789";
    assert!(
        one.store(
            "hostel-site",
            "api_key",
            secret.into(),
            Duration::from_secs(60)
        )
        .await
    );
    assert_eq!(
        two.lookup("hostel-site", "api_key").await.as_deref(),
        Some(secret),
        "one replica's key serves all"
    );
    assert_eq!(
        two.lookup("other-plugin", "api_key").await,
        None,
        "per plugin"
    );
    assert_eq!(
        stranger.lookup("hostel-site", "api_key").await,
        None,
        "another seal key reads nothing"
    );
    // Sealed in the bucket: the raw value does not hold the secret.
    let bucket = &cluster.resources.cache;
    let mut keys = bucket.keys().await.unwrap();
    use futures_util::StreamExt;
    let key = keys.next().await.unwrap().unwrap();
    let raw = bucket.get(key).await.unwrap().unwrap();
    assert!(!String::from_utf8_lossy(&raw).contains(secret));
    // Each key its own time to live.
    assert!(
        one.store("hostel-site", "short", "v".into(), Duration::from_secs(1))
            .await
    );
    assert_eq!(
        two.lookup("hostel-site", "short").await.as_deref(),
        Some("v")
    );
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(two.lookup("hostel-site", "short").await, None, "expired");
    assert_eq!(
        two.lookup("hostel-site", "api_key").await.as_deref(),
        Some(secret),
        "still alive"
    );
    two.remove("hostel-site", "api_key").await;
    assert_eq!(
        one.lookup("hostel-site", "api_key").await,
        None,
        "removed everywhere"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn a_proxy_one_replica_retired_for_a_host_is_left_out_by_another() {
    use crate::sessions::{site, PLUGIN, ROUTE};
    let nats = Nats::start();
    let (_, base) = site().await;
    let (blocked, blocked_url) = crate::proxies::proxy(true).await;
    let (good, good_url) = crate::proxies::proxy(false).await;
    let start = |name: &'static str| {
        let (url, base) = (nats.url(), base.clone());
        let proxies = vec![blocked_url.clone(), good_url.clone()];
        async move {
            common::start(&[PLUGIN], move |c| {
                c.replay = None;
                c.proxies.urls = proxies;
                c.upstream_override
                    .insert(format!("{PLUGIN}:cookies.test"), base);
                c.cluster.nats_url = Some(url);
                c.cluster.nats_token = Some(super::nats::TOKEN.into());
                c.cluster.replica_name = Some(name.into());
            })
            .await
        }
    };
    let a = start("a").await;
    let b = start("b").await;
    let (status, body) = a.post(ROUTE, json!({"query": "q"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        blocked.requests.load(Ordering::SeqCst),
        1,
        "A tried it once"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    for _ in 0..3 {
        let (status, body) = b.post(ROUTE, json!({"query": "q"})).await;
        assert_eq!(status, 200, "{body}");
    }
    assert_eq!(
        blocked.requests.load(Ordering::SeqCst),
        1,
        "B never sent to the proxy A retired for this host"
    );
    assert!(good.requests.load(Ordering::SeqCst) >= 16);
}
