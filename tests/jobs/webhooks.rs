//! Webhooks: retried until answered and signed; which receivers are taken.

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use super::fixture::*;

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
