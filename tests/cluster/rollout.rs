//! An upload to one replica reaches every replica, with no failed request.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};

use super::nats::Nats;
use crate::common;
use crate::hotswap::{served_version, staged, swap_dir};

pub(crate) const ADMIN: &str = "rollout-admin-key";

/// A replica serving test-swap 1.0.0 from its own directory.
pub(crate) async fn swap_replica(nats: &Nats, name: &str) -> common::Server {
    let dir = swap_dir();
    let mut config = common::config(&dir);
    config.admin_keys = vec![ADMIN.into()];
    config.cluster.nats_url = Some(nats.url());
    config.cluster.nats_token = Some(super::nats::TOKEN.into());
    config.cluster.replica_name = Some(name.into());
    common::start_with(dir, config).await
}

/// Uploads test-swap 2.0.0 to `s` through the admin API; the answer.
pub(crate) async fn upload_v2(s: &common::Server) -> Value {
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let manifest = String::from_utf8(staged("test-swap-v2.toml")).unwrap();
    let upload = json!({"manifest": manifest, "component": b64(&staged("test-swap-v2.wasm"))});
    let r = s
        .client
        .put(s.url("/admin/plugins/test-swap"))
        .header("x-api-key", ADMIN)
        .json(&upload)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

/// The version of test-swap each replica reports in the cluster.
async fn reported(s: &common::Server) -> Value {
    let list = s.admin_list(ADMIN).await;
    list["replicas"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn an_upload_to_one_replica_serves_on_every_replica_with_no_failed_request() {
    let nats = Nats::start();
    let a = swap_replica(&nats, "a").await;
    let b = swap_replica(&nats, "b").await;
    let c = swap_replica(&nats, "c").await;
    for s in [&a, &b, &c] {
        assert_eq!(served_version(s).await, (200, Some("1.0.0".into())));
    }
    // Load on every replica through the roll-out.
    let stop = Arc::new(AtomicBool::new(false));
    let failed = Arc::new(AtomicUsize::new(0));
    let served = Arc::new(AtomicUsize::new(0));
    let mut load = Vec::new();
    for s in [&a, &b, &c] {
        let (url, client) = (s.url(crate::hotswap::SWAP), s.client.clone());
        let (stop, failed, served) = (stop.clone(), failed.clone(), served.clone());
        load.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let r = client.post(&url).json(&json!({})).send().await;
                match r {
                    Ok(r) if r.status() == 200 => served.fetch_add(1, Ordering::Relaxed),
                    _ => failed.fetch_add(1, Ordering::Relaxed),
                };
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let body = upload_v2(&a).await;
    let uploaded = Instant::now();
    assert!(
        body["rollout"].as_str().unwrap().starts_with("announced"),
        "{body}"
    );
    let mut everywhere = None;
    while everywhere.is_none() {
        let mut versions = Vec::new();
        for s in [&b, &c] {
            versions.push(served_version(s).await.1);
        }
        if versions.iter().all(|v| v.as_deref() == Some("2.0.0")) {
            everywhere = Some(uploaded.elapsed());
        }
        assert!(
            uploaded.elapsed() < Duration::from_secs(2),
            "B and C serve {versions:?} 2 s after the upload"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.store(true, Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }
    assert_eq!(
        failed.load(Ordering::Relaxed),
        0,
        "no request failed during the roll-out"
    );
    // Each replica reports what it serves.
    let started = Instant::now();
    loop {
        let replicas = reported(&c).await;
        let serving: Vec<&str> = replicas
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| {
                r["plugin"] == "test-swap" && r["version"] == "2.0.0" && r["state"] == "serving"
            })
            .map(|r| r["replica"].as_str().unwrap())
            .collect();
        if serving == ["a", "b", "c"] {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "{replicas}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A replica that starts later loads the announced version.
    let d = swap_replica(&nats, "d").await;
    let started = Instant::now();
    while served_version(&d).await.1.as_deref() != Some("2.0.0") {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "a later replica never loaded 2.0.0"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    eprintln!(
        "cluster: upload to A → B and C serving it in {:.0} ms; {} requests served on three replicas meanwhile, 0 failed",
        everywhere.unwrap().as_secs_f64() * 1000.0,
        served.load(Ordering::Relaxed)
    );

    // A signed version whose component fails the checks (it reports 1.0.0,
    // its manifest says 3.0.0) is refused everywhere; each replica keeps what
    // it serves and says why.
    let cluster = super::connect(nats.url(), |_| {}).await.unwrap();
    let manifest = String::from_utf8(staged("test-swap-v1.toml"))
        .unwrap()
        .replace("1.0.0", "3.0.0");
    cluster
        .rollout
        .announce("test-swap", &manifest, &staged("test-swap-v1.wasm"))
        .await
        .unwrap();
    let started = Instant::now();
    loop {
        let replicas = reported(&a).await;
        let refused: Vec<&Value> = replicas
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["plugin"] == "test-swap" && r["state"] == "refused")
            .collect();
        let by: std::collections::BTreeSet<&str> = refused
            .iter()
            .map(|r| r["replica"].as_str().unwrap_or_default())
            .collect();
        if by.len() == 4 {
            // The list holds other plugins' reports too, in no set order.
            let first = refused[0];
            assert_eq!(first["version"], "2.0.0", "{first}");
            assert!(
                first["error"].as_str().unwrap().contains("3.0.0"),
                "{first}"
            );
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(15), "{replicas}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for s in [&a, &b, &c, &d] {
        assert_eq!(
            served_version(s).await,
            (200, Some("2.0.0".into())),
            "the serving version stays"
        );
    }
}
