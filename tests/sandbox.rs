//! The sandboxed HTTP capability seen from a plugin: SSRF denials, redirects
//! re-checked hop by hop, credentials dropped across hosts, retries, timeouts,
//! size caps, the upstream override and HAR recording.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};

const MISBEHAVE: &str = "/test/misbehave";

async fn fetch(s: &common::Server, url: &str, headers: Value) -> Value {
    let (status, body) = s
        .post(
            MISBEHAVE,
            json!({"mode": "fetch", "url": url, "headers": headers}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

fn headers_json(h: &HeaderMap) -> String {
    let map: serde_json::Map<String, Value> = h
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), json!(v.to_str().unwrap_or_default())))
        .collect();
    Value::Object(map).to_string()
}

async fn test_upstream(hits: Arc<AtomicUsize>) -> std::net::SocketAddr {
    test_upstream_with_peak(hits, Arc::new(AtomicUsize::new(0))).await
}

async fn test_upstream_with_peak(
    hits: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
) -> std::net::SocketAddr {
    let counter = hits.clone();
    let in_flight = Arc::new(AtomicUsize::new(0));
    let router = Router::new()
        .route("/echo", get(|h: HeaderMap| async move { headers_json(&h) }))
        .route(
            "/to-other-host",
            get(|| async {
                (StatusCode::FOUND, [("location", "http://b.example/echo")]).into_response()
            }),
        )
        .route(
            "/to-same-host",
            get(|| async { (StatusCode::FOUND, [("location", "/echo")]).into_response() }),
        )
        .route(
            "/to-loopback",
            get(|| async {
                (
                    StatusCode::FOUND,
                    [("location", "http://127.0.0.1:9/secret")],
                )
                    .into_response()
            }),
        )
        .route(
            "/to-metadata",
            get(|| async {
                (
                    StatusCode::MOVED_PERMANENTLY,
                    [("location", "http://169.254.169.254/latest/meta-data/")],
                )
                    .into_response()
            }),
        )
        .route(
            "/flaky",
            get(move || {
                let n = counter.fetch_add(1, Ordering::SeqCst);
                async move {
                    if n == 0 {
                        (
                            StatusCode::TOO_MANY_REQUESTS,
                            [("retry-after", "0")],
                            "slow down",
                        )
                            .into_response()
                    } else {
                        (StatusCode::OK, "recovered").into_response()
                    }
                }
            }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                "late"
            }),
        )
        .route("/plain", get(|| async { "hello" }))
        .route(
            "/concurrent",
            get(move || {
                let (now, peak) = (in_flight.clone(), peak.clone());
                async move {
                    let current = now.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(current, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    now.fetch_sub(1, Ordering::SeqCst);
                    "done"
                }
            }),
        )
        .route("/huge", get(|| async { "x".repeat(2 * 1024 * 1024) }));
    common::upstream(router).await
}

async fn server_with_override(
    addr: std::net::SocketAddr,
    record: Option<std::path::PathBuf>,
) -> common::Server {
    common::start(&["test-misbehave"], move |c| {
        c.replay = None;
        c.record = record;
        c.upstream_override
            .insert("a.example".into(), format!("http://{addr}"));
        c.upstream_override
            .insert("b.example".into(), format!("http://{addr}"));
    })
    .await
}

#[tokio::test]
async fn non_public_addresses_are_denied() {
    let s = common::start(&["test-misbehave"], |c| c.replay = None).await;
    for url in [
        "http://127.0.0.1:8080/",
        "http://localhost:8080/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.1.2.3/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[fd00::1]/",
        "http://[64:ff9b::a00:1]/",
        "http://0.0.0.0/",
    ] {
        let body = fetch(&s, url, json!({})).await;
        let e = body["error"].as_str().unwrap_or_default();
        assert!(
            e.contains("denied") && e.contains("public"),
            "{url}: {body}"
        );
    }
    let body = fetch(&s, "ftp://example.com/", json!({})).await;
    assert!(body["error"].as_str().unwrap().contains("scheme"), "{body}");
}

#[tokio::test]
async fn redirects_are_rechecked_and_credentials_dropped_across_hosts() {
    let addr = test_upstream(Arc::new(AtomicUsize::new(0))).await;
    let s = server_with_override(addr, None).await;
    let secret = json!({
        "authorization": "Bearer s3cret",
        "x-apikey": "k3y",
        "x-session-id": "s3ss",
        "cookie": "c=1",
        "x-custom": "kept"
    });

    let body = fetch(&s, "http://a.example/to-same-host", secret.clone()).await;
    let seen: Value = serde_json::from_str(body["body"].as_str().unwrap()).unwrap();
    assert_eq!(
        seen["authorization"], "Bearer s3cret",
        "same host keeps credentials"
    );
    assert_eq!(
        seen["host"], "a.example",
        "the original Host header is kept"
    );

    let body = fetch(&s, "http://a.example/to-other-host", secret).await;
    assert_eq!(body["final_url"], "http://b.example/echo");
    let seen: Value = serde_json::from_str(body["body"].as_str().unwrap()).unwrap();
    for credential in ["authorization", "x-apikey", "x-session-id", "cookie"] {
        assert!(
            seen.get(credential).is_none(),
            "{credential} dropped: {seen}"
        );
    }
    assert_eq!(seen["x-custom"], "kept");
    assert_eq!(seen["host"], "b.example");

    for hop in ["/to-loopback", "/to-metadata"] {
        let body = fetch(&s, &format!("http://a.example{hop}"), json!({})).await;
        assert!(
            body["error"]
                .as_str()
                .unwrap_or_default()
                .contains("denied"),
            "{hop}: {body}"
        );
    }
}

