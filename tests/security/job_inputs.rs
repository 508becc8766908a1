//! What `/jobs` and `/schedules` take: checked as strictly as every other
//! route, and as the source endpoint checks the same request. Intervals that
//! overflow, bodies with a key twice or of another media type, a job the
//! endpoint would refuse, an unbounded webhook URL, a time zone that is not a
//! string, another key's job as a list anchor and a review cursor past the
//! store's range are each refused with a 400 (or 415) that names the field.

use serde_json::{json, Value};

use crate::jobs::{job_request, keyed, send, submit, Site, HUB, KEY, QUERY};

const OTHER: &str = "jobs-key-two";

/// A body sent as raw bytes with `content_type`; the status and the answer.
async fn raw(
    s: &crate::common::Server,
    path: &str,
    content_type: &str,
    body: &str,
) -> (u16, Value) {
    let r = s
        .client
        .post(s.url(path))
        .header("x-api-key", KEY)
        .header("content-type", content_type)
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// An `every` that overflows a u64 (or an i64 once in milliseconds) is
/// refused, and so is one over 366 days.
#[tokio::test]
async fn an_interval_that_overflows_is_refused() {
    let s = keyed(&Site::with(5)).await;
    for every in [
        "18446744073709551615s",
        "99999999999999w",
        "9223372036854775808s",
        "367d",
    ] {
        let body = json!({"endpoint": HUB, "request": {"query": QUERY}, "every": every});
        let (status, answer) = send(&s, reqwest::Method::POST, "/schedules", KEY, Some(body)).await;
        assert_eq!(status, 400, "every {every}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains("366 days"),
            "{answer}"
        );
    }
}

/// A key given twice, and a body that is not JSON by its `Content-Type`, are
/// refused on `/jobs` and `/schedules` as on every endpoint.
#[tokio::test]
async fn duplicate_keys_and_other_media_types_are_refused() {
    let s = keyed(&Site::with(5)).await;
    let twice = format!(
        r#"{{"endpoint": "{HUB}", "endpoint": "{HUB}", "request": {{"query": "{QUERY}"}}, "every": "1h"}}"#
    );
    let body = job_request(None).to_string();
    for path in ["/jobs", "/schedules"] {
        let (status, answer) = raw(&s, path, "application/json", &twice).await;
        assert_eq!(status, 400, "{path}: {answer}");
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .contains("appears more than once"),
            "{answer}"
        );
        let (status, answer) = raw(&s, path, "text/plain", &body).await;
        assert_eq!(status, 415, "{path}: {answer}");
    }
}

/// A job's request is checked exactly as the endpoint checks it.
#[tokio::test]
async fn a_job_the_endpoint_would_refuse_is_refused() {
    let s = keyed(&Site::with(5)).await;
    for request in [
        json!({"query": QUERY, "reviews_to_fetch": 0}),
        json!({"query": "   "}),
        json!({"query": 5}),
    ] {
        let (direct, said) = send(&s, reqwest::Method::POST, HUB, KEY, Some(request.clone())).await;
        assert_eq!(direct, 400, "the endpoint took {request}: {said}");
        let body = json!({"endpoint": HUB, "request": request});
        let (status, answer) = send(&s, reqwest::Method::POST, "/jobs", KEY, Some(body)).await;
        assert_eq!(status, 400, "{request}: {answer}");
    }
}

/// A webhook URL over 2,048 bytes is refused before it is stored.
#[tokio::test]
async fn a_webhook_url_is_at_most_2048_bytes() {
    let s = keyed(&Site::with(5)).await;
    let url = format!("https://hooks.example.com/{}", "a".repeat(3_000));
    let mut body = job_request(None);
    body["webhook"] = json!({"url": url, "secret": "0123456789abcdef0123"});
    let (status, answer) = send(&s, reqwest::Method::POST, "/jobs", KEY, Some(body)).await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("at most 2048"),
        "{answer}"
    );
}

/// A `timezone` that is not a string is refused, not ignored.
#[tokio::test]
async fn a_timezone_that_is_not_a_string_is_refused() {
    let s = keyed(&Site::with(5)).await;
    for timezone in [json!(5), json!(["Europe/Paris"]), json!({"zone": "UTC"})] {
        let body = json!({"endpoint": HUB, "request": {"query": QUERY}, "cron": "0 3 * * *", "timezone": timezone});
        let (status, answer) = send(&s, reqwest::Method::POST, "/schedules", KEY, Some(body)).await;
        assert_eq!(status, 400, "timezone {timezone}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains("`timezone`"),
            "{answer}"
        );
    }
}

/// Another key's job as the list's anchor is refused like an unknown one, so
/// the answer tells nothing of it.
#[tokio::test]
async fn another_keys_job_is_no_list_anchor() {
    let site = Site::with(5);
    let s = crate::jobs::server_with_keys(&site, &[KEY, OTHER]).await;
    let theirs = submit(&s, job_request(None)).await;
    for anchor in [theirs.as_str(), "job-that-never-was"] {
        let path = format!("/jobs?before={anchor}");
        let (status, answer) = send(&s, reqwest::Method::GET, &path, OTHER, None).await;
        assert_eq!(status, 400, "{anchor}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains("`before`"),
            "{answer}"
        );
    }
    let path = format!("/jobs?before={theirs}");
    let (status, _) = send(&s, reqwest::Method::GET, &path, KEY, None).await;
    assert_eq!(status, 200, "the owner pages from its own job");
}

/// A review cursor past the store's range is refused instead of wrapping
/// around to the first review.
#[tokio::test]
async fn a_review_cursor_past_the_range_is_refused() {
    let s = keyed(&Site::with(5)).await;
    let id = submit(&s, job_request(None)).await;
    for cursor in ["9223372036854775808", "18446744073709551615", "-1"] {
        let path = format!("/jobs/{id}/reviews?cursor={cursor}");
        let (status, answer) = send(&s, reqwest::Method::GET, &path, KEY, None).await;
        assert_eq!(status, 400, "cursor {cursor}: {answer}");
    }
}
