//! Integration tests: the real server on a random port, plugins built for
//! wasm32-wasip2, upstream traffic replayed from HAR fixtures built from real
//! recorded responses, or served by local test servers through the upstream override.

use crate::common;

use serde_json::{json, Value};

const CHUNK: &str = "/features/review-chunk";
const HUB: &str = "/customer-feedback-hub/reviews";
const FORUM: &str = "/forum-site/post";
const MISBEHAVE: &str = "/test/misbehave";
const BH: &str = "https://www.trustpilot.com/review/www.bhphotovideo.com";

use common::ids;

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
            "`review_text` has an invalid value 5; expected a string",
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

// ---------- customer-feedback-hub (Trustpilot, replayed) ----------

#[tokio::test]
async fn trustpilot_fetches_every_page_with_metadata() {
    let s = common::start(&["customer-feedback-hub"], |_| {}).await;
    let (status, body) = s.post(HUB, json!({"query": BH})).await;
    assert_eq!(status, 200, "{body}");
    let all = ids(&body);
    assert_eq!(all.len(), 60);
    let unique: std::collections::HashSet<_> = all.iter().collect();
    assert_eq!(unique.len(), 60);
    let info = &body["extra_information"];
    assert_eq!(info["pages_fetched"], 3);
    assert_eq!(info["complete"], true);
    assert_eq!(info["stop_reason"], "exhausted");
    assert_eq!(info["name"], "B&H Photo Video");
    assert_eq!(info["total_reviews"], 60);
    assert!(info["resolved_url"].as_str().unwrap().starts_with(BH));
    assert!(body["next_page"].is_null());
    assert!(body["message"]
        .as_str()
        .unwrap()
        .contains("Fetched 60 reviews from 3 pages"));

    let first = &body["all_reviews"][0];
    assert_eq!(first["review_id"], "65718f1ba9549dd90f396b4a");
    assert_eq!(first["review_rating"], 5.0);
    assert_eq!(first["rating_scale_max"], 5.0);
    assert_eq!(first["review_date"], "2023-12-07T11:23:40.000Z");
    assert_eq!(first["author_name"], "Dean");
    assert_eq!(first["author_title"], "US");
    assert_eq!(first["source"], "customer-feedback-hub");
    assert_eq!(first["extra"]["verified"], true);
    assert_eq!(first["helpful_votes"], 0);
    assert!(first["review_text"]
        .as_str()
        .unwrap()
        .contains("\n\nThe variety of products"));
    let replied: Vec<&Value> = body["all_reviews"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["review_reply"].is_null())
        .collect();
    assert_eq!(replied.len(), 1);
    assert!(replied[0]["review_reply"]["text"]
        .as_str()
        .unwrap()
        .contains("Henry Posner"));
    assert_eq!(
        replied[0]["review_reply"]["date"],
        "2023-12-06T19:48:52.000Z"
    );
    let dates: Vec<&str> = body["all_reviews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["review_date"].as_str().unwrap())
        .collect();
    let mut sorted = dates.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(dates, sorted, "newest first");
}

#[tokio::test]
async fn trustpilot_exact_limits_and_gapless_continuation() {
    let s = common::start(&["customer-feedback-hub"], |_| {}).await;
    let (_, full) = s.post(HUB, json!({"query": BH})).await;
    let everything = ids(&full);
    for step in [1usize, 7, 20, 25, 59, 60, 100] {
        let mut collected = Vec::new();
        let mut token: Option<String> = None;
        for round in 0..100 {
            let mut req = json!({"query": BH, "reviews_to_fetch": step});
            if let Some(t) = &token {
                req["pagination_token"] = json!(t);
            }
            let (status, body) = s.post(HUB, req).await;
            assert_eq!(status, 200, "step {step} round {round}: {body}");
            let got = ids(&body);
            let expected = step.min(everything.len() - collected.len());
            assert_eq!(got.len(), expected, "step {step} round {round}");
            collected.extend(got);
            match body["next_page"].as_str() {
                Some(t) => token = Some(t.to_owned()),
                None => break,
            }
        }
        assert_eq!(
            collected, everything,
            "step {step}: no gap, no duplicate, same order"
        );
    }
}

#[tokio::test]
async fn trustpilot_sync_date_stops_early() {
    let s = common::start(&["customer-feedback-hub"], |_| {}).await;
    let (status, body) = s
        .post(HUB, json!({"query": BH, "sync_date": "2023-12-07"}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(ids(&body).len(), 18);
    assert!(body["all_reviews"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["review_date"].as_str().unwrap().starts_with("2023-12-07")));
    assert_eq!(
        body["extra_information"]["pages_fetched"], 1,
        "stopped once past the date"
    );
    assert_eq!(body["extra_information"]["stop_reason"], "past_sync_date");
    assert!(body["next_page"].is_null());

    let (_, body) = s
        .post(HUB, json!({"query": BH, "sync_date": "2023-12-06"}))
        .await;
    assert_eq!(ids(&body).len(), 42);
    let (_, body) = s
        .post(
            HUB,
            json!({"query": BH, "sync_date": "2023-12-06", "reviews_to_fetch": 5}),
        )
        .await;
    assert_eq!(ids(&body).len(), 5);
    let token = body["next_page"].as_str().unwrap().to_owned();
    let (_, rest) = s
        .post(HUB, json!({"query": BH, "pagination_token": token}))
        .await;
    assert_eq!(ids(&rest).len(), 37, "the token keeps sync_date");
}

#[tokio::test]
async fn trustpilot_text_formatting_filter_and_sort() {
    let s = common::start(&["customer-feedback-hub"], |_| {}).await;
    let (_, plain) = s
        .post(
            HUB,
            json!({"query": BH, "reviews_to_fetch": 1, "is_text_formatted": false}),
        )
        .await;
    let text = plain["all_reviews"][0]["review_text"].as_str().unwrap();
    assert!(!text.contains('\n'));
    assert!(text.contains("account info. The variety"));

    let (status, five) = s.post(HUB, json!({"query": BH, "filter_by": 5})).await;
    assert_eq!(status, 200, "{five}");
    let ratings: Vec<f64> = five["all_reviews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["review_rating"].as_f64().unwrap())
        .collect();
    assert!(!ratings.is_empty());
    assert!(ratings.iter().all(|r| *r == 5.0));

    let (status, body) = s.post(HUB, json!({"query": BH, "sort_type": "best"})).await;
    assert_eq!(status, 400);
    assert!(error_text(&body).contains(
        r#"`sort_type` has an invalid value "best"; expected one of "recency", "relevance""#
    ));
    let (status, body) = s.post(HUB, json!({"query": BH, "filter_by": 9})).await;
    assert_eq!(status, 400);
    assert!(error_text(&body).contains("filter_by"));
}

#[tokio::test]
async fn trustpilot_request_validation() {
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
    let foreign = gleaner::cursor::encode(
        &common::token_key(),
        "/other-source/reviews",
        BH,
        &gleaner::cursor::Resume {
            cursor: None,
            skip: 0,
            sort: None,
            filter: None,
            sync_date: None,
        },
    );
    let (status, body) = s
        .post(HUB, json!({"query": BH, "pagination_token": foreign}))
        .await;
    assert_eq!(status, 400);
    assert!(error_text(&body).contains("was issued by /other-source/reviews"));
}

#[tokio::test]
async fn trustpilot_upstream_failures_map_to_gateway_errors() {
    let s = common::start(&["customer-feedback-hub"], |_| {}).await;
    let (status, body) = s
        .post(
            HUB,
            json!({"query": "https://www.trustpilot.com/review/blocked.example"}),
        )
        .await;
    assert_eq!(status, 502);
    assert!(error_text(&body).contains("refused"), "{body}");
    let (status, body) = s
        .post(
            HUB,
            json!({"query": "https://www.trustpilot.com/review/unrecorded.example"}),
        )
        .await;
    assert_eq!(status, 502);
    let e = error_text(&body);
    assert!(
        e.contains("replay miss")
            && e.contains("GET https://www.trustpilot.com/review/unrecorded.example"),
        "{e}"
    );
}

// ---------- forum-site (Reddit, replayed) ----------

const POST_KEYS: &[&str] = &[
    "query",
    "author_name",
    "author_profile_image_url",
    "author_profile_image_url_org",
    "flair_text",
    "flair_text_link",
    "html_text",
    "post_date",
    "post_info",
    "post_stats",
    "post_text",
    "post_tile",
    "review_media",
    "community",
    "community_data",
    "community_info",
    "community_name",
    "community_url",
    "url",
    "author_data",
];

#[tokio::test]
async fn forum_post_record_matches_the_spec() {
    let s = common::start(&["forum-site"], |_| {}).await;
    let url = "https://www.reddit.com/r/SubTestBot1/comments/jlbw48/test_self_post/";
    let (status, body) = s.post(FORUM, json!({"query": url})).await;
    assert_eq!(status, 200, "{body}");
    let record = &body["all_reviews"][0];
    let mut keys: Vec<&str> = record
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    let mut expected = POST_KEYS.to_vec();
    expected.sort();
    assert_eq!(keys, expected);
    assert_eq!(record["query"], url);
    assert_eq!(record["post_tile"], "Test self post");
    assert_eq!(record["author_name"], "Watchful1BotTest");
    assert_eq!(record["community"], "SubTestBot1");
    assert_eq!(record["community_name"], "r/SubTestBot1");
    assert_eq!(
        record["url"],
        "https://www.reddit.com/r/SubTestBot1/comments/jlbw48/test_self_post/"
    );
    assert!(record["post_date"]
        .as_str()
        .unwrap()
        .starts_with("2020-10-31T"));
    for k in [
        "archived",
        "is_crosspostable",
        "locked",
        "no_follow",
        "over_18",
        "pinned",
        "spoiler",
    ] {
        assert!(record["post_info"][k].is_boolean(), "{k}");
    }
    for k in ["award_count", "comments_count", "down_votes", "up_votes"] {
        assert!(record["post_stats"][k].is_number(), "{k}");
    }
    assert_eq!(record["author_data"]["name"], "Lil_SpazBot");
    assert!(record["community_data"].is_object());
}

#[tokio::test]
async fn forum_comment_and_share_links_resolve() {
    let s = common::start(&["forum-site"], |_| {}).await;
    let comment = "https://old.reddit.com/r/RemovedByBotter/comments/bb24k7/just_a_normal_girl_going_for_her_10th_class_exam/ekftbox/";
    let (status, body) = s.post(FORUM, json!({"query": comment})).await;
    assert_eq!(status, 200, "{body}");
    let record = &body["all_reviews"][0];
    assert_eq!(record["author_name"], "2Botter2Loop");
    assert!(record["url"].as_str().unwrap().ends_with("/ekftbox/"));
    assert!(
        record["post_tile"]
            .as_str()
            .unwrap()
            .starts_with("Just a normal girl")
            || record["post_tile"].is_string()
    );

    let (status, body) = s
        .post(
            FORUM,
            json!({"query": "https://www.reddit.com/r/SubTestBot1/s/Zx81Kq3"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["all_reviews"][0]["post_tile"], "Test self post");
}

#[tokio::test]
async fn forum_errors_use_both_shapes() {
    let s = common::start(&["forum-site"], |_| {}).await;
    let (status, body) = s
        .post(FORUM, json!({"query": "https://www.reddit.com/r/rust/"}))
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["status"], 400);
    assert_eq!(body["success"], false);
    assert_eq!(body["data"], json!({}));
    assert_eq!(body["message"], body["error"]);
    assert!(error_text(&body).contains("comments"), "{body}");

    let (status, body) = s.post(FORUM, json!({})).await;
    assert_eq!(status, 400);
    assert!(error_text(&body).contains("`query` is required"));

    let (status, body) = s
        .post(
            FORUM,
            json!({"query": "https://www.reddit.com/comments/zzz111/"}),
        )
        .await;
    assert_eq!(status, 502);
    assert!(error_text(&body).contains("credentials"), "{body}");
    assert_eq!(body["success"], false);
}
