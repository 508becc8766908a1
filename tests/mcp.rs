//! `POST /mcp`. Over plain HTTP (in `make test`): a client without a key
//! gets 401 before any MCP message is read, and with one, `initialize` and
//! `tools/list` answer as JSON. With a real MCP client, the MCP Python SDK
//! (PyPI, installed by `make test-mcp`, which names its Python in
//! `GLEANER_MCP_PYTHON`; `scripts/mcp/client.py` drives it): every staged
//! plugin is a tool with its route's request schema, a source and a
//! processor answer with their routes' JSON, a refused call is a tool error
//! with the route's error text, and the job tools run a job.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::common;
use crate::jobs::{finished, send, Site, HUB, KEY, QUERY};

/// A server of every staged plugin, taking [`KEY`], whose customer-feedback-hub
/// reads `site`.
async fn every_plugin(site: &Site) -> common::Server {
    let addr = site.serve().await;
    let names = common::staged_plugins();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    common::start(&names, move |c| {
        c.replay = None;
        c.upstream_override
            .insert("www.trustpilot.com".into(), format!("http://{addr}"));
        c.api_keys = vec![KEY.into()];
    })
    .await
}

/// One JSON-RPC message to `/mcp` with `key`; the status and JSON answer.
async fn rpc(s: &common::Server, key: Option<&str>, message: Value) -> (u16, Value) {
    let mut request = s
        .client
        .post(s.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .json(&message);
    if let Some(key) = key {
        request = request.header("x-api-key", key);
    }
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn without_a_key_nothing_is_answered_and_with_one_the_tools_are() {
    let site = Site::with(3);
    let s = crate::jobs::keyed(&site).await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    for key in [None, Some("not-the-key-of-this-server")] {
        let (status, answer) = rpc(&s, key, list.clone()).await;
        assert_eq!(status, 401, "{answer}");
        assert!(
            answer["error"].as_str().unwrap().contains("API key"),
            "{answer}"
        );
        assert!(!answer.to_string().contains("tools"), "{answer}");
    }
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "plain-http", "version": "1"}
        }
    });
    let (status, answer) = rpc(&s, Some(KEY), initialize).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-06-18",
        "{answer}"
    );
    assert_eq!(answer["result"]["serverInfo"]["name"], "gleaner");
    let (status, answer) = rpc(&s, Some(KEY), list).await;
    assert_eq!(status, 200, "{answer}");
    let names: BTreeSet<&str> = answer["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let expected: BTreeSet<&str> = [
        "customer_feedback_hub_reviews",
        "features_review_chunk",
        "submit_job",
        "job_status",
        "job_reviews",
    ]
    .into();
    assert_eq!(names, expected);
}