#[tokio::test]
async fn retries_timeouts_and_size_caps() {
    let hits = Arc::new(AtomicUsize::new(0));
    let addr = test_upstream(hits.clone()).await;
    let s = server_with_override(addr, None).await;

    let body = fetch(&s, "http://a.example/flaky", json!({})).await;
    assert_eq!(body["status"], 200, "{body}");
    assert_eq!(body["body"], "recovered");
    assert_eq!(hits.load(Ordering::SeqCst), 2, "one retry after 429");

    let body = fetch(&s, "http://a.example/slow", json!({})).await;
    assert!(
        body["error"].as_str().unwrap().contains("Timeout"),
        "{body}"
    );

    let body = fetch(&s, "http://a.example/huge", json!({})).await;
    assert!(
        body["error"].as_str().unwrap().contains("too large"),
        "{body}"
    );

    let body = fetch(&s, "http://a.example/echo", json!({})).await;
    let seen: Value = serde_json::from_str(body["body"].as_str().unwrap()).unwrap();
    assert!(
        seen["user-agent"]
            .as_str()
            .unwrap()
            .starts_with("Mozilla/5.0"),
        "browser-like default UA"
    );
    let body = fetch(
        &s,
        "http://a.example/echo",
        json!({"user-agent": "my-plugin/1"}),
    )
    .await;
    let seen: Value = serde_json::from_str(body["body"].as_str().unwrap()).unwrap();
    assert_eq!(seen["user-agent"], "my-plugin/1");
}

#[tokio::test]
async fn recording_writes_a_har_without_secrets_that_replays() {
    let addr = test_upstream(Arc::new(AtomicUsize::new(0))).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.har");
    {
        let s = server_with_override(addr, Some(file.clone())).await;
        let body = fetch(
            &s,
            "http://a.example/plain?b=2&a=1",
            json!({"authorization": "Bearer hunter2"}),
        )
        .await;
        assert_eq!(body["status"], 200);
    }
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("hunter2"), "secrets are redacted");
    let har: Value = serde_json::from_str(&text).unwrap();
    let entry = &har["log"]["entries"][0];
    assert_eq!(entry["request"]["url"], "http://a.example/plain?b=2&a=1");
    assert_eq!(entry["response"]["content"]["text"], "hello");
    assert_eq!(entry["response"]["status"], 200);

    let s = common::start(&["test-misbehave"], |c| c.replay = Some(file.clone())).await;
    let body = fetch(&s, "http://a.example/plain?a=1&b=2", json!({})).await;
    assert_eq!(body["body"], "hello");
    assert_eq!(
        body["status"], 200,
        "replayed with query parameters in another order: {body}"
    );
    let body = fetch(&s, "http://a.example/other", json!({})).await;
    assert!(body["error"]
        .as_str()
        .unwrap()
        .contains("replay miss: no recorded response for GET http://a.example/other"));
}

#[tokio::test]
async fn forum_site_uses_oauth_through_the_upstream_override() {
    let seen_auth = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = seen_auth.clone();
    let fixtures = common::root().join("plugins/forum-site/tests/samples");
    let read = move |name: &str| std::fs::read_to_string(fixtures.join(name)).unwrap();
    let (post, sub, user) = (
        read("post_with_comments_2022.json"),
        read("subreddit_about_2023.json"),
        read("user_about_2025.json"),
    );
    let router = Router::new()
        .route(
            "/api/v1/access_token",
            axum::routing::post(|h: HeaderMap| async move {
                let ok = h.get("authorization").is_some_and(|v| v.to_str().unwrap().starts_with("Basic "));
                if ok {
                    (StatusCode::OK, r#"{"access_token":"tok-1","token_type":"bearer","expires_in":3600,"scope":"*"}"#).into_response()
                } else {
                    StatusCode::UNAUTHORIZED.into_response()
                }
            }),
        )
        .route("/comments/{id}/", get(move |h: HeaderMap| {
            log.lock().unwrap().push(h.get("authorization").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default());
            async move { post }
        }))
        .route("/r/{sr}/about/", get(move || async move { sub }))
        .route("/user/{name}/about/", get(move || async move { user }));
    let addr = common::upstream(router).await;
    let s = common::start(&["forum-site"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert("www.reddit.com".into(), format!("http://{addr}"));
        c.upstream_override
            .insert("oauth.reddit.com".into(), format!("http://{addr}"));
        c.plugins.insert(
            "forum-site".into(),
            [
                ("client_id".to_owned(), "id".to_owned()),
                ("client_secret".to_owned(), "secret".to_owned()),
            ]
            .into(),
        );
    })
    .await;
    let (status, body) = s
        .post(
            "/forum-site/post",
            json!({"query": "https://redd.it/jlbw48"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["all_reviews"][0]["post_tile"], "Test self post");
    assert_eq!(seen_auth.lock().unwrap().as_slice(), ["bearer tok-1"]);
}

#[tokio::test]
async fn batches_run_concurrently_within_the_per_host_cap() {
    let peak = Arc::new(AtomicUsize::new(0));
    let addr = test_upstream_with_peak(Arc::new(AtomicUsize::new(0)), peak.clone()).await;
    let s = server_with_override(addr, None).await;
    let urls: Vec<String> = (0..6)
        .map(|i| format!("http://a.example/concurrent?i={i}"))
        .collect();
    let (status, body) = s
        .post(MISBEHAVE, json!({"mode": "fetch", "urls": urls}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["statuses"], json!([200, 200, 200, 200, 200, 200]));
    assert_eq!(
        peak.load(Ordering::SeqCst),
        2,
        "upstream_concurrency = 2 in the manifest"
    );
}
