//! Sessions against a local cookie-setting site: the cookies of a first visit
//! reach every later request of the fetch, including the pages a continuation
//! token leads to; the user agent stays the same; an expired session restarts
//! and says so; and the browser profile gives each kind of request its headers.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{AppendHeaders, IntoResponse};
use axum::routing::get;
use serde_json::{json, Value};

pub const ROUTE: &str = "/test-session-source/reviews";
pub const PLUGIN: &str = "test-session-source";

/// What the site saw.
#[derive(Default)]
pub struct Seen {
    pub visits: AtomicUsize,
    pub refused: AtomicUsize,
    /// When each request arrived.
    pub arrivals: Mutex<Vec<std::time::Instant>>,
    /// The user agent of every request.
    agents: Mutex<Vec<String>>,
    /// The headers of the last visit and the last API call.
    visit_headers: Mutex<Option<HeaderMap>>,
    api_headers: Mutex<Option<HeaderMap>>,
}

fn header(headers: &HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// A site that sets a visitor and a CSRF cookie on `/visit` (a new visitor id
/// each time) and serves three pages of two reviews on `/api/reviews` only to
/// a visitor that sends both cookies and echoes the CSRF value in `x-csrf`.
pub async fn site() -> (Arc<Seen>, String) {
    let (seen, router) = site_router();
    let addr = common::upstream(router).await;
    (seen, format!("http://{addr}"))
}

/// The routes of [`site`], to serve on a listener of the caller's.
pub fn site_router() -> (Arc<Seen>, axum::Router) {
    let seen = Arc::new(Seen::default());
    let visit = |State(seen): State<Arc<Seen>>, headers: HeaderMap| async move {
        seen.arrivals
            .lock()
            .unwrap()
            .push(std::time::Instant::now());
        let n = seen.visits.fetch_add(1, Ordering::SeqCst) + 1;
        seen.agents
            .lock()
            .unwrap()
            .push(header(&headers, "user-agent"));
        *seen.visit_headers.lock().unwrap() = Some(headers);
        (
            AppendHeaders([
                ("set-cookie", format!("visitor=v{n}; Path=/; HttpOnly")),
                ("set-cookie", format!("csrf=t{n}; Path=/api")),
                ("content-type", "text/html".to_owned()),
            ]),
            "<html><body>Welcome</body></html>",
        )
    };
    let api = |State(seen): State<Arc<Seen>>,
               Query(q): Query<std::collections::HashMap<String, String>>,
               headers: HeaderMap| async move {
        seen.arrivals
            .lock()
            .unwrap()
            .push(std::time::Instant::now());
        seen.agents
            .lock()
            .unwrap()
            .push(header(&headers, "user-agent"));
        let cookies = header(&headers, "cookie");
        let n = seen.visits.load(Ordering::SeqCst);
        let csrf = header(&headers, "x-csrf");
        *seen.api_headers.lock().unwrap() = Some(headers);
        let valid = n > 0
            && cookies.contains(&format!("visitor=v{n}"))
            && cookies.contains(&format!("csrf=t{n}"))
            && csrf == format!("t{n}");
        if !valid {
            seen.refused.fetch_add(1, Ordering::SeqCst);
            return (StatusCode::FORBIDDEN, "no session").into_response();
        }
        let page: u64 = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
        let ids: Vec<String> = (1..=2).map(|i| format!("r{page}-{i}")).collect();
        let next = (page < 3).then_some(page + 1);
        axum::Json(json!({"reviews": ids, "next": next})).into_response()
    };
    let router = axum::Router::new()
        .route("/visit", get(visit))
        .route("/api/reviews", get(api))
        .with_state(seen.clone());
    (seen, router)
}

async fn server(base: &str, ttl_secs: u64) -> common::Server {
    let base = base.to_owned();
    common::start(&[PLUGIN], move |c| {
        c.replay = None;
        c.session_ttl_secs = ttl_secs;
        c.upstream_override
            .insert(format!("{PLUGIN}:cookies.test"), base);
    })
    .await
}

fn continuation(body: &Value) -> Value {
    body["next_page"].clone()
}

#[tokio::test]
async fn the_first_visit_s_cookies_reach_every_page_and_every_continuation() {
    let (seen, base) = site().await;
    let s = server(&base, 1800).await;
    let (status, first) = s
        .post(ROUTE, json!({"query": "q", "reviews_to_fetch": 3}))
        .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(common::ids(&first), ["r1-1", "r1-2", "r2-1"]);
    assert_eq!(first["extra_information"]["session"], "new");
    let token = continuation(&first);
    assert!(token.is_string(), "{first}");
    let (status, rest) = s
        .post(ROUTE, json!({"query": "q", "pagination_token": token}))
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(common::ids(&rest), ["r2-2", "r3-1", "r3-2"]);
    assert_eq!(rest["extra_information"]["session"], "continued");
    assert_eq!(
        seen.visits.load(Ordering::SeqCst),
        1,
        "one visit for the whole fetch"
    );
    assert_eq!(
        seen.refused.load(Ordering::SeqCst),
        0,
        "every API call had the cookies"
    );
    let agents = seen.agents.lock().unwrap();
    assert!(
        agents.len() >= 5 && agents.iter().all(|a| a == &agents[0]),
        "{agents:?}"
    );
    assert!(
        agents[0].starts_with("Mozilla/5.0"),
        "a browser's user agent"
    );
}

#[tokio::test]
async fn a_token_whose_session_expired_still_works_in_a_new_one() {
    let (seen, base) = site().await;
    // Sessions that live no time at all: every continuation finds its session gone.
    let s = server(&base, 0).await;
    let (_, first) = s
        .post(ROUTE, json!({"query": "q", "reviews_to_fetch": 2}))
        .await;
    let (status, rest) = s
        .post(
            ROUTE,
            json!({"query": "q", "pagination_token": continuation(&first)}),
        )
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["extra_information"]["session"], "expired_restarted");
    assert_eq!(common::ids(&rest), ["r2-1", "r2-2", "r3-1", "r3-2"]);
    assert_eq!(
        seen.visits.load(Ordering::SeqCst),
        2,
        "the new session visited again"
    );
    assert_eq!(
        seen.refused.load(Ordering::SeqCst),
        1,
        "the API refused the cookieless call once"
    );
}

