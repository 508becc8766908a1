//! Pre-initialisation: a plugin's `gleaner-prepare` runs once before its
//! component is compiled, and every call starts with what it built, though no
//! call runs it.

use crate::common;

use serde_json::json;

/// An engine to prepare components with.
fn engine() -> wasmtime::Engine {
    wasmtime::Engine::new(&gleaner::runtime::engine::config(false)).unwrap()
}

/// The staged component of test plugin `name`.
fn component(name: &str) -> Vec<u8> {
    std::fs::read(common::component(name)).unwrap()
}

/// One page of test source `name` from `server`, as the answer's text.
async fn page(server: &common::Server, name: &str) -> String {
    let (status, body) = server
        .post(
            &format!("/{name}/reviews"),
            json!({"query": "q", "reviews_to_fetch": 1}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body.to_string()
}

#[tokio::test]
async fn every_call_of_a_prepared_source_starts_with_what_it_built() {
    // The test plugin directory holds the component alone, so the server
    // compiles it at load: the path an uploaded or hot-swapped plugin takes.
    let server = common::start(&["test-prepared-source"], |_| {}).await;
    for call in 0..2 {
        let body = page(&server, "test-prepared-source").await;
        assert!(
            body.contains("prepared: true; selector parsed: true; table: 3"),
            "call {call}: {body}"
        );
    }
}

#[test]
fn only_a_component_that_exports_gleaner_prepare_is_prepared() {
    let engine = engine();
    let prepared = gleaner::runtime::prepare::prepared(&engine, &component("test-prepared-source"))
        .unwrap()
        .expect("it exports gleaner-prepare");
    assert_ne!(prepared, component("test-prepared-source"));
    assert!(
        gleaner::runtime::prepare::prepared(&engine, &component("test-session-source"))
            .unwrap()
            .is_none()
    );
}

#[test]
fn processors_and_sources_that_export_gleaner_prepare_are_prepared() {
    // Processors built for world `prepared-processor` and a source for
    // `prepared-source`; each prepares its HTML parser (and the source its
    // selectors), or its lexicons and VADER's hash maps (review-insights).
    for name in ["domain-to-asset", "theme-market", "review-insights"] {
        assert!(
            gleaner::runtime::prepare::prepared(&engine(), &component(name))
                .unwrap()
                .is_some(),
            "{name} exports gleaner-prepare"
        );
    }
}

#[test]
fn each_preparation_seeds_the_hash_maps_anew() {
    // The one import preparation answers is the hash maps' seed; it is drawn
    // for each preparation, so two compiles of the same component differ.
    let engine = engine();
    let bytes = component("test-prepared-source");
    let prepare = || {
        gleaner::runtime::prepare::prepared(&engine, &bytes)
            .unwrap()
            .expect("it exports gleaner-prepare")
    };
    assert_ne!(prepare(), prepare());
}

#[tokio::test]
async fn a_preparation_that_calls_the_host_leaves_the_plugin_unprepared_but_serving() {
    let error = gleaner::runtime::prepare::prepared(&engine(), &component("test-prepare-fails"))
        .unwrap_err();
    assert!(error.contains("gleaner-prepare failed"), "{error}");

    let server = common::start(&["test-prepare-fails"], |_| {}).await;
    let body = page(&server, "test-prepare-fails").await;
    assert!(
        body.contains("prepared: false; selector parsed: false; table: 0"),
        "{body}"
    );
}
