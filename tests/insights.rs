//! `insights: true` on a fetch and on a job, against a local
//! Trustpilot-shaped site: every review carries its sentiment, rating
//! mismatch and key phrases from the review-insights plugin, and the earlier
//! review it nearly repeats; a job's status gives their distribution, and a
//! job resumed after a crash still finds what it stored before; receipts
//! still verify; and a server without the plugin refuses the request at
//! once, naming the field.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common;
use crate::jobs::{self, Site, HUB, KEY, QUERY};

/// A site of 40 reviews rated 5: the first 10 (newest) say something awful.
fn site() -> Site {
    let site = Site::with(40);
    let mut reviews = site.reviews.lock().unwrap();
    for (i, review) in reviews.iter_mut().enumerate() {
        review["rating"] = json!(5);
        if i < 10 {
            review["text"] = json!(format!(
                "Awful experience number {i}. The staff were rude, the product arrived broken and nobody answered."
            ));
        }
    }
    drop(reviews);
    site
}

/// A server for `site` with the source and the review-insights plugin.
async fn server(site: &Site) -> common::Server {
    let addr = site.serve().await;
    common::start(&["customer-feedback-hub", "review-insights"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert("www.trustpilot.com".into(), format!("http://{addr}"));
        c.api_keys = vec![KEY.into()];
    })
    .await
}

#[tokio::test]
async fn a_fetch_with_insights_scores_every_review_and_its_receipts_verify() {
    let site = site();
    let s = server(&site).await;
    let body = json!({"query": QUERY, "reviews_to_fetch": 20, "insights": true, "receipts": true});
    let (status, answer) = jobs::fetch(&s, body).await;
    assert_eq!(status, 200, "{answer}");
    let reviews = answer["all_reviews"].as_array().unwrap();
    assert_eq!(reviews.len(), 20);
    let key = s.get_json("/receipts/public-key").await["public_key"]
        .as_str()
        .unwrap()
        .to_owned();
    for (i, review) in reviews.iter().enumerate() {
        let id = &review["review_id"];
        let (label, mismatch) = if i < 10 {
            ("negative", true)
        } else {
            ("positive", false)
        };
        assert_eq!(review["sentiment"]["label"], label, "{id}: {review}");
        let score = review["sentiment"]["score"].as_f64().unwrap();
        assert!((-1.0..=1.0).contains(&score), "{id}: {score}");
        assert_eq!(review["rating_mismatch"], mismatch, "{id}");
        let keywords = review["keywords"].as_array().unwrap();
        assert!((1..=5).contains(&keywords.len()), "{id}: {keywords:?}");
        let text = review["review_text"].as_str().unwrap().to_lowercase();
        for k in keywords {
            assert!(
                text.contains(&k.as_str().unwrap().to_lowercase()),
                "{id}: {k}"
            );
        }
        // The ten awful reviews differ by a number only: each later one
        // points at the first.
        let duplicate_of = match i {
            1..10 => reviews[0]["review_id"].clone(),
            _ => Value::Null,
        };
        assert_eq!(review["duplicate_of"], duplicate_of, "{id}");
        // What was read is signed; what was derived from it is not.
        gleaner::receipts::verify(review, &key)
            .unwrap_or_else(|e| panic!("{id}'s receipt does not verify: {e}"));
    }
    // Without insights, the record is as it was.
    let (_, plain) = jobs::fetch(&s, json!({"query": QUERY, "reviews_to_fetch": 1})).await;
    let review = &plain["all_reviews"][0];
    for field in ["sentiment", "rating_mismatch", "keywords", "duplicate_of"] {
        assert!(review.get(field).is_none(), "{field}: {review}");
    }
}

#[tokio::test]
async fn a_job_with_insights_gives_their_distribution() {
    let site = site();
    let s = server(&site).await;
    let request = json!({"endpoint": HUB, "request": {"query": QUERY, "insights": true}});
    let id = jobs::submit(&s, request).await;
    let done = jobs::finished(&s, &id, KEY, Duration::from_secs(60)).await;
    assert_eq!(done["state"], "succeeded", "{done}");
    assert_eq!(done["reviews_collected"], 40);
    assert_eq!(
        done["insights"],
        json!({"scored": 40, "unscored": 0, "positive": 0.75, "neutral": 0.0,
               "negative": 0.25, "rating_mismatches": 10, "near_duplicates": 9}),
        "{done}"
    );
    // The stored reviews carry their insights.
    let (status, page) = jobs::send(
        &s,
        reqwest::Method::GET,
        &format!("/jobs/{id}/reviews?limit=5"),
        KEY,
        None,
    )
    .await;
    assert_eq!(status, 200, "{page}");
    let first: &Value = &page["reviews"][0];
    assert_eq!(first["sentiment"]["label"], "negative", "{first}");
    // A job without insights has no distribution.
    let id = jobs::submit(&s, jobs::job_request(Some(5))).await;
    let done = jobs::finished(&s, &id, KEY, Duration::from_secs(60)).await;
    assert!(done.get("insights").is_none(), "{done}");
}

