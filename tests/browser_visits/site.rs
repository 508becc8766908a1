//! The test site the browser visits, served on loopback as `shop.test`,
//! counting every request it is asked.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use serde_json::{json, Value};

use super::{PAGES, PER_PAGE};
use crate::common;

/// What the site has been asked.
#[derive(Default)]
pub(crate) struct Seen {
    pub(crate) dom_pages: AtomicUsize,
    pub(crate) dom_api: AtomicUsize,
    /// The `user-agent` and `sec-ch-ua` the page's own `fetch()` arrived with.
    pub(crate) dom_api_client: std::sync::Mutex<Option<(String, Option<String>)>>,
    pub(crate) challenges: AtomicUsize,
    pub(crate) cleared_pages: AtomicUsize,
    pub(crate) api_refused: AtomicUsize,
    pub(crate) api_served: AtomicUsize,
    pub(crate) escape_pages: AtomicUsize,
}

/// The clearance the challenge's script computes, computed here alike.
fn clearance() -> u64 {
    let mut a: u64 = 7;
    for i in 0..1000 {
        a = (a * 31 + i) % 1_000_003;
    }
    a
}

fn cleared(headers: &HeaderMap) -> bool {
    let want = format!("clearance={}", clearance());
    headers
        .get_all("cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split("; ").any(|c| c == want))
}

const DOM_PAGE: &str = r#"<!doctype html><html><head><title>Reviews</title></head><body>
<div id="reviews"></div>
<script>
fetch('/api/dom-reviews').then(r => r.json()).then(list => {
  for (const item of list) {
    const p = document.createElement('p');
    p.className = 'review';
    p.dataset.id = item.id;
    p.textContent = item.text;
    document.getElementById('reviews').appendChild(p);
  }
});
</script></body></html>"#;

const CHALLENGE: &str = r#"<!doctype html><html><head><title>Just a moment...</title></head><body>
<script>
var a = 7;
for (var i = 0; i < 1000; i++) { a = (a * 31 + i) % 1000003; }
document.cookie = "clearance=" + a + "; path=/";
location.reload();
</script></body></html>"#;

/// A page that fetches each of `targets` (`name`, URL) and lists the
/// outcomes as `.review` elements: `loaded <status>` or `blocked`.
fn probe_page(targets: &[(&str, &str)]) -> String {
    let targets: serde_json::Map<String, Value> = targets
        .iter()
        .map(|(name, url)| (name.to_string(), json!(url)))
        .collect();
    format!(
        r#"<!doctype html><html><body><div id="out"></div>
<script>
const targets = {};
Promise.all(Object.entries(targets).map(([name, url]) =>
  fetch(url).then(r => [name, 'loaded ' + r.status], () => [name, 'blocked'])
)).then(results => {{
  for (const [name, result] of results) {{
    const p = document.createElement('p');
    p.className = 'review';
    p.dataset.id = name;
    p.textContent = result;
    document.getElementById('out').appendChild(p);
  }}
}});
</script></body></html>"#,
        Value::Object(targets)
    )
}

/// The escape attempts: a file, private addresses, a host outside the allowlist.
const ESCAPES: [(&str, &str); 4] = [
    ("file", "file:///etc/passwd"),
    ("private", "http://10.0.0.1/secret"),
    ("metadata", "http://169.254.169.254/latest/meta-data/"),
    ("outside", "https://outside.example/collect"),
];

/// A challenge vendor's script, and a host that is no vendor's.
const CHALLENGE_SCRIPTS: [(&str, &str); 2] = [
    (
        "turnstile",
        "https://challenges.cloudflare.com/turnstile/v0/api.js",
    ),
    ("elsewhere", "https://elsewhere.example/x.js"),
];

/// The test site on loopback.
pub(crate) async fn site() -> (Arc<Seen>, String) {
    let seen = Arc::new(Seen::default());
    let (s1, s2, s3, s4, s5) = (
        seen.clone(),
        seen.clone(),
        seen.clone(),
        seen.clone(),
        seen.clone(),
    );
    let router = axum::Router::new()
        .route(
            "/dom/",
            get(move || async move {
                s1.dom_pages.fetch_add(1, Ordering::SeqCst);
                Html(DOM_PAGE)
            }),
        )
        .route(
            "/api/dom-reviews",
            get(move |headers: HeaderMap| async move {
                s2.dom_api.fetch_add(1, Ordering::SeqCst);
                let header = |name: &str| {
                    headers
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned)
                };
                *s2.dom_api_client.lock().unwrap() =
                    Some((header("user-agent").unwrap_or_default(), header("sec-ch-ua")));
                axum::Json(json!([
                    {"id": "d1", "text": "Inserted by the page's script."},
                    {"id": "d2", "text": "After a fetch()."},
                    {"id": "d3", "text": "Only a browser sees these."},
                ]))
            }),
        )
        .route(
            "/cookie/",
            get(move |headers: HeaderMap| async move {
                if cleared(&headers) {
                    s3.cleared_pages.fetch_add(1, Ordering::SeqCst);
                    Html("<!doctype html><html><body><div id=\"ready\">welcome</div></body></html>")
                } else {
                    s3.challenges.fetch_add(1, Ordering::SeqCst);
                    Html(CHALLENGE)
                }
            }),
        )
        .route(
            "/api/reviews",
            get(
                move |headers: HeaderMap,
                      axum::extract::Query(q): axum::extract::Query<BTreeMap<String, u64>>| async move {
                    api(&s4, &headers, q.get("page").copied().unwrap_or(1))
                },
            ),
        )
        .route(
            "/challenge-scripts/",
            get(|| async { Html(probe_page(&CHALLENGE_SCRIPTS)) }),
        )
        .route(
            "/turnstile/v0/api.js",
            get(|| async { ([("access-control-allow-origin", "*")], "/* a challenge script */") }),
        )
        .route(
            "/escape/",
            get(move || async move {
                s5.escape_pages.fetch_add(1, Ordering::SeqCst);
                Html(probe_page(&ESCAPES))
            }),
        );
    let addr: SocketAddr = common::upstream(router).await;
    (seen, format!("http://{addr}"))
}

/// The API: a Cloudflare-style challenge without the clearance cookie, a
/// page of reviews with it.
fn api(seen: &Seen, headers: &HeaderMap, page: u64) -> Response {
    if !cleared(headers) {
        seen.api_refused.fetch_add(1, Ordering::SeqCst);
        let mut response = (
            StatusCode::FORBIDDEN,
            Html("<!doctype html><title>Just a moment...</title>"),
        )
            .into_response();
        response
            .headers_mut()
            .insert("cf-mitigated", "challenge".parse().unwrap());
        return response;
    }
    seen.api_served.fetch_add(1, Ordering::SeqCst);
    let ids: Vec<String> = (1..=PER_PAGE).map(|i| format!("p{page}-{i}")).collect();
    let next = (page < PAGES).then_some(page + 1);
    axum::Json(json!({"reviews": ids, "next": next})).into_response()
}
