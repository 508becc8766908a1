//! Secrets never leave the host. One server holds a distinctive secret of
//! every kind — API, admin and metrics keys, the token secret, a plugin's
//! secret settings, a proxy's credentials, the LLM key, and a cookie a site
//! sets — and every path that once let one out is driven: an upstream that
//! fails mid-answer, echoes the secret in an error body, in a redirect's
//! `next=` (percent-encoded twice), in a 200's warning (base64), a proxy
//! and an LLM that echo their credentials, a site that echoes its cookie, and
//! a plugin that logs and returns its secret on purpose. Then the secret is
//! looked for, in every form the scrubber knows and as raw bytes, in every
//! answer, the log, the HAR recording, `/metrics` and the exported traces.

use std::io::Read;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use serde_json::{json, Value};

use super::common;
use super::process::Process;

const API_KEY: &str = "api-KEY-7f3a9c1e5b";
const ADMIN_KEY: &str = "adm-KEY-2b8e6d4f0a";
const METRICS_KEY: &str = "met-KEY-9c1d3e5f7a";
const TOKEN_SECRET: &str = "tok-SECRET-0123456789abcdef-0123456789ab";
const CLIENT_SECRET: &str = "vg/Secr3t+Z9=q!x";
const PLUGIN_SECRET: &str = "leak-ME-5e7d1c9b3a";
const PROXY_PASSWORD: &str = "Pr0xy-Pa55w0rd-x";
const LLM_KEY: &str = "llm-KEY-4a6c8e0b2d";
const COOKIE: &str = "ck-SESSION-8b0d2f4a6c";

/// Every secret, for the search at the end.
const SECRETS: [&str; 9] = [
    API_KEY,
    ADMIN_KEY,
    METRICS_KEY,
    TOKEN_SECRET,
    CLIENT_SECRET,
    PLUGIN_SECRET,
    PROXY_PASSWORD,
    LLM_KEY,
    COOKIE,
];

/// Venue ids whose tips the fake Foursquare answers in each harmful way.
const ECHO_IN_ERROR: &str = "aaaaaaaaaaaaaaaaaaaaaaaa";
const ECHO_IN_REDIRECT: &str = "bbbbbbbbbbbbbbbbbbbbbbbb";
const ECHO_IN_WARNING: &str = "cccccccccccccccccccccccc";
const FAIL_MID_ANSWER: &str = "dddddddddddddddddddddddd";

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

fn pct(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// A site that mishandles secrets every way the attack test found, and also
/// serves as the proxy and the LLM (echoing their credentials).
async fn careless_site() -> SocketAddr {
    let router = axum::Router::new().fallback(move |uri: Uri, headers: HeaderMap| async move {
        let path = uri.path().to_owned();
        let query = uri.query().unwrap_or_default().to_owned();
        let echo = |status: StatusCode, body: Value| (status, axum::Json(body)).into_response();
        if path.contains(ECHO_IN_ERROR) {
            let secret = query
                .split('&')
                .find_map(|p| p.strip_prefix("client_secret="))
                .map(|v| {
                    url::form_urlencoded::parse(format!("x={v}").as_bytes())
                        .next()
                        .unwrap()
                        .1
                        .into_owned()
                })
                .unwrap_or_default();
            return echo(
                StatusCode::UNAUTHORIZED,
                json!({"meta": {"code": 401, "errorType": "invalid_auth",
                    "errorDetail": format!("client_secret {secret} is not valid")}}),
            );
        }
        if path.contains(ECHO_IN_REDIRECT) {
            let back = format!("{path}?{query}");
            return Response::builder()
                .status(302)
                .header(
                    "location",
                    format!("https://foursquare.com/login?next={}", pct(&back)),
                )
                .body(Body::empty())
                .unwrap();
        }
        if path.contains(ECHO_IN_WARNING) {
            return echo(
                StatusCode::OK,
                json!({"meta": {"code": 200, "errorType": "deprecated",
                    "errorDetail": format!("credentials {} are deprecated", b64(CLIENT_SECRET))},
                    "response": {"tips": {"count": 0, "items": []}}}),
            );
        }
        if path.contains(FAIL_MID_ANSWER) {
            let failing = futures_util::stream::once(async {
                Err::<Bytes, _>(std::io::Error::other("connection lost"))
            });
            return Response::builder()
                .header("content-length", "100")
                .body(Body::from_stream(failing))
                .unwrap();
        }
        if path == "/set-cookie" {
            return Response::builder()
                .status(302)
                .header("set-cookie", format!("sid={COOKIE}; Path=/"))
                .header("location", "/echo")
                .body(Body::empty())
                .unwrap();
        }
        if path.ends_with("/chat/completions") {
            let auth = headers
                .get("authorization")
                .map(|v| v.to_str().unwrap().to_owned());
            return echo(
                StatusCode::UNAUTHORIZED,
                json!({"error": format!("bad key in {auth:?}")}),
            );
        }
        // Everything else, the proxied request included: the request's headers back.
        let seen: serde_json::Map<String, Value> = headers
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v.to_str().unwrap_or_default())))
            .collect();
        echo(
            StatusCode::OK,
            json!({"uri": uri.to_string(), "headers": seen}),
        )
    });
    common::upstream(router).await
}