#[tokio::test]
async fn a_schedule_with_insights_gives_each_run_its_distribution() {
    let site = site();
    let s = server(&site).await;
    let body =
        json!({"endpoint": HUB, "request": {"query": QUERY, "insights": true}, "every": "1d"});
    let (status, schedule) =
        jobs::send(&s, reqwest::Method::POST, "/schedules", KEY, Some(body)).await;
    assert_eq!(status, 201, "{schedule}");
    let id = schedule["schedule_id"].as_str().unwrap();
    let (run, ids) = jobs::run_once(&s, id).await;
    assert_eq!(run["state"], "succeeded", "{run}");
    assert_eq!(ids.len(), 40);
    assert_eq!(run["insights"]["rating_mismatches"], 10, "{run}");
    assert_eq!(run["insights"]["near_duplicates"], 9, "{run}");
    // A schedule's request is checked as a job's: no plugin, no schedule.
    let plain = jobs::keyed(&site).await;
    let body =
        json!({"endpoint": HUB, "request": {"query": QUERY, "insights": true}, "every": "1d"});
    let (status, answer) =
        jobs::send(&plain, reqwest::Method::POST, "/schedules", KEY, Some(body)).await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("`insights`"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_job_resumed_after_a_crash_finds_near_duplicates_of_what_it_stored_before() {
    use crate::security::process::Process;
    let site = Site::with(600);
    let original = "We stayed four nights in the garden room. The staff were friendly, \
        breakfast was generous and the bed was comfortable; parking was tight.";
    {
        let mut reviews = site.reviews.lock().unwrap();
        reviews[0]["text"] = json!(original);
        reviews[599]["text"] = json!(original.replace("four nights", "three nights"));
    }
    *site.delay.lock().unwrap() = Duration::from_millis(40);
    let addr = site.serve().await;
    let data = tempfile::tempdir().unwrap();
    let env = jobs::process_env(addr, data.path());
    let plugins = ["customer-feedback-hub", "review-insights"];
    let mut server = Process::start(&plugins, &env);
    let request = json!({"endpoint": HUB, "request": {"query": QUERY, "insights": true}});
    let id = jobs::submit_body_to(server.url("/jobs"), &request).await;
    // Killed once the first review is stored, well before the last.
    let started = Instant::now();
    loop {
        let job = jobs::get_keyed(server.url(&format!("/jobs/{id}"))).await;
        if job["reviews_collected"].as_u64().unwrap_or(0) > 0 {
            assert_eq!(job["state"], "running", "{job}");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{job}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let server = Process::start(&plugins, &env);
    let done = loop {
        let job = jobs::get_keyed(server.url(&format!("/jobs/{id}"))).await;
        if job["state"] != "running" && job["state"] != "queued" {
            break job;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "{job}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(done["state"], "succeeded", "{done}");
    assert_eq!(done["insights"]["near_duplicates"], 1, "{done}");
    let page = jobs::get_keyed(server.url(&format!("/jobs/{id}/reviews?limit=1000"))).await;
    let reviews = page["reviews"].as_array().unwrap();
    assert_eq!(reviews.len(), 600);
    assert_eq!(reviews[599]["duplicate_of"], reviews[0]["review_id"]);
}

#[tokio::test]
async fn insights_without_the_plugin_are_refused_at_once() {
    let site = Site::with(5);
    let s = jobs::keyed(&site).await;
    let (status, answer) = jobs::fetch(&s, json!({"query": QUERY, "insights": true})).await;
    assert_eq!(status, 400, "{answer}");
    let error = answer["error"].as_str().unwrap();
    assert!(
        error.contains("`insights`") && error.contains("review-insights"),
        "{error}"
    );
    let body = json!({"endpoint": HUB, "request": {"query": QUERY, "insights": true}});
    let (status, answer) = jobs::send(&s, reqwest::Method::POST, "/jobs", KEY, Some(body)).await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("`insights`"),
        "{answer}"
    );
    let (status, answer) = jobs::fetch(&s, json!({"query": QUERY, "insights": "yes"})).await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("insights"),
        "{answer}"
    );
}
