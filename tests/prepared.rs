//! Pre-initialisation: a plugin's `gleaner-prepare` runs once before its
//! component is compiled, and every call starts with what it built, though no
//! call runs it.

use crate::common;

use serde_json::json;

#[tokio::test]
async fn every_call_of_a_prepared_source_starts_with_what_it_built() {
    // The test plugin directory holds the component alone, so the server
    // compiles it at load: the path an uploaded or hot-swapped plugin takes.
    let server = common::start(&["test-prepared-source"], |_| {}).await;
    for call in 0..2 {
        let (status, body) = server
            .post(
                "/test-prepared-source/reviews",
                json!({"query": "q", "reviews_to_fetch": 1}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        assert!(
            body.to_string()
                .contains("prepared: true; selector parsed: true"),
            "call {call}: {body}"
        );
    }
}

#[test]
fn only_a_component_that_exports_gleaner_prepare_is_prepared() {
    let engine = wasmtime::Engine::new(&gleaner::runtime::engine::config(false)).unwrap();
    let read = |name: &str| std::fs::read(common::component(name)).unwrap();
    let prepared = gleaner::runtime::prepare::prepared(&engine, &read("test-prepared-source"))
        .unwrap()
        .expect("it exports gleaner-prepare");
    assert_ne!(prepared, read("test-prepared-source"));
    assert!(
        gleaner::runtime::prepare::prepared(&engine, &read("test-session-source"))
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn a_preparation_that_calls_the_host_leaves_the_plugin_unprepared_but_serving() {
    let engine = wasmtime::Engine::new(&gleaner::runtime::engine::config(false)).unwrap();
    let bytes = std::fs::read(common::component("test-prepare-fails")).unwrap();
    let error = gleaner::runtime::prepare::prepared(&engine, &bytes).unwrap_err();
    assert!(error.contains("gleaner-prepare failed"), "{error}");

    let server = common::start(&["test-prepare-fails"], |_| {}).await;
    let (status, body) = server
        .post(
            "/test-prepare-fails/reviews",
            json!({"query": "q", "reviews_to_fetch": 1}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.to_string()
            .contains("prepared: false; selector parsed: false"),
        "{body}"
    );
}
