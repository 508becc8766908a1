//! Input bombs: every processor declares the longest text each field takes
//! (`max_length` in its manifest). Its maximum is answered in full; one
//! character more is refused with 400, naming the field and the limit,
//! before the plugin runs (its call count does not move). The text
//! processors answer their maximum in shapes no algorithm was written for
//! too (the times are printed; `make bench` is where speed is judged). The
//! OpenAPI document states each limit as `maxLength`.

use std::time::Instant;

use serde_json::{json, Value};

use super::process::Process;

/// Route, field, its limit, and the other fields the request needs.
const LIMITS: [(&str, &str, usize, &str); 8] = [
    ("/features/review-chunk", "review_text", 100_000, "{}"),
    (
        "/features/highlight-review-text",
        "review_text",
        100_000,
        "{}",
    ),
    ("/features/review-enhancement", "review_text", 100_000, "{}"),
    ("/features/review-insights", "review_text", 20_000, "{}"),
    ("/features/video-to-casestudy", "query", 100_000, "{}"),
    (
        "/features/video-metadata-extraction",
        "query",
        100_000,
        "{}",
    ),
    ("/features/domain-to-asset", "query", 2_048, "{}"),
    (
        "/public/v1/wol-meta-info",
        "website",
        2_048,
        r#"{"email": "ops@example.com"}"#,
    ),
];

const PLUGINS: [&str; 8] = [
    "review-chunk",
    "highlight-review-text",
    "review-enhancement",
    "review-insights",
    "video-to-casestudy",
    "video-metadata-extraction",
    "domain-to-asset",
    "wol-meta-info",
];

/// Texts at a processor's maximum that no algorithm was written for, as the
/// unit each repeats.
const HOSTILE: [(&str, &str); 6] = [
    (
        "words without a sentence break",
        "great friendly staff amazing value ",
    ),
    ("one endless word", "a"),
    ("markup openers without a close", "<a"),
    ("entities without an end", "&amp"),
    ("commas", "good, "),
    ("label-like colons", "a: "),
];

/// An interview transcript of exactly `chars` characters: labelled turns of
/// real sentences, the text these processors are for.
fn transcript(chars: usize) -> String {
    let turns = [
        "Interviewer: How did the rollout go for your team?\n",
        "Dana Lee: We switched last spring, and it cut our reporting time from nine hours to under two. \
         Support answered every question within the hour, which mattered during the migration.\n",
        "Interviewer: What would you tell someone considering it?\n",
        "Dana Lee: Start with one team, measure the hours saved, then roll it out. It paid for itself in a quarter.\n",
    ];
    let mut text = String::with_capacity(chars + 200);
    while text.chars().count() < chars {
        text.extend(turns);
    }
    text.chars().take(chars).collect()
}

/// A URL of exactly `chars` characters.
fn long_url(chars: usize) -> String {
    let base = "https://www.example.com/";
    format!("{base}{}", "a".repeat(chars - base.len()))
}

fn value(field: &str, chars: usize) -> String {
    if matches!(field, "query" | "website") && chars <= 10_000 {
        long_url(chars)
    } else {
        transcript(chars)
    }
}

/// POSTs `body` to `url`: the status, the body and the milliseconds it took.
async fn timed_post(client: &reqwest::Client, url: &str, body: &Value) -> (u16, String, u128) {
    let started = Instant::now();
    let response = client.post(url).json(body).send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, text, started.elapsed().as_millis())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_processor_answers_its_maximum_and_refuses_one_more_at_once() {
    let server = Process::start(
        &PLUGINS,
        // Replayed sites (none is asked for here: the URLs are refused or
        // unreachable), a body limit above the largest field.
        &[("GLEANER_MAX_BODY_BYTES", "2000000".into())],
    );
    let client = reqwest::Client::new();
    let openapi: Value = client
        .get(server.url("/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut report = Vec::new();
    for (plugin, (route, field, limit, extra)) in PLUGINS.iter().zip(LIMITS) {
        let documented = openapi
            .pointer(&format!(
                "/paths/{}/post/requestBody/content/application~1json/schema",
                route.replace('/', "~1")
            ))
            .and_then(|s| {
                let s = match s.get("$ref").and_then(Value::as_str) {
                    Some(r) => openapi.pointer(&r[1..]).unwrap(),
                    None => s,
                };
                s.pointer(&format!("/properties/{field}/maxLength"))
            })
            .and_then(Value::as_u64);
        assert_eq!(
            documented,
            Some(limit as u64),
            "{route}: maxLength of {field} in /openapi.json"
        );

        let mut body: Value = serde_json::from_str(extra).unwrap();
        body[field] = json!(value(field, limit));
        let (status, text, max_ms) = timed_post(&client, &server.url(route), &body).await;
        // Website processors answer a site they cannot reach with 400; the
        // point is that the input was taken.
        let taken = status == 200 || (status == 400 && !text.contains("max_length"));
        assert!(
            taken,
            "{route}: the maximum of {limit} characters is answered: {status} {text:.300}"
        );
        // The text processors, at their maximum, on text no algorithm was
        // written for: no sentence breaks, runs of markup openers, of labels.
        let mut worst = (max_ms, "transcript");
        if limit >= 20_000 {
            for (shape, unit) in HOSTILE {
                let mut body: Value = serde_json::from_str(extra).unwrap();
                body[field] = json!(unit.repeat(limit / unit.len() + 1)[..limit]);
                let (status, text, ms) = timed_post(&client, &server.url(route), &body).await;
                assert_eq!(status, 200, "{route}, {shape} at the maximum: {text:.300}");
                if ms > worst.0 {
                    worst = (ms, shape);
                }
            }
        }

        let before = server
            .metric(
                "gleaner_plugin_calls_total",
                &[&format!("plugin=\"{plugin}\"")],
            )
            .await;
        body[field] = json!(value(field, limit + 1));
        let (status, text, bomb_ms) = timed_post(&client, &server.url(route), &body).await;
        let expected = if route.starts_with("/public/") {
            "\"message\""
        } else {
            "\"error\""
        };
        assert_eq!(
            status, 400,
            "{route}: one character over the limit: {text:.300}"
        );
        assert!(
            text.contains(expected)
                && text.contains(field)
                && text.contains(&format!("at most {limit} characters")),
            "{route}: the refusal names the field and the limit: {text}"
        );
        assert_eq!(
            server
                .metric(
                    "gleaner_plugin_calls_total",
                    &[&format!("plugin=\"{plugin}\"")]
                )
                .await,
            before,
            "{route}: refused before the plugin ran"
        );
        report.push(format!(
            "{plugin} {field} max {limit}: {max_ms} ms (slowest shape: {} ms, {}), bomb: {bomb_ms} ms",
            worst.0, worst.1
        ));
    }
    eprintln!("input limits:\n  {}", report.join("\n  "));
}
