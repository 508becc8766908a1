//! hostel-site's rotating api-key against a local Hostelworld-shaped server
//! (replay matches no headers, so the key itself is checked here): the key is
//! read from the web-app page, cached, sent as `api-key`, and read anew once
//! when the API answers 401, also in the middle of a fetch.

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::Query;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};

const ROUTE: &str = "/hostel-site/reviews";
const QUERY: &str = "https://www.hostelworld.com/pwa/hosteldetails.php/ClinkNOORD/Amsterdam/93919";
const K1: &str = "localKeyOne0123456789";
const K2: &str = "localKeyTwo0123456789";
/// The key in the recorded web-app page, replaced by the server's current key.
const FIXTURE_KEY: &str = "fixtureApiKeyOne0123456789abcdefghij";

/// What the local server accepts, and what it saw.
#[derive(Default)]
struct Seen {
    /// The key the API accepts now (the web-app page publishes it).
    current: String,
    /// After serving this review page, the key rotates to K2.
    rotate_after_page: Option<u64>,
    /// Refuse every key.
    refuse_all: bool,
    /// Reads of the web-app page.
    key_reads: usize,
    /// API requests: (endpoint, page, api-key sent, status answered).
    requests: Vec<(&'static str, u64, String, u16)>,
}

type Shared = Arc<Mutex<Seen>>;

fn sample(name: &str) -> String {
    std::fs::read_to_string(
        common::root()
            .join("plugins/hostel-site/tests/samples")
            .join(name),
    )
    .unwrap()
}

/// The ids of the newest-first fixture pages, in order.
fn fixture_ids() -> Vec<String> {
    (1..=3)
        .flat_map(|p| {
            let page: Value =
                serde_json::from_str(&sample(&format!("reviews_93919_newest_p{p}.json"))).unwrap();
            page["reviews"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Answers an API request when `api-key` is the current key, else 401.
fn api(seen: &Shared, endpoint: &'static str, page: u64, h: &HeaderMap, body: String) -> Response {
    let mut s = seen.lock().unwrap();
    let key = h
        .get("api-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let ok = !s.refuse_all && key == s.current;
    let status = if ok { 200 } else { 401 };
    s.requests.push((endpoint, page, key, status));
    if !ok {
        let fault = sample("apigee_invalid_key_401.json");
        return (StatusCode::UNAUTHORIZED, fault).into_response();
    }
    if endpoint == "reviews" && s.rotate_after_page == Some(page) {
        s.current = K2.to_owned();
    }
    (StatusCode::OK, [("content-type", "application/json")], body).into_response()
}

async fn hostelworld(seen: Shared) -> std::net::SocketAddr {
    let (a, b, c) = (seen.clone(), seen.clone(), seen.clone());
    let router = Router::new()
        .route(
            "/pwa/s",
            get(move || {
                let seen = a.clone();
                async move {
                    let mut s = seen.lock().unwrap();
                    s.key_reads += 1;
                    let page = sample("pwa_key_page_1.html").replace(FIXTURE_KEY, &s.current);
                    ([("content-type", "text/html")], page)
                }
            }),
        )
        .route(
            "/legacy-hwapi-service/2.2/properties/{id}/",
            get(move |h: HeaderMap| {
                let seen = b.clone();
                async move {
                    api(
                        &seen,
                        "property",
                        0,
                        &h,
                        sample("apigee_property_93919.json"),
                    )
                }
            }),
        )
        .route(
            "/legacy-hwapi-service/2.2/properties/{id}/reviews/",
            get(
                move |h: HeaderMap, Query(q): Query<HashMap<String, String>>| {
                    let seen = c.clone();
                    async move {
                        let page: u64 = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
                        let body = sample(&format!("reviews_93919_newest_p{page}.json"));
                        api(&seen, "reviews", page, &h, body)
                    }
                },
            ),
        );
    common::upstream(router).await
}

async fn server(seen: &Shared) -> common::Server {
    let addr = hostelworld(seen.clone()).await;
    common::start(&["hostel-site"], move |c| {
        c.replay = None;
        for host in ["www.hostelworld.com", "prod.apigee.hostelworld.com"] {
            c.upstream_override
                .insert(format!("hostel-site:{host}"), format!("http://{addr}"));
        }
    })
    .await
}

fn shared(seen: Seen) -> Shared {
    Arc::new(Mutex::new(Seen {
        current: K1.to_owned(),
        ..seen
    }))
}

fn requests(seen: &Shared) -> Vec<(&'static str, u64, String, u16)> {
    seen.lock().unwrap().requests.clone()
}

#[tokio::test]
async fn a_key_expiring_in_the_middle_of_a_fetch_is_read_anew_and_nothing_is_lost() {
    let seen = shared(Seen {
        rotate_after_page: Some(1),
        ..Seen::default()
    });
    let s = server(&seen).await;
    let (status, body) = s.post(ROUTE, json!({"query": QUERY})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        common::ids(&body),
        fixture_ids(),
        "every review, in order, once"
    );
    assert_eq!(body["extra_information"]["stop_reason"], "exhausted");
    assert_eq!(body["extra_information"]["name"], "ClinkNOORD");
    let k = |key: &str| key.to_owned();
    let requests = requests(&seen);
    assert_eq!(
        requests[..2],
        [("property", 0, k(K1), 200), ("reviews", 1, k(K1), 200)],
        "the property once, then page 1 with the first key"
    );
    // Pages 2 and 3 are numbered up to the count page 1 gives, so the host may
    // request them together: each goes out with the key cached then, and is
    // retried once, with the new key, when that one is refused.
    for page in [2, 3] {
        let of_page: Vec<(String, u16)> = requests
            .iter()
            .filter(|r| r.0 == "reviews" && r.1 == page)
            .map(|r| (r.2.clone(), r.3))
            .collect();
        assert!(
            of_page == [(k(K2), 200)] || of_page == [(k(K1), 401), (k(K2), 200)],
            "page {page}: {of_page:?}"
        );
    }
    assert!(
        requests[2..].iter().all(|r| r.0 == "reviews" && r.1 >= 2),
        "{requests:?}"
    );
    let refused = requests.iter().filter(|r| r.3 == 401).count();
    assert!(
        refused >= 1,
        "page 2 went out with the old key: {requests:?}"
    );
    assert_eq!(
        seen.lock().unwrap().key_reads,
        1 + refused,
        "read once, then once after each 401"
    );
}

#[tokio::test]
async fn a_key_refused_after_reading_it_anew_is_a_blocked_error() {
    let seen = shared(Seen {
        refuse_all: true,
        ..Seen::default()
    });
    let s = server(&seen).await;
    let (status, body) = s.post(ROUTE, json!({"query": QUERY})).await;
    assert_eq!(status, 502, "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(
        error.contains("refused the api-key with HTTP 401")
            && error.contains("again after the key was read anew"),
        "{error}"
    );
    assert_eq!(
        seen.lock().unwrap().key_reads,
        2,
        "read once more, not in a loop"
    );
    assert_eq!(requests(&seen).len(), 2, "one retry only");
}

#[tokio::test]
async fn the_key_is_cached_and_the_property_read_once_per_fetch() {
    let seen = shared(Seen::default());
    let s = server(&seen).await;
    let (status, first) = s
        .post(ROUTE, json!({"query": QUERY, "reviews_to_fetch": 4}))
        .await;
    assert_eq!(status, 200, "{first}");
    let token = first["next_page"].as_str().unwrap().to_owned();
    let (status, rest) = s
        .post(ROUTE, json!({"query": QUERY, "pagination_token": token}))
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(
        rest["extra_information"]["name"], "ClinkNOORD",
        "carried in the cursor"
    );
    assert_eq!(rest["extra_information"]["source"]["city"], "Amsterdam");
    let mut all = common::ids(&first);
    all.extend(common::ids(&rest));
    assert_eq!(all, fixture_ids());
    let (status, again) = s.post(ROUTE, json!({"query": "93919"})).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(
        seen.lock().unwrap().key_reads,
        1,
        "the cached key serves every call"
    );
    let requests = requests(&seen);
    assert!(requests
        .iter()
        .all(|(_, _, key, status)| key == K1 && *status == 200));
    let properties = requests.iter().filter(|r| r.0 == "property").count();
    assert_eq!(properties, 2, "once per new fetch, not on continued pages");
    assert_eq!(
        requests.len(),
        2 + 2 + 4,
        "property and page 1, pages 2-3, a whole new fetch"
    );
}
