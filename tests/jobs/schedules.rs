//! Schedules: listing, delivering only new reviews, a failed run's rest, and
//! overlapping runs.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{json, Value};

use super::fixture::*;

/// `GET /schedules` lists a page at a time, oldest first, `next_after`
/// leading to the next; another key's schedule is no anchor.
#[tokio::test]
async fn schedules_list_a_page_at_a_time() {
    let site = Site::with(5);
    let s = server_with_keys(&site, &[KEY, "another-key-of-at-least-16"]).await;
    let mut made = Vec::new();
    for _ in 0..3 {
        let schedule = add_schedule(&s, json!({"every": "1h"})).await;
        made.push(schedule["schedule_id"].as_str().unwrap().to_owned());
        // Created in the same millisecond, two would list by id instead.
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
    let ids = |page: &Value| -> Vec<String> {
        let listed = page["schedules"].as_array().unwrap();
        listed
            .iter()
            .map(|s| s["schedule_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let (status, first) = send(&s, reqwest::Method::GET, "/schedules?limit=2", KEY, None).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(ids(&first), made[..2]);
    let after = first["next_after"].as_str().unwrap();
    let path = format!("/schedules?limit=2&after={after}");
    let (_, rest) = send(&s, reqwest::Method::GET, &path, KEY, None).await;
    assert_eq!(ids(&rest), made[2..]);
    assert!(rest["next_after"].is_null(), "{rest}");
    let (_, all) = send(&s, reqwest::Method::GET, "/schedules", KEY, None).await;
    assert_eq!(ids(&all), made, "the default page holds them all");
    let path = format!("/schedules?after={}", made[0]);
    let other = "another-key-of-at-least-16";
    let (status, answer) = send(&s, reqwest::Method::GET, &path, other, None).await;
    assert_eq!(status, 400, "another key's schedule as anchor: {answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("`after`"),
        "{answer}"
    );
    for bad in [
        "/schedules?limit=0",
        "/schedules?limit=501",
        "/schedules?page=2",
    ] {
        let (status, answer) = send(&s, reqwest::Method::GET, bad, KEY, None).await;
        assert_eq!(status, 400, "{bad}: {answer}");
    }
}

#[tokio::test]
async fn a_schedule_delivers_only_new_reviews() {
    let site = Site::with(600);
    let s = keyed(&site).await;
    let schedule = add_schedule(&s, json!({"every": "1d"})).await;
    assert_eq!(schedule["every"], "1d");
    let id = schedule["schedule_id"].as_str().unwrap().to_owned();
    let mut delivered = Vec::new();
    let mut all_ids = Vec::new();
    for added in [0usize, 5, 0, 12] {
        site.add_newer(added);
        let before = site.ids();
        let (job, ids) = run_once(&s, &id).await;
        assert_eq!(job["state"], "succeeded", "{job}");
        if !delivered.is_empty() {
            assert_eq!(ids, before[..added], "exactly the new ones, newest first");
            assert!(
                job["pages_fetched"].as_u64().unwrap() <= 2,
                "a caught-up run reads a page or two: {job}"
            );
        }
        delivered.push(ids.len());
        all_ids.extend(ids);
    }
    assert_eq!(delivered, [600, 5, 0, 12]);
    let distinct: BTreeSet<_> = all_ids.iter().collect();
    assert_eq!(distinct.len(), all_ids.len(), "none twice");
    let (_, schedule) = send(
        &s,
        reqwest::Method::GET,
        &format!("/schedules/{id}"),
        KEY,
        None,
    )
    .await;
    assert_eq!(schedule["runs"], 4);
    assert_eq!(schedule["reviews_delivered"], 617);
}

#[tokio::test]
async fn a_run_that_fails_halfway_leaves_the_rest_to_the_next() {
    let site = Site::with(100);
    let addr = site.serve().await;
    let s = server(addr, |c| {
        c.api_keys = vec![KEY.into()];
        // A short budget, so the failing run gives up soon.
        c.job_max_duration_secs = 3;
    })
    .await;
    let schedule = add_schedule(&s, json!({"every": "1d"})).await;
    let id = schedule["schedule_id"].as_str().unwrap().to_owned();
    let first_ids = site.ids();
    site.failing.lock().unwrap().insert(3);
    let (job, ids) = run_once(&s, &id).await;
    assert_eq!(job["state"], "failed", "{job}");
    assert_eq!(ids, first_ids[..40], "it delivered what it collected");
    site.failing.lock().unwrap().clear();
    site.add_newer(5);
    let now = site.ids();
    let (job, ids) = run_once(&s, &id).await;
    assert_eq!(job["state"], "succeeded", "{job}");
    let mut expected: Vec<String> = now[..5].to_vec();
    expected.extend(first_ids[40..].iter().cloned());
    assert_eq!(
        ids, expected,
        "the new ones and the missing ones, none twice"
    );
}

#[tokio::test]
async fn a_run_is_skipped_while_the_previous_one_is_going() {
    let site = Site::with(200);
    *site.delay.lock().unwrap() = Duration::from_millis(400);
    let s = keyed(&site).await;
    let schedule = add_schedule(&s, json!({"every": "1h"})).await;
    let id = schedule["schedule_id"].as_str().unwrap().to_owned();
    let run = format!("/schedules/{id}/run");
    let (status, job) = send(&s, reqwest::Method::POST, &run, KEY, None).await;
    assert_eq!(status, 202, "{job}");
    let (status, body) = send(&s, reqwest::Method::POST, &run, KEY, None).await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("still going"),
        "{body}"
    );
    let (_, schedule) = send(
        &s,
        reqwest::Method::GET,
        &format!("/schedules/{id}"),
        KEY,
        None,
    )
    .await;
    assert_eq!(schedule["skipped_runs"], 1, "{schedule}");
    assert_eq!(schedule["last_job_id"], job["job_id"], "{schedule}");
    let job = job["job_id"].as_str().unwrap();
    let done = finished(&s, job, KEY, Duration::from_secs(60)).await;
    assert_eq!(done["reviews_collected"], 200, "{done}");
    let (status, _) = send(&s, reqwest::Method::POST, &run, KEY, None).await;
    assert_eq!(status, 202, "once it ended, the next run starts");
}
