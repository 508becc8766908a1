//! Continuation tokens are signed: a client can read one but cannot change the
//! sort or filter it carries, bring one signed by another key, or move one to
//! another query; and the count of a page's reviews a token skips is checked
//! against that page when the token comes back.

use std::sync::{Arc, Mutex};

use axum::extract::Query;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value};

use super::common;

const HUB: &str = "/customer-feedback-hub/reviews";
const BH: &str = "https://www.trustpilot.com/review/www.bhphotovideo.com";

/// Rewrites one field of a token's body, keeping its signature.
fn forge(token: &str, field: &str, value: Value) -> String {
    let (body, signature) = token.split_once('.').unwrap();
    let mut json: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body).unwrap()).unwrap();
    json[field] = value;
    format!(
        "{}.{signature}",
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&json).unwrap())
    )
}

fn error_of(body: &Value) -> String {
    body["error"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn forged_foreign_and_moved_tokens_are_refused() {
    let s = common::start(&["customer-feedback-hub"], |_| {}).await;
    let (status, first) = s
        .post(HUB, json!({"query": BH, "reviews_to_fetch": 3}))
        .await;
    assert_eq!(status, 200, "{first}");
    let token = first["next_page"].as_str().unwrap().to_owned();

    let (status, next) = s
        .post(
            HUB,
            json!({"query": BH, "reviews_to_fetch": 3, "pagination_token": token}),
        )
        .await;
    assert_eq!(status, 200, "the genuine token works: {next}");

    let cases = [
        ("forged sort", forge(&token, "s", json!("sideways")), BH),
        ("forged filter", forge(&token, "f", json!("99")), BH),
        ("forged skip", forge(&token, "k", json!(0)), BH),
        ("forged endpoint", forge(&token, "e", json!(HUB)), BH),
        (
            "another query",
            token.clone(),
            "https://www.trustpilot.com/review/other.example",
        ),
    ];
    for (what, token, query) in cases {
        let (status, body) = s
            .post(HUB, json!({"query": query, "pagination_token": token}))
            .await;
        assert_eq!(status, 400, "{what}: {body}");
        assert!(
            error_of(&body).contains("`pagination_token`"),
            "{what}: {body}"
        );
    }

    // Signed by a server with another secret.
    let other = gleaner::token::TokenKey::from_secret(&[42u8; 32]).unwrap();
    let resume = gleaner::token::Resume {
        cursor: Some("2".into()),
        skip: 0,
        last: None,
        sort: None,
        filter: None,
        sync_date: None,
        session: None,
    };
    let foreign = gleaner::token::encode(&other, HUB, BH, &resume);
    let (status, body) = s
        .post(HUB, json!({"query": BH, "pagination_token": foreign}))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(error_of(&body).contains("not a token issued by this service"));

    // A token of the earlier, unsigned format is told to start over.
    let json = br#"{"v":1,"e":"/customer-feedback-hub/reviews","q":"x","c":"2","k":0}"#;
    let old = format!("{}.0123456789abcdef01234567", URL_SAFE_NO_PAD.encode(json));
    let (status, body) = s
        .post(HUB, json!({"query": BH, "pagination_token": old}))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(error_of(&body).contains("format version 1"), "{body}");

    // A token the server signed itself with an option the manifest refuses is
    // validated again, as if the client had sent the option.
    let bad = gleaner::token::encode(
        &common::token_key(),
        HUB,
        BH,
        &gleaner::token::Resume {
            sort: Some("sideways".into()),
            ..resume
        },
    );
    let (status, body) = s
        .post(HUB, json!({"query": BH, "pagination_token": bad}))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(error_of(&body).contains("sort_type"), "{body}");
}

/// A Trustpilot-shaped site whose first page can change between requests.
async fn changing_site(pages: Arc<Mutex<Vec<Vec<Value>>>>) -> std::net::SocketAddr {
    let router = axum::Router::new().route(
        "/review/{domain}",
        axum::routing::get(
            move |Query(q): Query<std::collections::HashMap<String, String>>| {
                let pages = pages.lock().unwrap().clone();
                async move {
                    let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
                    common::trustpilot_html(&pages[page - 1], pages.len() as u64)
                }
            },
        ),
    );
    common::upstream(router).await
}

/// A copy of `review` under another id, as a review written since.
fn new_review(review: &Value, id: &str) -> Value {
    let mut r = review.clone();
    r["id"] = json!(id);
    r
}

#[tokio::test]
async fn a_token_s_skip_count_is_checked_against_its_page() {
    let original = common::trustpilot_pages();
    let pages = Arc::new(Mutex::new(original.clone()));
    let site = changing_site(pages.clone()).await;
    let s = common::start(&["customer-feedback-hub"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert("www.trustpilot.com".into(), format!("http://{site}"));
    })
    .await;
    let page_ids = |page: &[Value]| -> Vec<String> {
        page.iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let first_page = page_ids(&original[0]);
    let fetch = |token: Option<String>| {
        let body = match token {
            Some(t) => json!({"query": BH, "reviews_to_fetch": 3, "pagination_token": t}),
            None => json!({"query": BH, "reviews_to_fetch": 3}),
        };
        s.post(HUB, body)
    };
    let (status, first) = fetch(None).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(common::ids(&first), first_page[..3]);
    let token = first["next_page"].as_str().unwrap().to_owned();

    // Two reviews were written since: the page moved down by two. The token
    // goes on after the third review, where it is now, not after the third place.
    pages.lock().unwrap()[0] = [
        vec![
            new_review(&original[0][0], "new-1"),
            new_review(&original[0][0], "new-2"),
        ],
        original[0][..18].to_vec(),
    ]
    .concat();
    let (status, moved) = fetch(Some(token.clone())).await;
    assert_eq!(status, 200, "{moved}");
    assert_eq!(common::ids(&moved), first_page[3..6], "{moved}");
    assert!(
        moved["message"]
            .as_str()
            .unwrap()
            .contains("had changed since"),
        "{moved}"
    );

    // The third review is gone and the page is shorter than the count: the
    // page comes back from its start rather than skip reviews never sent.
    pages.lock().unwrap()[0] = original[0][5..7].to_vec();
    let (status, restarted) = fetch(Some(token)).await;
    assert_eq!(status, 200, "{restarted}");
    assert_eq!(
        common::ids(&restarted)[..2],
        first_page[5..7],
        "{restarted}"
    );
    assert!(
        restarted["message"]
            .as_str()
            .unwrap()
            .contains("may repeat"),
        "{restarted}"
    );
}
