//! home-services against a local Angi-shaped server (replay matches no
//! headers, so the cookies are checked here). Angi may answer a profile page
//! with its reduced variant (no business or review data) and set a cookie
//! that keeps a client on it: the plugin asks again, and the later attempts
//! carry none of the fetch's cookies.

use crate::common;

use std::sync::{Arc, Mutex};

use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::HeaderMap;
use axum::routing::get;
use axum::Router;
use serde_json::json;

const ROUTE: &str = "/home-services/reviews";
const QUERY: &str =
    "https://www.angi.com/companylist/us/il/barrington/fox-valley-sewer-and-drain-reviews-9100002.htm";

fn sample(name: &str) -> String {
    std::fs::read_to_string(
        common::root()
            .join("plugins/home-services/tests/samples")
            .join(name),
    )
    .unwrap()
}

/// The `Cookie` header of every request the server saw, in order.
type Seen = Arc<Mutex<Vec<Option<String>>>>;

/// Serves the reduced variant (setting the variant cookie) first, then the full page.
async fn angi(seen: Seen) -> std::net::SocketAddr {
    let router = Router::new().route(
        "/companylist/us/il/barrington/{page}",
        get(move |h: HeaderMap| {
            let seen = seen.clone();
            async move {
                let mut calls = seen.lock().unwrap();
                calls.push(
                    h.get(COOKIE)
                        .map(|v| v.to_str().unwrap_or_default().to_owned()),
                );
                let (cookie, body) = if calls.len() == 1 {
                    (
                        "HA-loggedIn=reduced; Path=/; Secure",
                        "reduced-variant.html",
                    )
                } else {
                    ("seen=1; Path=/; Secure", "profile-9100002-full.html")
                };
                (
                    [
                        (SET_COOKIE, cookie.to_owned()),
                        (
                            axum::http::header::CONTENT_TYPE,
                            "text/html; charset=utf-8".to_owned(),
                        ),
                    ],
                    sample(body),
                )
            }
        }),
    );
    common::upstream(router).await
}

#[tokio::test]
async fn a_reduced_page_is_asked_for_again_without_the_variant_cookie() {
    let seen: Seen = Arc::default();
    let addr = angi(seen.clone()).await;
    let server = common::start(&["home-services"], move |c| {
        c.replay = None;
        c.upstream_override.insert(
            "home-services:www.angi.com".into(),
            format!("http://{addr}"),
        );
    })
    .await;
    let (status, body) = server.post(ROUTE, json!({ "query": QUERY })).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(common::ids(&body).len(), 3, "{body}");
    assert_eq!(body["extra_information"]["source"]["attempts"], 2, "{body}");
    let calls = seen.lock().unwrap().clone();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0], None, "a new fetch has no cookie yet");
    assert!(
        !calls[1]
            .as_deref()
            .unwrap_or_default()
            .contains("HA-loggedIn"),
        "the second attempt went without the variant cookie: {calls:?}"
    );
}
