//! The review-fetch driver against a local Trustpilot-shaped server (through the
//! upstream override): the time budget, and partial results when the source fails.

use crate::common;

use std::time::Duration;

use axum::extract::Query;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use serde_json::json;

const HUB: &str = "/customer-feedback-hub/reviews";
const QUERY: &str = "https://www.trustpilot.com/review/www.bhphotovideo.com";

/// Serves the real review objects as three newest-first pages of 20, each after
/// `delay`, failing page `fail_page` with a 500.
async fn trustpilot(delay: Duration, fail_page: Option<u64>) -> std::net::SocketAddr {
    serve_pages(common::trustpilot_pages(), delay, fail_page).await
}

/// Serves `pages` as Trustpilot review pages, each after `delay`, failing page
/// `fail_page` with a 500.
async fn serve_pages(
    pages: Vec<Vec<serde_json::Value>>,
    delay: Duration,
    fail_page: Option<u64>,
) -> std::net::SocketAddr {
    let router = Router::new().route(
        "/review/{domain}",
        get(
            move |Query(q): Query<std::collections::HashMap<String, String>>| {
                let pages = pages.clone();
                async move {
                    let page: u64 = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
                    tokio::time::sleep(delay).await;
                    if Some(page) == fail_page {
                        return (
                            StatusCode::INTERNAL_SERVER_ERROR,
                            "upstream broke".to_owned(),
                        )
                            .into_response();
                    }
                    let html = common::trustpilot_html(&pages[(page - 1) as usize], 3);
                    (StatusCode::OK, html).into_response()
                }
            },
        ),
    );
    common::upstream(router).await
}

use common::ids;

#[tokio::test]
async fn the_budget_ends_a_fetch_with_a_continuation_and_nothing_is_lost() {
    let addr = trustpilot(Duration::from_millis(700), None).await;
    let s = common::start(&["customer-feedback-hub"], move |c| {
        c.replay = None;
        // Pages 2 and 3 are asked together after page 1: a budget under two
        // round trips ends the fetch before they arrive.
        c.fetch_budget_ms = 1500;
        c.upstream_override
            .insert("www.trustpilot.com".into(), format!("http://{addr}"));
    })
    .await;
    let (status, first) = s.post(HUB, json!({"query": QUERY})).await;
    assert_eq!(status, 200, "{first}");
    let info = &first["extra_information"];
    assert_eq!(info["stop_reason"], "time_budget", "{info}");
    assert_eq!(info["complete"], false);
    assert!(
        info["elapsed_ms"].as_u64().unwrap() < 1500,
        "answered within the budget: {info}"
    );
    assert!(first["message"].as_str().unwrap().contains("time budget"));
    let mut all = ids(&first);
    assert!(!all.is_empty() && all.len() < 60);
    let mut token = first["next_page"].as_str().unwrap().to_owned();
    loop {
        let (status, next) = s
            .post(HUB, json!({"query": QUERY, "pagination_token": token}))
            .await;
        assert_eq!(status, 200, "{next}");
        all.extend(ids(&next));
        match next["next_page"].as_str() {
            Some(t) => token = t.to_owned(),
            None => break,
        }
    }
    assert_eq!(all.len(), 60);
    let unique: std::collections::HashSet<_> = all.iter().collect();
    assert_eq!(unique.len(), 60);
}

#[tokio::test]
async fn a_failing_page_returns_what_was_collected_and_where_to_resume() {
    let addr = trustpilot(Duration::ZERO, Some(2)).await;
    let s = common::start(&["customer-feedback-hub"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert("www.trustpilot.com".into(), format!("http://{addr}"));
    })
    .await;
    let (status, body) = s.post(HUB, json!({"query": QUERY})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids(&body).len(), 20);
    assert_eq!(body["extra_information"]["stop_reason"], "source_error");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("HTTP 500"), "{message}");
    let token = body["next_page"].as_str().unwrap();
    let (status, again) = s
        .post(HUB, json!({"query": QUERY, "pagination_token": token}))
        .await;
    assert_eq!(
        status, 502,
        "the resumed fetch starts at the failing page: {again}"
    );
    assert!(again["error"].as_str().unwrap().contains("HTTP 500"));
}

/// A page that declares newest first while an older review is pinned at its
/// top: the host reads the fetch as not by date, so `sync_date` filters every
/// page instead of stopping at the pinned review, and the message says so.
#[tokio::test]
async fn a_page_whose_dates_go_against_its_declared_order_is_filtered_not_cut() {
    let mut pages = common::trustpilot_pages();
    pages[0][0]["dates"]["publishedDate"] = json!("2023-11-01T09:00:00.000Z");
    let addr = serve_pages(pages, Duration::ZERO, None).await;
    let s = common::start(&["customer-feedback-hub"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert("www.trustpilot.com".into(), format!("http://{addr}"));
    })
    .await;
    let (status, body) = s
        .post(HUB, json!({"query": QUERY, "sync_date": "2023-12-06"}))
        .await;
    assert_eq!(status, 200, "{body}");
    // Two reviews of that day on page 1, twenty on each of pages 2 and 3.
    assert_eq!(ids(&body).len(), 42, "{body}");
    assert_eq!(body["extra_information"]["pages_fetched"], 3);
    assert_eq!(body["extra_information"]["order"], "unordered");
    assert_eq!(
        body["extra_information"]["order_contradicted"],
        "newest_first"
    );
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains("not strictly by date") && message.contains("without stopping early"),
        "{message}"
    );
}

