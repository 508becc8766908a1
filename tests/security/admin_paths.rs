//! Admin uploads cannot write outside the plugin directory, and a refused
//! upload leaves nothing behind.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};

use super::common;

const ADMIN_KEY: &str = "adm-paths";

fn listing(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn chunk_manifest() -> String {
    std::fs::read_to_string(common::root().join("target/plugins/review-chunk.toml")).unwrap()
}

fn chunk_component() -> String {
    let bytes = std::fs::read(common::root().join("target/plugins/review-chunk.wasm")).unwrap();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

async fn put(s: &common::Server, raw_name: &str, manifest: &str, component: &str) -> (u16, Value) {
    let r = s
        .client
        .put(format!("http://{}/admin/plugins/{raw_name}", s.addr))
        .header("x-api-key", ADMIN_KEY)
        .json(&json!({"manifest": manifest, "component": component}))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn traversal_forms_are_refused_before_touching_the_disk() {
    let dir = common::plugin_dir(&["review-chunk"]);
    let plugin_dir = dir.path().to_owned();
    let outside = tempfile::tempdir().unwrap();
    let mut config = common::config(&dir);
    config.admin_keys = vec![ADMIN_KEY.into()];
    config.watch = false;
    let s = common::start_with(dir, config).await;
    let before = listing(&plugin_dir);
    let parent = plugin_dir.parent().unwrap().to_owned();
    let component = chunk_component();
    let tag = format!("evil{}", std::process::id());

    let absolute = outside.path().join(format!("{tag}.wasm"));
    let with_component = |c: &str| {
        let toml = c
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\0', "\\u0000");
        chunk_manifest().replace(
            "version = \"0.1.0\"",
            &format!("version = \"0.1.0\"\ncomponent = \"{toml}\""),
        )
    };
    let cases: Vec<(String, String)> = vec![
        (
            "review-chunk".into(),
            with_component(absolute.to_str().unwrap()),
        ),
        (
            "review-chunk".into(),
            with_component(&format!("../{tag}.wasm")),
        ),
        (
            "review-chunk".into(),
            with_component(&format!("sub/../../{tag}.wasm")),
        ),
        (
            "review-chunk".into(),
            with_component(&format!("..\\{tag}.wasm")),
        ),
        (
            "review-chunk".into(),
            with_component(&format!("{tag}\u{0}.wasm")),
        ),
        (
            format!("..%2F{tag}"),
            chunk_manifest().replace("name = \"review-chunk\"", &format!("name = \"../{tag}\"")),
        ),
        (
            format!("%2E%2E%2F{tag}"),
            chunk_manifest().replace("name = \"review-chunk\"", &format!("name = \"../{tag}\"")),
        ),
        (
            format!("..%5C{tag}"),
            chunk_manifest().replace(
                "name = \"review-chunk\"",
                &format!("name = \"..\\\\{tag}\""),
            ),
        ),
        (format!("{tag}%00"), chunk_manifest()),
        (format!("%2Ftmp%2F{tag}"), chunk_manifest()),
        (".hidden".into(), chunk_manifest()),
    ];
    for (name, manifest) in &cases {
        let (status, body) = put(&s, name, manifest, &component).await;
        assert_eq!(status, 400, "{name}: {body}");
        let message = body["error"].as_str().unwrap_or_default();
        assert!(
            message.contains("plain file name") || message.contains("plugin name"),
            "{name}: the refusal says which rule: {message}"
        );
        assert_eq!(
            listing(&plugin_dir),
            before,
            "{name}: nothing written inside"
        );
        for stray in [
            parent.join(format!("{tag}.wasm")),
            parent.join(format!("{tag}.toml")),
            absolute.clone(),
        ] {
            assert!(!stray.exists(), "{name}: {} was written", stray.display());
        }
    }
    assert!(listing(outside.path()).is_empty());

    // A well-named upload that fails validation leaves nothing behind either.
    let (status, body) = put(&s, "review-chunk", &chunk_manifest(), "AGFzbQ==").await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(listing(&plugin_dir), before, "a refused upload is removed");

    // A good upload still works and lands inside the directory.
    let (status, body) = put(&s, "review-chunk", &chunk_manifest(), &component).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(listing(&plugin_dir), before);
}

#[tokio::test]
async fn the_watcher_refuses_manifests_pointing_outside() {
    let dir = common::plugin_dir(&["review-chunk"]);
    let plugin_dir = dir.path().to_owned();
    let mut config = common::config(&dir);
    config.admin_keys = vec![ADMIN_KEY.into()];
    config.watch = true;
    let s = common::start_with(dir, config).await;
    let outside = tempfile::tempdir().unwrap();
    std::fs::copy(
        common::root().join("target/plugins/review-chunk.wasm"),
        outside.path().join("loose.wasm"),
    )
    .unwrap();
    let manifest = chunk_manifest()
        .replace("name = \"review-chunk\"", "name = \"loose\"")
        .replace(
            "route = \"/features/review-chunk\"",
            "route = \"/features/loose\"",
        )
        .replace(
            "version = \"0.1.0\"",
            &format!(
                "version = \"0.1.0\"\ncomponent = {:?}",
                outside.path().join("loose.wasm").to_str().unwrap()
            ),
        );
    std::fs::write(plugin_dir.join("loose.toml"), manifest).unwrap();
    let started = std::time::Instant::now();
    loop {
        let list = s.admin_list(ADMIN_KEY).await;
        let loose = list["plugins"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["manifest"] == "loose.toml")
            .cloned();
        if let Some(loose) = loose {
            assert_eq!(loose["status"], "failed", "{loose}");
            assert!(loose["last_error"]
                .as_str()
                .unwrap()
                .contains("plain file name"));
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "never scanned");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, _) = s.post("/features/loose", json!({"review_text": "x"})).await;
    assert_eq!(status, 404, "the refused plugin serves nothing");
}

#[tokio::test]
async fn routes_the_server_answers_itself_are_refused() {
    let dir = common::plugin_dir(&["review-chunk"]);
    let plugin_dir = dir.path().to_owned();
    let mut config = common::config(&dir);
    config.admin_keys = vec![ADMIN_KEY.into()];
    config.watch = false;
    let s = common::start_with(dir, config).await;
    let before = listing(&plugin_dir);
    let component = chunk_component();
    let original = chunk_manifest();
    let route_line = original
        .lines()
        .find(|l| l.starts_with("route"))
        .unwrap()
        .to_owned();
    for route in [
        "/healthz",
        "/metrics",
        "/openapi.json",
        "/docs",
        "/docs/index.css",
        "/admin/plugins",
        "/jobs",
        "/jobs/abc",
    ] {
        let manifest = original
            .replace(&route_line, &format!("route = \"{route}\""))
            .replace("name = \"review-chunk\"", "name = \"hidden\"");
        let (status, body) = put(&s, "hidden", &manifest, &component).await;
        assert_eq!(status, 400, "{route}: {body}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(
            error.contains("is the server's own") && error.contains("Pick another route"),
            "{route}: {body}"
        );
    }
    assert_eq!(listing(&plugin_dir), before, "nothing was written");
    let health = s.get_json("/healthz").await;
    assert_eq!(health["status"], "ok", "{health}");
}
