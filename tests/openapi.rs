//! `GET /openapi.json` and `gleaner openapi`: the document is OpenAPI 3.1,
//! lists every route the server serves with the request schema its manifest
//! declares, and every answer the server gives (the plugins' replay cases,
//! the processors, refused requests) matches the schema the document gives
//! for its route and status. A hot swap changes the document; the command
//! prints the document the server serves. The answers' conformance is in
//! `openapi/conformance.rs`.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use gleaner::manifest::{FieldSpec, FieldType, Kind, Manifest};
use serde_json::{json, Value};

mod conformance;

/// The routes no plugin serves.
const FIXED: [&str; 19] = [
    "/healthz",
    "/mcp",
    "/openapi.json",
    "/sources",
    "/docs",
    "/metrics",
    "/receipts/public-key",
    "/admin/plugins",
    "/admin/plugins/{name}",
    "/admin/reload",
    "/jobs",
    "/jobs/{id}",
    "/jobs/{id}/reviews",
    "/jobs/{id}/links",
    "/jobs/{id}/reviews.csv",
    "/schedules",
    "/schedules/{id}",
    "/schedules/{id}/run",
    "/schedules/{id}/changes",
];

fn fixed_routes() -> BTreeSet<String> {
    FIXED.iter().map(|r| r.to_string()).collect()
}

fn manifests_of(dir: &Path) -> Vec<Manifest> {
    let mut out: Vec<Manifest> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| Manifest::load(&p).unwrap())
        .collect();
    out.sort_by(|a, b| a.route.cmp(&b.route));
    out
}