#[tokio::test]
async fn each_kind_of_request_gets_its_browser_headers() {
    let (seen, base) = site().await;
    let s = server(&base, 1800).await;
    let (status, body) = s
        .post(ROUTE, json!({"query": "q", "reviews_to_fetch": 1}))
        .await;
    assert_eq!(status, 200, "{body}");
    let visit = seen.visit_headers.lock().unwrap().clone().unwrap();
    assert_eq!(header(&visit, "sec-fetch-mode"), "navigate");
    assert_eq!(header(&visit, "upgrade-insecure-requests"), "1");
    assert!(header(&visit, "accept").starts_with("text/html"));
    assert!(header(&visit, "accept-encoding").contains("gzip"));
    assert!(
        visit.get("gleaner-profile").is_none(),
        "the pseudo-header is not sent"
    );
    let api = seen.api_headers.lock().unwrap().clone().unwrap();
    assert_eq!(header(&api, "sec-fetch-mode"), "cors");
    assert_eq!(header(&api, "accept"), "application/json, text/plain, */*");
    let agent = header(&api, "user-agent");
    let hints = header(&api, "sec-ch-ua");
    assert_eq!(
        agent.contains("Chrome/"),
        hints.contains("Chrome"),
        "client hints match the user agent: {agent} / {hints}"
    );
}

#[tokio::test]
async fn a_wall_is_a_502_naming_the_vendor_never_zero_reviews() {
    let router = axum::Router::new()
        .route("/visit", get(|| async { "<html>hi</html>" }))
        .route(
            "/api/reviews",
            get(|| async {
                (
                    StatusCode::FORBIDDEN,
                    [("cf-mitigated", "challenge"), ("server", "cloudflare")],
                    "<html><head><title>Just a moment...</title></head></html>",
                )
            }),
        );
    let base = format!("http://{}", common::upstream(router).await);
    let s = server(&base, 1800).await;
    let (status, body) = s.post(ROUTE, json!({"query": "q"})).await;
    assert_eq!(status, 502, "{body}");
    let error = body["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("Cloudflare") && error.contains("proxy"),
        "{error}"
    );
}
