//! Proxies against local servers: every request of a fetch goes through the
//! session's proxy, and a proxy the site blocks is retired for that site and
//! the fetch goes on through the next one.

use crate::common;
use crate::sessions::{site, PLUGIN, ROUTE};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// A forward proxy for plain-http targets, counting what it carries; a
/// `blocked` one answers as a site answers a proxy it has blocked.
pub(crate) struct Proxy {
    pub(crate) requests: AtomicUsize,
    blocked: bool,
}

async fn forward(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    proxy.requests.fetch_add(1, Ordering::SeqCst);
    if proxy.blocked {
        return (
            StatusCode::FORBIDDEN,
            [("server", "cloudflare")],
            "<title>Attention Required! | Cloudflare</title>",
        )
            .into_response();
    }
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let answer = client
        .request(parts.method, parts.uri.to_string())
        .headers(parts.headers)
        .body(body)
        .send()
        .await;
    let Ok(answer) = answer else {
        return StatusCode::BAD_GATEWAY.into_response();
    };
    let mut response = Response::builder().status(answer.status());
    for (name, value) in answer.headers() {
        response = response.header(name, value);
    }
    let bytes = answer.bytes().await.unwrap_or_default();
    response.body(Body::from(bytes)).unwrap()
}

pub(crate) async fn proxy(blocked: bool) -> (Arc<Proxy>, String) {
    let state = Arc::new(Proxy {
        requests: AtomicUsize::new(0),
        blocked,
    });
    let router = axum::Router::new()
        .fallback(forward)
        .with_state(state.clone());
    let addr = common::upstream(router).await;
    (state, format!("http://user:s3cret@{addr}"))
}

async fn server(base: &str, proxies: Vec<String>) -> common::Server {
    let base = base.to_owned();
    common::start(&[PLUGIN], move |c| {
        c.replay = None;
        c.proxies.urls = proxies;
        c.upstream_override
            .insert(format!("{PLUGIN}:cookies.test"), base);
    })
    .await
}

#[tokio::test]
async fn every_request_of_a_fetch_goes_through_the_proxy() {
    let (seen, base) = site().await;
    let (good, url) = proxy(false).await;
    let s = server(&base, vec![url]).await;
    let (status, body) = s.post(ROUTE, json!({"query": "q"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(common::ids(&body).len(), 6);
    assert_eq!(
        good.requests.load(Ordering::SeqCst),
        4,
        "the visit and three pages"
    );
    assert_eq!(
        seen.refused.load(Ordering::SeqCst),
        0,
        "cookies went through the proxy too"
    );
}

#[tokio::test]
async fn a_blocked_proxy_is_retired_and_the_fetch_goes_on_through_the_next() {
    let (_, base) = site().await;
    let (blocked, blocked_url) = proxy(true).await;
    let (good, good_url) = proxy(false).await;
    let s = server(&base, vec![blocked_url, good_url]).await;
    let (status, body) = s.post(ROUTE, json!({"query": "q"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(common::ids(&body).len(), 6);
    assert_eq!(
        blocked.requests.load(Ordering::SeqCst),
        1,
        "tried once, then retired"
    );
    assert_eq!(good.requests.load(Ordering::SeqCst), 4);
    // A second fetch does not go back to the retired proxy for this site.
    let (status, _) = s
        .post(ROUTE, json!({"query": "q", "reviews_to_fetch": 1}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(blocked.requests.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn when_every_proxy_is_blocked_the_answer_says_so_without_credentials() {
    let (_, base) = site().await;
    let (_, blocked_url) = proxy(true).await;
    let s = server(&base, vec![blocked_url]).await;
    let (status, body) = s.post(ROUTE, json!({"query": "q"})).await;
    assert_eq!(status, 502, "{body}");
    let error = body["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("has blocked every configured proxy"),
        "{error}"
    );
    assert!(!body.to_string().contains("s3cret"), "{body}");
}

pub(crate) mod real;
