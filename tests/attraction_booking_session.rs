//! attraction-booking in the host's per-fetch session, against a local
//! GetYourGuide-shaped server (replay matches no headers, so the headers are
//! checked here). The activity page sets `visitor_id` for the whole site and
//! `csrfToken` and `session_id` for its own host only, as RFC 6265 allows;
//! the host's jar sends each where it applies, and the plugin echoes the
//! values as `visitor-id`, `x-gyg-visitor-id`, `x-gyg-csrf-token` and
//! `x-gyg-session-id` on every review API call. Checked: the first page
//! visits the page and reads reviews in the same call; the page is visited
//! once across a continuation; a cookie the API renews is used from then on;
//! the continuation token holds no cookie; an expired session visits again and
//! the fetch continues without loss; two fetches keep two sessions; without
//! cookies the fetch goes on (and visits once); and the reviews.json fallback
//! gets the cookies too.

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::http::header::SET_COOKIE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{AppendHeaders, IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value};

const ROUTE: &str = "/attraction-booking/reviews";
const QUERY: &str =
    "https://www.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/";
/// The headers the review API calls are checked for.
const WATCHED: &[&str] = &[
    "visitor-id",
    "x-gyg-visitor-id",
    "x-gyg-csrf-token",
    "x-gyg-session-id",
    "cookie",
    "referer",
    "visitor-platform",
];

/// One request the server saw: the offset or page asked, and the watched headers.
#[derive(Debug, Clone)]
struct Call {
    at: u64,
    headers: HashMap<String, String>,
}

#[derive(Default)]
struct Seen {
    /// Visits of the activity page; visit n sets visitor_id=V<n>, csrfToken=C<n>, session_id=S<n>.
    visits: usize,
    /// The page sets no cookie.
    no_cookies: bool,
    /// The review API answers 403.
    refuse_api: bool,
    /// The review API's first page renews session_id to this value.
    renew: Option<String>,
    api: Vec<Call>,
    legacy: Vec<Call>,
}

type Shared = Arc<Mutex<Seen>>;

fn sample(name: &str) -> String {
    std::fs::read_to_string(
        common::root()
            .join("plugins/attraction-booking/tests/samples")
            .join(name),
    )
    .unwrap()
}

fn watched(h: &HeaderMap) -> HashMap<String, String> {
    WATCHED
        .iter()
        .filter_map(|n| {
            h.get(*n)
                .and_then(|v| v.to_str().ok())
                .map(|v| ((*n).to_owned(), v.to_owned()))
        })
        .collect()
}

