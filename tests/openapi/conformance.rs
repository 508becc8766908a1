//! Every answer the server gives (the plugins' replay cases, the processors,
//! refused requests) matches the schema the document gives for its route and
//! status.

use std::collections::{BTreeMap, BTreeSet};

use gleaner::manifest::Manifest;
use serde_json::{json, Value};

use super::*;
use crate::common;

/// A plugin's replay cases (`plugins/<name>/tests/replay.toml`): the requests,
/// with the operator settings they run under.
fn replay_cases(name: &str) -> Option<(toml::Table, Vec<toml::Table>)> {
    let text = std::fs::read_to_string(
        common::root()
            .join("plugins")
            .join(name)
            .join("tests/replay.toml"),
    )
    .ok()?;
    let mut table: toml::Table = toml::from_str(&text).unwrap();
    let settings = match table.remove("settings") {
        Some(toml::Value::Table(t)) => t,
        _ => toml::Table::new(),
    };
    let cases = match table.remove("case") {
        Some(toml::Value::Array(a)) => a
            .into_iter()
            .filter_map(|c| match c {
                toml::Value::Table(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((settings, cases))
}

/// The continuation of an answer, as the next request takes it.
fn continuation_of(answer: &Value) -> Option<(&'static str, Value)> {
    if let Some(t) = answer["next_page"].as_str() {
        return Some(("pagination_token", json!(t)));
    }
    answer["pagination_data"]
        .as_object()
        .map(|o| ("pagination_data", Value::Object(o.clone())))
}

/// Sends requests the server refuses, and checks each refusal's status and body.
async fn refusals_conform(s: &common::Server, doc: &Value, route: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let sends: Vec<(&str, Option<&str>, Vec<u8>)> = vec![
        (
            "unknown field",
            None,
            br#"{"query":"x","no_such_field":1}"#.to_vec(),
        ),
        ("not JSON", None, b"{".to_vec()),
        (
            "a field twice",
            None,
            br#"{"query":"a","query":"b"}"#.to_vec(),
        ),
        (
            "wrong media type",
            Some("text/plain"),
            br#"{"query":"x"}"#.to_vec(),
        ),
        ("too large", None, vec![b' '; 5000]),
    ];
    for (what, media, body) in sends {
        let mut request = s.client.post(s.url(route)).body(body);
        request = request.header("content-type", media.unwrap_or("application/json"));
        let r = request.send().await.unwrap();
        let status = r.status().as_u16();
        let answer: Value = r.json().await.unwrap();
        if let Err(e) = conforms(doc, route, status, &answer) {
            failures.push(format!("{what}: {e}"));
        }
    }
    failures
}

#[tokio::test]
async fn every_answer_matches_the_document() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for name in common::staged_plugins() {
        let Some((settings, cases)) = replay_cases(&name) else {
            continue;
        };
        let tests_dir = common::root().join("plugins").join(&name).join("tests");
        let plugin_settings: BTreeMap<String, String> = settings
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
            .collect();
        let replay = tests_dir.clone();
        let key = name.clone();
        let s = common::start(&[name.as_str()], move |c| {
            c.replay = Some(replay);
            c.max_body_bytes = 4096;
            c.plugins.insert(key, plugin_settings);
        })
        .await;
        let doc = document(&s).await;
        let manifest = Manifest::load(
            &common::root()
                .join("target/plugins")
                .join(format!("{name}.toml")),
        )
        .unwrap();
        let route = manifest.route;
        // The manifest's example is the one the document shows, and the
        // recorded traffic answers it with records.
        let example = Value::Object(manifest.example.expect("every source gives an example"));
        let shown = &doc["paths"][route.as_str()]["post"]["requestBody"]["content"]
            ["application/json"]["example"];
        assert_eq!(*shown, example, "{name}");
        let (status, answer) = s.post(&route, example).await;
        assert_eq!(status, 200, "{name}: its example works: {answer}");
        assert!(
            answer["all_reviews"]
                .as_array()
                .is_some_and(|r| !r.is_empty()),
            "{name}: its example returns records: {answer}"
        );
        if let Err(e) = conforms(&doc, &route, status, &answer) {
            failures.push(format!("{name}: its example: {e}"));
        }
        let mut previous = Value::Null;
        for case in cases.iter().filter(|c| !c.contains_key("settings")) {
            let request = case.get("request").and_then(toml::Value::as_str).unwrap();
            let mut body: Value = serde_json::from_str(request).unwrap();
            if case.get("follow").and_then(toml::Value::as_bool) == Some(true) {
                let Some((field, value)) = continuation_of(&previous) else {
                    continue;
                };
                body[field] = value;
            }
            let (status, answer) = s.post(&route, body).await;
            if let Err(e) = conforms(&doc, &route, status, &answer) {
                failures.push(format!("{name}: {}: {e}", case.get("name").unwrap()));
            }
            checked += 1;
            previous = answer;
        }
        failures.extend(
            refusals_conform(&s, &doc, &route)
                .await
                .into_iter()
                .map(|e| format!("{name}: {e}")),
        );
    }
    assert!(checked >= 300, "{checked} replay cases");

    let processors = [
        "review-chunk",
        "highlight-review-text",
        "review-enhancement",
        "review-insights",
        "video-metadata-extraction",
        "video-to-casestudy",
        "domain-to-asset",
        "wol-meta-info",
    ];
    let s = common::start(&processors, |c| c.max_body_bytes = 4096).await;
    let doc = document(&s).await;
    let review = "the staff were wonderful and the room was spotless , we will definately come back next year. Worth every penny!";
    let transcript = "hi my name is dana lee and i'm the head of marketing at acme we started using bluefin and it saved us ten hours a week";
    let site = "https://www.bluefin-analytics.com/blog/weekly-digests";
    let requests = [
        (
            "/features/review-chunk",
            json!({"review_text": review, "widget_type": "badge"}),
        ),
        (
            "/features/review-chunk",
            json!({"review_text": review, "review_id": null}),
        ),
        ("/features/review-chunk", json!({"review_text": " "})),
        (
            "/features/highlight-review-text",
            json!({"review_text": review, "review_id": "r-1"}),
        ),
        (
            "/features/highlight-review-text",
            json!({"review_text": "ok"}),
        ),
        (
            "/features/review-enhancement",
            json!({"review_text": review}),
        ),
        ("/features/review-enhancement", json!({"review_text": 5})),
        (
            "/features/review-insights",
            json!({"review_text": review, "review_rating": 4.5, "review_id": "r-2"}),
        ),
        (
            "/features/review-insights",
            json!({"review_text": "Great stay!"}),
        ),
        (
            "/features/review-insights",
            json!({"review_text": review, "review_rating": 7}),
        ),
        (
            "/features/video-metadata-extraction",
            json!({"query": transcript}),
        ),
        (
            "/features/video-metadata-extraction",
            json!({"query": "hola me llamo ana y trabajo en la empresa de mi familia desde hace diez años"}),
        ),
        ("/features/video-to-casestudy", json!({"query": transcript})),
        ("/features/domain-to-asset", json!({"query": site})),
        (
            "/features/domain-to-asset",
            json!({"query": site, "favicon_only": true}),
        ),
        (
            "/public/v1/wol-meta-info",
            json!({"email": "ops@bluefin-analytics.com", "website": site}),
        ),
        (
            "/public/v1/wol-meta-info",
            json!({"email": "not an address", "website": site}),
        ),
        (
            "/public/v1/wol-meta-info",
            json!({"email": "ops@bluefin-analytics.com"}),
        ),
    ];
    let mut statuses = BTreeSet::new();
    for (route, body) in requests {
        let r = s
            .client
            .post(s.url(route))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        if status == 200 {
            let engine = r.headers().get("x-gleaner-engine").cloned();
            assert!(engine.is_some(), "{route}: x-gleaner-engine");
        }
        let answer: Value = r.json().await.unwrap();
        statuses.insert(status);
        if let Err(e) = conforms(&doc, route, status, &answer) {
            failures.push(format!("{e}\n  body: {body}\n  answer: {answer}"));
        }
    }
    assert_eq!(statuses, BTreeSet::from([200, 400]));
    // Each processor's manifest example is in the document and works.
    for name in processors {
        let m = Manifest::load(
            &common::root()
                .join("target/plugins")
                .join(format!("{name}.toml")),
        )
        .unwrap();
        let example = Value::Object(
            m.example
                .clone()
                .expect("production processors give an example"),
        );
        let shown = &doc["paths"][m.route.as_str()]["post"]["requestBody"]["content"]
            ["application/json"]["example"];
        assert_eq!(*shown, example, "{name}");
        let (status, answer) = s.post(&m.route, example).await;
        assert_eq!(status, 200, "{name}: its example works: {answer}");
        if let Err(e) = conforms(&doc, &m.route, status, &answer) {
            failures.push(e);
        }
    }
    for route in ["/features/review-chunk", "/public/v1/wol-meta-info"] {
        failures.extend(refusals_conform(&s, &doc, route).await);
    }
    assert!(
        failures.is_empty(),
        "answers that break the document:\n{}",
        failures.join("\n")
    );
}

// ---------- hot swap and the command ----------
