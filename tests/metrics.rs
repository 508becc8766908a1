//! `GET /metrics`: what it counts after real requests, and who may read it.
//!
//! The metrics are process-wide and the other test modules run in the same
//! process, so each test serves its plugins under routes of its own (exact
//! counts by route and source) and compares plugin- and host-labelled series
//! before and after (other tests can only add to them).

use crate::common;

mod otlp;

use std::path::Path;
use std::time::Duration;

use serde_json::json;

const HUB: &str = "/metrics-hub/reviews";
const CHUNK: &str = "/metrics-test/chunk";
const MISBEHAVE: &str = "/metrics-test/misbehave";
const REFUSAL: &str = "/metrics-test/refusal";
const BH: &str = "https://www.trustpilot.com/review/www.bhphotovideo.com";

/// Serves the copied plugin `name` under `route`, optionally with another call timeout.
fn reroute(dir: &Path, name: &str, route: &str, call_timeout_ms: Option<u64>) {
    let path = dir.join(format!("{name}.toml"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        match call_timeout_ms {
            _ if line.starts_with("route = ") => out.push_str(&format!("route = \"{route}\"\n")),
            Some(ms) if line.starts_with("call_timeout_ms = ") => {
                out.push_str(&format!("call_timeout_ms = {ms}\n"))
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    std::fs::write(&path, out).unwrap();
}

/// `GET /metrics` with an optional key: status, content type and body.
async fn scrape_with(s: &common::Server, key: Option<&str>) -> (u16, String, String) {
    let mut request = s.client.get(s.url("/metrics"));
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    let content_type = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, content_type, r.text().await.unwrap())
}

/// `GET /metrics` without a key, checked to answer 200 in text: its body.
pub(crate) async fn scrape(s: &common::Server) -> String {
    let (status, content_type, body) = scrape_with(s, None).await;
    assert_eq!(status, 200, "{body}");
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    body
}

/// The value of the series `name` whose labels include all of `labels`
/// (summed over the series that match), or 0 when none does.
fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|line| {
            let (series, number) = line.rsplit_once(' ')?;
            let (series_name, series_labels) = match series.split_once('{') {
                Some((n, rest)) => (n, rest.trim_end_matches('}')),
                None => (series, ""),
            };
            if series_name != name {
                return None;
            }
            let all = labels.iter().all(|(k, v)| {
                series_labels
                    .split(',')
                    .any(|p| p == format!("{k}=\"{v}\""))
            });
            all.then(|| number.parse::<f64>().ok()).flatten()
        })
        .sum()
}

/// Starts a server with `plugins`: (name, route to serve it under, call timeout).
async fn start(
    plugins: &[(&str, &str, Option<u64>)],
    adjust: impl FnOnce(&mut gleaner::config::Config),
) -> common::Server {
    let names: Vec<&str> = plugins.iter().map(|p| p.0).collect();
    let dir = common::plugin_dir(&names);
    for (name, route, timeout) in plugins {
        reroute(dir.path(), name, route, *timeout);
    }
    let mut config = common::config(&dir);
    adjust(&mut config);
    common::start_with(dir, config).await
}

#[tokio::test]
async fn a_processor_call_and_a_replayed_fetch_are_counted() {
    let s = start(
        &[
            ("review-chunk", CHUNK, None),
            ("customer-feedback-hub", HUB, None),
        ],
        |_| {},
    )
    .await;
    let before = scrape(&s).await;

    let (status, body) = s.post(CHUNK, json!({"review_text": "Fine. Really."})).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = s.post(HUB, json!({"query": BH})).await;
    assert_eq!(status, 200, "{body}");
    let reviews = body["all_reviews"].as_array().unwrap().len();
    assert_eq!(reviews, 60);
    assert_eq!(body["extra_information"]["stop_reason"], "exhausted");
    let (status, _) = s.post("/metrics-test/nothing-here", json!({})).await;
    assert_eq!(status, 404);

    let after = scrape(&s).await;
    let delta = |name: &str, labels: &[(&str, &str)]| {
        value(&after, name, labels) - value(&before, name, labels)
    };
    // Requests: by route pattern, plugin and status; an unknown path is `none`.
    let chunk = [("route", CHUNK), ("plugin", "review-chunk")];
    assert_eq!(
        value(
            &after,
            "gleaner_requests_total",
            &[chunk[0], chunk[1], ("status", "200")]
        ),
        1.0,
        "{after}"
    );
    assert_eq!(
        value(&after, "gleaner_request_duration_seconds_count", &chunk),
        1.0
    );
    let hub = [("route", HUB), ("plugin", "customer-feedback-hub")];
    assert_eq!(
        value(
            &after,
            "gleaner_requests_total",
            &[hub[0], hub[1], ("status", "200")]
        ),
        1.0
    );
    assert!(value(&after, "gleaner_request_duration_seconds_sum", &hub) > 0.0);
    assert!(
        delta(
            "gleaner_requests_total",
            &[("route", "none"), ("plugin", "none"), ("status", "404")]
        ) >= 1.0
    );
    assert!(
        !after.contains("nothing-here"),
        "raw paths never become labels"
    );
    // Plugin calls: the processor once, the source once per page (3 pages).
    assert!(
        delta(
            "gleaner_plugin_calls_total",
            &[("plugin", "review-chunk"), ("outcome", "ok")]
        ) >= 1.0
    );
    assert!(
        delta(
            "gleaner_plugin_calls_total",
            &[("plugin", "customer-feedback-hub"), ("outcome", "ok")]
        ) >= 3.0
    );
    assert!(
        delta(
            "gleaner_plugin_call_duration_seconds_count",
            &[("plugin", "customer-feedback-hub")]
        ) >= 3.0
    );
    // Upstream requests: the host only, with status and outcome.
    let trustpilot = [
        ("host", "www.trustpilot.com"),
        ("status", "200"),
        ("outcome", "ok"),
    ];
    assert!(
        delta("gleaner_upstream_requests_total", &trustpilot) >= 3.0,
        "{after}"
    );
    assert!(
        delta(
            "gleaner_upstream_request_duration_seconds_count",
            &[("host", "www.trustpilot.com")]
        ) >= 3.0
    );
    assert!(!after.contains("host=\"https:"), "hosts, not URLs");
    // The fetch: reviews by source, and why it stopped.
    assert_eq!(
        value(
            &after,
            "gleaner_reviews_returned_total",
            &[("source", "metrics-hub")]
        ),
        60.0
    );
    assert_eq!(
        value(
            &after,
            "gleaner_fetch_stops_total",
            &[("source", "metrics-hub"), ("reason", "exhausted")]
        ),
        1.0
    );
    // Every metric carries its help text and type.
    for line in [
        "# TYPE gleaner_requests_total counter",
        "# TYPE gleaner_request_duration_seconds histogram",
        "# TYPE gleaner_plugin_calls_total counter",
        "# TYPE gleaner_upstream_requests_total counter",
        "# TYPE gleaner_reviews_returned_total counter",
        "# HELP gleaner_fetch_stops_total",
    ] {
        assert!(after.contains(line), "missing {line:?} in\n{after}");
    }
}

#[tokio::test]
async fn traps_timeouts_and_memory_caps_are_counted_by_plugin() {
    let s = start(&[("test-misbehave", MISBEHAVE, Some(1000))], |_| {}).await;
    let before = scrape(&s).await;
    for (mode, status) in [("trap", 500), ("loop", 504), ("memory", 500), ("ok", 200)] {
        let (got, body) = s.post(MISBEHAVE, json!({"mode": mode})).await;
        assert_eq!(got, status, "{mode}: {body}");
    }
    let after = scrape(&s).await;
    let route = ("route", MISBEHAVE);
    for (status, count) in [("500", 2.0), ("504", 1.0), ("200", 1.0)] {
        assert_eq!(
            value(
                &after,
                "gleaner_requests_total",
                &[route, ("status", status)]
            ),
            count,
            "status {status}:\n{after}"
        );
    }
    for outcome in ["trap", "timeout", "memory_cap", "ok"] {
        let labels = [("plugin", "test-misbehave"), ("outcome", outcome)];
        let delta = value(&after, "gleaner_plugin_calls_total", &labels)
            - value(&before, "gleaner_plugin_calls_total", &labels);
        assert!(delta >= 1.0, "{outcome}: {delta}\n{after}");
    }
}

// Two workers: a plugin spinning in a loop holds one, the other serves the
// second request meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_and_requests_in_flight_are_counted() {
    let s = start(&[("test-misbehave", REFUSAL, Some(1500))], |c| {
        c.max_concurrent_per_plugin = 1
    })
    .await;
    let refused = [("plugin", "test-misbehave"), ("pool", "plugin")];
    let before = scrape(&s).await;
    let slow = s.post(REFUSAL, json!({"mode": "loop"}));
    let during = async {
        tokio::time::sleep(Duration::from_millis(400)).await;
        let (status, _) = s.post(REFUSAL, json!({"mode": "ok"})).await;
        (status, scrape(&s).await)
    };
    let ((slow_status, _), (refused_status, during)) = tokio::join!(slow, during);
    assert_eq!(slow_status, 504);
    assert_eq!(refused_status, 503);
    assert!(
        value(
            &during,
            "gleaner_requests_in_flight",
            &[("plugin", "test-misbehave")]
        ) >= 1.0,
        "{during}"
    );
    let after = scrape(&s).await;
    assert_eq!(
        value(
            &after,
            "gleaner_requests_total",
            &[("route", REFUSAL), ("status", "503")]
        ),
        1.0
    );
    assert!(
        value(&after, "gleaner_requests_refused_total", &refused)
            - value(&before, "gleaner_requests_refused_total", &refused)
            >= 1.0,
        "{after}"
    );
}

