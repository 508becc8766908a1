//! A tracked schedule's review lifecycle against a local site whose reviews
//! the test edits between runs: each run reports exactly the changes made
//! since the one before (an edit, a reply added then edited, a removal) and
//! delivers a new review as new; cosmetic churn (likes, avatar URLs) and an
//! unchanged site report nothing. The changes are read from
//! `GET /schedules/{id}/changes`, the `schedule.run` webhook's counts, and
//! the `review.changed` webhook.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common;
use crate::jobs::{run_once, send, server, Site, HUB, KEY, QUERY};

/// A webhook receiver on `hooks.example`: the bodies it was sent, by event.
async fn receiver() -> (std::net::SocketAddr, Arc<Mutex<Vec<Value>>>) {
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let keep = seen.clone();
    let addr = common::upstream(axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: String| {
            let keep = keep.clone();
            async move {
                keep.lock()
                    .unwrap()
                    .push(serde_json::from_str(&body).unwrap());
                axum::http::StatusCode::OK
            }
        }),
    ))
    .await;
    (addr, seen)
}

/// Adds a tracked schedule with `tracking` (its change window, reconcile
/// interval and webhook); its id.
async fn tracked(s: &common::Server, tracking: Value) -> String {
    let mut body = json!({
        "endpoint": HUB,
        "request": {"query": QUERY},
        "every": "1d",
        "track_changes": true,
    });
    body.as_object_mut()
        .unwrap()
        .extend(tracking.as_object().unwrap().clone());
    let (status, schedule) = send(s, reqwest::Method::POST, "/schedules", KEY, Some(body)).await;
    assert_eq!(status, 201, "{schedule}");
    assert_eq!(schedule["track_changes"], true, "{schedule}");
    schedule["schedule_id"].as_str().unwrap().to_owned()
}

/// The changes run `job` found, as `GET /schedules/{id}/changes` answers
/// them: `(event, review id)` in the order found, with the records.
async fn changes_of(
    s: &common::Server,
    id: &str,
    job: &str,
) -> (Vec<(String, String)>, Vec<Value>) {
    let path = format!("/schedules/{id}/changes?run={job}");
    let (status, page) = send(s, reqwest::Method::GET, &path, KEY, None).await;
    assert_eq!(status, 200, "{page}");
    let records = page["changes"].as_array().unwrap().clone();
    let named = records
        .iter()
        .map(|c| {
            let event = c["event"].as_str().unwrap().to_owned();
            (event, c["review_id"].as_str().unwrap().to_owned())
        })
        .collect();
    (named, records)
}

/// Edits the site's review `id` with `edit`.
fn edit(site: &Site, id: &str, edit: impl FnOnce(&mut Value)) {
    let mut all = site.reviews.lock().unwrap();
    let review = all.iter_mut().find(|r| r["id"] == id).expect("the review");
    edit(review);
}

/// The webhook bodies of `event` so far.
fn sent(seen: &Arc<Mutex<Vec<Value>>>, event: &str) -> Vec<Value> {
    let all = seen.lock().unwrap();
    all.iter()
        .filter(|b| b["event"] == event)
        .cloned()
        .collect()
}

