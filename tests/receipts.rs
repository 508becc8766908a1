//! Review receipts against a local site: with `receipts: true` every review
//! (of a fetch, and of a job) carries a receipt that verifies under the key
//! `GET /receipts/public-key` gives, names the upstream body it was read
//! from by its SHA-256, carries no cookie or key, and fails naming the field
//! when any byte of the review or the receipt changes; `gleaner receipt
//! verify` says the same offline.

use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::common;
use crate::jobs::{finished, send, server, submit, Site, HUB, KEY, QUERY};

async fn public_key(s: &common::Server) -> String {
    let (status, key) = send(s, reqwest::Method::GET, "/receipts/public-key", "", None).await;
    assert_eq!(status, 200, "{key}");
    assert_eq!(key["algorithm"], "Ed25519");
    key["public_key"].as_str().unwrap().to_owned()
}

/// The site's reviews, fetched with receipts.
async fn fetched_with_receipts(s: &common::Server) -> Value {
    let body = json!({"query": QUERY, "receipts": true});
    let (status, answer) = send(s, reqwest::Method::POST, HUB, KEY, Some(body)).await;
    assert_eq!(status, 200, "{answer}");
    answer
}

#[tokio::test]
async fn every_review_carries_a_receipt_that_verifies_and_names_what_changed() {
    let site = Site::with(30);
    let s = server(site.serve().await, |c| c.api_keys = vec![KEY.into()]).await;
    let key = public_key(&s).await;
    let answer = fetched_with_receipts(&s).await;
    let reviews = answer["all_reviews"].as_array().unwrap();
    assert_eq!(reviews.len(), 30);
    // The first page's body, as the site served it.
    let first_page = site.reviews.lock().unwrap()[..20].to_vec();
    let body = common::trustpilot_html(&first_page, 2);
    let page_digest = hex::encode(Sha256::digest(body.as_bytes()));
    for review in reviews {
        assert_eq!(gleaner::receipts::verify(review, &key), Ok(()), "{review}");
        let receipt = &review["receipt"];
        assert_eq!(receipt["plugin"]["name"], "customer-feedback-hub");
        assert_eq!(
            receipt["plugin"]["component_sha256"]
                .as_str()
                .unwrap()
                .len(),
            64
        );
        assert_eq!(receipt["host_version"], env!("CARGO_PKG_VERSION"));
        let url = receipt["source_url"].as_str().unwrap();
        assert!(url.contains("/review/"), "{url}");
        let text = receipt.to_string();
        assert!(
            !text.contains("sid=") && !text.contains(KEY),
            "no cookie or key: {text}"
        );
    }
    assert_eq!(
        reviews[0]["receipt"]["response_sha256"],
        page_digest.as_str()
    );
    assert_ne!(
        reviews[25]["receipt"]["response_sha256"],
        page_digest.as_str(),
        "page two's"
    );

    let mut edited = reviews[0].clone();
    let text = edited["review_text"].as_str().unwrap().to_owned();
    edited["review_text"] = json!(text.replacen('.', "!", 1));
    let e = gleaner::receipts::verify(&edited, &key).unwrap_err();
    assert!(e.contains("review.review_text"), "{e}");
    let mut moved = reviews[0].clone();
    moved["receipt"]["source_url"] = json!("https://elsewhere.example/");
    let e = gleaner::receipts::verify(&moved, &key).unwrap_err();
    assert!(e.contains("receipt.source_url"), "{e}");

    // Offline, from a file: the answer verifies; one byte changed fails.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("answer.json");
    std::fs::write(&file, answer.to_string()).unwrap();
    let verify = |path: &std::path::Path| {
        std::process::Command::new(crate::common::server_binary())
            .args(["receipt", "verify"])
            .arg(path)
            // A base64url key may start with '-': the flag takes it as its value.
            .args(["--public-key", &key])
            .output()
            .unwrap()
    };
    let out = verify(&file);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout.lines().filter(|l| l.starts_with("ok ")).count(), 30);
    let tampered = dir.path().join("tampered.json");
    let mut one: Value = answer.clone();
    one["all_reviews"][3]["review_rating"] = json!(1.0);
    std::fs::write(&tampered, one.to_string()).unwrap();
    let out = verify(&tampered);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(
        stdout.contains("FAILED") && stdout.contains("review.review_rating"),
        "{stdout}"
    );
}

#[tokio::test]
async fn a_jobs_reviews_carry_receipts_and_none_unless_asked() {
    let site = Site::with(45);
    let s = server(site.serve().await, |c| c.api_keys = vec![KEY.into()]).await;
    let key = public_key(&s).await;
    let id = submit(
        &s,
        json!({"endpoint": HUB, "request": {"query": QUERY, "receipts": true}}),
    )
    .await;
    finished(&s, &id, KEY, Duration::from_secs(60)).await;
    let (_, page) = send(
        &s,
        reqwest::Method::GET,
        &format!("/jobs/{id}/reviews?limit=100"),
        KEY,
        None,
    )
    .await;
    let reviews = page["reviews"].as_array().unwrap();
    assert_eq!(reviews.len(), 45);
    for review in reviews {
        assert_eq!(gleaner::receipts::verify(review, &key), Ok(()), "{review}");
    }
    let (_, plain) = send(
        &s,
        reqwest::Method::POST,
        HUB,
        KEY,
        Some(json!({"query": QUERY})),
    )
    .await;
    assert!(plain["all_reviews"][0].get("receipt").is_none());
    let (status, refused) = send(
        &s,
        reqwest::Method::POST,
        HUB,
        KEY,
        Some(json!({"query": QUERY, "receipts": "yes"})),
    )
    .await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().contains("receipts"),
        "{refused}"
    );
}

/// With `GLEANER_RECORD` set, the recording holds the exchange each
/// receipt's `response_sha256` names, and `gleaner receipt evidence` finds it.
#[tokio::test]
async fn a_recording_holds_the_body_each_receipt_names() {
    let site = Site::with(25);
    let dir = tempfile::tempdir().unwrap();
    let har = dir.path().join("record.har");
    let addr = site.serve().await;
    let recorded = har.clone();
    let s = common::start(&["customer-feedback-hub"], move |c| {
        c.replay = None;
        c.record = Some(recorded);
        c.api_keys = vec![KEY.into()];
        c.upstream_override
            .insert("www.trustpilot.com".into(), format!("http://{addr}"));
    })
    .await;
    let answer = fetched_with_receipts(&s).await;
    let file = dir.path().join("answer.json");
    std::fs::write(&file, answer.to_string()).unwrap();
    let out = std::process::Command::new(crate::common::server_binary())
        .args(["receipt", "evidence"])
        .arg(&file)
        .arg(&har)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.lines().filter(|l| l.contains("\tentry ")).count(),
        25,
        "{stdout}"
    );
}
