//! Pacing against a local site: requests to a paced host start at least the
//! pace apart, across fetches; a request whose turn would come after the
//! call's deadline is not sent, and the fetch returns early with a token that
//! later yields the rest without loss.

use crate::common;
use crate::sessions::{site, PLUGIN, ROUTE};

use std::time::Duration;

use gleaner::capabilities::http::pacing::Pace;
use serde_json::{json, Value};

async fn paced_server(base: &str, min_delay_ms: u64, budget_ms: u64) -> common::Server {
    let base = base.to_owned();
    common::start(&[PLUGIN], move |c| {
        c.replay = None;
        c.fetch_budget_ms = budget_ms;
        c.upstream_override
            .insert(format!("{PLUGIN}:cookies.test"), base);
        c.pacing.insert(
            "cookies.test".into(),
            Pace {
                min_delay_ms,
                ..Pace::default()
            },
        );
    })
    .await
}

#[tokio::test]
async fn requests_to_a_paced_host_start_the_pace_apart() {
    let (seen, base) = site().await;
    let s = paced_server(&base, 150, 30_000).await;
    let (status, body) = s.post(ROUTE, json!({"query": "q"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(common::ids(&body).len(), 6);
    let arrivals = seen.arrivals.lock().unwrap().clone();
    assert_eq!(arrivals.len(), 4, "one visit and three pages");
    for pair in arrivals.windows(2) {
        let gap = pair[1] - pair[0];
        // The turn starts no earlier than the pace; a little scheduling slack
        // on the receiving side is allowed for.
        assert!(
            gap >= Duration::from_millis(140),
            "{gap:?} between two requests"
        );
    }
}

#[tokio::test]
async fn a_turn_after_the_deadline_ends_the_fetch_early_with_a_token() {
    let (seen, base) = site().await;
    // Budget 2 s: the answer is due at 1.7 s. The visit goes at 0, page 1 at
    // 0.9 s; page 2's turn would be 1.8 s, after the deadline.
    let s = paced_server(&base, 900, 2_000).await;
    let (status, first) = s.post(ROUTE, json!({"query": "q"})).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(common::ids(&first), ["r1-1", "r1-2"]);
    assert_eq!(first["extra_information"]["stop_reason"], "time_budget");
    assert_eq!(
        seen.arrivals.lock().unwrap().len(),
        2,
        "the late request was never sent"
    );
    let mut all = common::ids(&first);
    let mut token = first["next_page"].clone();
    while let Value::String(_) = token {
        let (status, next) = s
            .post(ROUTE, json!({"query": "q", "pagination_token": token}))
            .await;
        assert_eq!(status, 200, "{next}");
        all.extend(common::ids(&next));
        token = next["next_page"].clone();
    }
    assert_eq!(all, ["r1-1", "r1-2", "r2-1", "r2-2", "r3-1", "r3-2"]);
}
