//! Signed links to a job's reviews as CSV: `POST /jobs/{id}/links` gives a
//! URL that answers without an API key (as a spreadsheet's `IMPORTDATA`
//! reads it), and a link with any byte of its job, expiry or signature
//! changed answers 403 saying why.

use std::time::Duration;

use serde_json::{json, Value};

use crate::jobs::{finished, job_request, keyed, send, submit, Site, KEY};

async fn get(s: &crate::common::Server, path: &str) -> (u16, Option<String>, String) {
    let r = s.client.get(s.url(path)).send().await.unwrap();
    let kind = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    (r.status().as_u16(), kind, r.text().await.unwrap())
}

#[tokio::test]
async fn a_signed_link_reads_the_csv_without_a_key_until_changed() {
    let site = Site::with(45);
    let s = keyed(&site).await;
    let id = submit(&s, job_request(None)).await;
    let done = finished(&s, &id, KEY, Duration::from_secs(60)).await;
    assert_eq!(done["state"], "succeeded", "{done}");

    let path = format!("/jobs/{id}/links");
    let (status, link) = send(
        &s,
        reqwest::Method::POST,
        &path,
        KEY,
        Some(json!({"expires_in_days": 7})),
    )
    .await;
    assert_eq!(status, 201, "{link}");
    assert_eq!(link["format"], "csv");
    let url = link["url"].as_str().unwrap();
    let relative = link["path"].as_str().unwrap();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with(relative),
        "{link}"
    );
    assert!(link["expires_at"].as_str().is_some(), "{link}");

    // Read with no header at all, as IMPORTDATA reads it.
    let (status, kind, text) = get(&s, relative).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(kind.as_deref(), Some("text/csv; charset=utf-8"));
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let ids: Vec<String> = rows.records().map(|r| r.unwrap()[0].to_owned()).collect();
    assert_eq!(ids, site.ids());

    // Any byte changed: 403, saying why.
    let exp: u64 = relative
        .split("exp=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let sig = relative.split("sig=").nth(1).unwrap();
    let flipped = format!(
        "{}{}",
        if sig.starts_with('0') { '1' } else { '0' },
        &sig[1..]
    );
    for changed in [
        format!("/jobs/{id}/reviews.csv?exp={}&sig={sig}", exp + 86_400),
        format!("/jobs/{id}/reviews.csv?exp={exp}&sig={flipped}"),
        format!("/jobs/{id}x/reviews.csv?exp={exp}&sig={sig}"),
        format!("/jobs/{id}/reviews.csv?exp=soon&sig={sig}"),
    ] {
        let (status, _, text) = get(&s, &changed).await;
        assert_eq!(status, 403, "{changed}: {text}");
        assert!(
            text.contains("signature does not match"),
            "{changed}: {text}"
        );
    }
    let (status, _, text) = get(&s, &format!("/jobs/{id}/reviews.csv")).await;
    assert_eq!(status, 403);
    assert!(text.contains("POST /jobs/{id}/links"), "{text}");

    // What may not be asked for.
    for body in [
        json!({"expires_in_days": 31}),
        json!({"expires_in_days": 0}),
    ] {
        let (status, answer) = send(&s, reqwest::Method::POST, &path, KEY, Some(body)).await;
        assert_eq!(status, 400, "{answer}");
        assert!(
            answer["error"].as_str().unwrap().contains("1 to 30 days"),
            "{answer}"
        );
    }
    let (status, answer): (u16, Value) =
        send(&s, reqwest::Method::POST, &path, "not-a-key", None).await;
    assert_eq!(status, 401, "{answer}");
}

/// A job or schedule asking for an export is refused, saying what to do,
/// when the format is not one written, the value is not `{"format": …}`,
/// or the server has no object storage (written to by `make test-s3`'s
/// tests, in `object_storage`).
#[tokio::test]
async fn an_export_is_refused_in_an_unknown_shape_or_without_object_storage() {
    let site = Site::with(3);
    let s = keyed(&site).await;
    for (export, says) in [
        (json!({"format": "parquet"}), "GLEANER_EXPORT_S3_URL"),
        (json!({"format": "xlsx"}), "json, ndjson, csv, parquet"),
        (json!("csv"), r#"{"format": "parquet"}"#),
        (
            json!({"format": "csv", "bucket": "mine"}),
            r#"{"format": "parquet"}"#,
        ),
    ] {
        let mut job = job_request(None);
        job["export"] = export.clone();
        let mut schedule = job.clone();
        schedule["every"] = json!("1h");
        for (path, body) in [("/jobs", job), ("/schedules", schedule)] {
            let (status, answer) = send(&s, reqwest::Method::POST, path, KEY, Some(body)).await;
            assert_eq!(status, 400, "{path} {export}: {answer}");
            let error = answer["error"].as_str().unwrap();
            assert!(error.contains(says), "{path} {export}: {error}");
        }
    }
}
