//! `gleaner fetch`: a source run locally from a replay, its output formats,
//! flags and continuation, and what it records.

use serde_json::Value;

use super::gleaner;
use crate::common;

const BH: &str = "https://www.trustpilot.com/review/www.bhphotovideo.com";

/// `gleaner fetch customer-feedback-hub <BH>` with `args`, replayed: exit
/// status, stdout and stderr.
fn fetch_bh(args: &[&str]) -> (bool, Vec<u8>, String) {
    let out = gleaner()
        .args(["fetch", "customer-feedback-hub", BH])
        .args(args)
        .args(["--replay", "plugins/customer-feedback-hub/tests"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), out.stdout, stderr)
}

fn ids_of(jsonl: &[u8]) -> Vec<String> {
    common::jsonl_ids(&String::from_utf8_lossy(jsonl))
}

#[test]
fn fetch_writes_reviews_as_json_lines_or_csv() {
    let fetch = |format: &str| {
        let (ok, stdout, stderr) = fetch_bh(&["--max", "25", "--format", format]);
        assert!(ok, "{stderr}");
        (stdout, stderr)
    };
    let (jsonl, stderr) = fetch("jsonl");
    let reviews: Vec<Value> = String::from_utf8(jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reviews.len(), 25);
    assert!(reviews.iter().all(|r| r["review_id"].is_string()));
    assert!(stderr.contains("Fetched 25 reviews"), "{stderr}");
    assert!(
        stderr.contains("run again with --pagination-token "),
        "{stderr}"
    );

    let (csv, _) = fetch("csv");
    let mut reader = csv::Reader::from_reader(csv.as_slice());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers[0], "review_id");
    assert!(headers.iter().any(|h| h == "review_text"));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 25);
    for (row, review) in rows.iter().zip(&reviews) {
        assert_eq!(&row[0], review["review_id"].as_str().unwrap());
        assert_eq!(&row[2], review["review_text"].as_str().unwrap_or(""));
    }

    let out = gleaner()
        .args(["fetch", "customer-feedback-hub", "x", "--format", "xml"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("json") && stderr.contains("jsonl") && stderr.contains("csv"),
        "an unknown format names the accepted ones: {stderr}"
    );
}

