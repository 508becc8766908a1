//! Integration tests: the real server on a random port, plugins built for
//! wasm32-wasip2, upstream traffic replayed from HAR fixtures built from real
//! recorded responses, or served by local test servers through the upstream override.

use crate::common;

use serde_json::{json, Value};

const CHUNK: &str = "/features/review-chunk";
const HUB: &str = "/customer-feedback-hub/reviews";
const MISBEHAVE: &str = "/test/misbehave";
const BH: &str = "https://www.trustpilot.com/review/www.bhphotovideo.com";

fn error_text(body: &Value) -> String {
    body["error"].as_str().unwrap_or_default().to_owned()
}

// ---------- HTTP surface ----------

#[tokio::test]
async fn unknown_path_wrong_method_and_big_body_get_json_errors() {
    let s = common::start(&["review-chunk"], |_| {}).await;
    let (status, body) = s.post("/nope/reviews", json!({})).await;
    assert_eq!(status, 404);
    assert!(error_text(&body).contains("no endpoint at /nope/reviews"));

    let r = s.client.get(s.url(CHUNK)).send().await.unwrap();
    assert_eq!(r.status(), 405);
    assert_eq!(r.headers()["allow"], "POST");
    let body: Value = r.json().await.unwrap();
    assert!(error_text(&body).contains("use POST"));

    let big = "a".repeat(1024 * 1024 + 10);
    let r = s.client.post(s.url(CHUNK)).body(big).send().await.unwrap();
    assert_eq!(r.status(), 413);
    let body: Value = r.json().await.unwrap();
    assert!(error_text(&body).contains("exceeds 1048576 bytes"));

    let r = s
        .client
        .post(s.url(CHUNK))
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert!(error_text(&body).contains("not valid JSON"));
}

