//! The HTTP layer: what the server answers before any route runs, and what
//! every answer carries. Refusals of requests that cannot be parsed (431,
//! 414, a `Content-Length` of 2^64) and of bodies announced too large (413,
//! at once) come with the documented JSON body and a request id; every
//! answer says `nosniff` and `no-store`; a 401 does not say which plugin
//! serves the route.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::common;

/// Sends `head` (and nothing more) and reads the answer until the server
/// closes or `limit` passes.
async fn exchange(addr: std::net::SocketAddr, head: &[u8], limit: Duration) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    // A refused head may be cut off mid-write: the answer still comes.
    let _ = stream.write_all(head).await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(limit, stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

/// The status, header block and body of a raw answer.
fn parts(answer: &str) -> (u16, String, String) {
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((answer, ""));
    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_owned())
}

#[tokio::test]
async fn refusals_before_routing_are_json_with_a_request_id() {
    let s = common::start(&["review-chunk"], |_| {}).await;
    let cases: [(&str, Vec<u8>, &[u16]); 3] = [
        (
            "headers over 64 KiB",
            format!(
                "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
                "a".repeat(70_000)
            )
            .into_bytes(),
            &[431],
        ),
        (
            "a URI over 64 KiB",
            format!(
                "GET /{} HTTP/1.1\r\nHost: x\r\n\r\n",
                "a".repeat(65_540)
            )
            .into_bytes(),
            &[414, 431],
        ),
        (
            "a Content-Length of 2^64",
            b"POST /features/review-chunk HTTP/1.1\r\nHost: x\r\nContent-Length: 18446744073709551616\r\n\r\n{}"
                .to_vec(),
            &[400],
        ),
    ];
    for (what, head, statuses) in cases {
        let answer = exchange(s.addr, &head, Duration::from_secs(5)).await;
        let (status, headers, body) = parts(&answer);
        assert!(statuses.contains(&status), "{what}: {answer:.300}");
        assert!(
            headers.contains("content-type: application/json"),
            "{what}: {headers}"
        );
        assert!(headers.contains("x-request-id: "), "{what}: {headers}");
        let json: serde_json::Value = serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("{what}: the body is JSON ({e}): {body:?}"));
        assert!(
            json["error"].as_str().is_some_and(|m| m.len() > 20),
            "{what}: {json}"
        );
    }
}

#[tokio::test]
async fn a_body_announced_over_the_limit_is_refused_at_once() {
    let s = common::start(&["review-chunk"], |c| c.max_body_bytes = 1_000).await;
    let started = Instant::now();
    // The head announces 10 MB; not one byte of body follows.
    let answer = exchange(
        s.addr,
        b"POST /features/review-chunk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n",
        Duration::from_secs(5),
    )
    .await;
    let waited = started.elapsed();
    let (status, headers, body) = parts(&answer);
    assert_eq!(status, 413, "{answer:.300}");
    assert!(headers.contains("x-request-id: "), "{headers}");
    assert!(body.contains("exceeds 1000 bytes"), "{body}");
    assert!(
        waited < Duration::from_secs(4),
        "answered without waiting for the body (the body timeout is 30 s): {waited:?}"
    );
}

#[tokio::test]
async fn answers_say_nosniff_and_no_store_and_a_401_names_no_plugin() {
    let s = common::start(&["review-chunk"], |c| {
        c.api_keys = vec!["k-security-1".into()]
    })
    .await;
    let refused = s
        .client
        .post(s.url("/features/review-chunk"))
        .json(&serde_json::json!({"review_text": "Fine."}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let headers = refused.headers().clone();
    assert!(
        !headers.contains_key("x-gleaner-plugin")
            && !headers.contains_key("x-gleaner-plugin-version"),
        "a client without a key learns nothing of the plugin: {headers:?}"
    );
    let body = refused.text().await.unwrap();
    assert!(!body.contains("review-chunk"), "{body}");
    let ok = s
        .client
        .post(s.url("/features/review-chunk"))
        .header("x-api-key", "k-security-1")
        .json(&serde_json::json!({"review_text": "Fine."}))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.headers()["x-gleaner-plugin"], "review-chunk");
    for path in [
        "/features/review-chunk",
        "/healthz",
        "/openapi.json",
        "/nowhere",
    ] {
        let r = s
            .client
            .get(s.url(path))
            .header("x-api-key", "k-security-1")
            .send()
            .await
            .unwrap();
        let h = r.headers();
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["cache-control"], "no-store", "{path}");
        assert!(h.contains_key("x-request-id"), "{path}");
    }
}
