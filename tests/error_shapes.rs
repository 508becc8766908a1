//! Every error, on every route, in the documented shape: a JSON body of the
//! route's shape (`{"error"}`; the forum post's both shapes with
//! `error_kind`; `{"status", "data", "success", "message"}` under
//! `/public/`), an `x-request-id`, `Allow` on a 405, and `WWW-Authenticate`
//! on a 401. Routes no plugin serves (`/healthz`, `/openapi.json`, `/docs`,
//! `/metrics`, `/admin/*`) and paths nothing serves are covered too.

use serde_json::Value;

use crate::common;

/// The shape a route's errors take, from its 400 in `/openapi.json`.
fn shape_of(doc: &Value, route: &str) -> &'static str {
    let op = &doc["paths"][route]["post"];
    match op["responses"]["400"]["content"]["application/json"]["schema"]["$ref"].as_str() {
        Some(r) if r.ends_with("/ErrorBoth") => "both",
        Some(r) if r.ends_with("/ErrorStructured") => "structured",
        _ if route.starts_with("/public/") => "structured",
        _ => "simple",
    }
}

/// What is wrong with an error answer for `shape`, if anything.
fn problems(
    shape: &str,
    status: u16,
    headers: &reqwest::header::HeaderMap,
    body: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    if !headers.contains_key("x-request-id") {
        out.push("no x-request-id".to_owned());
    }
    if status == 405 && !headers.contains_key("allow") {
        out.push("a 405 without Allow".to_owned());
    }
    if status == 401 && !headers.contains_key("www-authenticate") {
        out.push("a 401 without WWW-Authenticate".to_owned());
    }
    let json: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(_) => {
            out.push(format!("not a JSON body: {body:?}"));
            return out;
        }
    };
    let has = |k: &str| json.get(k).is_some();
    let ok = match shape {
        "simple" => json["error"].as_str().is_some_and(|m| m.len() > 10),
        "both" => [
            "error",
            "status",
            "data",
            "success",
            "message",
            "error_kind",
        ]
        .iter()
        .all(|k| has(k)),
        _ => {
            ["status", "data", "success", "message"]
                .iter()
                .all(|k| has(k))
                && !has("error")
        }
    };
    if !ok {
        out.push(format!("not the {shape} shape: {json}"));
    }
    out
}

/// `first` when the document has no such operation on `route`, else PATCH.
fn undocumented(doc: &Value, route: &str, first: reqwest::Method) -> reqwest::Method {
    let documented = doc["paths"][route][first.as_str().to_lowercase()].is_object();
    if documented {
        reqwest::Method::PATCH
    } else {
        first
    }
}

#[tokio::test]
async fn every_error_on_every_route_has_the_documented_shape() {
    let all = [
        "customer-feedback-hub",
        "forum-site",
        "review-chunk",
        "wol-meta-info",
    ];
    let s = common::start(&all, |c| {
        c.api_keys = vec!["key-of-the-test".into()];
        c.admin_keys = vec!["admin-of-the-test".into()];
    })
    .await;
    let doc: Value = s
        .client
        .get(s.url("/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut cases: Vec<(reqwest::Method, String, Option<&str>, &str, &str)> = Vec::new();
    let key = Some("key-of-the-test");
    for route in doc["paths"].as_object().unwrap().keys() {
        let route = route.replace("{name}", "review-chunk");
        if doc["paths"][route.as_str()]["post"].is_object() && !route.starts_with("/admin") {
            let shape = shape_of(&doc, &route);
            // A method the path does not document.
            let wrong = undocumented(&doc, &route, reqwest::Method::GET);
            cases.push((wrong, route.clone(), key, shape, "a wrong method"));
            cases.push((reqwest::Method::POST, route.clone(), None, shape, "no key"));
            cases.push((
                reqwest::Method::POST,
                route.clone(),
                key,
                shape,
                "a body that is not JSON",
            ));
        } else {
            let wrong = undocumented(&doc, &route, reqwest::Method::DELETE);
            cases.push((wrong, route.clone(), key, "simple", "a wrong method"));
        }
    }
    for path in ["/nope", "/public/v1/nope", "/features/nope"] {
        let shape = if path.starts_with("/public/") {
            "structured"
        } else {
            "simple"
        };
        cases.push((
            reqwest::Method::POST,
            path.to_owned(),
            key,
            shape,
            "no such endpoint",
        ));
        cases.push((
            reqwest::Method::POST,
            path.to_owned(),
            None,
            shape,
            "no such endpoint, no key",
        ));
    }
    cases.push((
        reqwest::Method::GET,
        "/admin/plugins".into(),
        key,
        "simple",
        "an API key is no admin key",
    ));
    cases.push((
        reqwest::Method::GET,
        "/metrics".into(),
        None,
        "simple",
        "no metrics key",
    ));
    let mut failures = Vec::new();
    for (method, path, key, shape, what) in &cases {
        let mut request = s.client.request(method.clone(), s.url(path));
        if let Some(key) = key {
            request = request.header("x-api-key", *key);
        }
        if *what == "a body that is not JSON" {
            request = request
                .header("content-type", "application/json")
                .body("{not json");
        }
        let r = request.send().await.unwrap();
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let body = r.text().await.unwrap();
        if status < 400 {
            failures.push(format!("{method} {path} ({what}): {status}, not an error"));
            continue;
        }
        for problem in problems(shape, status, &headers, &body) {
            failures.push(format!("{method} {path} ({what}): {status}: {problem}"));
        }
    }
    assert!(cases.len() >= 25, "{} cases", cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