#[tokio::test]
async fn responses_name_the_plugin_version_and_request_id() {
    let s = common::start(&["review-chunk"], |_| {}).await;
    let r = s
        .client
        .post(s.url(CHUNK))
        .header("x-request-id", "req-42")
        .json(&json!({"review_text": "Good."}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-gleaner-plugin"], "review-chunk");
    assert_eq!(r.headers()["x-gleaner-plugin-version"], "0.1.0");
    assert_eq!(r.headers()["x-request-id"], "req-42");
}

#[tokio::test]
async fn api_keys_are_required_when_configured() {
    let s = common::start(&["review-chunk"], |c| c.api_keys = vec!["k-123".into()]).await;
    let body = json!({"review_text": "Fine."});
    let (status, err) = s.post(CHUNK, body.clone()).await;
    assert_eq!(status, 401);
    assert!(error_text(&err).contains("x-api-key"));
    let r = s
        .client
        .post(s.url(CHUNK))
        .header("x-api-key", "wrong")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = s
        .client
        .post(s.url(CHUNK))
        .header("x-api-key", "k-123")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = s
        .client
        .post(s.url(CHUNK))
        .bearer_auth("k-123")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = s
        .client
        .post(s.url("/nope"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        401,
        "unknown paths are not revealed without a key"
    );
}

#[tokio::test]
async fn binding_a_public_address_without_keys_is_refused() {
    let dir = common::plugin_dir(&[]);
    let mut config = common::config(&dir);
    config.addr = "0.0.0.0:8080".parse().unwrap();
    let app = gleaner::App::build(config.clone()).await.unwrap();
    let err = app.check_bind().unwrap_err().to_string();
    assert!(err.contains("GLEANER_API_KEYS"), "{err}");
    config.api_keys = vec!["k".into()];
    assert!(gleaner::App::build(config)
        .await
        .unwrap()
        .check_bind()
        .is_ok());
    config_loopback_ok().await;
}

async fn config_loopback_ok() {
    let dir = common::plugin_dir(&[]);
    let app = gleaner::App::build(common::config(&dir)).await.unwrap();
    assert!(app.check_bind().is_ok());
}

#[tokio::test]
async fn too_many_concurrent_requests_get_503_with_retry_after() {
    let s = common::start(&["test-misbehave"], |c| c.max_concurrent_requests = 1).await;
    let slow = s.post(MISBEHAVE, json!({"mode": "loop"}));
    let client = s.client.clone();
    let url = s.url(MISBEHAVE);
    let second = async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        client
            .post(url)
            .json(&json!({"mode": "ok"}))
            .send()
            .await
            .unwrap()
    };
    let ((status, _), r) = tokio::join!(slow, second);
    assert_eq!(status, 504);
    assert_eq!(r.status(), 503);
    assert_eq!(r.headers()["retry-after"], "1");
}

#[tokio::test]
async fn graceful_shutdown_finishes_requests_in_flight() {
    let mut s = common::start(&["test-misbehave"], |_| {}).await;
    let (client, url) = (s.client.clone(), s.url(MISBEHAVE));
    let in_flight =
        tokio::spawn(async move { client.post(url).json(&json!({"mode": "loop"})).send().await });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    s.shutdown();
    let response = in_flight
        .await
        .unwrap()
        .expect("the request in flight gets its answer");
    assert_eq!(response.status(), 504);
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert!(
        s.client
            .post(s.url(MISBEHAVE))
            .json(&json!({"mode": "ok"}))
            .send()
            .await
            .is_err(),
        "no new requests after shutdown"
    );
}

// ---------- review-chunk ----------

#[tokio::test]
async fn review_chunk_packs_sentences_and_validates_input() {
    let s = common::start(&["review-chunk"], |_| {}).await;
    let text = "Dr. Patel explained everything clearly, e.g. the 2.5 hour recovery. The staff at Smile Inc. were kind! \
                I paid $120.50 and would go back... Book at https://example.com/book.now today.";
    let (status, body) = s
        .post(
            CHUNK,
            json!({"review_text": text, "review_id": "r1", "widget_type": "sentence"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["review_chunck"],
        json!([
            "Dr. Patel explained everything clearly, e.g. the 2.5 hour recovery.",
            "The staff at Smile Inc. were kind!",
            "I paid $120.50 and would go back...",
            "Book at https://example.com/book.now today."
        ])
    );
    let (status, body) = s
        .post(CHUNK, json!({"review_text": text, "widget_type": "badge"}))
        .await;
    assert_eq!(status, 200);
    let chunks = body["review_chunck"].as_array().unwrap();
    assert!(chunks.len() >= 2);
    for c in chunks {
        assert!(c.as_str().unwrap().chars().count() <= 90, "{c}");
    }
    let rejoined: Vec<&str> = chunks.iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(
        rejoined.join(" ").split_whitespace().collect::<Vec<_>>(),
        text.split_whitespace().collect::<Vec<_>>()
    );

    let (status, body) = s
        .post(
            CHUNK,
            json!({"review_text": "Sehr gut. Très bien ! 非常好。ありがとう。"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["review_chunck"].as_array().unwrap().len(), 1);

    for (input, needle) in [
        (json!({"review_text": ""}), "`review_text` is empty"),
        (json!({"review_text": "   "}), "`review_text` is empty"),
        (json!({"review_id": "x"}), "`review_text` is required"),
        (
            json!({"review_text": 5}),
            "`review_text` must be a string, not a number",
        ),
        (
            json!({"review_text": "ok", "widget": "x"}),
            "unknown field `widget`",
        ),
    ] {
        let (status, body) = s.post(CHUNK, input).await;
        assert_eq!(status, 400);
        assert!(error_text(&body).contains(needle), "{body}");
        assert_eq!(body.as_object().unwrap().len(), 1, "simple error shape");
    }
}

// ---------- review-fetch request validation (the host's, shown on customer-feedback-hub) ----------

#[tokio::test]
async fn review_fetch_requests_are_validated_by_the_host() {
    let s = common::start(&["customer-feedback-hub"], |_| {}).await;
    for (req, needle) in [
        (
            json!({"query": BH, "reviews_to_fetch": 0}),
            "`reviews_to_fetch` must be a positive integer",
        ),
        (
            json!({"query": BH, "reviews_to_fetch": -1}),
            "`reviews_to_fetch` must be a positive integer",
        ),
        (
            json!({"query": BH, "reviews_to_fetch": "ten"}),
            "`reviews_to_fetch` must be a positive integer",
        ),
        (
            json!({"query": BH, "sync_date": "2023-02-30"}),
            "YYYY-MM-DD",
        ),
        (json!({"query": BH, "sync_date": "yesterday"}), "YYYY-MM-DD"),
        (
            json!({"query": BH, "is_text_formatted": "yes"}),
            "`is_text_formatted` must be true or false",
        ),
        (
            json!({"query": BH, "pagination_token": "abc.def"}),
            "`pagination_token` is corrupted",
        ),
        (
            json!({"query": "https://example.com/x"}),
            "not a Trustpilot review page",
        ),
        (json!({}), "`query` is required"),
    ] {
        let (status, body) = s.post(HUB, req.clone()).await;
        assert_eq!(status, 400, "{req}: {body}");
        assert!(error_text(&body).contains(needle), "{req}: {body}");
    }
    let foreign = gleaner::token::encode(
        &common::token_key(),
        "/other-source/reviews",
        BH,
        &gleaner::token::Resume {
            cursor: None,
            skip: 0,
            last: None,
            sort: None,
            filter: None,
            sync_date: None,
            session: None,
        },
    );
    let (status, body) = s
        .post(HUB, json!({"query": BH, "pagination_token": foreign}))
        .await;
    assert_eq!(status, 400);
    assert!(error_text(&body).contains("was issued by /other-source/reviews"));
}

#[tokio::test]
async fn every_failure_of_the_forum_post_is_400_with_its_kind_but_auth() {
    let s = common::start(&["forum-site"], |c| c.max_body_bytes = 64).await;
    let url = s.url("/forum-site/post");
    let r = s.client.get(&url).send().await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.headers()["allow"], "POST");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error_kind"], "method_not_allowed", "{body}");
    assert_eq!(body["status"], 400);
    assert_eq!(body["message"], body["error"]);

    let r = s
        .client
        .post(&url)
        .body("x".repeat(100))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error_kind"], "too_large", "{body}");

    let s = common::start(&["forum-site"], |c| c.api_keys = vec!["k".into()]).await;
    let (status, body) = s.post("/forum-site/post", json!({"query": "x"})).await;
    assert_eq!(status, 401, "auth keeps its status: {body}");
    assert_eq!(body["error_kind"], "unauthorized");
}

/// The error text of any endpoint's error shape.
fn message_of(body: &Value) -> String {
    body["error"]
        .as_str()
        .or(body["message"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn the_same_mistake_gets_the_same_words_on_every_route() {
    let plugins = [
        "customer-feedback-hub",
        "forum-site",
        "review-chunk",
        "highlight-review-text",
        "review-enhancement",
        "video-metadata-extraction",
        "video-to-casestudy",
        "domain-to-asset",
        "wol-meta-info",
    ];
    let s = common::start(&plugins, |_| {}).await;
    let mut checked = 0;
    for name in plugins {
        let manifest = gleaner::manifest::Manifest::load(
            &common::root().join(format!("target/plugins/{name}.toml")),
        )
        .unwrap();
        let route = manifest.route.as_str();
        let first_required = match &manifest.processor {
            Some(p) => p.fields.iter().find(|f| f.required).unwrap().field.clone(),
            None => "query".to_owned(),
        };
        let send = |body: String| {
            let (client, url) = (s.client.clone(), s.url(route));
            async move {
                let r = client
                    .post(url)
                    .header("content-type", "application/json")
                    .body(body)
                    .send()
                    .await
                    .unwrap();
                let status = r.status().as_u16();
                (status, r.json::<Value>().await.unwrap())
            }
        };
        // 1. An empty body: the example names this endpoint's own required fields.
        let (status, body) = send(String::new()).await;
        let m = message_of(&body);
        assert_eq!(status, 400, "{route}: {body}");
        assert!(
            m.starts_with("the request body is empty; send a JSON object, e.g. {")
                && m.contains(&format!("\"{first_required}\": \"...\"")),
            "{route}: {m}"
        );
        // 2. Not JSON.
        let (_, body) = send("{oops".into()).await;
        assert!(
            message_of(&body).starts_with("the request body is not valid JSON"),
            "{route}: {body}"
        );
        // 3. An unknown field.
        let (_, body) = send(format!(r#"{{"{first_required}": "x", "zzz": 1}}"#)).await;
        assert!(
            message_of(&body).starts_with("unknown field `zzz`; this endpoint accepts: "),
            "{route}: {body}"
        );
        // 4. A number where a string is required.
        let (_, body) = send(format!(r#"{{"{first_required}": 5}}"#)).await;
        assert_eq!(
            message_of(&body),
            format!("`{first_required}` must be a string, not a number"),
            "{route}"
        );
        // 5. null for a required field.
        let (_, body) = send(format!(r#"{{"{first_required}": null}}"#)).await;
        let m = message_of(&body);
        assert!(
            m.starts_with(&format!("`{first_required}` is required")),
            "{route}: {m}"
        );
        assert!(!m.contains("Some(") && !m.contains("None") && !m.contains("String("));
        checked += 5;
    }
    assert_eq!(checked, 45);
}

#[tokio::test]
async fn every_processor_answers_with_the_specified_types() {
    let s = common::start(
        &[
            "review-chunk",
            "highlight-review-text",
            "review-enhancement",
            "video-metadata-extraction",
            "video-to-casestudy",
            "domain-to-asset",
        ],
        |_| {},
    )
    .await;
    let review = "The staff were wonderful and the room was spotless. We will come back next year.";
    let transcript = "hi my name is dana lee and i'm the head of marketing at acme we use the tool every day and it saved us ten hours a week";
    let string = |v: &Value| v.is_string();
    let string_or_null = |v: &Value| v.is_string() || v.is_null();
    let strings = |v: &Value| v.as_array().is_some_and(|a| a.iter().all(Value::is_string));
    let object = |v: &Value| v.is_object();
    type Check = fn(&Value) -> bool;
    type Case = (&'static str, Value, Vec<(&'static str, Check)>);
    let cases: Vec<Case> = vec![
        (
            "/features/review-chunk",
            json!({"review_text": review}),
            vec![("review_chunck", strings)],
        ),
        (
            "/features/highlight-review-text",
            json!({"review_text": review}),
            vec![("review_id", string), ("review_text", string)],
        ),
        (
            "/features/highlight-review-text",
            json!({"review_text": review, "review_id": "r-7"}),
            vec![("review_id", string), ("review_text", string)],
        ),
        (
            "/features/review-enhancement",
            json!({"review_text": review}),
            vec![("review_id", string), ("review_text", string)],
        ),
        (
            "/features/video-metadata-extraction",
            json!({"query": transcript}),
            vec![
                ("author_name", string_or_null),
                ("author_organisation", string_or_null),
                ("author_position", string_or_null),
                ("extra_information", object),
            ],
        ),
        (
            "/features/video-to-casestudy",
            json!({"query": transcript}),
            vec![("case_study_html", string)],
        ),
        (
            "/features/domain-to-asset",
            json!({"query": "https://www.bluefin-analytics.com"}),
            vec![
                ("logo_url", string_or_null),
                ("favicon_url", string_or_null),
                ("widget_page_background_color", string_or_null),
                ("widget_button_color", string_or_null),
            ],
        ),
    ];
    for (route, request, fields) in cases {
        let (status, body) = s.post(route, request.clone()).await;
        assert_eq!(status, 200, "{route}: {body}");
        for (field, ok) in fields {
            assert!(
                ok(&body[field]),
                "{route} {request}: `{field}` is {}",
                body[field]
            );
        }
    }
    let (_, body) = s
        .post(
            "/features/highlight-review-text",
            json!({"review_text": review}),
        )
        .await;
    assert_eq!(
        body["review_id"], "",
        "an omitted review_id comes back empty"
    );
    let (_, body) = s
        .post(
            "/features/review-enhancement",
            json!({"review_text": review, "review_id": "r-9"}),
        )
        .await;
    assert_eq!(body["review_id"], "r-9", "a review_id is echoed");
}

#[tokio::test]
async fn non_json_content_types_get_415_and_a_missing_one_is_json() {
    let s = common::start(&["review-chunk", "forum-site"], |_| {}).await;
    let send = |ct: Option<&'static str>, path: &'static str| {
        let mut r = s
            .client
            .post(s.url(path))
            .body(r#"{"review_text":"Fine."}"#);
        if let Some(ct) = ct {
            r = r.header("content-type", ct);
        }
        async move {
            let r = r.send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (status, body) = send(Some("multipart/form-data; boundary=x"), CHUNK).await;
    assert_eq!(status, 415, "{body}");
    assert!(
        error_text(&body).contains("Content-Type: application/json"),
        "{body}"
    );
    assert_eq!(send(Some("text/plain"), CHUNK).await.0, 415);
    assert_eq!(
        send(None, CHUNK).await.0,
        200,
        "no Content-Type is read as JSON"
    );
    assert_eq!(
        send(Some("application/json; charset=utf-8"), CHUNK).await.0,
        200
    );
    assert_eq!(
        send(Some("application/merge-patch+json"), CHUNK).await.0,
        200
    );
    let (status, body) = send(Some("text/plain"), "/forum-site/post").await;
    assert_eq!(status, 400, "the forum post keeps its 400: {body}");
    assert_eq!(body["error_kind"], "unsupported_media_type");
}

/// `GET /sources` lists the review sources (not the processors) with their
/// sorts, the shared sort names, and the fill rates their manifests keep;
/// `gleaner coverage` prints the same rates.
#[tokio::test]
async fn sources_list_their_sorts_and_fill_rates() {
    let s = common::start(&["hostel-site", "review-chunk"], |_| {}).await;
    let body = s.get_json("/sources").await;
    let sources = body["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 1, "{body}");
    let hostel = &sources[0];
    assert_eq!(hostel["label"], "hostel-site");
    assert_eq!(hostel["route"], "/hostel-site/reviews");
    assert_eq!(hostel["continuation"], "pagination_token");
    assert_eq!(hostel["sort"]["shared_names"]["newest"], "-date");
    assert_eq!(hostel["sort"]["default"], "-date");
    let manifest: gleaner::manifest::Manifest = toml::from_str(
        &std::fs::read_to_string(common::root().join("plugins/hostel-site/manifest.toml")).unwrap(),
    )
    .unwrap();
    let coverage = manifest.coverage.unwrap();
    assert_eq!(hostel["fill_rates"]["reviews"], coverage.reviews);
    assert_eq!(
        hostel["fill_rates"]["fields"]["sub_ratings"],
        coverage.fields["sub_ratings"]
    );

    let dir = common::plugin_dir(&["hostel-site", "review-chunk"]);
    let out = std::process::Command::new(crate::common::server_binary())
        .arg("coverage")
        .env("GLEANER_PLUGIN_DIR", dir.path())
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{table}");
    assert!(table.starts_with("| field | hostel-site |"), "{table}");
    assert!(
        table.contains(&format!(
            "| `sub_ratings` | {:.0}% |",
            coverage.fields["sub_ratings"] * 100.0
        )),
        "{table}"
    );
}
