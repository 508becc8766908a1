//! `examples/client.py`, the standard-library Python client, against the real
//! server with replayed fixtures: paging with a small page size through either
//! continuation (`next_page`, `pagination_data`) it prints the same reviews, in
//! the same order, as one large fetch; it prints the server's status and
//! message when a request is refused; and against a server that breaks the
//! no-gap, no-duplicate promise it stops with an error instead of repairing it.

use crate::common;

use std::collections::HashSet;
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

const HUB: &str = "/customer-feedback-hub/reviews";
const BH: &str = "https://www.trustpilot.com/review/www.bhphotovideo.com";
const WALL: &str = "/testimonial-wall/wol";
const SHAPO: &str = "https://shapo.io/wall-of-love/c5cf604cf7";

/// Fails the test, saying what to install, when python3 does not run here.
fn require_python() {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "python3 is not installed, so examples/client.py cannot run: install Debian's python3"
    );
}

/// Runs the client with `args`, without blocking the server of the same runtime.
async fn client(args: &[&str]) -> Output {
    tokio::process::Command::new("python3")
        .arg(common::root().join("examples/client.py"))
        .args(args)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("GLEANER_API_KEY")
        .env_remove("GLEANER_URL")
        .output()
        .await
        .unwrap()
}

/// The reviews the client printed, one JSON object a line.
fn printed(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}

fn ids(reviews: &[Value]) -> Vec<&str> {
    reviews
        .iter()
        .map(|r| r["review_id"].as_str().unwrap())
        .collect()
}

/// Pages through `query` at `route` with the client, `page_size` a request, and
/// checks the reviews equal one large fetch's, in order, with no duplicate.
/// Returns the client's stderr.
async fn pages_like_one_fetch(
    plugin: &str,
    source: &str,
    route: &str,
    query: &str,
    page_size: usize,
    total: usize,
) -> String {
    let s = common::start(&[plugin], |_| {}).await;
    let (status, whole) = s
        .post(route, json!({"query": query, "reviews_to_fetch": 10_000}))
        .await;
    assert_eq!(status, 200, "{whole}");
    let expected = whole["all_reviews"].as_array().unwrap().clone();
    assert_eq!(expected.len(), total, "the fixture's reviews");

    let base = s.url("");
    let size = page_size.to_string();
    let out = client(&[
        "--url",
        &base,
        "--source",
        source,
        "--query",
        query,
        "--page-size",
        &size,
    ])
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let got = printed(&out);
    let unique: HashSet<&str> = ids(&got).into_iter().collect();
    assert_eq!(unique.len(), got.len(), "a duplicate: {:?}", ids(&got));
    assert_eq!(
        ids(&got),
        ids(&expected),
        "the same reviews in the same order"
    );
    assert_eq!(got, expected, "the same records");

    // Several requests, each at most page_size reviews, shown on stderr.
    let pages = stderr.lines().filter(|l| l.starts_with("page ")).count();
    assert!(
        pages >= total.div_ceil(page_size) && pages <= total.div_ceil(page_size) + 1,
        "{pages} pages: {stderr}"
    );
    assert!(
        stderr.contains(&format!("done: {total} reviews")),
        "{stderr}"
    );
    stderr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_follows_next_page_to_the_reviews_of_one_large_fetch() {
    require_python();
    // 60 reviews in three upstream pages of 20; 7 a request cuts pages in the middle.
    let stderr = pages_like_one_fetch(
        "customer-feedback-hub",
        "customer-feedback-hub",
        HUB,
        BH,
        7,
        60,
    )
    .await;
    assert!(
        stderr.contains("from http://") && stderr.contains(HUB),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_follows_pagination_data_to_the_reviews_of_one_large_fetch() {
    require_python();
    // 30 testimonials in one upstream page, which the host cuts 4 at a time.
    // The label names no route: the client finds /testimonial-wall/wol in /openapi.json.
    pages_like_one_fetch("testimonial-wall", "testimonial-wall", WALL, SHAPO, 4, 30).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_prints_the_servers_status_and_message() {
    require_python();
    let s = common::start(&["customer-feedback-hub"], |c| {
        c.api_keys = vec!["right-key".into()]
    })
    .await;
    let base = s.url("");
    let refused: Value = s
        .client
        .post(s.url(HUB))
        .header("x-api-key", "wrong-key")
        .json(&json!({"query": BH}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let message = refused["error"].as_str().unwrap();

    let out = client(&[
        "--url",
        &base,
        "--api-key",
        "wrong-key",
        "--source",
        HUB,
        "--query",
        BH,
    ])
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("POST {HUB} (page 1) answered 401: {message}")),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    let out = client(&[
        "--url",
        &base,
        "--api-key",
        "right-key",
        "--source",
        HUB,
        "--query",
        "https://example.com/x",
    ])
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("answered 400") && stderr.contains("not a Trustpilot review page"),
        "{stderr}"
    );

    let out = client(&[
        "--url",
        &base,
        "--api-key",
        "right-key",
        "--source",
        HUB,
        "--query",
        BH,
        "--page-size",
        "25",
    ])
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(printed(&out).len(), 60);

    // Nothing listening: the client says where it could not connect.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let out = client(&["--url", &url, "--source", HUB, "--query", BH]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot reach {url}{HUB}")),
        "{stderr}"
    );
}

/// A review-fetch answer of a server that misbehaves as the test wants.
fn answer(ids: &[&str], stop_reason: &str, next_page: Option<&str>) -> Json<Value> {
    Json(json!({
        "all_reviews": ids.iter().map(|id| json!({"review_id": id})).collect::<Vec<_>>(),
        "extra_information": {"complete": next_page.is_none(), "stop_reason": stop_reason},
        "message": "",
        "next_page": next_page,
    }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_stops_when_the_server_breaks_its_paging_promise() {
    require_python();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let router = Router::new()
        // The second page repeats a review of the first.
        .route(
            "/duplicate/reviews",
            post(|Json(body): Json<Value>| async move {
                match body["pagination_token"].as_str() {
                    None => answer(&["a", "b"], "limit_reached", Some("t1")),
                    Some(_) => answer(&["b", "c"], "limit_reached", Some("t2")),
                }
            }),
        )
        // A page reaches the limit with fewer reviews than asked for.
        .route(
            "/short/reviews",
            post(|| async { answer(&["a"], "limit_reached", Some("t1")) }),
        )
        // Every page offers the same continuation.
        .route(
            "/loop/reviews",
            post(move || {
                let n = counter.fetch_add(1, Ordering::SeqCst);
                async move {
                    let ids = [format!("r{}", 2 * n), format!("r{}", 2 * n + 1)];
                    answer(
                        &[ids[0].as_str(), ids[1].as_str()],
                        "limit_reached",
                        Some("same"),
                    )
                }
            }),
        );
    let base = format!("http://{}", common::upstream(router).await);

    for (route, printed_ids, says) in [
        (
            "/duplicate/reviews",
            vec!["a", "b"],
            "review 'b' arrived twice (pages 1 and 2)",
        ),
        (
            "/short/reviews",
            vec!["a"],
            "page 1 stopped at the limit with 1 of the 2 reviews asked for",
        ),
        (
            "/loop/reviews",
            vec!["r0", "r1", "r2", "r3"],
            "page 2 offered a continuation already followed",
        ),
    ] {
        let out = client(&[
            "--url",
            &base,
            "--source",
            route,
            "--query",
            "q",
            "--page-size",
            "2",
        ])
        .await;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{route}: {stderr}");
        assert!(stderr.contains(says), "{route}: {stderr}");
        assert_eq!(ids(&printed(&out)), printed_ids, "{route}");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}
