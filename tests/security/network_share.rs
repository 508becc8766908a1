//! Slow sites cannot starve the sources that answer. With no API keys (the
//! loopback-only mode), one client on eight local addresses keeps 256
//! requests hanging on four plugins whose sites never finish; a source whose
//! site answers at once, asked from a ninth address, is still answered every
//! time, because a plugin past its floor of network slots may not take the
//! last ones.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::routing::get;
use serde_json::{json, Value};

use super::client_limits::client_from;
use super::common;

/// The four hanging routes and a request for each.
fn hanging_requests() -> [(&'static str, Value); 4] {
    [
        (
            "/features/domain-to-asset",
            json!({"query": "http://drip.example/"}),
        ),
        (
            "/public/v1/wol-meta-info",
            json!({"email": "a@example.com", "website": "http://drip.example/"}),
        ),
        (
            "/venue-guide/reviews",
            json!({"query": "4b0588a1f964a520b2b322e3"}),
        ),
        ("/hostel-site/reviews", json!({"query": "93919"})),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hanging_sources_leave_an_answering_source_its_share() {
    let drip = common::dripping_site(30).await;
    let page = common::trustpilot_html(&common::trustpilot_pages()[0], 1);
    let fast = common::upstream(axum::Router::new().fallback(get(move || async move {
        ([("content-type", "text/html")], page.clone())
    })))
    .await;
    let s = common::start(
        &[
            "domain-to-asset",
            "wol-meta-info",
            "venue-guide",
            "hostel-site",
            "customer-feedback-hub",
        ],
        move |c| {
            c.replay = None;
            for (plugin, host) in [
                ("domain-to-asset", "drip.example"),
                ("wol-meta-info", "drip.example"),
                ("venue-guide", "api.foursquare.com"),
                ("hostel-site", "prod.apigee.hostelworld.com"),
                ("hostel-site", "www.hostelworld.com"),
            ] {
                c.upstream_override
                    .insert(format!("{plugin}:{host}"), format!("http://{drip}"));
            }
            c.upstream_override.insert(
                "customer-feedback-hub:www.trustpilot.com".into(),
                format!("http://{fast}"),
            );
            c.plugins.insert(
                "venue-guide".into(),
                [("api_key".to_owned(), "fsq-test-key".to_owned())].into(),
            );
        },
    )
    .await;

    // One client, eight addresses, 32 requests each (its per-address limit).
    let mut hanging = tokio::task::JoinSet::new();
    for a in 1..=8 {
        let client = client_from(format!("127.0.2.{a}").parse().unwrap());
        for i in 0..32 {
            let (path, body) = hanging_requests()[i % 4].clone();
            let (client, url) = (client.clone(), s.url(path));
            hanging.spawn(async move {
                let r = client.post(url).json(&body).send().await.unwrap();
                let status = r.status().as_u16();
                (status, r.text().await.unwrap())
            });
        }
    }
    // Time for all 256 to arrive: the sites hold them for far longer.
    tokio::time::sleep(Duration::from_secs(2)).await;

    let victim = client_from("127.0.3.1".parse().unwrap());
    let mut answered = BTreeMap::new();
    for _ in 0..100 {
        let r = victim
            .post(s.url("/customer-feedback-hub/reviews"))
            .json(&json!({
                "query": "https://www.trustpilot.com/review/www.bhphotovideo.com",
                "reviews_to_fetch": 5
            }))
            .send()
            .await
            .unwrap();
        *answered.entry(r.status().as_u16()).or_insert(0) += 1;
        r.bytes().await.unwrap();
    }
    let mut flood = BTreeMap::new();
    let mut refusal = None;
    while let Some(r) = hanging.join_next().await {
        let (status, body) = r.unwrap();
        if status == 503 {
            refusal.get_or_insert(body.clone());
        }
        *flood.entry(status).or_insert(0) += 1;
    }
    eprintln!("network share: answering source {answered:?}; hanging routes {flood:?}");
    assert_eq!(
        answered.get(&200),
        Some(&100),
        "a source whose site answers is always answered: {answered:?}"
    );
    let refusal = refusal.expect("past their share the hanging plugins are refused");
    assert!(refusal.contains("retry"), "{refusal}");
}