#[tokio::test]
async fn hot_swaps_and_failed_loads_are_counted() {
    let dir = common::plugin_dir(&[]);
    let staged =
        |file: &str| std::fs::read(common::root().join("target/test-plugins").join(file)).unwrap();
    for file in ["test-swap-v1.wasm", "test-swap-v2.wasm"] {
        std::fs::write(dir.path().join(file), staged(file)).unwrap();
    }
    std::fs::write(
        dir.path().join("test-swap.toml"),
        staged("test-swap-v1.toml"),
    )
    .unwrap();
    let path = dir.path().to_owned();
    let mut config = common::config(&dir);
    config.watch = false;
    config.admin_keys = vec!["adm-metrics".into()];
    let s = common::start_with(dir, config).await;
    let key = Some("adm-metrics");
    let plugin = [("plugin", "test-swap")];
    let read = |text: &str, name: &str| value(text, name, &plugin);
    let (_, _, before) = scrape_with(&s, key).await;
    let reload = || async {
        let r = s
            .client
            .post(s.url("/admin/reload"))
            .header("x-api-key", "adm-metrics")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    };

    std::fs::write(path.join("test-swap.toml"), staged("test-swap-v2.toml")).unwrap();
    reload().await;
    let (_, _, swapped) = scrape_with(&s, key).await;
    assert!(
        read(&swapped, "gleaner_plugin_swaps_total") - read(&before, "gleaner_plugin_swaps_total")
            >= 1.0,
        "{swapped}"
    );

    std::fs::write(path.join("test-swap-v1.wasm"), b"\0asm not really").unwrap();
    std::fs::write(path.join("test-swap.toml"), staged("test-swap-v1.toml")).unwrap();
    reload().await;
    let (_, _, failed) = scrape_with(&s, key).await;
    assert!(
        read(&failed, "gleaner_plugin_load_failures_total")
            - read(&swapped, "gleaner_plugin_load_failures_total")
            >= 1.0,
        "{failed}"
    );
}

