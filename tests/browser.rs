//! The API reference page, `/docs`, in a real browser: headless Chromium opens
//! it on a real server (every staged plugin, replayed fixtures) and every route
//! the server serves, and no other, must appear in the rendered page with its
//! method; a deep link opens one operation with its request fields. The
//! rendered DOM and a screenshot go to `target/docs/`.
//!
//! The browser test needs Chromium, so it is `#[ignore]`d: `make test`
//! installs nothing and lists it as ignored, and `make test-browser` installs
//! Chromium and runs it; run without Chromium, it fails saying what to
//! install. `GLEANER_CHROMIUM` names the binary if it is not `chromium` on the
//! PATH.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use scraper::{Html, Selector};

const ADMIN_KEY: &str = "browser-test-admin-key";

/// The routes the server serves besides its plugins' (see `host/src/api/mod.rs`
/// and `host/src/api/admin.rs`).
const FIXED_ROUTES: [(&str, &str); 24] = [
    ("post", "/mcp"),
    ("get", "/healthz"),
    ("get", "/openapi.json"),
    ("get", "/sources"),
    ("get", "/docs"),
    ("get", "/metrics"),
    ("get", "/receipts/public-key"),
    ("get", "/admin/plugins"),
    ("put", "/admin/plugins/{name}"),
    ("delete", "/admin/plugins/{name}"),
    ("post", "/admin/reload"),
    ("post", "/jobs"),
    ("get", "/jobs"),
    ("get", "/jobs/{id}"),
    ("delete", "/jobs/{id}"),
    ("get", "/jobs/{id}/reviews"),
    ("post", "/jobs/{id}/links"),
    ("get", "/jobs/{id}/reviews.csv"),
    ("post", "/schedules"),
    ("get", "/schedules"),
    ("get", "/schedules/{id}"),
    ("delete", "/schedules/{id}"),
    ("post", "/schedules/{id}/run"),
    ("get", "/schedules/{id}/changes"),
];

