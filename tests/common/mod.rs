//! Test harness: starts the real server on a random loopback port with the built
//! plugins, and talks HTTP to it.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use gleaner::config::Config;
use gleaner::App;
use serde_json::Value;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// The server binary these tests start as a process: the one `make host` (and
/// so `make test`) builds in the same target directory and profile as this
/// test binary (`<target>/<profile>/deps/tests-…` → `<target>/<profile>/gleaner`).
/// Like the staged plugins, it is built before the tests run, never by them.
pub fn server_binary() -> PathBuf {
    let test_binary = std::env::current_exe().expect("the test binary knows its path");
    let binary = test_binary
        .parent()
        .and_then(Path::parent)
        .expect("the test binary lies in <target>/<profile>/deps")
        .join("gleaner");
    assert!(
        binary.is_file(),
        "{} is missing: build the server first (`make host`, or `make test`, which builds it)",
        binary.display()
    );
    binary
}

/// The staged production plugins (`target/plugins/*.toml`), by name.
pub fn staged_plugins() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("target/plugins"))
        .expect("plugins are staged; run `make plugins`")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A directory with the built plugins (and the test plugins), copied so a test may change it.
pub fn plugin_dir(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        let mut found = false;
        for staged in ["target/plugins", "target/test-plugins"] {
            let manifest = root().join(staged).join(format!("{name}.toml"));
            if manifest.exists() {
                std::fs::copy(&manifest, dir.path().join(format!("{name}.toml"))).unwrap();
                let wasm = component(name);
                std::fs::copy(&wasm, dir.path().join(wasm.file_name().unwrap())).unwrap();
                found = true;
            }
        }
        assert!(
            found,
            "plugin {name} is not built; run `make plugins` first (make test does)"
        );
    }
    dir
}

/// The staged component of plugin `name`, where its manifest says it is.
pub fn component(name: &str) -> PathBuf {
    ["target/plugins", "target/test-plugins"]
        .iter()
        .map(|staged| root().join(staged).join(format!("{name}.toml")))
        .find(|m| m.exists())
        .map(|m| {
            gleaner::manifest::Manifest::load(&m)
                .unwrap()
                .component_path(&m)
        })
        .unwrap_or_else(|| panic!("plugin {name} is not built; run `make plugins`"))
}

/// Every HAR fixture: the plugins' own (`plugins/*/tests/*.har`) and the
/// website fixtures (`tests/fixtures/har`), as a `GLEANER_REPLAY` list.
pub fn har_dir() -> PathBuf {
    std::env::join_paths([root().join("plugins"), root().join("tests/fixtures/har")])
        .unwrap()
        .into()
}

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    pub client: reqwest::Client,
    _plugins: tempfile::TempDir,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

/// The token secret test servers sign continuation tokens with.
pub const TOKEN_SECRET: &str = "test-secret-of-at-least-thirty-two-bytes";

/// The key of [`TOKEN_SECRET`], to make tokens as a test server would.
pub fn token_key() -> gleaner::token::TokenKey {
    gleaner::token::TokenKey::from_secret(TOKEN_SECRET.as_bytes()).unwrap()
}

/// Builds a config for tests: the given plugins, replaying the HAR fixtures, a shared compile cache.
pub fn config(plugins: &tempfile::TempDir) -> Config {
    Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        plugin_dir: plugins.path().to_owned(),
        cache_dir: Some(root().join("target/gleaner-test-cache")),
        // Each server its own (jobs live there).
        data_dir: plugins.path().join(".gleaner-data"),
        token_secret: Some(TOKEN_SECRET.into()),
        replay: Some(har_dir()),
        // A review breaking a rule of the record fails the test.
        strict_records: true,
        ..Config::default()
    }
}

/// Starts a server with `plugins`, after `adjust` edits the config.
pub async fn start(plugins: &[&str], adjust: impl FnOnce(&mut Config)) -> Server {
    let dir = plugin_dir(plugins);
    let mut config = config(&dir);
    adjust(&mut config);
    start_with(dir, config).await
}

/// Starts a server with a prepared plugin directory and config.
pub async fn start_with(dir: tempfile::TempDir, config: Config) -> Server {
    let app = App::build(config).await.expect("app builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        app.serve(listener, async {
            let _ = rx.await;
        })
        .await
        .unwrap();
    });
    Server {
        addr,
        client: reqwest::Client::new(),
        _plugins: dir,
        shutdown: Some(tx),
    }
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// GETs `path` and parses the body as JSON, whatever the status.
    pub async fn get_json(&self, path: &str) -> Value {
        let response = self.client.get(self.url(path)).send().await.unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON ({status}): {text}"))
    }

    /// POSTs JSON and returns status, headers and parsed body.
    pub async fn post_with_headers(
        &self,
        path: &str,
        body: Value,
    ) -> (u16, reqwest::header::HeaderMap, Value) {
        let response = self
            .client
            .post(self.url(path))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        let value =
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON ({status}): {text}"));
        (status, headers, value)
    }

    /// POSTs JSON and returns status and parsed body.
    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let (status, _, value) = self.post_with_headers(path, body).await;
        (status, value)
    }
}

