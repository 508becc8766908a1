//! Properties of the text processors through the real server, over several
//! inputs (the examples are each processor's `tests/cases.toml`, run by the
//! replay runner), and the optional LLM against a local fake OpenAI-compatible
//! server whose answers are validated.

use crate::common;

use std::sync::{Arc, Mutex};

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

const HIGHLIGHT: &str = "/features/highlight-review-text";
const ENHANCE: &str = "/features/review-enhancement";
const METADATA: &str = "/features/video-metadata-extraction";
const CASE: &str = "/features/video-to-casestudy";
const PLUGINS: &[&str] = &[
    "highlight-review-text",
    "review-enhancement",
    "video-metadata-extraction",
    "video-to-casestudy",
];

const TRANSCRIPT: &str = "um hi so my name is sarah jones and i'm the head of marketing at bluefin analytics uh before we \
    used to spend like two days every month building reports by hand it was really painful and then we started using \
    acme crm and honestly it cut our reporting time by 40 percent and our team can finally focus on campaigns you know \
    our account manager dave was super helpful the whole way so yeah i would recommend it to any marketing team";

async fn post_with_engine(s: &common::Server, path: &str, body: Value) -> (u16, Value, String) {
    let r = s.client.post(s.url(path)).json(&body).send().await.unwrap();
    let status = r.status().as_u16();
    let engine = r
        .headers()
        .get("x-gleaner-engine")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, r.json().await.unwrap(), engine)
}

fn unmark(s: &str) -> String {
    s.replacen("<mark>", "", 1).replacen("</mark>", "", 1)
}

#[tokio::test]
async fn highlight_marks_one_quotable_span_and_keeps_every_other_byte() {
    let s = common::start(PLUGINS, |_| {}).await;
    for text in [
        "Setup took ten minutes. Since switching, our team closes tickets 3x faster and we saved about $2,000 a month. The UI could be prettier.",
        "J'ai commandé un canapé. La livraison était parfaite et le service client est vraiment génial, je recommande vivement !",
        "El hotel está cerca del centro. El personal fue increíble y la habitación estaba impecable, lo recomiendo totalmente.",
        "Wir haben das Tool im Team eingeführt. Der Support war ausgezeichnet und die Einrichtung ging super schnell, absolut empfehlenswert.",
    ] {
        let (status, body, engine) = post_with_engine(&s, HIGHLIGHT, json!({"review_id": "r7", "review_text": text})).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(engine, "rules");
        assert_eq!(body["review_id"], "r7");
        let marked = body["review_text"].as_str().unwrap();
        assert_eq!(marked.matches("<mark>").count(), 1, "{marked}");
        assert_eq!(unmark(marked), text, "byte for byte");
        let span = marked.split("<mark>").nth(1).unwrap().split("</mark>").next().unwrap();
        let words = span.split_whitespace().count();
        assert!((5..=25).contains(&words) && (40..=160).contains(&span.chars().count()), "{span}");
    }
}

#[tokio::test]
async fn case_study_is_built_only_from_the_transcript() {
    let s = common::start(PLUGINS, |_| {}).await;
    let (status, body, engine) = post_with_engine(&s, CASE, json!({"query": TRANSCRIPT})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(engine, "rules");
    let html = body["case_study_html"].as_str().unwrap();
    for quote in html.split("<blockquote class=\"pull-quote\">").skip(1) {
        let quote = quote
            .split("</blockquote>")
            .next()
            .unwrap()
            .replace("&#39;", "'");
        let inner = quote.trim_start_matches("<p>").trim_end_matches("</p>");
        assert!(TRANSCRIPT.contains(inner), "verbatim quote: {inner}");
    }
    let text: String = html
        .split('<')
        .map(|part| part.split_once('>').map_or(part, |(_, t)| t))
        .collect();
    let digits: Vec<&str> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|d| !d.is_empty())
        .collect();
    assert!(digits.contains(&"40"));
    assert!(digits.iter().all(|d| TRANSCRIPT.contains(d)), "{digits:?}");
}