/// The review ids of the fixture's default order, as the server serves them.
fn fixture_ids() -> Vec<String> {
    (1..=3)
        .flat_map(|p| {
            let page: Value =
                serde_json::from_str(&sample(&format!("blocks_t23776_relevant_p{p}.json")))
                    .unwrap();
            page["content"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|b| b["type"] == "review")
                .map(|b| b["reviewId"].to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

async fn getyourguide(seen: Shared) -> std::net::SocketAddr {
    let (a, b, c) = (seen.clone(), seen.clone(), seen.clone());
    let router = Router::new()
        .route(
            "/berlin-l17/{slug}/",
            get(move || {
                let seen = a.clone();
                async move {
                    let mut s = seen.lock().unwrap();
                    s.visits += 1;
                    let n = s.visits;
                    let cookies: Vec<(axum::http::HeaderName, String)> = if s.no_cookies {
                        Vec::new()
                    } else {
                        vec![
                            (
                                SET_COOKIE,
                                format!(
                                    "visitor_id=V{n}; Path=/; Domain=.getyourguide.com; Secure"
                                ),
                            ),
                            (SET_COOKIE, format!("csrfToken=C{n}; Path=/; Secure")),
                            (
                                SET_COOKIE,
                                format!("session_id=S{n}; Path=/; HttpOnly; Secure"),
                            ),
                        ]
                    };
                    (
                        AppendHeaders(cookies),
                        [("content-type", "text/html; charset=utf-8")],
                        sample("activity_page_t23776.html"),
                    )
                }
            }),
        )
        .route(
            "/berlin-l17/{slug}/reviews.json",
            get(move |h: HeaderMap| {
                let seen = b.clone();
                async move {
                    seen.lock().unwrap().legacy.push(Call {
                        at: 0,
                        headers: watched(&h),
                    });
                    (
                        [("content-type", "application/json")],
                        sample("gyg-legacy-reviews-json-t23776.json"),
                    )
                }
            }),
        )
        .route(
            "/user-interface/activity-details-page/blocks",
            post(move |h: HeaderMap, body: String| {
                let seen = c.clone();
                async move { api(&seen, &h, &body) }
            }),
        );
    common::upstream(router).await
}

fn api(seen: &Shared, h: &HeaderMap, body: &str) -> Response {
    let mut s = seen.lock().unwrap();
    let payload: Value = serde_json::from_str(body).unwrap_or_default();
    let offset = payload["payload"]["reviewsOffset"].as_u64().unwrap_or(999);
    s.api.push(Call {
        at: offset,
        headers: watched(h),
    });
    if s.refuse_api {
        return (StatusCode::FORBIDDEN, "Forbidden").into_response();
    }
    let page = offset / 20 + 1;
    let body = sample(&format!("blocks_t23776_relevant_p{page}.json"));
    let renew: Vec<(axum::http::HeaderName, String)> = match (&s.renew, offset) {
        (Some(value), 0) => vec![(SET_COOKIE, format!("session_id={value}; Path=/"))],
        _ => Vec::new(),
    };
    (
        AppendHeaders(renew),
        [("content-type", "application/json")],
        body,
    )
        .into_response()
}

async fn server(seen: &Shared) -> common::Server {
    server_with_ttl(seen, 1800).await
}

/// A server whose sessions live `ttl_secs` after their last use.
async fn server_with_ttl(seen: &Shared, ttl_secs: u64) -> common::Server {
    let addr = getyourguide(seen.clone()).await;
    common::start(&["attraction-booking"], move |c| {
        c.replay = None;
        c.session_ttl_secs = ttl_secs;
        for host in ["www.getyourguide.com", "travelers-api.getyourguide.com"] {
            c.upstream_override.insert(
                format!("attraction-booking:{host}"),
                format!("http://{addr}"),
            );
        }
    })
    .await
}

fn shared(seen: Seen) -> Shared {
    Arc::new(Mutex::new(seen))
}

fn api_calls(seen: &Shared) -> Vec<Call> {
    seen.lock().unwrap().api.clone()
}

/// The plugin cursor inside a continuation token, as JSON text.
fn plugin_cursor(token: &str) -> String {
    let resume = gleaner::token::decode(&common::token_key(), ROUTE, QUERY, token).unwrap();
    let cursor = resume.cursor.expect("a plugin cursor");
    String::from_utf8(URL_SAFE_NO_PAD.decode(cursor).unwrap()).unwrap()
}

fn header<'a>(call: &'a Call, name: &str) -> Option<&'a str> {
    call.headers.get(name).map(String::as_str)
}

/// The API calls with their visitor id, as `(offset, visitor-id)`.
fn visitors(seen: &Shared) -> Vec<(u64, String)> {
    api_calls(seen)
        .iter()
        .map(|c| (c.at, header(c, "visitor-id").unwrap_or("none").to_owned()))
        .collect()
}

/// Checks that an API call echoes visit `n`'s cookies, with `session` as the
/// session id, and that its `Cookie` header holds what applies to the API host.
fn assert_echoes(call: &Call, n: usize, session: &str) {
    let (v, c) = (format!("V{n}"), format!("C{n}"));
    assert_eq!(header(call, "visitor-id"), Some(v.as_str()), "{call:?}");
    assert_eq!(
        header(call, "x-gyg-visitor-id"),
        Some(v.as_str()),
        "{call:?}"
    );
    assert_eq!(
        header(call, "x-gyg-csrf-token"),
        Some(c.as_str()),
        "{call:?}"
    );
    assert_eq!(header(call, "x-gyg-session-id"), Some(session), "{call:?}");
    assert_eq!(header(call, "visitor-platform"), Some("desktop"));
    assert_eq!(header(call, "referer"), Some(QUERY));
    let cookie = header(call, "cookie").unwrap_or_default();
    assert!(cookie.contains(&format!("visitor_id={v}")), "{cookie}");
    assert!(
        !cookie.contains("csrfToken"),
        "the page's host-only cookie stays on its host: {cookie}"
    );
}

#[tokio::test]
async fn the_page_is_visited_once_and_its_cookies_reach_every_api_call_across_a_continuation() {
    let seen = shared(Seen {
        renew: Some("S1-renewed".into()),
        ..Seen::default()
    });
    let s = server(&seen).await;
    let (status, first) = s
        .post(ROUTE, json!({"query": QUERY, "reviews_to_fetch": 25}))
        .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["extra_information"]["session"], "new");
    assert_eq!(
        first["extra_information"]["pages_fetched"], 2,
        "the first page visits and reads reviews in one call"
    );
    assert_eq!(
        first["extra_information"]["name"], "Berlin: Tempelhof Airport 2-Hour History Tour",
        "the visit's page gives the activity"
    );
    let token = first["next_page"].as_str().unwrap().to_owned();
    let cursor = plugin_cursor(&token);
    for secret in [
        "V1",
        "C1",
        "S1",
        "visitor_id",
        "csrfToken",
        "session_id",
        "\"k\"",
    ] {
        assert!(
            !cursor.contains(secret),
            "the cursor holds {secret}: {cursor}"
        );
    }

    let (status, rest) = s
        .post(ROUTE, json!({"query": QUERY, "pagination_token": token}))
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["extra_information"]["session"], "continued");
    let mut all = common::ids(&first);
    all.extend(common::ids(&rest));
    assert_eq!(all, fixture_ids(), "every review once, in order");
    assert_eq!(
        seen.lock().unwrap().visits,
        1,
        "one visit for the whole fetch, continuation included"
    );

    let calls = api_calls(&seen);
    let offsets: Vec<u64> = calls.iter().map(|c| c.at).collect();
    assert_eq!(
        offsets,
        vec![0, 20, 20, 40],
        "page 2 is read again after the cut, then page 3"
    );
    assert_echoes(&calls[0], 1, "S1");
    for call in &calls[1..] {
        assert_echoes(call, 1, "S1-renewed");
        assert!(
            header(call, "cookie").is_some_and(|c| c.contains("session_id=S1-renewed")),
            "the renewed session cookie is kept, also across the continuation: {call:?}"
        );
    }
}

