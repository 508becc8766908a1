//! The headless browser capability against local pages only a real browser
//! can read, served on loopback under the name `shop.test`:
//! - `/dom/`: a script fetches `/api/dom-reviews` and inserts the reviews;
//! - `/cookie/`: a JavaScript challenge computes a cookie and reloads; the
//!   API `/api/reviews` answers a Cloudflare-style 403 without that cookie
//!   and 200 with it (20 pages);
//! - `/escape/`: a page that tries a `file:` URL, private addresses and a
//!   host outside the plugin's allowlist.
//!
//! Every page request the browser makes reaches the site through the host's
//! egress (the site counts them). The tests that drive a browser need
//! Debian's Chromium: they are `#[ignore]`d, so `make test` (which installs
//! nothing) lists them as ignored, and `make test-browser` installs Chromium
//! and runs them; run without Chromium, they fail saying what to install. The
//! "no browser" test needs no Chromium and always runs.

use crate::common;
use crate::security::process::Process;

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const PLUGIN: &str = "test-browser-source";
pub(crate) const ROUTE: &str = "/test-browser-source/reviews";
/// API pages behind the challenge.
const PAGES: u64 = 20;
/// Reviews per API page.
const PER_PAGE: u64 = 5;

mod site;
pub(crate) use site::site;

/// Fails the test, saying what to install, when Debian's Chromium is not here.
pub(crate) fn require_chromium() {
    if let Some(why) =
        gleaner::capabilities::browser::BrowserService::new(&Default::default()).unavailable()
    {
        panic!(
            "chromium is not installed: run make test-browser, which installs Debian's chromium ({why})"
        );
    }
}

/// A live server (no replay) whose plugin reaches `shop.test` at `base`.
pub(crate) async fn server(
    base: &str,
    adjust: impl FnOnce(&mut gleaner::config::Config),
) -> common::Server {
    let base = base.to_owned();
    common::start(&[PLUGIN, "review-chunk"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert(format!("{PLUGIN}:shop.test"), base);
        adjust(c);
    })
    .await
}