#[tokio::test]
async fn a_503_is_retried_with_backoff_against_a_live_server() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let pages = common::trustpilot_pages();
    let page_two_calls = Arc::new(AtomicUsize::new(0));
    let calls = page_two_calls.clone();
    let router = Router::new().route(
        "/review/{domain}",
        get(
            move |Query(q): Query<std::collections::HashMap<String, String>>| {
                let (pages, calls) = (pages.clone(), calls.clone());
                async move {
                    let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
                    if page == 2 && calls.fetch_add(1, Ordering::SeqCst) == 0 {
                        return (
                            StatusCode::SERVICE_UNAVAILABLE,
                            [("retry-after", "1")],
                            "busy".to_owned(),
                        )
                            .into_response();
                    }
                    (StatusCode::OK, common::trustpilot_html(&pages[page - 1], 3)).into_response()
                }
            },
        ),
    );
    let addr = common::upstream(router).await;
    let s = common::start(&["customer-feedback-hub"], move |c| {
        c.replay = None;
        c.upstream_override.insert(
            "customer-feedback-hub:www.trustpilot.com".into(),
            format!("http://{addr}"),
        );
    })
    .await;
    let started = std::time::Instant::now();
    let (status, body) = s.post(HUB, json!({"query": QUERY})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids(&body).len(), 60, "the retried page is in the answer");
    assert_eq!(body["extra_information"]["stop_reason"], "exhausted");
    assert_eq!(
        page_two_calls.load(Ordering::SeqCst),
        2,
        "page 2 was asked twice"
    );
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "the retry waited for Retry-After"
    );
}

/// A Trustpilot-shaped server that answers each page after `delay` and counts
/// the requests it gets and how many were in flight at once.
struct Counted {
    addr: std::net::SocketAddr,
    requests: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    most_at_once: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

async fn counted_trustpilot(delay: Duration) -> Counted {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let pages = common::trustpilot_pages();
    let requests = Arc::new(AtomicUsize::new(0));
    let most_at_once = Arc::new(AtomicUsize::new(0));
    let in_flight = Arc::new(AtomicUsize::new(0));
    let (r, m) = (requests.clone(), most_at_once.clone());
    let router = Router::new().route(
        "/review/{domain}",
        get(
            move |Query(q): Query<std::collections::HashMap<String, String>>| {
                let (pages, r, m, in_flight) =
                    (pages.clone(), r.clone(), m.clone(), in_flight.clone());
                async move {
                    r.fetch_add(1, Ordering::SeqCst);
                    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    m.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(delay).await;
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
                    (StatusCode::OK, common::trustpilot_html(&pages[page - 1], 3)).into_response()
                }
            },
        ),
    );
    Counted {
        addr: common::upstream(router).await,
        requests,
        most_at_once,
    }
}

#[tokio::test]
async fn enumerated_pages_are_fetched_at_once_and_merged_in_order() {
    use std::sync::atomic::Ordering;
    let up = counted_trustpilot(Duration::from_millis(300)).await;
    let addr = up.addr;
    let s = common::start(&["customer-feedback-hub"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert("www.trustpilot.com".into(), format!("http://{addr}"));
    })
    .await;
    let (status, body) = s.post(HUB, json!({"query": QUERY})).await;
    assert_eq!(status, 200, "{body}");
    let expected: Vec<String> = common::trustpilot_pages()
        .concat()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids(&body), expected, "pages in their order, none lost");
    assert_eq!(body["extra_information"]["stop_reason"], "exhausted");
    assert_eq!(body["extra_information"]["pages_fetched"], 3);
    assert_eq!(body["extra_information"]["pages_unused"], 0);
    assert_eq!(up.requests.load(Ordering::SeqCst), 3);
    assert_eq!(
        up.most_at_once.load(Ordering::SeqCst),
        2,
        "pages 2 and 3 were asked together, as the plugin's upstream_concurrency allows"
    );
}

#[tokio::test]
async fn fetching_ahead_never_passes_reviews_to_fetch() {
    use std::sync::atomic::Ordering;
    for (wanted, requests) in [(20, 1), (21, 2), (40, 2), (41, 3)] {
        let up = counted_trustpilot(Duration::from_millis(50)).await;
        let addr = up.addr;
        let s = common::start(&["customer-feedback-hub"], move |c| {
            c.replay = None;
            c.upstream_override
                .insert("www.trustpilot.com".into(), format!("http://{addr}"));
        })
        .await;
        let (status, body) = s
            .post(HUB, json!({"query": QUERY, "reviews_to_fetch": wanted}))
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(ids(&body).len(), wanted);
        assert_eq!(
            up.requests.load(Ordering::SeqCst),
            requests,
            "{wanted} reviews need {requests} pages of 20"
        );
        assert_eq!(body["extra_information"]["pages_unused"], 0, "{wanted}");
    }
}
