//! Hot swap: the plugin directory is watched; new, changed and removed plugins are
//! picked up without a restart, broken ones never replace working ones, and a swap
//! under continuous load fails no request.

use crate::common;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub(crate) const SWAP: &str = "/test/swap";

pub(crate) fn staged(file: &str) -> Vec<u8> {
    std::fs::read(common::root().join("target/test-plugins").join(file))
        .unwrap_or_else(|_| panic!("{file} is not built; run `make plugins`"))
}

/// The documented atomic deploy: write under a temporary name, then rename.
fn deploy(dir: &Path, file: &str, bytes: &[u8]) {
    let tmp = dir.join(format!(".{file}.tmp"));
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, dir.join(file)).unwrap();
}

/// A plugin directory holding test-swap version `v` as `test-swap.toml`, with both components present.
pub(crate) fn swap_dir() -> tempfile::TempDir {
    let dir = common::plugin_dir(&[]);
    deploy(
        dir.path(),
        "test-swap-v1.wasm",
        &staged("test-swap-v1.wasm"),
    );
    deploy(
        dir.path(),
        "test-swap-v2.wasm",
        &staged("test-swap-v2.wasm"),
    );
    deploy(dir.path(), "test-swap.toml", &staged("test-swap-v1.toml"));
    dir
}

pub(crate) async fn served_version(s: &common::Server) -> (u16, Option<String>) {
    let r = s
        .client
        .post(s.url(SWAP))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let header = r
        .headers()
        .get("x-gleaner-plugin-version")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, header)
}

/// The version of test-swap that answers a request with the API key.
async fn keyed_version(s: &common::Server) -> String {
    let r = s
        .client
        .post(s.url(SWAP))
        .header("x-api-key", "api-1")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    r.headers()["x-gleaner-plugin-version"]
        .to_str()
        .unwrap()
        .to_owned()
}

