//! SIGTERM: requests in flight finish, a half-sent request does not keep the
//! process alive, and whatever is still busy at the drain deadline is cut.

use std::time::{Duration, Instant};

use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

use super::common;
use super::process::Process;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_within_the_deadline() {
    let upstream = common::upstream(Router::new().route(
        "/slow",
        get(|| async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            "done"
        }),
    ))
    .await;
    let mut server = Process::start(
        &["test-misbehave"],
        &[
            ("GLEANER_DRAIN_TIMEOUT_MS", "1500".into()),
            (
                "GLEANER_UPSTREAM_OVERRIDE",
                format!("test-misbehave:slow.test=http://{upstream}"),
            ),
        ],
    );
    let url = server.url("/test/misbehave");
    let client = reqwest::Client::new();

    // In flight: one that finishes in 0.5 s, one that would run 3 s.
    let quick = tokio::spawn({
        let (client, url) = (client.clone(), url.clone());
        async move {
            let r = client
                .post(&url)
                .json(&json!({"mode": "fetch", "url": "http://slow.test/slow"}))
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    });
    let long = tokio::spawn({
        let (client, url) = (client.clone(), url.clone());
        async move {
            client
                .post(&url)
                .json(&json!({"mode": "loop"}))
                .send()
                .await
                .map(|r| r.status().as_u16())
        }
    });
    // Half-sent: headers never finished.
    let mut half = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    half.write_all(b"POST /test/misbehave HTTP/1.1\r\nHost: x\r\nContent-")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;

    let signalled = Instant::now();
    server.terminate();
    let (status, body) = quick.await.unwrap();
    assert_eq!(status, 200, "the request in flight completes: {body}");
    assert_eq!(body["status"], 200, "{body}");
    let exited = tokio::task::spawn_blocking(move || {
        let took = server.wait_exit(Duration::from_secs(10));
        (took, server)
    })
    .await
    .unwrap();
    let took = signalled.elapsed();
    assert!(exited.0.is_some(), "the process exits");
    assert!(
        took < Duration::from_millis(1500 + 1500),
        "exits by the drain deadline, took {took:?}"
    );
    assert!(
        long.await.unwrap().is_err(),
        "the request still busy at the deadline is cut"
    );
    eprintln!(
        "shutdown: exited {:.0} ms after SIGTERM (drain deadline 1500 ms)",
        took.as_secs_f64() * 1e3
    );
}
