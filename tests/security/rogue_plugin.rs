//! The host trusts no guest: a plugin that builds its reviews by hand, skipping
//! the SDK's checks, cannot get a broken review past the host.

use serde_json::json;

use super::common;

const ROUTE: &str = "/test-rogue-source/reviews";

#[tokio::test]
async fn broken_reviews_fail_as_plugin_faults() {
    let s = common::start(&["test-rogue-source"], |_| {}).await;
    let (status, body) = s.post(ROUTE, json!({"query": "good"})).await;
    assert_eq!(status, 200, "{body}");
    let review = &body["all_reviews"][0];
    assert_eq!(
        review["author_name"], "Padded Name",
        "the host trims fields"
    );
    for (case, needle) in [
        ("rating-99", "rating 99 is outside 0..=5"),
        ("date-yesterday", "not ISO 8601"),
        ("relative-url", "review_url"),
        ("extra-array", "extra-json must be a JSON object"),
        ("blank-id", "the id must be"),
        // The record's rules, refused as the tests run (`strict_records`).
        (
            "country-atlantis",
            "\"Atlantis\" is neither an ISO 3166-1 code",
        ),
        (
            "title-country",
            "author title \"Germany\" is a bare country",
        ),
        ("promoted-extra", "extra keeps \"verified_purchase\""),
    ] {
        let (status, body) = s.post(ROUTE, json!({"query": case})).await;
        assert_eq!(status, 500, "{case}: {body}");
        let error = body["error"].as_str().unwrap();
        assert!(
            error.contains("test-rogue-source") && error.contains(needle),
            "{case}: {error}"
        );
        assert!(
            body.get("all_reviews").is_none(),
            "{case}: nothing reaches the user"
        );
    }
}

/// In production (`strict_records` off) a review that breaks a rule of the
/// record is repaired, answered, and counted, never refused.
#[tokio::test]
async fn record_rules_are_repaired_and_counted_in_production() {
    let s = common::start(&["test-rogue-source"], |c| c.strict_records = false).await;
    let (status, body) = s.post(ROUTE, json!({"query": "title-country"})).await;
    assert_eq!(status, 200, "{body}");
    let review = &body["all_reviews"][0];
    assert_eq!(review["author_title"], serde_json::Value::Null);
    assert_eq!(review["author_country"], "DE");
    let (status, body) = s.post(ROUTE, json!({"query": "promoted-extra"})).await;
    assert_eq!(status, 200, "{body}");
    let review = &body["all_reviews"][0];
    assert_eq!(review["verified"], true);
    assert_eq!(review["extra"], json!({}));
    let metrics = crate::metrics::scrape(&s).await;
    for rule in ["title_is_country", "promoted_in_extra"] {
        assert!(
            metrics
                .lines()
                .any(|l| l.starts_with("gleaner_records_repaired_total")
                    && l.contains(&format!("rule=\"{rule}\""))
                    && l.contains("plugin=\"test-rogue-source\"")),
            "{rule} is counted"
        );
    }
}