impl Server {
    /// `GET /admin/plugins` with an admin key: the plugin statuses.
    pub async fn admin_list(&self, key: &str) -> Value {
        self.client
            .get(self.url("/admin/plugins"))
            .header("x-api-key", key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Starts a graceful shutdown: requests in flight finish, new connections are refused.
    pub fn shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts a local upstream test server from an axum router; returns its address.
pub async fn upstream(router: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    addr
}

/// A site that answers every request at once and then sends its HTML page a
/// byte a second, `seconds` bytes in all: an upstream that holds whoever asks.
pub async fn dripping_site(seconds: u32) -> SocketAddr {
    let page = move || async move {
        let stream = futures_util::stream::unfold(0u32, move |n| async move {
            if n > 0 {
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
            (n < seconds).then(|| {
                (
                    Ok::<_, std::io::Error>(axum::body::Bytes::from_static(b" ")),
                    n + 1,
                )
            })
        });
        axum::response::Response::builder()
            .header("content-type", "text/html")
            .body(axum::body::Body::from_stream(stream))
            .unwrap()
    };
    upstream(axum::Router::new().fallback(axum::routing::get(page))).await
}

/// The `review_id` of each line of JSON Lines reviews.
pub fn jsonl_ids(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let review: Value = serde_json::from_str(l).unwrap();
            review["review_id"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// The `review_id`s of a review-fetch answer, in order.
pub fn ids(body: &Value) -> Vec<String> {
    body["all_reviews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["review_id"].as_str().unwrap().to_owned())
        .collect()
}

/// The 60 real Trustpilot review objects of the fixture, split into the three
/// newest-first pages of 20 the local Trustpilot-shaped servers serve.
pub fn trustpilot_pages() -> Vec<Vec<Value>> {
    let reviews: Vec<Value> =
        serde_json::from_str(
            &std::fs::read_to_string(root().join(
                "plugins/customer-feedback-hub/tests/samples/trustpilot-nextdata-reviews.json",
            ))
            .unwrap(),
        )
        .unwrap();
    vec![
        reviews[0..20].to_vec(),
        reviews[40..60].to_vec(),
        reviews[20..40].to_vec(),
    ]
}

/// A Trustpilot review page's HTML around one page of review objects.
pub fn trustpilot_html(reviews: &[Value], total_pages: u64) -> String {
    let data = serde_json::json!({"props": {"pageProps": {
        "businessUnit": {"displayName": "B&H Photo Video", "numberOfReviews": 60},
        "reviews": reviews,
        "filters": {"pagination": {"totalPages": total_pages}}
    }}});
    format!(r#"<html><script id="__NEXT_DATA__" type="application/json">{data}</script></html>"#)
}

/// Every `GLEANER_[A-Z0-9_]+` word of `text`.
pub fn variable_names(text: &str) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("GLEANER_") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(tail.len());
        names.insert(tail[..end].trim_end_matches('_').to_owned());
        rest = &tail[end..];
    }
    names
}

/// The variables the server reads: every one `Config::apply_env` asks for, and
/// those the binary reads itself (`"GLEANER_…"` literals in `host/src/main.rs`,
/// the command line's modules and the log settings' module: the config file's
/// path, the log settings, the jobs client's server and key).
pub fn names_the_server_reads() -> std::collections::BTreeSet<String> {
    let asked = std::sync::Mutex::new(std::collections::BTreeSet::new());
    Config::default()
        .apply_env(|name| {
            asked.lock().unwrap().insert(name.to_owned());
            None
        })
        .unwrap();
    let mut names = asked.into_inner().unwrap();
    let mut sources = vec![
        root().join("host/src/main.rs"),
        root().join("host/src/telemetry/logging.rs"),
    ];
    for entry in std::fs::read_dir(root().join("host/src/cli")).unwrap() {
        sources.push(entry.unwrap().path());
    }
    for source in sources {
        let text = std::fs::read_to_string(source).unwrap();
        for (at, _) in text.match_indices("\"GLEANER_") {
            let literal = text[at + 1..].split('"').next().unwrap_or_default();
            if variable_names(literal).iter().any(|name| name == literal) {
                names.insert(literal.to_owned());
            }
        }
    }
    names
}
