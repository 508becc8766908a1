//! attraction-booking when the host's session of a fetch expires between two
//! of its calls. The plugin's replay cases (plugins/attraction-booking/tests/
//! replay.toml) assert the rest of its cookie session; this check stays here
//! because it needs a server setting that no replay case can give, a session
//! lifetime of zero (`session_ttl_secs`), so that the continuation finds its
//! session gone. It runs against the same recordings, through the replay
//! cases' local upstream: t90011's page sets cookies of its own on each visit,
//! so the continuation must visit again, go on without loss, and echo the new
//! visit's cookies from then on.

use crate::common;
use crate::plugin_replay::upstream::{Seen, Upstream};

use gleaner::manifest::Manifest;
use serde_json::json;

const PLUGIN: &str = "attraction-booking";
const ROUTE: &str = "/attraction-booking/reviews";
const QUERY: &str =
    "https://www.getyourguide.com/berlin-l17/tempelhof-airport-evening-tour-t90011/";

/// The cookies each visit of t90011's page sets: visitor id, CSRF token, session id.
const VISITS: [[&str; 3]; 2] = [
    [
        "VONE90011FIXTURE0000000000000001",
        "fixture-csrf-90011-one",
        "fixture-session-90011-one",
    ],
    [
        "VTWO90011FIXTURE0000000000000002",
        "fixture-csrf-90011-two",
        "fixture-session-90011-two",
    ],
];

/// A request as `GET page` or `POST <offset>`.
fn kind(r: &Seen) -> String {
    match r.json() {
        Some(body) => format!("POST {}", body["payload"]["reviewsOffset"]),
        None if r.url == QUERY => "GET page".into(),
        None => format!("{} {}", r.method, r.url),
    }
}

/// Checks that a review API call echoes the cookies of visit `n` (0 or 1), and
/// that its `Cookie` header holds only what applies to the API's host.
fn assert_echoes(call: &Seen, n: usize) {
    let [visitor, csrf, session] = VISITS[n];
    for (name, expected) in [
        ("visitor-id", visitor),
        ("x-gyg-visitor-id", visitor),
        ("x-gyg-csrf-token", csrf),
        ("x-gyg-session-id", session),
        ("visitor-platform", "desktop"),
        ("referer", QUERY),
    ] {
        assert_eq!(call.header(name).as_deref(), Some(expected), "{call:?}");
    }
    assert_eq!(call.cookie("visitor_id").as_deref(), Some(visitor));
    assert_eq!(
        call.cookie("csrfToken"),
        None,
        "the page's host-only cookie stays on its host: {call:?}"
    );
}

#[tokio::test]
async fn an_expired_session_visits_again_and_the_fetch_continues_without_loss() {
    let dir = common::root().join("plugins").join(PLUGIN).join("tests");
    let manifest = Manifest::load(&dir.join("../manifest.toml")).unwrap();
    let upstream = Upstream::start(&dir, &manifest).await;
    let s = common::start(&[PLUGIN], |c| {
        upstream.configure(PLUGIN, c);
        // Sessions that live no time at all: the continuation finds its session gone.
        c.session_ttl_secs = 0;
    })
    .await;
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
    let expected: Vec<String> = (61000001..=61000045).map(|id| id.to_string()).collect();
    assert_eq!(all, expected, "every review once, in order");

    let seen = upstream.since(0);
    assert!(seen.iter().all(|r| r.status.is_some()), "{seen:?}");
    assert_eq!(
        seen.iter().map(kind).collect::<Vec<_>>(),
        ["GET page", "POST 0", "POST 20", "GET page", "POST 20", "POST 40"],
        "the new session visited the page again before going on"
    );
    let calls: Vec<&Seen> = seen.iter().filter(|r| r.json().is_some()).collect();
    assert_echoes(calls[0], 0);
    assert_echoes(calls[1], 0);
    assert_echoes(calls[2], 1);
    assert_echoes(calls[3], 1);
}