async fn wait_for(s: &common::Server, want: Option<&str>, status: u16) -> Duration {
    let started = Instant::now();
    loop {
        let (got_status, got) = served_version(s).await;
        if got_status == status && got.as_deref() == want {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never saw {status} {want:?} (last {got_status} {got:?})"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn start(dir: tempfile::TempDir, admin: bool) -> common::Server {
    let mut config = common::config(&dir);
    config.watch = true;
    if admin {
        config.admin_keys = vec!["adm-1".into()];
        config.api_keys = vec!["api-1".into()];
    }
    common::start_with(dir, config).await
}

#[tokio::test]
async fn changed_broken_and_removed_plugins_are_handled_without_restart() {
    let dir = swap_dir();
    let path = dir.path().to_owned();
    let s = start(dir, false).await;
    assert_eq!(served_version(&s).await, (200, Some("1.0.0".into())));

    deploy(&path, "test-swap.toml", &staged("test-swap-v2.toml"));
    wait_for(&s, Some("2.0.0"), 200).await;

    // A broken component never replaces the working one.
    deploy(&path, "test-swap-v1.wasm", b"\0asm not really");
    deploy(&path, "test-swap.toml", &staged("test-swap-v1.toml"));
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(served_version(&s).await, (200, Some("2.0.0".into())));

    // A direct overwrite (no rename) is picked up once it is complete.
    std::fs::write(path.join("test-swap-v1.wasm"), staged("test-swap-v1.wasm")).unwrap();
    wait_for(&s, Some("1.0.0"), 200).await;

    // Removing the manifest removes the route; other plugins are unaffected.
    deploy(
        &path,
        "review-chunk.toml",
        &std::fs::read(common::root().join("target/plugins/review-chunk.toml")).unwrap(),
    );
    deploy(
        &path,
        "review-chunk.wasm",
        &std::fs::read(common::root().join("target/plugins/review-chunk.wasm")).unwrap(),
    );
    let chunk_ok = || async {
        s.client
            .post(s.url("/features/review-chunk"))
            .json(&json!({"review_text": "Fine."}))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    };
    let started = Instant::now();
    while chunk_ok().await != 200 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "review-chunk never appeared"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    std::fs::remove_file(path.join("test-swap.toml")).unwrap();
    wait_for(&s, None, 404).await;
    assert_eq!(chunk_ok().await, 200);
}

#[tokio::test]
async fn swapping_under_load_fails_no_request() {
    let dir = swap_dir();
    let path = dir.path().to_owned();
    let s = Arc::new(start(dir, false).await);
    let total = 2000;
    let sent = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::new(Mutex::new(Vec::<(Instant, String)>::new()));
    let done = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    for _ in 0..32 {
        let (s, sent, failures, seen, done) = (
            s.clone(),
            sent.clone(),
            failures.clone(),
            seen.clone(),
            done.clone(),
        );
        workers.push(tokio::spawn(async move {
            // At least `total` requests, and on until every swap has been observed.
            while sent.fetch_add(1, Ordering::SeqCst) < total || !done.load(Ordering::SeqCst) {
                let r = s.client.post(s.url(SWAP)).json(&json!({})).send().await;
                let r = match r {
                    Ok(r) => r,
                    Err(e) => {
                        failures.lock().unwrap().push(e.to_string());
                        continue;
                    }
                };
                let status = r.status().as_u16();
                let header = r
                    .headers()
                    .get("x-gleaner-plugin-version")
                    .map(|v| v.to_str().unwrap().to_owned());
                let body: Value = r.json().await.unwrap_or(Value::Null);
                let body_version = body["version"].as_str().map(str::to_owned);
                match header {
                    Some(version) if status == 200 && Some(&version) == body_version.as_ref() => {
                        seen.lock().unwrap().push((Instant::now(), version));
                    }
                    header => failures
                        .lock()
                        .unwrap()
                        .push(format!("{status} header {header:?} body {body_version:?}")),
                }
            }
        }));
    }
    let swapper = {
        let (done, seen) = (done.clone(), seen.clone());
        tokio::spawn(async move {
            let mut swaps = Vec::new();
            for round in 0..6 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let (next, version) = if round % 2 == 0 {
                    ("test-swap-v2.toml", "2.0.0")
                } else {
                    ("test-swap-v1.toml", "1.0.0")
                };
                let at = Instant::now();
                deploy(&path, "test-swap.toml", &staged(next));
                swaps.push((at, version));
                let observed = || {
                    seen.lock()
                        .unwrap()
                        .iter()
                        .any(|(t, v)| *t > at && v == version)
                };
                while !observed() {
                    assert!(
                        at.elapsed() < Duration::from_secs(20),
                        "version {version} never served"
                    );
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
            done.store(true, Ordering::SeqCst);
            swaps
        })
    };
    let swaps = swapper.await.unwrap();
    for w in workers {
        w.await.unwrap();
    }
    let failures = failures.lock().unwrap();
    assert!(
        failures.is_empty(),
        "{} failed: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    let seen = seen.lock().unwrap();
    assert!(seen.len() >= total, "{} requests", seen.len());
    let versions: std::collections::HashSet<&str> = seen.iter().map(|(_, v)| v.as_str()).collect();
    assert!(
        versions.contains("1.0.0") && versions.contains("2.0.0"),
        "both versions served: {versions:?}"
    );
    for (at, version) in &swaps {
        if let Some((first, _)) = seen.iter().find(|(t, v)| t > at && v == version) {
            println!(
                "swap to {version}: first response from it {} ms after the rename",
                first.duration_since(*at).as_millis()
            );
        }
    }
    println!(
        "{} requests, 32 concurrent, {} swaps, 0 failed",
        seen.len(),
        swaps.len()
    );
}

#[tokio::test]
async fn admin_api_lists_uploads_deletes_and_reloads() {
    let dir = swap_dir();
    let s = start(dir, true).await;
    let admin = |method: reqwest::Method, path: &str| {
        s.client
            .request(method, s.url(path))
            .header("x-api-key", "adm-1")
    };

    let r = s.client.get(s.url("/admin/plugins")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let r = s
        .client
        .get(s.url("/admin/plugins"))
        .header("x-api-key", "api-1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401, "the API key is not an admin key");

    let list = s.admin_list("adm-1").await;
    let entry = &list["plugins"][0];
    assert_eq!(entry["name"], "test-swap");
    assert_eq!(entry["version"], "1.0.0");
    assert_eq!(entry["route"], "/test/swap");
    assert_eq!(entry["kind"], "processor");
    assert_eq!(entry["status"], "active");
    assert_eq!(entry["sha256"].as_str().unwrap().len(), 64);
    assert!(entry["loaded_at"].is_string());

    use base64::Engine;
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let manifest = String::from_utf8(staged("test-swap-v2.toml")).unwrap();
    let upload = json!({"manifest": manifest, "component": b64(&staged("test-swap-v2.wasm"))});
    let r = admin(reqwest::Method::PUT, "/admin/plugins/test-swap")
        .json(&upload)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["plugin"]["version"], "2.0.0");
    assert_eq!(
        keyed_version(&s).await,
        "2.0.0",
        "serves at once after upload"
    );

    let bad = json!({"manifest": manifest, "component": b64(b"\0asm broken")});
    let r = admin(reqwest::Method::PUT, "/admin/plugins/test-swap")
        .json(&bad)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("test-swap"),
        "{body}"
    );
    assert_eq!(
        keyed_version(&s).await,
        "2.0.0",
        "a failed upload changes nothing"
    );

    let r = admin(reqwest::Method::PUT, "/admin/plugins/other-name")
        .json(&upload)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);

    let r = admin(reqwest::Method::POST, "/admin/reload")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);

    let r = admin(reqwest::Method::DELETE, "/admin/plugins/test-swap")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = s
        .client
        .post(s.url(SWAP))
        .header("x-api-key", "api-1")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let r = admin(reqwest::Method::DELETE, "/admin/plugins/test-swap")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

/// The plugin directory's files (hidden ones aside) with their bytes.
fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .filter(|(name, _)| !name.starts_with('.'))
        .map(|(name, p)| (name, std::fs::read(p).unwrap()))
        .collect();
    files.sort();
    files
}

fn names(files: &[(String, Vec<u8>)]) -> Vec<&str> {
    files.iter().map(|(n, _)| n.as_str()).collect()
}

#[tokio::test]
async fn a_refused_upload_leaves_the_plugin_directory_as_it_was() {
    let dir = swap_dir();
    let path = dir.path().to_owned();
    let s = start(dir, true).await;
    use base64::Engine;
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let put = |name: &'static str, manifest: String, component: Vec<u8>| {
        let request = s
            .client
            .put(s.url(&format!("/admin/plugins/{name}")))
            .header("x-api-key", "adm-1")
            .json(&json!({"manifest": manifest, "component": b64(&component)}));
        async move {
            let r = request.send().await.unwrap();
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap())
        }
    };
    let v2 = String::from_utf8(staged("test-swap-v2.toml")).unwrap();
    let before = files_of(&path);
    let cases: Vec<(&str, &'static str, String, Vec<u8>, &str)> = vec![
        (
            "a route another plugin serves",
            "test-other",
            v2.replace("name = \"test-swap\"", "name = \"test-other\""),
            staged("test-swap-v2.wasm"),
            "already served by plugin test-swap",
        ),
        (
            "bytes that are no component",
            "test-swap",
            v2.clone(),
            b"\0asm but not a component at all".to_vec(),
            "test-swap",
        ),
        (
            "a manifest that is not TOML",
            "test-swap",
            "name = \"test-swap\"\nkind = ".to_owned(),
            staged("test-swap-v2.wasm"),
            "line 2, column 8",
        ),
        (
            "a version the component does not report",
            "test-swap",
            v2.replace("version = \"2.0.0\"", "version = \"9.9.9\""),
            staged("test-swap-v2.wasm"),
            "9.9.9",
        ),
        (
            "a component of another world",
            "test-swap",
            v2.clone(),
            staged("test-session-source.wasm"),
            "kind = \"processor\"",
        ),
        (
            "a name the URL does not give",
            "test-other",
            v2.clone(),
            staged("test-swap-v2.wasm"),
            "upload to /admin/plugins/test-swap",
        ),
    ];
    for (what, name, manifest, component, says) in cases {
        let (status, body) = put(name, manifest, component).await;
        assert_eq!(status, 400, "{what}: {body}");
        let error = body["error"].as_str().unwrap();
        assert!(error.contains(says), "{what}: {error}");
        assert!(
            !error.contains('\n') && error.len() < 600,
            "{what}: one readable sentence, not {error:?}"
        );
        assert_eq!(
            files_of(&path),
            before,
            "{what}: the plugin directory is byte for byte as it was"
        );
        let health = s.get_json("/healthz").await;
        assert_eq!(health["failed_plugins"], 0, "{what}: {health}");
        assert_eq!(keyed_version(&s).await, "1.0.0", "{what}");
    }

    // A good upload supersedes the old component, which goes; a delete leaves nothing.
    let (status, body) = put("test-swap", v2, staged("test-swap-v2.wasm")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        names(&files_of(&path)),
        ["test-swap-v2.wasm", "test-swap.toml"]
    );
    let r = s
        .client
        .delete(s.url("/admin/plugins/test-swap"))
        .header("x-api-key", "adm-1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(files_of(&path).is_empty(), "{:?}", names(&files_of(&path)));
}