/// Every response link names, as `operationId`, an operation of the document
/// that takes the parameters it fills; the jobs and schedules have some.
fn links_name_operations(doc: &Value) {
    let operations: Vec<&Value> = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .collect();
    let mut seen = 0;
    for operation in &operations {
        let responses = operation["responses"].as_object().into_iter().flatten();
        for (_, response) in responses {
            for (name, link) in response["links"].as_object().into_iter().flatten() {
                let id = link["operationId"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{name}: {link}"));
                let target = operations.iter().find(|o| o["operationId"] == id);
                let target = target.unwrap_or_else(|| panic!("{name} links to no operation {id}"));
                for parameter in link["parameters"].as_object().unwrap().keys() {
                    let takes = target["parameters"].as_array().unwrap().iter();
                    assert!(
                        takes.clone().any(|p| p["name"] == parameter.as_str()),
                        "{id} takes {parameter}"
                    );
                }
                seen += 1;
            }
        }
    }
    assert!(seen >= 6, "{seen} links");
}

async fn document(s: &common::Server) -> Value {
    let r = s.client.get(s.url("/openapi.json")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["content-type"], "application/json");
    r.json().await.unwrap()
}

fn paths(doc: &Value) -> BTreeSet<String> {
    doc["paths"].as_object().unwrap().keys().cloned().collect()
}

/// Everything in `v` that `schema` does not allow, by a JSON Schema 2020-12
/// validator (the dialect of OpenAPI 3.1); the document's components go along,
/// so that `#/components/schemas/...` references resolve.
fn violations(doc: &Value, schema: &Value, v: &Value) -> Vec<String> {
    let mut root = schema
        .as_object()
        .cloned()
        .unwrap_or_else(|| panic!("schema {schema} is not an object"));
    root.insert("components".into(), doc["components"].clone());
    let validator = jsonschema::draft202012::new(&Value::Object(root))
        .unwrap_or_else(|e| panic!("the document holds an invalid schema: {e}"));
    validator
        .iter_errors(v)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn the_validator_resolves_references_and_reports_violations() {
    let doc = json!({"components": {"schemas": {"R": {
        "type": "object",
        "required": ["id"],
        "properties": {"id": {"type": "string"}},
        "additionalProperties": false,
    }}}});
    let schema = json!({"type": "array", "items": {"$ref": "#/components/schemas/R"}});
    assert!(violations(&doc, &schema, &json!([{"id": "a"}])).is_empty());
    assert_eq!(violations(&doc, &schema, &json!([{"id": 1}])).len(), 1);
    assert_eq!(
        violations(&doc, &schema, &json!([{"id": "a", "x": 1}])).len(),
        1
    );
    assert_eq!(violations(&doc, &schema, &json!([{}])).len(), 1);
}

/// Checks an answer against the document: its status is documented for the
/// route, and its JSON body matches that response's schema.
fn conforms(doc: &Value, route: &str, status: u16, body: &Value) -> Result<(), String> {
    conforms_as(doc, "post", route, status, body)
}

/// [`conforms`] for another method.
fn conforms_as(
    doc: &Value,
    method: &str,
    route: &str,
    status: u16,
    body: &Value,
) -> Result<(), String> {
    let response = &doc["paths"][route][method]["responses"][status.to_string()];
    if !response.is_object() {
        return Err(format!("{route}: status {status} is not documented"));
    }
    let schema = &response["content"]["application/json"]["schema"];
    let problems = violations(doc, schema, body);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{route} {status}: {}", problems.join("; ")))
    }
}

// ---------- the document ----------

#[tokio::test]
async fn the_document_is_openapi_3_1_and_lists_every_served_route() {
    let names = common::staged_plugins();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let s = common::start(&names, |_| {}).await;
    let doc = document(&s).await;

    let parsed: Result<utoipa::openapi::OpenApi, _> = serde_json::from_value(doc.clone());
    assert!(
        parsed.is_ok(),
        "the document parses as OpenAPI: {:?}",
        parsed.err()
    );
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["title"], "Gleaner");

    let manifests = manifests_of(&common::root().join("target/plugins"));
    assert!(manifests.len() >= 20, "{} manifests", manifests.len());
    let mut expected = fixed_routes();
    expected.extend(manifests.iter().map(|m| m.route.clone()));
    assert_eq!(paths(&doc), expected);
    links_name_operations(&doc);

    for m in &manifests {
        // Served: a POST reaches the plugin's validation (not 404).
        let (status, _) = s.post(&m.route, json!({})).await;
        assert_eq!(status, 400, "{} is served", m.route);

        let op = &doc["paths"][m.route.as_str()]["post"];
        assert_eq!(op["x-gleaner-plugin"]["name"], m.name.as_str());
        let request = &op["requestBody"]["content"]["application/json"]["schema"];
        assert_eq!(request["additionalProperties"], false, "{}", m.route);
        let specs: Vec<&FieldSpec> = match m.kind {
            Kind::Source => {
                let o = m.source.as_ref().unwrap();
                assert_eq!(request["required"], json!(["query"]), "{}", m.route);
                // Each source says which URL forms and identifiers its query takes.
                let query = o.query_description.as_deref();
                assert!(
                    query.is_some_and(|q| !q.trim().is_empty()),
                    "{}: production sources describe the forms their query takes",
                    m.route
                );
                assert_eq!(
                    request["properties"]["query"]["description"].as_str(),
                    query,
                    "{}",
                    m.route
                );
                o.sort.iter().chain(o.filter.iter()).collect()
            }
            Kind::Processor => {
                let fields = &m.processor.as_ref().unwrap().fields;
                let required: Vec<&str> = fields
                    .iter()
                    .filter(|f| f.required)
                    .map(|f| f.field.as_str())
                    .collect();
                let listed: Vec<&str> = request["required"]
                    .as_array()
                    .map(|a| a.iter().map(|v| v.as_str().unwrap()).collect())
                    .unwrap_or_default();
                assert_eq!(listed, required, "{}", m.route);
                for f in fields {
                    let said = f.description.as_deref().unwrap_or_default();
                    assert!(
                        !said.trim().is_empty(),
                        "{}: production processors describe every field, {} too",
                        m.route,
                        f.field
                    );
                    let shown = request["properties"][f.field.as_str()]["description"]
                        .as_str()
                        .unwrap_or_default();
                    assert!(
                        shown.starts_with(said.trim_end_matches('.')),
                        "{}: {shown}",
                        f.field
                    );
                }
                fields.iter().collect()
            }
            Kind::PostSource => Vec::new(),
        };
        let properties = request["properties"].as_object().unwrap();
        for spec in specs {
            let field = &properties[spec.field.as_str()];
            assert!(
                field.is_object(),
                "{}: {} is described",
                m.route,
                spec.field
            );
            if spec.ty == FieldType::Enum {
                // One `enum`, or an `anyOf` of enums (strings, numbers) and null;
                // each `enum` keeps to one JSON type, as client generators need.
                let branches: Vec<&Value> = match field["anyOf"].as_array() {
                    Some(branches) => branches.iter().collect(),
                    None => vec![field],
                };
                let mut strings: Vec<&str> = Vec::new();
                let mut takes_null = false;
                for branch in branches {
                    let values = branch["enum"].as_array().map(Vec::as_slice).unwrap_or(&[]);
                    let kinds: BTreeSet<&str> = values
                        .iter()
                        .filter(|v| !v.is_null())
                        .map(|v| if v.is_string() { "string" } else { "number" })
                        .collect();
                    assert!(
                        kinds.len() <= 1,
                        "{}: {} mixes types in one enum",
                        m.route,
                        spec.field
                    );
                    strings.extend(values.iter().filter_map(Value::as_str));
                    takes_null |= values.contains(&Value::Null) || branch["type"] == "null";
                }
                // The site's values, then the shared names standing for them.
                let values: Vec<&str> = spec
                    .values
                    .iter()
                    .chain(spec.aliases.keys())
                    .map(String::as_str)
                    .collect();
                assert_eq!(strings, values, "{}: {} enum", m.route, spec.field);
                assert_eq!(
                    takes_null, !spec.required,
                    "{}: {} takes null exactly when optional",
                    m.route, spec.field
                );
            }
            if spec.ty == FieldType::Integer {
                assert_eq!(field["minimum"].as_i64(), spec.min, "{}", spec.field);
                assert_eq!(field["maximum"].as_i64(), spec.max, "{}", spec.field);
            }
        }
        if m.kind == Kind::Processor {
            let ok = &op["responses"]["200"]["content"]["application/json"]["schema"];
            assert!(
                m.processor.as_ref().unwrap().output.is_some() && ok["type"] == "object",
                "{}: production processors declare their output: {ok}",
                m.route
            );
        }
        let statuses: BTreeSet<&str> = op["responses"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let want: &[&str] = match m.kind {
            Kind::Source => &[
                "200", "400", "404", "408", "413", "415", "429", "500", "502", "503", "504",
            ],
            Kind::PostSource => &["200", "400"],
            Kind::Processor => &[
                "200", "400", "408", "413", "415", "429", "500", "503", "504",
            ],
        };
        assert_eq!(statuses, want.iter().copied().collect(), "{}", m.route);
        let shape = op["responses"]["400"]["content"]["application/json"]["schema"]["$ref"]
            .as_str()
            .unwrap();
        let want_shape = match m.kind {
            Kind::PostSource => "ErrorBoth",
            Kind::Processor if m.route.starts_with("/public/") => "ErrorStructured",
            _ => "Error",
        };
        assert_eq!(
            shape,
            format!("#/components/schemas/{want_shape}"),
            "{}",
            m.route
        );
    }

    // The validator these tests use catches a body that breaks the document.
    let hub = "/customer-feedback-hub/reviews";
    assert!(conforms(&doc, hub, 200, &json!({"all_reviews": [{"review_id": 5}]})).is_err());
    assert!(conforms(&doc, hub, 400, &json!({"error": "x", "extra": 1})).is_err());
    assert!(conforms(&doc, hub, 405, &json!({"error": "x"})).is_err());
    assert!(conforms(&doc, hub, 400, &json!({"error": "x"})).is_ok());

    // Every reference resolves.
    let text = doc.to_string();
    for part in text.split("\"$ref\":\"").skip(1) {
        let target = part.split('"').next().unwrap();
        let name = target.strip_prefix("#/components/schemas/").unwrap();
        assert!(doc["components"]["schemas"][name].is_object(), "{target}");
    }
}

#[tokio::test]
async fn security_follows_the_configured_keys() {
    let route = "/features/review-chunk";
    let open = common::start(&["review-chunk"], |_| {}).await;
    let doc = document(&open).await;
    let schemes = doc["components"]["securitySchemes"].clone();
    assert_eq!(
        (
            &schemes["ApiKeyAuth"]["type"],
            &schemes["ApiKeyAuth"]["in"],
            &schemes["ApiKeyAuth"]["name"]
        ),
        (&json!("apiKey"), &json!("header"), &json!("x-api-key"))
    );
    assert_eq!(schemes["BearerAuth"]["type"], "http");
    assert_eq!(schemes["BearerAuth"]["scheme"], "bearer");
    assert_eq!(schemes["AdminKeyAuth"]["in"], "header");
    let op = &doc["paths"][route]["post"];
    assert_eq!(
        op["security"],
        json!([{}, {"ApiKeyAuth": []}, {"BearerAuth": []}]),
        "no key configured: a request without one is served"
    );
    assert!(op["responses"]["401"].is_null());

    let guarded = common::start(&["review-chunk"], |c| {
        c.api_keys = vec!["k-1".into()];
        c.admin_keys = vec!["a-1".into()];
    })
    .await;
    let doc = document(&guarded).await;
    let op = &doc["paths"][route]["post"];
    assert_eq!(
        op["security"],
        json!([{"ApiKeyAuth": []}, {"BearerAuth": []}])
    );
    let r = guarded
        .client
        .post(guarded.url(route))
        .json(&json!({"review_text": "Fine."}))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 401);
    conforms(&doc, route, status, &body).unwrap();
    let list = guarded
        .client
        .get(guarded.url("/admin/plugins"))
        .header("x-api-key", "a-1")
        .send()
        .await
        .unwrap();
    assert_eq!(list.status().as_u16(), 200);
    conforms_as(
        &doc,
        "get",
        "/admin/plugins",
        200,
        &list.json().await.unwrap(),
    )
    .unwrap();
    let health = guarded.get_json("/healthz").await;
    conforms_as(&doc, "get", "/healthz", 200, &health).unwrap();
    let admin = &doc["paths"]["/admin/reload"]["post"];
    assert_eq!(admin["security"], json!([{"AdminKeyAuth": []}]));
    assert_eq!(
        admin["responses"]["401"]["description"],
        "Missing or invalid admin key"
    );
}

