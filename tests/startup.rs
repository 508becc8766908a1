//! Start-up: a precompiled artifact loads without compiling; a tampered artifact,
//! or one for another engine configuration, never loads (the component is
//! compiled instead); admin uploads never load one; and a plugin that must
//! compile holds up no other: its route answers 503 while /healthz lists it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gleaner::config::Config;
use gleaner::runtime::{artifact, engine, CompileHook, EngineKey};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const CHUNK: &str = "/features/review-chunk";
const ENHANCE: &str = "/features/review-enhancement";
const ADMIN_KEY: &str = "adm-startup";

/// Runs `gleaner precompile DIR`; returns its stdout.
fn precompile(dir: &Path) -> String {
    let out = Command::new(crate::common::server_binary())
        .current_dir(common::root())
        .env_remove("GLEANER_CONFIG")
        .arg("precompile")
        .arg(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The one artifact staged beside plugin `name`'s component.
fn staged_artifact(dir: &Path, name: &str) -> PathBuf {
    let staged = artifact::staged_for(&dir.join(format!("{name}.wasm")));
    assert_eq!(staged.len(), 1, "{staged:?}");
    staged[0].path.clone()
}

/// A config with its own empty compile cache (so a compile shows there), the
/// admin API on, and a hook that counts compiles.
fn config(dir: &tempfile::TempDir) -> (Config, tempfile::TempDir, Arc<AtomicUsize>) {
    let cache = tempfile::tempdir().unwrap();
    let compiles = Arc::new(AtomicUsize::new(0));
    let counter = compiles.clone();
    let mut config = common::config(dir);
    config.cache_dir = Some(cache.path().to_owned());
    config.watch = false;
    config.admin_keys = vec![ADMIN_KEY.into()];
    config.compile_hook = Some(CompileHook::new(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    }));
    (config, cache, compiles)
}

/// The admin API's status of plugin `name`.
async fn status(s: &common::Server, name: &str) -> Value {
    let list = s.admin_list(ADMIN_KEY).await;
    list["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("{name} not listed: {list}"))
}

async fn chunk(s: &common::Server) -> u16 {
    s.post(CHUNK, json!({"review_text": "Fine. Really."}))
        .await
        .0
}

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

#[tokio::test]
async fn a_precompiled_artifact_loads_without_compiling() {
    let dir = common::plugin_dir(&["review-chunk"]);
    let first = precompile(dir.path());
    assert!(first.contains("compiled   review-chunk.wasm"), "{first}");
    let again = precompile(dir.path());
    assert!(again.contains("up to date review-chunk.wasm"), "{again}");
    staged_artifact(dir.path(), "review-chunk");

    let (config, cache, compiles) = config(&dir);
    let s = common::start_with(dir, config).await;
    let plugin = status(&s, "review-chunk").await;
    assert_eq!(plugin["code"], "artifact", "{plugin}");
    assert_eq!(plugin["artifact_note"], Value::Null, "{plugin}");
    assert_eq!(compiles.load(Ordering::SeqCst), 0, "nothing was compiled");
    assert_eq!(entries(cache.path()), 0, "nor cached");
    assert_eq!(chunk(&s).await, 200);
}

#[tokio::test]
async fn a_tampered_artifact_is_refused_and_the_component_compiled() {
    let dir = common::plugin_dir(&["review-chunk"]);
    precompile(dir.path());
    let staged = staged_artifact(dir.path(), "review-chunk");
    let mut bytes = std::fs::read(&staged).unwrap();
    // A byte of the code (the header is at the end).
    let at = bytes.len() / 2;
    bytes[at] ^= 0x5a;
    std::fs::write(&staged, bytes).unwrap();

    let (config, cache, compiles) = config(&dir);
    let s = common::start_with(dir, config).await;
    let plugin = status(&s, "review-chunk").await;
    assert_eq!(plugin["code"], "compiled", "{plugin}");
    let note = plugin["artifact_note"].as_str().unwrap_or_default();
    assert!(note.contains("altered or truncated"), "{plugin}");
    assert_eq!(compiles.load(Ordering::SeqCst), 1);
    assert_eq!(entries(cache.path()), 1, "the compiled code is cached");
    assert_eq!(chunk(&s).await, 200);
}

#[tokio::test]
async fn an_artifact_for_another_engine_configuration_is_ignored() {
    let bytes = std::fs::read(common::component("review-chunk")).unwrap();
    let sha = hex::encode(Sha256::digest(&bytes));
    let mut other = engine::config(false);
    other.epoch_interruption(false);
    let other = wasmtime::Engine::new(&other).unwrap();
    let other_key = EngineKey::of(&other);
    let ours = EngineKey::of(&wasmtime::Engine::new(&engine::config(false)).unwrap());
    assert_ne!(other_key, ours);
    let code = other.precompile_component(&bytes).unwrap();

    // Staged under the other engine's name, as its `gleaner precompile` does;
    // renamed to this engine's name; and with a header claiming this engine.
    let cases = [
        (&other_key, &other_key, "other engine configurations"),
        (&ours, &other_key, "another engine configuration"),
        (&ours, &ours, "wasmtime refused"),
    ];
    for (name_key, header_key, why) in cases {
        let dir = common::plugin_dir(&["review-chunk"]);
        let component = dir.path().join("review-chunk.wasm");
        let path = artifact::artifact_path(&component, &sha, name_key);
        artifact::write(&path, "review-chunk.wasm", &sha, header_key, &code).unwrap();
        let (config, _cache, compiles) = config(&dir);
        let s = common::start_with(dir, config).await;
        let plugin = status(&s, "review-chunk").await;
        assert_eq!(plugin["code"], "compiled", "{why}: {plugin}");
        let note = plugin["artifact_note"].as_str().unwrap_or_default();
        assert!(note.contains(why), "{why}: {plugin}");
        assert_eq!(compiles.load(Ordering::SeqCst), 1, "{why}");
        assert_eq!(chunk(&s).await, 200, "{why}");
    }
}

#[tokio::test]
async fn admin_uploads_never_load_an_artifact() {
    use base64::Engine;
    let dir = common::plugin_dir(&["review-chunk"]);
    precompile(dir.path());
    let manifest = std::fs::read_to_string(dir.path().join("review-chunk.toml")).unwrap();
    let component = std::fs::read(dir.path().join("review-chunk.wasm")).unwrap();
    let (config, _cache, compiles) = config(&dir);
    let s = common::start_with(dir, config).await;
    assert_eq!(status(&s, "review-chunk").await["code"], "artifact");

    // The same component, uploaded: a valid artifact for it is staged in the
    // plugin directory, yet the upload is compiled from the component alone.
    let upload = json!({
        "manifest": manifest,
        "component": base64::engine::general_purpose::STANDARD.encode(&component),
    });
    let r = s
        .client
        .put(s.url("/admin/plugins/review-chunk"))
        .header("x-api-key", ADMIN_KEY)
        .json(&upload)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let plugin = status(&s, "review-chunk").await;
    assert_eq!(plugin["code"], "compiled", "{plugin}");
    assert_eq!(compiles.load(Ordering::SeqCst), 1);
    assert_eq!(chunk(&s).await, 200);
}

/// Serves an app started with [`gleaner::App::start`] (not waiting for compiles).
async fn serve(app: gleaner::App) -> (String, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        app.serve(listener, async {
            let _ = rx.await;
        })
        .await
        .unwrap();
    });
    (base, tx)
}