#[tokio::test]
async fn without_keys_metrics_are_open_on_loopback_only() {
    let open = common::start(&[], |_| {}).await;
    let (status, content_type, _) = scrape_with(&open, None).await;
    assert_eq!(status, 200);
    assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");

    // Listening on every interface with API keys only: no key opens /metrics.
    let public = common::start(&[], |c| {
        c.addr = "0.0.0.0:0".parse().unwrap();
        c.api_keys = vec!["api-1".into()];
    })
    .await;
    for key in [None, Some("api-1")] {
        let (status, _, body) = scrape_with(&public, key).await;
        assert_eq!(status, 403, "{body}");
        assert!(body.contains("GLEANER_METRICS_KEYS"), "{body}");
    }
}

#[tokio::test]
async fn with_keys_metrics_need_a_metrics_or_admin_key() {
    let s = common::start(&[], |c| {
        c.api_keys = vec!["api-1".into()];
        c.admin_keys = vec!["adm-1".into()];
        c.metrics_keys = vec!["met-1".into()];
    })
    .await;
    for (key, status) in [
        (None, 401),
        (Some("api-1"), 401),
        (Some("wrong"), 401),
        (Some("met-1"), 200),
        (Some("adm-1"), 200),
    ] {
        let (got, _, body) = scrape_with(&s, key).await;
        assert_eq!(got, status, "{key:?}: {body}");
        if status == 401 {
            assert!(body.contains("metrics or admin key"), "{body}");
        }
    }
    let r = s
        .client
        .get(s.url("/metrics"))
        .header("x-api-key", "met-1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "x-api-key works too");
    let admin = s
        .client
        .get(s.url("/admin/plugins"))
        .header("x-api-key", "met-1")
        .send()
        .await
        .unwrap();
    assert_eq!(admin.status(), 401, "a metrics key opens nothing else");

    // Admin keys alone guard /metrics too, even from loopback.
    let admin_only = common::start(&[], |c| c.admin_keys = vec!["adm-2".into()]).await;
    assert_eq!(scrape_with(&admin_only, None).await.0, 401);
    assert_eq!(scrape_with(&admin_only, Some("adm-2")).await.0, 200);
}