#[tokio::test]
async fn an_expired_session_visits_again_and_the_fetch_continues_without_loss() {
    let seen = shared(Seen::default());
    // Sessions that live no time at all: the continuation finds its session gone.
    let s = server_with_ttl(&seen, 0).await;
    let (status, first) = s
        .post(ROUTE, json!({"query": QUERY, "reviews_to_fetch": 25}))
        .await;
    assert_eq!(status, 200, "{first}");
    let token = first["next_page"].as_str().unwrap().to_owned();
    let (status, rest) = s
        .post(ROUTE, json!({"query": QUERY, "pagination_token": token}))
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["extra_information"]["session"], "expired_restarted");
    assert_eq!(
        rest["extra_information"]["name"],
        "Berlin: Tempelhof Airport 2-Hour History Tour"
    );
    let mut all = common::ids(&first);
    all.extend(common::ids(&rest));
    assert_eq!(all, fixture_ids(), "every review once, in order");
    assert_eq!(
        seen.lock().unwrap().visits,
        2,
        "the new session visited the page again"
    );
    let calls = api_calls(&seen);
    assert_eq!(
        calls.iter().map(|c| c.at).collect::<Vec<_>>(),
        vec![0, 20, 20, 40]
    );
    assert_echoes(&calls[0], 1, "S1");
    assert_echoes(&calls[1], 1, "S1");
    assert_echoes(&calls[2], 2, "S2");
    assert_echoes(&calls[3], 2, "S2");
}

