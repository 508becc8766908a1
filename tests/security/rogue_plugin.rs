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