async fn health(client: &reqwest::Client, base: &str) -> Value {
    client
        .get(format!("{base}/healthz"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_that_compiles_holds_up_no_other() {
    let dir = common::plugin_dir(&["review-chunk"]);
    precompile(dir.path());
    // review-enhancement comes without an artifact: it must compile.
    let staged = common::root().join("target/plugins");
    for file in ["review-enhancement.toml", "review-enhancement.wasm"] {
        std::fs::copy(staged.join(file), dir.path().join(file)).unwrap();
    }
    // A plugin whose component is missing fails at once.
    std::fs::write(
        dir.path().join("broken.toml"),
        "name = \"broken\"\nkind = \"processor\"\nroute = \"/features/broken\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    let (mut config, _cache, _) = config(&dir);
    // The compile of review-enhancement waits until the test lets it go.
    let (release, gate) = std::sync::mpsc::channel::<()>();
    let gate = Mutex::new(gate);
    config.compile_hook = Some(CompileHook::new(move |plugin| {
        if plugin == "review-enhancement" {
            let _ = gate.lock().unwrap().recv();
        }
    }));

    let app = gleaner::App::start(config).await.unwrap();
    let registry = app.state.registry.clone();
    let (base, _stop) = serve(app).await;
    let client = reqwest::Client::new();

    let h = health(&client, &base).await;
    assert_eq!(h["status"], "loading", "{h}");
    assert_eq!(h["plugins"], 1, "{h}");
    assert_eq!(h["loading"], json!(["review-enhancement"]), "{h}");
    assert_eq!(h["failed"], json!(["broken"]), "{h}");

    let r = client
        .post(format!("{base}{CHUNK}"))
        .json(&json!({"review_text": "Fine. Really."}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "a ready route answers meanwhile");

    let r = client
        .post(format!("{base}{ENHANCE}"))
        .json(&json!({"review_id": "r1", "review_text": "i recieved great support"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 503);
    assert!(r.headers().contains_key("retry-after"));
    let body: Value = r.json().await.unwrap();
    let error = body["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("review-enhancement") && error.contains("still loading"),
        "{body}"
    );

    let r = client
        .post(format!("{base}/features/none-such"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404, "a path no plugin claims is still 404");

    release.send(()).unwrap();
    // A guard against hanging, not a measurement.
    tokio::time::timeout(Duration::from_secs(300), registry.wait_ready())
        .await
        .expect("review-enhancement finishes loading");
    let h = health(&client, &base).await;
    assert_eq!(h["status"], "ok", "{h}");
    assert_eq!(h["plugins"], 2, "{h}");
    assert_eq!(h["loading"], json!([]), "{h}");
    assert_eq!(h["failed"], json!(["broken"]), "{h}");
    let r = client
        .post(format!("{base}{ENHANCE}"))
        .json(&json!({"review_id": "r1", "review_text": "i recieved great support"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}