/// A collector that keeps the raw bytes of every trace export.
async fn collector() -> (SocketAddr, Arc<Mutex<Vec<u8>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let keep = received.clone();
    let router = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: Bytes| {
            let keep = keep.clone();
            async move {
                keep.lock().unwrap().extend_from_slice(&body);
                (
                    [("content-type", "application/x-protobuf")],
                    Vec::<u8>::new(),
                )
            }
        }),
    );
    (common::upstream(router).await, received)
}

/// Every form of every secret the search looks for.
fn forms(secret: &str) -> Vec<String> {
    let mut out = vec![
        secret.to_owned(),
        secret.to_ascii_uppercase(),
        secret.to_ascii_lowercase(),
        pct(secret),
        pct(&pct(secret)),
        b64(secret),
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret),
        serde_json::to_string(secret)
            .unwrap()
            .trim_matches('"')
            .to_owned(),
    ];
    out.sort();
    out.dedup();
    out
}

/// Where any secret turns up in `text`.
fn leaks(place: &str, text: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(text);
    let mut found = Vec::new();
    for secret in SECRETS {
        for form in forms(secret) {
            if text.contains(&form) {
                found.push(format!("{place}: {form:?} (a form of {secret:?})"));
            }
        }
    }
    // `user:password`, base64 at any alignment, as a proxy header carries it.
    let basic = b64(&format!("proxyuser:{PROXY_PASSWORD}"));
    if text.contains(&basic[..basic.len() - 4]) {
        found.push(format!("{place}: the proxy's Basic credentials"));
    }
    found
}

fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_leaves_the_host_by_any_path() {
    let closed = closed_port();
    let site = careless_site().await;
    let (otlp, traces) = collector().await;
    let dir = tempfile::tempdir().unwrap();
    let har = dir.path().join("recording.har");
    let log = dir.path().join("server.log");
    let config = dir.path().join("gleaner.toml");
    std::fs::write(
        &config,
        format!(
            "[plugins.test-misbehave]\nproxies = [\"http://proxyuser:{PROXY_PASSWORD}@{site}\"]\n"
        ),
    )
    .unwrap();
    let overrides = format!(
        "venue-guide:api.foursquare.com=http://{site},venue-guide:foursquare.com=http://127.0.0.1:{closed},\
         test-misbehave:careless.example=http://{site}"
    );
    let mut server = Process::start_logged(
        &["venue-guide", "test-misbehave", "highlight-review-text"],
        &[
            ("GLEANER_CONFIG", config.display().to_string()),
            ("GLEANER_API_KEYS", API_KEY.into()),
            ("GLEANER_ADMIN_KEYS", ADMIN_KEY.into()),
            ("GLEANER_METRICS_KEYS", METRICS_KEY.into()),
            ("GLEANER_TOKEN_SECRET", TOKEN_SECRET.into()),
            (
                "GLEANER_PLUGIN_VENUE_GUIDE_CLIENT_ID",
                "vg-client-id".into(),
            ),
            (
                "GLEANER_PLUGIN_VENUE_GUIDE_CLIENT_SECRET",
                CLIENT_SECRET.into(),
            ),
            (
                "GLEANER_PLUGIN_TEST_MISBEHAVE_LEAK_SECRET",
                PLUGIN_SECRET.into(),
            ),
            ("GLEANER_LLM_URL", format!("http://{site}/v1")),
            ("GLEANER_LLM_MODEL", "m".into()),
            ("GLEANER_LLM_API_KEY", LLM_KEY.into()),
            ("GLEANER_UPSTREAM_OVERRIDE", overrides),
            ("GLEANER_RECORD", har.display().to_string()),
            ("GLEANER_OTLP_ENDPOINT", format!("http://{otlp}")),
            ("GLEANER_LOG", "debug".into()),
        ],
        &log,
    );
    let client = reqwest::Client::new();
    let mut answers: Vec<(String, u16, String)> = Vec::new();
    let post = |path: &'static str, body: Value| {
        let client = client.clone();
        let url = server.url(path);
        async move {
            let r = client
                .post(url)
                .header("x-api-key", API_KEY)
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            let headers = format!("{:?}", r.headers());
            let text = r.text().await.unwrap();
            (
                format!("POST {path} {body}"),
                status,
                format!("{headers}\n{text}"),
            )
        }
    };
    for venue in [
        ECHO_IN_ERROR,
        ECHO_IN_REDIRECT,
        ECHO_IN_WARNING,
        FAIL_MID_ANSWER,
    ] {
        answers.push(post("/venue-guide/reviews", json!({"query": venue})).await);
    }
    for mode in ["leak", "leak-error"] {
        answers.push(post("/test/misbehave", json!({"mode": mode})).await);
    }
    // Through the proxy (which echoes its Proxy-Authorization), and a site
    // that sets a cookie then echoes it back.
    for url in [
        "http://careless.example/proxied",
        "http://careless.example/set-cookie",
    ] {
        answers.push(post("/test/misbehave", json!({"mode": "fetch", "url": url})).await);
    }
    // The LLM echoes its key in a 401.
    answers.push(
        post(
            "/features/highlight-review-text",
            json!({"review_text": "Great stay, and the friendliest staff we have met in years."}),
        )
        .await,
    );
    let read = |path: &'static str, key: &'static str| {
        let request = client.get(server.url(path)).header("x-api-key", key);
        async move { request.send().await.unwrap().text().await.unwrap() }
    };
    let metrics = read("/metrics", METRICS_KEY).await;
    let admin = read("/admin/plugins", ADMIN_KEY).await;

    // The paths were really driven: each answer says what the site did.
    let by = |needle: &str| {
        answers
            .iter()
            .find(|(what, _, _)| what.contains(needle))
            .unwrap()
    };
    assert_eq!(by(ECHO_IN_ERROR).1, 502, "{:?}", by(ECHO_IN_ERROR));
    assert!(
        by(ECHO_IN_ERROR)
            .2
            .contains("client_secret [redacted] is not valid"),
        "{:?}",
        by(ECHO_IN_ERROR)
    );
    assert!(
        by("\"leak\"").2.contains("[redacted]"),
        "{:?}",
        by("\"leak\"")
    );
    assert!(
        by("proxied").2.contains("proxy-authorization"),
        "{:?}",
        by("proxied")
    );
    assert!(
        by("set-cookie").2.contains("sid=[redacted]"),
        "{:?}",
        by("set-cookie")
    );

    server.terminate();
    assert!(
        server.wait_exit(Duration::from_secs(20)).is_some(),
        "the server exits after SIGTERM, sending its last traces"
    );
    let mut log_text = Vec::new();
    std::fs::File::open(&log)
        .unwrap()
        .read_to_end(&mut log_text)
        .unwrap();
    assert!(
        String::from_utf8_lossy(&log_text).contains("upstream failed"),
        "the failing upstream was logged"
    );
    let har_text = std::fs::read(&har).expect("the HAR recording was written");
    let trace_bytes = traces.lock().unwrap().clone();
    assert!(!trace_bytes.is_empty(), "traces were exported");

    let mut found = Vec::new();
    for (what, status, text) in &answers {
        found.extend(leaks(
            &format!("the answer to {what} ({status})"),
            text.as_bytes(),
        ));
    }
    found.extend(leaks("the log", &log_text));
    found.extend(leaks("the HAR recording", &har_text));
    found.extend(leaks("/metrics", metrics.as_bytes()));
    found.extend(leaks("/admin/plugins", admin.as_bytes()));
    found.extend(leaks("the exported traces", &trace_bytes));
    eprintln!(
        "secrets: {} answers, {} log bytes, {} HAR bytes, {} metrics bytes, {} trace bytes searched; {} leaks",
        answers.len(),
        log_text.len(),
        har_text.len(),
        metrics.len(),
        trace_bytes.len(),
        found.len()
    );
    assert!(
        found.is_empty(),
        "secrets left the host:\n{}",
        found.join("\n")
    );
}