fn texts(body: &Value) -> Vec<(String, String)> {
    body["all_reviews"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["review_id"].as_str().unwrap_or_default().to_owned(),
                r["review_text"]
                    .as_str()
                    .unwrap_or_default()
                    .trim()
                    .to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
#[ignore = "needs chromium: make test-browser"]
async fn reviews_a_script_inserts_are_read_from_the_rendered_page() {
    require_chromium();
    let (seen, base) = site().await;
    let s = server(&base, |_| {}).await;
    let started = Instant::now();
    let (status, body) = s
        .post(ROUTE, json!({"query": "https://shop.test/dom/"}))
        .await;
    let elapsed = started.elapsed();
    assert_eq!(status, 200, "{body}");
    assert_eq!(common::ids(&body), ["d1", "d2", "d3"], "{body}");
    let extra = &body["extra_information"]["source"];
    let kept = extra["kept"].as_array().cloned().unwrap_or_default();
    assert_eq!(kept.len(), 1, "the script's API answer was kept: {body}");
    assert!(kept[0]["url"]
        .as_str()
        .unwrap()
        .ends_with("/api/dom-reviews"));
    assert_eq!(kept[0]["status"], 200);
    assert_eq!(seen.dom_pages.load(Ordering::SeqCst), 1);
    assert_eq!(
        seen.dom_api.load(Ordering::SeqCst),
        1,
        "the page's own fetch() went through the host to the site"
    );
    // The page presents the session's browser, client hints included.
    let (agent, hints) = seen.dom_api_client.lock().unwrap().clone().unwrap();
    if agent.contains("Firefox/") {
        assert_eq!(hints, None, "Firefox sends no client hints");
    } else {
        let version = agent
            .split("Chrome/")
            .nth(1)
            .unwrap()
            .split('.')
            .next()
            .unwrap();
        let hints = hints.expect("Chrome sends client hints");
        assert!(
            hints.contains(&format!("\"Google Chrome\";v=\"{version}\"")),
            "{agent} with {hints}"
        );
    }
    println!("one browser visit (Chromium started cold): {elapsed:?}");
}

#[tokio::test]
#[ignore = "needs chromium: make test-browser"]
async fn a_javascript_challenge_is_passed_once_then_every_api_page_is_plain_http() {
    require_chromium();
    let (seen, base) = site().await;
    let s = server(&base, |_| {}).await;
    // Chromium starts on the first visit; a visit warms it so the figure
    // below is a fetch's own.
    let (status, _) = s
        .post(ROUTE, json!({"query": "https://shop.test/dom/"}))
        .await;
    assert_eq!(status, 200);
    let started = Instant::now();
    let (status, body) = s
        .post(
            ROUTE,
            json!({"query": "https://shop.test/cookie/", "reviews_to_fetch": PAGES * PER_PAGE}),
        )
        .await;
    let elapsed = started.elapsed();
    assert_eq!(status, 200, "{body}");
    let ids = common::ids(&body);
    assert_eq!(ids.len() as u64, PAGES * PER_PAGE, "{body}");
    assert_eq!(ids[0], "p1-1");
    assert_eq!(ids.last().unwrap(), &format!("p{PAGES}-{PER_PAGE}"));
    assert_eq!(
        seen.api_refused.load(Ordering::SeqCst),
        1,
        "plain HTTP went first and met the challenge once"
    );
    assert_eq!(
        seen.challenges.load(Ordering::SeqCst),
        1,
        "one browser visit: the challenge page"
    );
    assert_eq!(
        seen.cleared_pages.load(Ordering::SeqCst),
        1,
        "the page's reload carried the cookie its script set"
    );
    assert_eq!(
        seen.api_served.load(Ordering::SeqCst) as u64,
        PAGES,
        "every API page after the visit went over plain HTTP with the browser's cookie"
    );
    println!("a fetch of one browser visit then {PAGES} API pages (Chromium warm): {elapsed:?}");
}

#[tokio::test]
#[ignore = "needs chromium: make test-browser"]
async fn a_page_s_requests_to_files_private_addresses_and_other_hosts_are_refused_and_logged() {
    require_chromium();
    let (seen, base) = site().await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let server = Process::start_logged(
        &[PLUGIN],
        &[
            (
                "GLEANER_UPSTREAM_OVERRIDE",
                format!("{PLUGIN}:shop.test={base}"),
            ),
            ("GLEANER_LOG", "info".into()),
        ],
        &log,
    );
    let client = reqwest::Client::new();
    let body: Value = client
        .post(server.url(ROUTE))
        .json(&json!({"query": "https://shop.test/escape/"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let results: BTreeMap<String, String> = texts(&body).into_iter().collect();
    let want: BTreeMap<String, String> = ["file", "private", "metadata", "outside"]
        .iter()
        .map(|n| (n.to_string(), "blocked".to_string()))
        .collect();
    assert_eq!(results, want, "{body}");
    assert_eq!(seen.escape_pages.load(Ordering::SeqCst), 1);
    let text = std::fs::read_to_string(&log).unwrap();
    for host in ["10.0.0.1", "169.254.169.254", "outside.example"] {
        assert!(
            text.lines()
                .any(|l| l.contains("browser request refused") && l.contains(host)),
            "the refusal of {host} is logged:\n{text}"
        );
    }
    assert!(
        text.lines()
            .any(|l| l.contains("the browser reported an error") && l.contains("file")),
        "the browser's own refusal of the file: URL is logged:\n{text}"
    );
}

/// A challenge's scripts come from its vendor's host: a page may load them
/// whatever the plugin's allowlist says, and nothing else outside it.
#[tokio::test]
#[ignore = "needs chromium: make test-browser"]
async fn a_page_may_load_the_wall_vendors_challenge_scripts_only() {
    require_chromium();
    let (_, base) = site().await;
    let vendor = base.clone();
    let s = server(&base, move |c| {
        c.upstream_override
            .insert(format!("{PLUGIN}:challenges.cloudflare.com"), vendor);
    })
    .await;
    let (status, body) = s
        .post(
            ROUTE,
            json!({"query": "https://shop.test/challenge-scripts/"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let results: BTreeMap<String, String> = texts(&body).into_iter().collect();
    assert_eq!(results["turnstile"], "loaded 200", "{body}");
    assert_eq!(results["elsewhere"], "blocked", "{body}");
}

#[tokio::test]
#[ignore = "needs chromium: make test-browser"]
async fn a_recorded_visit_replays_with_no_browser() {
    require_chromium();
    let (_, base) = site().await;
    let dir = tempfile::tempdir().unwrap();
    let har = dir.path().join("browser.har");
    let live = server(&base, |c| c.record = Some(har.clone())).await;
    let mut answers = Vec::new();
    for query in ["https://shop.test/dom/", "https://shop.test/cookie/"] {
        let (status, body) = live
            .post(ROUTE, json!({"query": query, "reviews_to_fetch": 15}))
            .await;
        assert_eq!(status, 200, "{body}");
        answers.push(common::ids(&body));
    }
    let recorded = std::fs::read_to_string(&har).unwrap();
    assert!(recorded.contains("\"VISIT\""), "visits are recorded");
    let replayed = common::start(&[PLUGIN], |c| {
        c.replay = Some(har.clone());
        c.browser.chromium = Some("/nonexistent/chromium".into());
    })
    .await;
    for (query, want) in ["https://shop.test/dom/", "https://shop.test/cookie/"]
        .iter()
        .zip(&answers)
    {
        let (status, body) = replayed
            .post(ROUTE, json!({"query": query, "reviews_to_fetch": 15}))
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            &common::ids(&body),
            want,
            "{query} replays as it was recorded"
        );
    }
}

#[tokio::test]
async fn without_a_browser_the_source_answers_502_naming_the_setting_and_package() {
    let (_, base) = site().await;
    let missing = server(&base, |c| {
        c.browser.chromium = Some("/nonexistent/chromium".into());
    })
    .await;
    let (status, body) = missing
        .post(ROUTE, json!({"query": "https://shop.test/dom/"}))
        .await;
    assert_eq!(status, 502, "{body}");
    let error = body["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("GLEANER_CHROMIUM") && error.contains("apt-get install chromium"),
        "{error}"
    );
    let (status, body) = missing
        .post(
            "/features/review-chunk",
            json!({"review_text": "One sentence. Another one.", "widget_type": "badge"}),
        )
        .await;
    assert_eq!(status, 200, "every other plugin works: {body}");
    let health = missing.get_json("/healthz").await;
    assert_eq!(health["browser"]["available"], false, "{health}");
    assert!(
        health["browser"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("GLEANER_CHROMIUM")),
        "{health}"
    );
    let off = server(&base, |c| c.browser.enabled = false).await;
    let (status, body) = off
        .post(ROUTE, json!({"query": "https://shop.test/dom/"}))
        .await;
    assert_eq!(status, 502, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("GLEANER_BROWSER"),
        "{body}"
    );
}

/// A grant and egress for driving the browser service directly.
pub(crate) mod direct {
    use super::*;
    use gleaner::capabilities::browser::visit::{Egress, VisitRequest, Wait};
    use gleaner::capabilities::http::{
        policy::Policy, session::Session, HttpService, HttpSettings,
    };

    /// The upstream override key that aims the plugin's `shop.test` elsewhere.
    pub const SHOP: &str = "test-browser-source:shop.test";

    pub fn http(base: &str) -> Arc<HttpService> {
        let overrides = BTreeMap::from([(SHOP.to_owned(), base.to_owned())]);
        Arc::new(
            HttpService::new(HttpSettings {
                overrides: gleaner::capabilities::http::overrides::Overrides::new(&overrides)
                    .unwrap(),
                ..Default::default()
            })
            .unwrap(),
        )
    }

    pub fn egress(http: &Arc<HttpService>, session: &Arc<Session>) -> Egress {
        let network = gleaner::manifest::Network {
            allow: vec!["https://shop.test".into()],
            any_public_host: false,
        };
        let limits = gleaner::manifest::Limits::default();
        Egress {
            http: http.clone(),
            grant: Arc::new(gleaner::capabilities::PluginGrant {
                name: PLUGIN.into(),
                version: "0.1.0".into(),
                policy: Policy::new(PLUGIN, &network, &limits).unwrap(),
                settings: Default::default(),
                uses_llm: false,
                uses_browser: true,
                memory_bytes: 64 << 20,
                max_host_data_bytes: 64 << 20,
            }),
            session: session.clone(),
            request_id: "test".into(),
        }
    }

    pub fn dom(wait: &str) -> VisitRequest {
        VisitRequest {
            url: "https://shop.test/dom/".parse().unwrap(),
            wait: Wait::Selector(wait.into()),
            keep: vec![],
        }
    }

    pub fn within(secs: u64) -> Instant {
        Instant::now() + Duration::from_secs(secs)
    }
}

/// The browser service on its own: a context per session, closed once the
/// session has ended, and the memory one Chromium takes.
#[tokio::test]
#[ignore = "needs chromium: make test-browser"]
async fn a_session_s_browser_context_closes_when_the_session_ends() {
    use gleaner::capabilities::browser::BrowserService;
    use gleaner::capabilities::http::session::Session;
    require_chromium();
    let (_, base) = site().await;
    let http = direct::http(&base);
    let browser = BrowserService::new(&Default::default());
    let mut sessions = Vec::new();
    for _ in 0..2 {
        let session = Arc::new(Session::new());
        let started = Instant::now();
        let outcome = browser
            .visit(
                &direct::egress(&http, &session),
                &direct::dom(".review"),
                direct::within(30),
            )
            .await
            .unwrap();
        println!("visit: {:?}", started.elapsed());
        assert!(outcome.document.contains("Only a browser sees these."));
        sessions.push(session);
    }
    assert_eq!(browser.open_contexts().await, 2, "one context per session");
    let memory = browser.memory_bytes().await.unwrap();
    println!(
        "Chromium's memory (proportional set size, all processes): {} MiB",
        memory >> 20
    );
    sessions.pop();
    // The visit's last tasks let go of the session a moment after it ends.
    let deadline = Instant::now() + Duration::from_secs(5);
    while browser.open_contexts().await > 1 && Instant::now() < deadline {
        browser.close_ended_contexts().await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        browser.open_contexts().await,
        1,
        "the ended session's context is closed, the live one's kept"
    );
}

/// The caps: a visit waits for a free page only within its deadline, and a
/// Chromium over its memory cap restarts before the next visit.
#[tokio::test]
#[ignore = "needs chromium: make test-browser"]
async fn the_page_and_memory_caps_hold() {
    use gleaner::capabilities::browser::{BrowserConfig, BrowserError, BrowserService};
    use gleaner::capabilities::http::session::Session;
    require_chromium();
    let (_, base) = site().await;
    let http = direct::http(&base);
    let one_page = BrowserService::new(&BrowserConfig {
        max_pages: 1,
        ..Default::default()
    });
    let (a, b) = (Arc::new(Session::new()), Arc::new(Session::new()));
    let (ea, eb) = (direct::egress(&http, &a), direct::egress(&http, &b));
    // The first visit waits for an element that never comes, and holds the
    // page. Its deadline leaves room for Chromium's cold start on a busy
    // machine; the second visit starts once the first holds the page (its
    // context exists only after it took the page).
    let never = direct::dom(".never");
    let dom = direct::dom(".review");
    let (first, second) = tokio::join!(one_page.visit(&ea, &never, direct::within(10)), async {
        while one_page.open_contexts().await == 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        one_page.visit(&eb, &dom, direct::within(1)).await
    });
    assert!(
        matches!(first, Err(BrowserError::Timeout(ref m)) if m.contains(".never")),
        "{first:?}"
    );
    assert!(
        matches!(second, Err(BrowserError::Timeout(ref m)) if m.contains("max_pages")),
        "{second:?}"
    );
    let small = BrowserService::new(&BrowserConfig {
        max_memory_mib: 1,
        ..Default::default()
    });
    for session in [&a, &b] {
        small
            .visit(&direct::egress(&http, session), &dom, direct::within(30))
            .await
            .unwrap();
    }
    assert_eq!(
        small.open_contexts().await,
        1,
        "over its memory cap, Chromium restarted before the second visit (the first context went with it)"
    );
}