// ---------- every answer matches ----------

#[tokio::test]
async fn a_hot_swap_adds_and_removes_a_path() {
    let dir = common::plugin_dir(&["review-chunk", "test-swap-v1"]);
    let manifest = dir.path().join("test-swap-v1.toml");
    let text = std::fs::read(&manifest).unwrap();
    let mut config = common::config(&dir);
    config.watch = true;
    let s = common::start_with(dir, config).await;
    let swap = "/test/swap";
    let doc = document(&s).await;
    assert!(paths(&doc).contains(swap));
    assert_eq!(
        doc["paths"][swap]["post"]["x-gleaner-plugin"]["version"],
        "1.0.0"
    );
    let n = &doc["paths"][swap]["post"]["requestBody"]["content"]["application/json"]["schema"]
        ["properties"]["n"];
    assert_eq!(n["type"], json!(["integer", "null"]));

    let wait = |want: bool| {
        let s = &s;
        async move {
            let started = Instant::now();
            loop {
                if paths(&document(s).await).contains(swap) == want {
                    return;
                }
                assert!(
                    started.elapsed() < Duration::from_secs(20),
                    "the path never {}",
                    if want { "came back" } else { "went" }
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    std::fs::remove_file(&manifest).unwrap();
    wait(false).await;
    let (status, _) = s.post(swap, json!({})).await;
    assert_eq!(status, 404, "the route went with its path");
    assert!(paths(&document(&s).await).contains("/features/review-chunk"));

    let tmp = manifest.with_file_name(".test-swap-v1.toml.tmp");
    std::fs::write(&tmp, &text).unwrap();
    std::fs::rename(&tmp, &manifest).unwrap();
    wait(true).await;
}

#[tokio::test]
async fn the_command_prints_the_document_the_server_serves() {
    let names = [
        "customer-feedback-hub",
        "forum-site",
        "review-chunk",
        "wol-meta-info",
    ];
    let s = common::start(&names, |_| {}).await;
    let served = document(&s).await;
    let dir = common::plugin_dir(&names);
    let out = std::process::Command::new(crate::common::server_binary())
        .arg("openapi")
        .current_dir(common::root())
        .env("GLEANER_PLUGIN_DIR", dir.path())
        .env_remove("GLEANER_CONFIG")
        .env_remove("GLEANER_API_KEYS")
        .env_remove("GLEANER_ADMIN_KEYS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(paths(&printed), paths(&served));
    assert_eq!(printed, served, "the same document");

    // A broken manifest is named on stderr and left out.
    std::fs::write(dir.path().join("broken.toml"), "name = \"broken\"\n").unwrap();
    let out = std::process::Command::new(crate::common::server_binary())
        .arg("openapi")
        .env("GLEANER_PLUGIN_DIR", dir.path())
        .env_remove("GLEANER_CONFIG")
        .env_remove("GLEANER_API_KEYS")
        .env_remove("GLEANER_ADMIN_KEYS")
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("broken.toml") && stderr.contains("left out of the document"),
        "{stderr}"
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(paths(&printed), paths(&served));
}