/// Runs the MCP Python SDK's client with `plan` against `s` with `key`; what
/// it printed.
async fn python_client(s: &common::Server, key: &str, plan: Value) -> Value {
    let python = std::env::var("GLEANER_MCP_PYTHON").expect(
        "GLEANER_MCP_PYTHON names the Python that has the mcp package: run `make test-mcp`",
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plan.json");
    std::fs::write(&path, plan.to_string()).unwrap();
    let out = tokio::process::Command::new(python)
        .arg(common::root().join("scripts/mcp/client.py"))
        .arg(s.url("/mcp"))
        .arg(key)
        .arg(&path)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The operation ids of the plugin routes in the server's OpenAPI document.
async fn plugin_operations(s: &common::Server) -> BTreeSet<String> {
    let doc = s.get_json("/openapi.json").await;
    doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .filter(|item| item["post"].get("x-gleaner-plugin").is_some())
        .map(|item| item["post"]["operationId"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: make test-mcp"]
async fn an_mcp_client_lists_every_plugin_and_calls_a_source_and_a_processor() {
    let site = Site::with(25);
    let s = every_plugin(&site).await;
    let text = "The room was spotless. Staff were kind! We would stay again.";
    let plan = json!({
        "mode": "legacy",
        "calls": [
            ["customer_feedback_hub_reviews", {"query": QUERY, "reviews_to_fetch": 10}],
            ["features_review_chunk", {"review_text": text, "widget_type": "sentence"}],
            ["customer_feedback_hub_reviews", {"reviews_to_fetch": 10}],
            ["submit_job", {"endpoint": HUB, "request": {"query": QUERY}}],
            ["job_status", {"job_id": "$job_id"}],
            ["job_reviews", {"job_id": "$job_id", "limit": 5}],
        ]
    });
    let out = python_client(&s, KEY, plan).await;
    assert!(out.get("failed").is_none(), "{out}");
    let protocol = out["protocol"].as_str().unwrap();
    assert!(protocol >= "2025-06-18", "negotiated {protocol}");

    // Every plugin, and the job tools; each schema an object with its references inlined.
    let tools = out["tools"].as_array().unwrap();
    let names: BTreeSet<String> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let mut expected = plugin_operations(&s).await;
    assert_eq!(
        expected.len(),
        common::staged_plugins().len(),
        "{expected:?}"
    );
    expected.extend(["submit_job", "job_status", "job_reviews"].map(String::from));
    assert_eq!(names, expected);
    for tool in tools {
        assert_eq!(tool["input_schema"]["type"], "object", "{tool}");
        assert!(!tool["input_schema"].to_string().contains("$ref"), "{tool}");
        assert!(
            tool["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{tool}"
        );
    }

    // The source and the processor answer with their routes' JSON.
    let calls = out["calls"].as_array().unwrap();
    let (status, direct) = send(
        &s,
        reqwest::Method::POST,
        HUB,
        KEY,
        Some(json!({"query": QUERY, "reviews_to_fetch": 10})),
    )
    .await;
    assert_eq!(status, 200, "{direct}");
    let source = &calls[0];
    assert_eq!(source["is_error"], false, "{source}");
    let ids = |v: &Value| -> Vec<String> {
        v["all_reviews"]
            .as_array()
            .unwrap_or_else(|| panic!("{v}"))
            .iter()
            .map(|r| r["review_id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&source["structured"]), ids(&direct));
    assert_eq!(ids(&direct).len(), 10);
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&source["structured"]), keys(&direct));
    let (status, direct) = send(
        &s,
        reqwest::Method::POST,
        "/features/review-chunk",
        KEY,
        Some(json!({"review_text": text, "widget_type": "sentence"})),
    )
    .await;
    assert_eq!(status, 200, "{direct}");
    assert_eq!(calls[1]["is_error"], false, "{}", calls[1]);
    assert_eq!(calls[1]["structured"], direct);

    // A refused call is a tool error with the route's own words.
    let refused = &calls[2];
    assert_eq!(refused["is_error"], true, "{refused}");
    let (_, direct) = send(
        &s,
        reqwest::Method::POST,
        HUB,
        KEY,
        Some(json!({"reviews_to_fetch": 10})),
    )
    .await;
    let words = direct["error"].as_str().unwrap();
    assert!(
        refused["text"].as_str().unwrap().contains(words),
        "{refused} / {direct}"
    );

    // The job tools: a job submitted, its status and a page of its reviews.
    let job = &calls[3]["structured"];
    let id = job["job_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", calls[3]));
    assert_eq!(calls[4]["structured"]["job_id"], id, "{}", calls[4]);
    assert_eq!(calls[5]["is_error"], false, "{}", calls[5]);
    assert!(calls[5]["structured"]["reviews"].is_array(), "{}", calls[5]);
    let done = finished(&s, id, KEY, std::time::Duration::from_secs(60)).await;
    assert_eq!(done["reviews_collected"], 25, "{done}");
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: make test-mcp"]
async fn an_mcp_client_without_the_key_gets_not_even_the_tool_list() {
    let site = Site::with(3);
    let s = crate::jobs::keyed(&site).await;
    for key in ["", "a-key-this-server-does-not-take"] {
        let out = python_client(&s, key, json!({"mode": "legacy"})).await;
        // The SDK reports the 401 as a failed request, without its status.
        assert!(out["failed"].as_str().is_some(), "{out}");
        assert!(out.get("tools").is_none(), "{out}");
    }
    // The SDK's default, which asks for the newest protocol first, gets in with the key.
    let out = python_client(&s, KEY, json!({"mode": "auto"})).await;
    assert!(out.get("failed").is_none(), "{out}");
    assert!(out["protocol"].as_str().unwrap() >= "2025-06-18", "{out}");
    assert_eq!(out["tools"].as_array().unwrap().len(), 5, "{out}");
}