/// The page is public even when API keys are required: it holds no data, and
/// the document it loads is guarded on its own.
#[tokio::test]
async fn the_page_is_served_without_a_key_while_routes_need_one() {
    let s = common::start(&["review-chunk"], |c| c.api_keys = vec!["k-docs".into()]).await;
    let r = s.client.get(s.url("/docs")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let html = r.text().await.unwrap();
    assert!(html.contains("docs/swagger-ui-bundle.js"), "{html}");
    let r = s
        .client
        .get(s.url("/docs/swagger-ui-bundle.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.bytes().await.unwrap().len() > 100_000);
    let (status, _) = s
        .post(
            "/features/review-chunk",
            serde_json::json!({"review_text": "Fine."}),
        )
        .await;
    assert_eq!(status, 401);
}

#[tokio::test]
#[ignore = "needs chromium: make test-browser"]
async fn chromium_renders_every_served_route() {
    let chromium = chromium().unwrap_or_else(|| {
        panic!(
            "chromium is not installed: run make test-browser, which installs Debian's chromium \
             (or set GLEANER_CHROMIUM to its path)"
        )
    });
    let plugins = staged_plugins();
    let names: Vec<&str> = plugins.iter().map(String::as_str).collect();
    let s = common::start(&names, |c| c.admin_keys = vec![ADMIN_KEY.into()]).await;

    let served = served_routes(&s).await;
    assert!(
        served.len() >= plugins.len() + FIXED_ROUTES.len(),
        "every staged plugin serves: {served:?}"
    );
    let out = common::root().join("target/docs");
    std::fs::create_dir_all(&out).unwrap();

    let dom = dump_dom(&chromium, &s.url("/docs")).await;
    std::fs::write(out.join("docs.html"), &dom).unwrap();
    let page = Html::parse_document(&dom);
    let rendered = rendered_operations(&page);
    let missing: Vec<_> = served.difference(&rendered).collect();
    assert!(
        missing.is_empty(),
        "routes the server serves but /docs does not show: {missing:?} (shown: {rendered:?})"
    );
    let stale: Vec<_> = rendered.difference(&served).collect();
    assert!(
        stale.is_empty(),
        "routes /docs shows but the server does not serve: {stale:?}"
    );
    let document = s.get_json("/openapi.json").await;
    let title = document["info"]["title"].as_str().unwrap();
    assert!(
        text_of(&page, ".info .title").contains(title),
        "the page shows the document's title {title:?}"
    );
    assert!(
        text_of(&page, ".swagger-ui .errors-wrapper").is_empty(),
        "the renderer reports errors: {}",
        text_of(&page, ".swagger-ui .errors-wrapper")
    );
    screenshot(&chromium, &s.url("/docs"), &out.join("docs.png"), 2400).await;

    // A deep link opens one operation: its request body shows the source's fields.
    let operation = &document["paths"]["/customer-feedback-hub/reviews"]["post"];
    // Swagger UI links an operation as #/<tag>/<operationId>, spaces escaped.
    let tag = operation["tags"][0]
        .as_str()
        .unwrap_or("default")
        .replace(' ', "%20");
    let link = match operation["operationId"].as_str() {
        Some(id) => format!("/docs#/{tag}/{id}"),
        None => format!("/docs#/{tag}/post_customer_feedback_hub_reviews"),
    };
    let dom = dump_dom(&chromium, &s.url(&link)).await;
    screenshot(
        &chromium,
        &s.url(&link),
        &out.join("docs-operation.png"),
        2400,
    )
    .await;
    let page = Html::parse_document(&dom);
    let opened = text_of(&page, ".opblock.is-open");
    // The request body shows the manifest's example (a recorded query), with
    // its schema one tab away; the 200 body shows the review list and the
    // continuation.
    let example = operation["requestBody"]["content"]["application/json"]["example"]["query"]
        .as_str()
        .expect("the operation has an example query");
    for shown in [
        "Request body",
        "Example Value",
        "Schema",
        "query",
        example,
        "all_reviews",
        "next_page",
    ] {
        assert!(
            opened.contains(shown),
            "{link} shows the operation with {shown}: {opened}"
        );
    }
}

/// The staged plugins' names (`target/plugins/*.toml`).
fn staged_plugins() -> Vec<String> {
    let dir = common::root().join("target/plugins");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}; run `make plugins`", dir.display()))
        .filter_map(|e| {
            let path = e.ok()?.path();
            if path.extension()? != "toml" {
                return None;
            }
            path.file_stem()?.to_str().map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no plugin staged; run `make plugins`");
    names
}

/// Every (method, route) the server serves: its plugins' routes, as the admin
/// API lists them, and the fixed routes.
async fn served_routes(s: &common::Server) -> BTreeSet<(String, String)> {
    let list = s.admin_list(ADMIN_KEY).await;
    let mut routes: BTreeSet<(String, String)> = list["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"] == "active")
        .map(|p| ("post".to_owned(), p["route"].as_str().unwrap().to_owned()))
        .collect();
    routes.extend(
        FIXED_ROUTES
            .iter()
            .map(|(m, r)| ((*m).to_owned(), (*r).to_owned())),
    );
    routes
}

/// The (method, path) of every operation Swagger UI rendered.
fn rendered_operations(page: &Html) -> BTreeSet<(String, String)> {
    let block = Selector::parse(".opblock").unwrap();
    let method = Selector::parse(".opblock-summary-method").unwrap();
    let path = Selector::parse(".opblock-summary-path").unwrap();
    page.select(&block)
        .filter_map(|b| {
            let m = b.select(&method).next()?.text().collect::<String>();
            let p = b.select(&path).next()?.value().attr("data-path")?;
            Some((m.trim().to_ascii_lowercase(), p.to_owned()))
        })
        .collect()
}

/// The text of every element matching `selector`, joined.
fn text_of(page: &Html, selector: &str) -> String {
    let selector = Selector::parse(selector).unwrap();
    page.select(&selector)
        .flat_map(|e| e.text())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The Chromium binary: `GLEANER_CHROMIUM`, else `chromium` or `chromium-browser` on the PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("GLEANER_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|p| p.is_file())
}

/// Runs headless Chromium on `url` with `extra` arguments; returns its stdout.
/// A fresh profile, and no background traffic: the page is all it loads.
async fn run_chromium(chromium: &Path, url: &str, extra: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(chromium);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--virtual-time-budget=15000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(120), command.output())
        .await
        .unwrap_or_else(|_| panic!("Chromium did not finish on {url} within 120 s"))
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", chromium.display()));
    assert!(
        output.status.success(),
        "Chromium failed on {url}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The page's DOM after its scripts ran.
async fn dump_dom(chromium: &Path, url: &str) -> String {
    let dom = run_chromium(chromium, url, &["--dump-dom".into()]).await;
    assert!(dom.contains("<html"), "Chromium printed no DOM for {url}");
    dom
}

/// A PNG of the page, 1280 pixels wide and `height` tall.
async fn screenshot(chromium: &Path, url: &str, to: &Path, height: u32) {
    let _ = std::fs::remove_file(to);
    run_chromium(
        chromium,
        url,
        &[
            format!("--screenshot={}", to.display()),
            format!("--window-size=1280,{height}"),
        ],
    )
    .await;
    let png = std::fs::read(to).unwrap_or_else(|e| panic!("no screenshot {}: {e}", to.display()));
    assert!(png.starts_with(b"\x89PNG"), "{} is not a PNG", to.display());
}
