//! Trace export: the server binary, pointed at a local OTLP/HTTP collector
//! stub, sends a request's trace with its plugin call and upstream requests.

use crate::common;

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::json;

/// A collector that keeps every `/v1/traces` export it receives.
async fn collector() -> (SocketAddr, Arc<Mutex<Vec<ExportTraceServiceRequest>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let keep = received.clone();
    let router = axum::Router::new().route(
        "/v1/traces",
        post(move |body: axum::body::Bytes| {
            let keep = keep.clone();
            async move {
                let request = ExportTraceServiceRequest::decode(body).expect("OTLP protobuf");
                keep.lock().unwrap().push(request);
                (
                    [("content-type", "application/x-protobuf")],
                    Vec::<u8>::new(),
                )
            }
        }),
    );
    (common::upstream(router).await, received)
}

fn text(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes.iter().find(|kv| kv.key == key).and_then(|kv| {
        match kv.value.as_ref()?.value.as_ref()? {
            AnyValue::StringValue(s) => Some(s.clone()),
            AnyValue::IntValue(i) => Some(i.to_string()),
            _ => None,
        }
    })
}

#[tokio::test]
async fn a_request_trace_shows_its_plugin_calls_and_upstream_requests() {
    let (collector, received) = collector().await;
    let dir = common::plugin_dir(&["review-chunk", "customer-feedback-hub"]);
    let addr: SocketAddr = format!("127.0.0.1:{}", common::free_port())
        .parse()
        .unwrap();
    let mut child = Command::new(crate::common::server_binary())
        .current_dir(common::root())
        .env("GLEANER_ADDR", addr.to_string())
        .env("GLEANER_PLUGIN_DIR", dir.path())
        .env(
            "GLEANER_CACHE_DIR",
            common::root().join("target/gleaner-test-cache"),
        )
        .env(
            "GLEANER_DATA_DIR",
            common::root().join("target/gleaner-test-data"),
        )
        .env("GLEANER_TOKEN_SECRET", common::TOKEN_SECRET)
        .env("GLEANER_REPLAY", common::har_dir())
        .env("GLEANER_OTLP_ENDPOINT", format!("http://{collector}"))
        .env("GLEANER_LOG", "warn")
        .env_remove("GLEANER_CONFIG")
        .env_remove("GLEANER_API_KEYS")
        .env_remove("GLEANER_ADMIN_KEYS")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the gleaner binary starts");
    let client = reqwest::Client::new();
    let started = Instant::now();
    loop {
        let health = client.get(format!("http://{addr}/healthz")).send().await;
        if let Ok(r) = health {
            if r.text()
                .await
                .unwrap_or_default()
                .contains("\"status\":\"ok\"")
            {
                break;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the server never came up"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let chunk = client
        .post(format!("http://{addr}/features/review-chunk"))
        .header("x-request-id", "otlp-chunk")
        .json(&json!({"review_text": "Traced. Twice."}))
        .send()
        .await
        .unwrap();
    assert_eq!(chunk.status(), 200);
    let fetch = client
        .post(format!("http://{addr}/customer-feedback-hub/reviews"))
        .header("x-request-id", "otlp-fetch")
        .json(&json!({"query": "https://www.trustpilot.com/review/www.bhphotovideo.com", "reviews_to_fetch": 5}))
        .send()
        .await
        .unwrap();
    assert_eq!(fetch.status(), 200);
    // SIGTERM: the server drains, then sends the spans still buffered.
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the server did not exit"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let exports = received.lock().unwrap().clone();
    assert!(!exports.is_empty(), "no OTLP export arrived");
    let mut spans: Vec<Span> = Vec::new();
    for export in &exports {
        for resource in &export.resource_spans {
            let attributes = &resource.resource.as_ref().unwrap().attributes;
            assert_eq!(text(attributes, "service.name").as_deref(), Some("gleaner"));
            for scope in &resource.scope_spans {
                spans.extend(scope.spans.iter().cloned());
            }
        }
    }
    let request = |id: &str| {
        spans
            .iter()
            .find(|s| {
                s.name == "request" && text(&s.attributes, "request_id").as_deref() == Some(id)
            })
            .unwrap_or_else(|| panic!("no request span for {id}: {:?}", names(&spans)))
            .clone()
    };
    let children = |parent: &Span, name: &str| -> Vec<Span> {
        spans
            .iter()
            .filter(|s| {
                s.name == name
                    && s.trace_id == parent.trace_id
                    && s.parent_span_id == parent.span_id
            })
            .cloned()
            .collect()
    };
    let chunk = request("otlp-chunk");
    let calls = children(&chunk, "plugin_call");
    assert_eq!(calls.len(), 1, "{:?}", names(&spans));
    assert_eq!(
        text(&calls[0].attributes, "plugin").as_deref(),
        Some("review-chunk")
    );
    assert_eq!(text(&calls[0].attributes, "outcome").as_deref(), Some("ok"));

    let fetch = request("otlp-fetch");
    let calls = children(&fetch, "plugin_call");
    assert!(!calls.is_empty(), "{:?}", names(&spans));
    let upstream: Vec<Span> = calls.iter().flat_map(|c| children(c, "upstream")).collect();
    assert!(!upstream.is_empty(), "{:?}", names(&spans));
    assert_eq!(
        text(&upstream[0].attributes, "host").as_deref(),
        Some("www.trustpilot.com")
    );
    assert_eq!(
        text(&upstream[0].attributes, "status").as_deref(),
        Some("200")
    );
}

fn names(spans: &[Span]) -> Vec<&str> {
    spans.iter().map(|s| s.name.as_str()).collect()
}