/// A fake OpenAI-compatible endpoint answering `answer` and recording requests.
async fn fake_llm(
    answer: Arc<Mutex<String>>,
    seen: Arc<Mutex<Vec<Value>>>,
) -> std::net::SocketAddr {
    let router = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(request): Json<Value>| {
            let (answer, seen) = (answer.clone(), seen.clone());
            async move {
                seen.lock().unwrap().push(request);
                let content = answer.lock().unwrap().clone();
                Json(json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}))
            }
        }),
    );
    common::upstream(router).await
}

#[tokio::test]
async fn llm_answers_are_used_only_when_they_pass_the_rules() {
    let answer = Arc::new(Mutex::new(String::new()));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let addr = fake_llm(answer.clone(), seen.clone()).await;
    let s = common::start(PLUGINS, move |c| {
        c.llm.url = Some(format!("http://{addr}/v1"));
        c.llm.model = Some("fake-model".into());
        c.llm.api_key = Some("sk-test".into());
    })
    .await;
    let set = |a: &str| *answer.lock().unwrap() = a.to_owned();
    let review = "Setup took ten minutes. Support answered within an hour every single time we asked for help. Our team closes tickets 3x faster now.";

    set("Support answered within an hour every single time we asked for help.");
    let (_, body, engine) = post_with_engine(&s, HIGHLIGHT, json!({"review_text": review})).await;
    assert_eq!(engine, "llm");
    assert!(body["review_text"].as_str().unwrap().contains(
        "<mark>Support answered within an hour every single time we asked for help.</mark>"
    ));
    let request = seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(request["model"], "fake-model");

    set("Support was the best in the world, answering in seconds.");
    let (_, body, engine) = post_with_engine(&s, HIGHLIGHT, json!({"review_text": review})).await;
    assert_eq!(engine, "rules", "a span not in the text is discarded");
    assert_eq!(unmark(body["review_text"].as_str().unwrap()), review);

    set("I received it the next day and it cost $45.");
    let (_, body, engine) = post_with_engine(
        &s,
        ENHANCE,
        json!({"review_text": "i recieved it the next day and it cost $45"}),
    )
    .await;
    assert_eq!(
        (engine.as_str(), body["review_text"].as_str().unwrap()),
        ("llm", "I received it the next day and it cost $45.")
    );
    set("I received it the next day and it cost $54.");
    let (_, body, engine) = post_with_engine(
        &s,
        ENHANCE,
        json!({"review_text": "i recieved it the next day and it cost $45"}),
    )
    .await;
    assert_eq!(engine, "rules", "a changed number is discarded");
    assert_eq!(
        body["review_text"],
        "I received it the next day and it cost $45"
    );

    set("```json\n{\"author_name\": \"Sarah Jones\", \"author_organisation\": \"Globex\", \"author_position\": \"Head of Marketing\"}\n```");
    let (_, body, engine) = post_with_engine(&s, METADATA, json!({"query": TRANSCRIPT})).await;
    assert_eq!(engine, "llm");
    assert_eq!(body["author_name"], "Sarah Jones");
    assert!(
        body["author_organisation"].is_null(),
        "an organisation the transcript does not state is dropped"
    );

    set("<article class=\"case-study\"><h1>Story</h1><section><h2>Challenge</h2><p>Reports took two days.</p></section><section><h2>Solution</h2><p>Acme CRM.</p></section><section><h2>Results</h2><blockquote class=\"pull-quote\">it cut our reporting time by 40 percent</blockquote></section></article>");
    let (_, body, engine) = post_with_engine(&s, CASE, json!({"query": TRANSCRIPT})).await;
    assert_eq!(engine, "llm");
    assert!(body["case_study_html"]
        .as_str()
        .unwrap()
        .contains("by 40 percent"));
    set("<article><h1>Story</h1><section><h2>Challenge</h2></section><section><h2>Solution</h2></section><section><h2>Results</h2><p>Reporting time fell by 75 percent.</p></section></article>");
    let (_, _, engine) = post_with_engine(&s, CASE, json!({"query": TRANSCRIPT})).await;
    assert_eq!(engine, "rules", "an invented number is discarded");
}