#[tokio::test]
async fn two_fetches_keep_two_sessions() {
    let seen = shared(Seen::default());
    let s = server(&seen).await;
    let (status, first) = s
        .post(ROUTE, json!({"query": QUERY, "reviews_to_fetch": 5}))
        .await;
    assert_eq!(status, 200, "{first}");
    let (status, other) = s.post(ROUTE, json!({"query": QUERY})).await;
    assert_eq!(status, 200, "{other}");
    let token = first["next_page"].as_str().unwrap().to_owned();
    let (status, rest) = s
        .post(ROUTE, json!({"query": QUERY, "pagination_token": token}))
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(seen.lock().unwrap().visits, 2, "one visit per fetch");
    let v = |o: u64, n: &str| (o, n.to_owned());
    assert_eq!(
        visitors(&seen),
        vec![
            v(0, "V1"),
            v(0, "V2"),
            v(20, "V2"),
            v(40, "V2"),
            v(0, "V1"),
            v(20, "V1"),
            v(40, "V1")
        ],
        "each fetch sends its own visit's cookies"
    );
}

#[tokio::test]
async fn without_cookies_the_fetch_goes_on_sends_none_and_visits_once() {
    let seen = shared(Seen {
        no_cookies: true,
        ..Seen::default()
    });
    let s = server(&seen).await;
    let (status, first) = s
        .post(ROUTE, json!({"query": QUERY, "reviews_to_fetch": 25}))
        .await;
    assert_eq!(status, 200, "{first}");
    let token = first["next_page"].as_str().unwrap().to_owned();
    let (status, rest) = s
        .post(ROUTE, json!({"query": QUERY, "pagination_token": token}))
        .await;
    assert_eq!(status, 200, "{rest}");
    let mut all = common::ids(&first);
    all.extend(common::ids(&rest));
    assert_eq!(all, fixture_ids());
    assert_eq!(
        seen.lock().unwrap().visits,
        1,
        "a page that sets no visitor cookie is not visited again on later pages"
    );
    let calls = api_calls(&seen);
    assert_eq!(calls.len(), 4);
    for call in calls {
        for name in [
            "visitor-id",
            "x-gyg-visitor-id",
            "x-gyg-csrf-token",
            "x-gyg-session-id",
            "cookie",
        ] {
            assert_eq!(header(&call, name), None, "{call:?}");
        }
    }
}

#[tokio::test]
async fn the_reviews_json_fallback_gets_the_cookies_too() {
    let seen = shared(Seen {
        refuse_api: true,
        ..Seen::default()
    });
    let s = server(&seen).await;
    let (status, body) = s
        .post(ROUTE, json!({"query": QUERY, "sort_type": "newest"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(common::ids(&body), vec!["3946905".to_owned()]);
    assert_eq!(
        body["extra_information"]["source"]["recipe"],
        "reviews-json"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.visits, 1);
    assert_eq!(seen.api.len(), 1, "refused once, then reviews.json");
    assert_eq!(seen.legacy.len(), 1);
    let cookie = seen.legacy[0]
        .headers
        .get("cookie")
        .cloned()
        .unwrap_or_default();
    for expected in ["visitor_id=V1", "csrfToken=C1", "session_id=S1"] {
        assert!(
            cookie.contains(expected),
            "the page's host gets all its cookies: {cookie}"
        );
    }
}
