//! A plugin that traps, overflows its stack, loops forever, bombs memory or
//! floods host calls fails only its own request; the server keeps serving.
//! Plus the version check and the on-disk compile cache.

use crate::common;

use serde_json::json;

const MISBEHAVE: &str = "/test/misbehave";

async fn still_serving(s: &common::Server) {
    let (status, body) = s.post(MISBEHAVE, json!({"mode": "ok"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ok"], true);
}

#[tokio::test]
async fn trap_loop_memory_and_host_data_are_contained() {
    let s = common::start(&["test-misbehave", "review-chunk"], |_| {}).await;
    for (mode, status, needle) in [
        ("trap", 500, "plugin test-misbehave failed"),
        // Staged without a console (gleaner-trim), a print is a trap.
        ("print", 500, "plugin test-misbehave failed"),
        // Its stack runs out of linear memory: a trap, not a write into its data.
        ("stack", 500, "out of bounds memory access"),
        ("loop", 504, "did not finish within"),
        ("memory", 500, "memory"),
        ("host-data", 500, "host calls"),
    ] {
        let (got, body) = s.post(MISBEHAVE, json!({"mode": mode})).await;
        assert_eq!(got, status, "{mode}: {body}");
        let e = body["error"].as_str().unwrap();
        assert!(e.contains(needle), "{mode}: {e}");
        still_serving(&s).await;
    }
    let (status, _) = s
        .post(
            "/features/review-chunk",
            json!({"review_text": "Still fine."}),
        )
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn concurrent_failures_do_not_affect_healthy_requests() {
    let s = common::start(&["test-misbehave"], |_| {}).await;
    let bad = (0..4).map(|_| s.post(MISBEHAVE, json!({"mode": "trap"})));
    let good = (0..8).map(|_| s.post(MISBEHAVE, json!({"mode": "ok"})));
    let (bad, good) = tokio::join!(
        futures_util::future::join_all(bad),
        futures_util::future::join_all(good)
    );
    assert!(bad.iter().all(|(s, _)| *s == 500));
    assert!(good.iter().all(|(s, _)| *s == 200));
}

fn with_package_version(wasm: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut out = wasm.to_vec();
    let mut i = 0;
    let mut replaced = 0;
    while i + from.len() <= out.len() {
        if &out[i..i + from.len()] == from {
            out[i..i + from.len()].copy_from_slice(to);
            replaced += 1;
            i += from.len();
        } else {
            i += 1;
        }
    }
    assert!(replaced > 0);
    out
}

#[tokio::test]
async fn incompatible_package_versions_and_wrong_kinds_are_refused() {
    // A newer package than the host's, and the previous one (0.3.0, whose
    // reviews lack the fields of the record's version 2): each is refused at
    // load, naming its version and what to do.
    for (newer, older) in [("0.5.0", "0.4.0"), ("0.3.0", "0.4.0")] {
        let dir = common::plugin_dir(&["review-chunk"]);
        let wasm_path = dir.path().join("review-chunk.wasm");
        let wasm = std::fs::read(&wasm_path).unwrap();
        let from = |i: &str| format!("{i}@{older}").into_bytes();
        let to = |i: &str| format!("{i}@{newer}").into_bytes();
        let wasm = with_package_version(&wasm, &from("plugin/types"), &to("plugin/types"));
        let wasm = with_package_version(&wasm, &from("processor-plugin"), &to("processor-plugin"));
        std::fs::write(&wasm_path, wasm).unwrap();
        let app = gleaner::App::build(common::config(&dir)).await.unwrap();
        let failures = app.state.registry.failures();
        assert_eq!(failures.len(), 1);
        let e = &failures[0].1;
        assert!(
            e.contains(&format!("built against gleaner:plugin@{newer}"))
                && e.contains("speaks gleaner:plugin@0.4.0")
                && e.contains("rebuild"),
            "{e}"
        );
        assert!(app.state.registry.get("/features/review-chunk").is_none());
    }

    let dir = common::plugin_dir(&["review-chunk"]);
    let manifest = dir.path().join("review-chunk.toml");
    let as_source = "name = \"review-chunk\"\nkind = \"source\"\nroute = \"/features/review-chunk\"\nversion = \"0.1.0\"\n[source]\ncontinuation = \"none\"\n";
    std::fs::write(&manifest, as_source).unwrap();
    let app = gleaner::App::build(common::config(&dir)).await.unwrap();
    let failures = app.state.registry.failures();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0]
            .1
            .contains("must export gleaner:plugin/source-plugin"),
        "{}",
        failures[0].1
    );
}

#[tokio::test]
async fn compiled_components_are_cached_on_disk() {
    let dir = common::plugin_dir(&["review-chunk"]);
    let cache = tempfile::tempdir().unwrap();
    let mut config = common::config(&dir);
    config.cache_dir = Some(cache.path().to_owned());
    let first = gleaner::App::build(config.clone()).await.unwrap();
    let plugin = first.state.registry.get("/features/review-chunk").unwrap();
    assert!(!plugin.from_cache);
    let second = gleaner::App::build(config).await.unwrap();
    let plugin = second.state.registry.get("/features/review-chunk").unwrap();
    assert!(plugin.from_cache);
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 1);
}