#[test]
fn fetch_runs_a_source_locally_from_a_replay() {
    let (ok, stdout, stderr) = fetch_bh(&["--max", "25"]);
    assert!(ok, "{stderr}");
    let body: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(body["all_reviews"].as_array().unwrap().len(), 25);
    assert!(body["next_page"].is_string());
    assert!(
        stderr.contains("Fetched 25 reviews from 2 pages"),
        "{stderr}"
    );

    let out = gleaner()
        .args(["fetch", "customer-feedback-hub", BH, "--filter", "5"])
        .args([
            "--replay",
            "plugins/customer-feedback-hub/tests/customer-feedback-hub.har",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(body["all_reviews"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["review_rating"] == 5.0));

    let out = gleaner()
        .args(["fetch", "no-such-source", "x"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no review source labelled \"no-such-source\"")
            && stderr.contains("customer-feedback-hub (POST /customer-feedback-hub/reviews)"),
        "{stderr}"
    );

    let out = gleaner()
        .args([
            "fetch",
            "customer-feedback-hub",
            "x",
            "--record",
            "a.har",
            "--replay",
            "b.har",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

#[tokio::test]
async fn fetch_records_what_it_fetched() {
    let page = r#"<html><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"businessUnit":{"displayName":"Shop"},"reviews":[{"id":"a1","text":"Fine.","rating":4,"dates":{"publishedDate":"2024-01-02T00:00:00.000Z"},"consumer":{"displayName":"Al"}}],"filters":{"pagination":{"totalPages":1}}}}}</script></html>"#;
    let router = axum::Router::new().route(
        "/review/{d}",
        axum::routing::get(move || async move { page }),
    );
    let addr = common::upstream(router).await;
    let dir = tempfile::tempdir().unwrap();
    let har = dir.path().join("rec.har");
    let har_arg = har.clone();
    let out = tokio::task::spawn_blocking(move || {
        gleaner()
            .args([
                "fetch",
                "customer-feedback-hub",
                "https://www.trustpilot.com/review/shop.example",
                "--record",
            ])
            .arg(&har_arg)
            .env(
                "GLEANER_UPSTREAM_OVERRIDE",
                format!("www.trustpilot.com=http://{addr}"),
            )
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&har).unwrap()).unwrap();
    assert_eq!(
        recorded["log"]["entries"][0]["request"]["url"],
        "https://www.trustpilot.com/review/shop.example?languages=all&sort=recency"
    );
    let out = gleaner()
        .args([
            "fetch",
            "customer-feedback-hub",
            "https://www.trustpilot.com/review/shop.example",
            "--replay",
        ])
        .arg(&har)
        .output()
        .unwrap();
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        body["all_reviews"][0]["review_id"], "a1",
        "the recording replays"
    );
}

#[test]
fn fetch_honours_the_replay_variable_and_subcommands_take_only_their_flags() {
    let out = gleaner()
        .env("GLEANER_REPLAY", "plugins/customer-feedback-hub/tests")
        .args(["fetch", "customer-feedback-hub", BH, "--max", "3"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "GLEANER_REPLAY is used: {stderr}");
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["all_reviews"].as_array().unwrap().len(), 3);

    let out = gleaner().args(["serve", "--max", "3"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "serve takes no fetch flags");
    assert!(String::from_utf8_lossy(&out.stderr).contains("unexpected argument '--max'"));
}

#[test]
fn fetch_takes_every_request_field_as_a_flag_and_follows_the_continuation() {
    // The source's own fields come from its manifest, named as in the API.
    let out = gleaner()
        .args(["fetch", "customer-feedback-hub", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--sort-type",
        "--filter-by",
        "--pagination-token",
        "--sync-date",
        "--is-text-formatted",
        "--all",
    ] {
        assert!(help.contains(flag), "{flag} in: {help}");
    }
    assert!(help.contains("recency, relevance"), "{help}");

    // A token sent back by its flag gives the rest, no gap, no duplicate.
    let (ok, first, stderr) = fetch_bh(&["--max", "25", "--format", "jsonl"]);
    assert!(ok, "{stderr}");
    let token = stderr
        .split("run again with --pagination-token ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("the token is printed: {stderr}"))
        .to_owned();
    let (ok, rest, stderr) = fetch_bh(&["--pagination-token", &token, "--format", "jsonl"]);
    assert!(ok, "{stderr}");
    let mut paged = ids_of(&first);
    paged.extend(ids_of(&rest));

    // --all follows it by itself, with progress on stderr, to the same reviews.
    let (ok, all, stderr) = fetch_bh(&["--max", "25", "--all", "--format", "jsonl"]);
    assert!(ok, "{stderr}");
    assert_eq!(ids_of(&all), paged);
    assert_eq!(paged.len(), 60, "every review of the fixture");
    let distinct: std::collections::BTreeSet<_> = paged.iter().collect();
    assert_eq!(distinct.len(), 60);
    assert!(stderr.contains("Fetched 25 reviews"), "{stderr}");

    // Typed flags: a filter given by its own flag, the sort by its own.
    let (ok, out, stderr) = fetch_bh(&["--filter-by", "5", "--sort-type", "recency"]);
    assert!(ok, "{stderr}");
    let body: Value = serde_json::from_slice(&out).unwrap();
    let reviews = body["all_reviews"].as_array().unwrap();
    assert!(!reviews.is_empty() && reviews.iter().all(|r| r["review_rating"] == 5.0));
    let (ok, _, stderr) = fetch_bh(&["--sort-type", "sideways"]);
    assert!(!ok);
    assert!(
        stderr.contains("sort_type") && stderr.contains("relevance"),
        "{stderr}"
    );
}

#[test]
fn fetch_on_a_processor_lists_the_sources_by_name_and_route() {
    let out = gleaner()
        .args(["fetch", "review-chunk", "x"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("review-chunk is a processor (POST /features/review-chunk)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("customer-feedback-hub (POST /customer-feedback-hub/reviews)"),
        "{stderr}"
    );
    assert!(!stderr.contains("features, features"), "{stderr}");
}