/// Waits until the receiver holds `n` bodies.
async fn until_sent(seen: &Arc<Mutex<Vec<Value>>>, n: usize) {
    for _ in 0..200 {
        if seen.lock().unwrap().len() >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{} webhook bodies, not {n}", seen.lock().unwrap().len());
}

#[tokio::test]
async fn a_tracked_schedule_reports_exactly_the_changes_made_between_runs() {
    let site = Site::with(30);
    let (hooks, seen) = receiver().await;
    let s = server(site.serve().await, |c| {
        c.api_keys = vec![KEY.into()];
        c.upstream_override
            .insert("hooks.example".into(), format!("http://{hooks}"));
    })
    .await;
    let hook =
        json!({"url": "http://hooks.example/hook", "secret": "a-receiver-secret-0123456789"});
    let id = tracked(&s, json!({"change_window": "all", "webhook": hook})).await;
    let ids = site.ids();
    let (first, delivered) = run_once(&s, &id).await;
    assert_eq!(delivered.len(), 30, "{first}");
    assert!(changes_of(&s, &id, first["job_id"].as_str().unwrap())
        .await
        .0
        .is_empty());
    // Fetched again unchanged: nothing new, no change.
    let (second, delivered) = run_once(&s, &id).await;
    assert!(delivered.is_empty());
    assert!(changes_of(&s, &id, second["job_id"].as_str().unwrap())
        .await
        .0
        .is_empty());

    // The changes made, written down before the run: an edit (text and
    // rating), a reply added, a removal and a new review; and cosmetic churn.
    edit(&site, &ids[3], |r| {
        r["text"] = json!("Changed my mind: slow delivery.");
        r["rating"] = json!(2);
    });
    edit(&site, &ids[10], |r| {
        r["reply"] = json!({"message": "Thank you for your kind words.", "publishedDate": "2024-01-02T10:00:00.000Z"});
    });
    edit(&site, &ids[5], |r| r["likes"] = json!(99));
    edit(&site, &ids[6], |r| {
        r["consumer"]["imageUrl"] = json!("https://user-images.trustpilot.com/x/73x73.png?v=2")
    });
    edit(&site, &ids[7], |r| {
        r["text"] = json!(format!("  {}\n", r["text"].as_str().unwrap()))
    });
    site.reviews
        .lock()
        .unwrap()
        .retain(|r| r["id"] != ids[20].as_str());
    site.add_newer(1);
    let newest = site.ids()[0].clone();

    let (third, delivered) = run_once(&s, &id).await;
    assert_eq!(delivered, [newest], "the new review, delivered as new");
    let run = third["job_id"].as_str().unwrap();
    let (found, records) = changes_of(&s, &id, run).await;
    let found: BTreeMap<_, _> = found.into_iter().map(|(e, r)| (r, e)).collect();
    let expected: BTreeMap<String, String> = [
        (ids[3].clone(), "review.updated".to_owned()),
        (ids[10].clone(), "review.reply_added".to_owned()),
        (ids[20].clone(), "review.removed".to_owned()),
    ]
    .into();
    assert_eq!(found, expected, "exactly the changes made");
    let updated = records
        .iter()
        .find(|c| c["event"] == "review.updated")
        .unwrap();
    assert_eq!(updated["before"]["review_rating"], 5.0, "{updated}");
    assert_eq!(updated["after"]["review_rating"], 2.0, "{updated}");
    assert_eq!(
        updated["after"]["review_text"],
        "Changed my mind: slow delivery."
    );
    assert!(
        updated["before"].get("review_title").is_none(),
        "only what changed"
    );
    assert_eq!(updated["schedule_id"], id.as_str());
    assert_eq!(updated["run_job_id"], run);
    assert!(updated["event_id"].as_str().unwrap().starts_with("chg_"));
    let removed = records
        .iter()
        .find(|c| c["event"] == "review.removed")
        .unwrap();
    assert!(removed["after"].is_null() && removed["before"]["review_text"].is_string());

    // The run's webhooks: its counts, and the changes in one batch.
    until_sent(&seen, 4).await;
    let runs = sent(&seen, "schedule.run");
    let counts = &runs.last().unwrap()["job"]["changes"];
    assert_eq!(
        counts,
        &json!({"updated": 1, "reply_added": 1, "reply_updated": 0, "removed": 1})
    );
    assert_eq!(runs.last().unwrap()["job"]["new_reviews"], 1);
    let batches = sent(&seen, "review.changed");
    assert_eq!(batches.len(), 1, "only a run with changes sends one");
    let batch = &batches[0];
    assert_eq!(batch["run_job_id"], run);
    assert_eq!(batch["changes"].as_array().unwrap().len(), 3);
    assert!(batch["next_cursor"].is_null());
    let event_ids: Vec<_> = records.iter().map(|c| c["event_id"].clone()).collect();
    let batch_ids: Vec<_> = batch["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["event_id"].clone())
        .collect();
    assert_eq!(event_ids, batch_ids);

    // The reply edited: reply_updated, and nothing else.
    edit(&site, &ids[10], |r| {
        r["reply"]["message"] = json!("Thank you, we fixed the delivery times.");
    });
    let (fourth, _) = run_once(&s, &id).await;
    let (found, _) = changes_of(&s, &id, fourth["job_id"].as_str().unwrap()).await;
    assert_eq!(
        found,
        [("review.reply_updated".to_owned(), ids[10].clone())]
    );

    // The whole list, a page at a time, and since a time to come.
    let path = format!("/schedules/{id}/changes?limit=2");
    let (_, first_page) = send(&s, reqwest::Method::GET, &path, KEY, None).await;
    assert_eq!(first_page["changes"].as_array().unwrap().len(), 2);
    let cursor = first_page["next_cursor"].as_str().unwrap();
    let path = format!("/schedules/{id}/changes?limit=2&cursor={cursor}");
    let (_, rest) = send(&s, reqwest::Method::GET, &path, KEY, None).await;
    assert_eq!(rest["changes"].as_array().unwrap().len(), 2);
    assert!(rest["next_cursor"].is_null());
    let path = format!("/schedules/{id}/changes?since=2999-01-01T00:00:00Z");
    let (_, none) = send(&s, reqwest::Method::GET, &path, KEY, None).await;
    assert_eq!(none["changes"], json!([]));
}

#[tokio::test]
async fn a_window_run_rereads_the_newest_and_removals_wait_for_a_full_walk() {
    let site = Site::with(60);
    let s = server(site.serve().await, |c| c.api_keys = vec![KEY.into()]).await;
    let id = tracked(&s, json!({"change_window": 5, "reconcile_every": "7d"})).await;
    let ids = site.ids();
    // The first run walks everything (it never has), and so records a full walk.
    let (first, delivered) = run_once(&s, &id).await;
    assert_eq!(delivered.len(), 60, "{first}");
    // An edit among the newest five is found; one further down, and a
    // removal, wait for the next full walk: a window run reads a page.
    edit(&site, &ids[2], |r| r["title"] = json!("Edited title"));
    edit(&site, &ids[40], |r| r["text"] = json!("An edit far down."));
    site.reviews
        .lock()
        .unwrap()
        .retain(|r| r["id"] != ids[50].as_str());
    let (second, _) = run_once(&s, &id).await;
    assert!(second["pages_fetched"].as_u64().unwrap() <= 2, "{second}");
    let (found, _) = changes_of(&s, &id, second["job_id"].as_str().unwrap()).await;
    assert_eq!(found, [("review.updated".to_owned(), ids[2].clone())]);
}

#[tokio::test]
async fn tracking_options_are_checked_with_what_is_accepted() {
    let site = Site::with(1);
    let s = server(site.serve().await, |c| c.api_keys = vec![KEY.into()]).await;
    let body = |extra: Value| {
        let mut body = json!({"endpoint": HUB, "request": {"query": QUERY}, "every": "1d"});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        body
    };
    for (extra, names) in [
        (
            json!({"track_changes": true, "change_window": 0}),
            "change_window",
        ),
        (
            json!({"track_changes": true, "change_window": 10_001}),
            "1 to 10000",
        ),
        (
            json!({"track_changes": true, "change_window": "some"}),
            "\"all\"",
        ),
        (
            json!({"track_changes": true, "reconcile_every": "weekly"}),
            "reconcile_every",
        ),
        (json!({"track_changes": "yes"}), "true or false"),
        (
            json!({"change_window": 10}),
            "goes with `track_changes: true`",
        ),
    ] {
        let (status, answer) = send(
            &s,
            reqwest::Method::POST,
            "/schedules",
            KEY,
            Some(body(extra.clone())),
        )
        .await;
        assert_eq!(status, 400, "{extra}: {answer}");
        let message = answer["error"].as_str().unwrap();
        assert!(message.contains(names), "{extra}: {message}");
    }
    let (status, _) = send(
        &s,
        reqwest::Method::POST,
        "/schedules",
        KEY,
        Some(body(
            json!({"track_changes": true, "change_window": 10_000}),
        )),
    )
    .await;
    assert_eq!(status, 201);
}

#[tokio::test]
async fn a_source_without_site_review_ids_cannot_track_changes() {
    let s = common::start(&["auto-research"], |c| c.api_keys = vec![KEY.into()]).await;
    let body = json!({
        "endpoint": "/auto-research/reviews",
        "request": {"query": "mazda-cx_5-2021"},
        "every": "1d",
        "track_changes": true,
    });
    let (status, answer) = send(&s, reqwest::Method::POST, "/schedules", KEY, Some(body)).await;
    assert_eq!(status, 400, "{answer}");
    let message = answer["error"].as_str().unwrap();
    assert!(message.contains("digest of its content"), "{message}");
    assert!(message.contains("without `track_changes`"), "{message}");
}

/// A `sync_cursor` carries each named review's short fingerprint: a fetch
/// sent with it answers, beside the new reviews, what changed in the named
/// reviews it read again, with no store on the server's side.
#[tokio::test]
async fn a_sync_cursor_answers_the_changes_of_the_reviews_it_names() {
    let site = Site::with(60);
    let s = server(site.serve().await, |c| c.api_keys = vec![KEY.into()]).await;
    let fetch = |body: Value| send(&s, reqwest::Method::POST, HUB, KEY, Some(body));
    let (status, first) = fetch(json!({"query": QUERY})).await;
    assert_eq!(status, 200, "{first}");
    let cursor = first["sync_cursor"].as_str().unwrap().to_owned();
    assert!(cursor.len() <= 4_096);
    // Unchanged: no new review, and no change.
    let (_, same) = fetch(json!({"query": QUERY, "sync_cursor": cursor})).await;
    assert_eq!(common::ids(&same), Vec::<String>::new());
    assert_eq!(same["extra_information"]["changes"], json!([]), "{same}");
    // An edit and a reply on the page the next fetch reads, and a new review.
    let ids = site.ids();
    edit(&site, &ids[4], |r| r["rating"] = json!(1));
    edit(&site, &ids[9], |r| {
        r["reply"] = json!({"message": "We are sorry to read this.", "publishedDate": "2024-01-03T10:00:00.000Z"});
    });
    edit(&site, &ids[12], |r| r["likes"] = json!(7));
    site.add_newer(1);
    let (_, next) = fetch(json!({"query": QUERY, "sync_cursor": cursor})).await;
    assert_eq!(common::ids(&next), site.ids()[..1].to_vec());
    let changes = next["extra_information"]["changes"].as_array().unwrap();
    let found: Vec<(&str, &str)> = changes
        .iter()
        .map(|c| {
            (
                c["event"].as_str().unwrap(),
                c["review_id"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("review.updated", ids[4].as_str()),
            ("review.reply_added", ids[9].as_str())
        ],
        "{next}"
    );
    assert_eq!(changes[0]["after"]["review_rating"], 1.0);
    // A cursor without changes asked: no `changes` at all.
    let (_, plain) = fetch(json!({"query": QUERY})).await;
    assert!(plain["extra_information"].get("changes").is_none());
}
