//! The headless browser, for what only a browser can pass: one Chromium for
//! the server, started on the first visit; a browser context per fetch
//! session, closed once the session has ended; a cap on open pages and on
//! Chromium's memory; a page deadline inside the call's budget.
//!
//! Policy: only plugins whose manifest declares `uses_browser` may visit; a
//! visit's URL passes the plugin's allowlist first, and every request the page
//! makes goes through the host's egress ([`visit`]), so the SSRF guard,
//! pacing, the session's proxy, recording and replay apply to the browser as
//! to any request. Under replay a visit answers from its recording
//! ([`record`]) with no browser at all.
//!
//! Chromium itself (its process and DevTools client are `gleaner_browser`'s)
//! is driven only in a binary built with the `browser` feature; without it a
//! visit that no recording answers fails as unavailable, naming the feature
//! and how to build it.

pub mod cookies;
#[cfg(feature = "browser")]
mod drive;
mod guest;
pub mod record;
pub mod visit;

#[cfg(feature = "browser")]
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
#[cfg(feature = "browser")]
use std::sync::Weak;
use std::time::{Duration, Instant};

#[cfg(feature = "browser")]
use gleaner_browser::{cdp::Cdp, chromium, chromium::Chromium};
use serde::Deserialize;
#[cfg(feature = "browser")]
use serde_json::json;

use self::visit::{Egress, Outcome, VisitRequest};
use crate::capabilities::http::session::Session;

pub use guest::{add_to_linker, BrowserView};

/// Operator settings of the browser (`[browser]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrowserConfig {
    /// Whether plugins may use the browser at all (`GLEANER_BROWSER`).
    pub enabled: bool,
    /// The Chromium binary; by default `chromium` (or `chromium-browser`,
    /// `google-chrome`) on the `PATH` (`GLEANER_CHROMIUM`).
    pub chromium: Option<PathBuf>,
    /// Pages open at once, across the server (`GLEANER_BROWSER_MAX_PAGES`).
    pub max_pages: usize,
    /// Chromium's memory (the proportional set size of all its processes)
    /// above which it restarts once its pages close, new visits refused
    /// until then (`GLEANER_BROWSER_MAX_MEMORY_MIB`).
    pub max_memory_mib: u64,
    /// One visit's time limit, within the call's budget (`GLEANER_BROWSER_PAGE_TIMEOUT_MS`).
    pub page_timeout_ms: u64,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        BrowserConfig {
            enabled: true,
            chromium: None,
            max_pages: 4,
            max_memory_mib: 1024,
            page_timeout_ms: 30_000,
        }
    }
}

/// Why a visit gave nothing; mirrors the WIT `browser.error` variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BrowserError {
    /// No browser: not installed, or switched off.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// A URL the plugin may not open.
    #[error("denied: {0}")]
    Denied(String),
    /// The condition did not hold in time.
    #[error("timeout: {0}")]
    Timeout(String),
    /// The browser failed, or no recording answers in replay.
    #[error("failed: {0}")]
    Failed(String),
}

/// The running browser and the contexts opened in it.
#[cfg(feature = "browser")]
struct Running {
    chromium: Chromium,
    /// Each live fetch session's browser context, by session id.
    contexts: HashMap<String, (Weak<Session>, String)>,
}

/// The server's browser.
pub struct BrowserService {
    config: BrowserConfig,
    binary: Option<PathBuf>,
    #[cfg(feature = "browser")]
    running: tokio::sync::Mutex<Option<Running>>,
    pages: Arc<tokio::sync::Semaphore>,
}

impl BrowserService {
    /// The browser as configured; Chromium is looked for now and started on
    /// the first visit.
    pub fn new(config: &BrowserConfig) -> BrowserService {
        #[cfg(feature = "browser")]
        let binary = chromium::find(config.chromium.as_deref());
        #[cfg(not(feature = "browser"))]
        let binary = None;
        if config.enabled && cfg!(feature = "browser") && binary.is_none() {
            tracing::info!("no Chromium found: plugins that need the browser answer 502 (install Debian's chromium package, or set [browser] chromium)");
        }
        // At least one page, so a visit can ever be made.
        let config = BrowserConfig {
            max_pages: config.max_pages.max(1),
            ..config.clone()
        };
        BrowserService {
            pages: Arc::new(tokio::sync::Semaphore::new(config.max_pages)),
            config,
            binary,
            #[cfg(feature = "browser")]
            running: tokio::sync::Mutex::new(None),
        }
    }

    /// Why no visit can be made, if none can.
    pub fn unavailable(&self) -> Option<String> {
        if !cfg!(feature = "browser") {
            return Some(
                crate::features::Missing::new("browser", "a page opened in the headless browser")
                    .to_string(),
            );
        }
        if !self.config.enabled {
            return Some(
                "the browser is switched off on this server ([browser] enabled = false, GLEANER_BROWSER=off); \
                 switch it on to serve this source"
                    .into(),
            );
        }
        if self.binary.is_none() {
            let why = match &self.config.chromium {
                Some(path) => format!(
                    "Chromium is not at {} ([browser] chromium, GLEANER_CHROMIUM)",
                    path.display()
                ),
                None => "no Chromium is installed".to_owned(),
            };
            return Some(format!(
                "{why}; install Debian's chromium package (apt-get install chromium) or set [browser] chromium / GLEANER_CHROMIUM to the binary"
            ));
        }
        None
    }

    /// Opens `request` in `egress`'s session's browser context, by `deadline`.
    pub async fn visit(
        &self,
        egress: &Egress,
        request: &VisitRequest,
        deadline: Instant,
    ) -> Result<Outcome, BrowserError> {
        if let Some(why) = self.unavailable() {
            return Err(BrowserError::Unavailable(why));
        }
        let deadline =
            deadline.min(Instant::now() + Duration::from_millis(self.config.page_timeout_ms));
        let _page = tokio::time::timeout_at(deadline.into(), self.pages.clone().acquire_owned())
            .await
            .map_err(|_| {
                BrowserError::Timeout(format!(
                    "all {} browser pages stayed busy until the call's deadline; raise [browser] max_pages",
                    self.config.max_pages
                ))
            })?
            .map_err(|_| BrowserError::Failed("the browser is shutting down".into()))?;
        self.open(egress, request, deadline).await
    }

    /// Carries the visit out in Chromium.
    #[cfg(feature = "browser")]
    async fn open(
        &self,
        egress: &Egress,
        request: &VisitRequest,
        deadline: Instant,
    ) -> Result<Outcome, BrowserError> {
        let (cdp, context) = self.context(&egress.session).await?;
        drive::run(&cdp, &context, request, egress, deadline).await
    }

    /// No Chromium to carry it out in; [`Self::unavailable`] said why first.
    #[cfg(not(feature = "browser"))]
    async fn open(
        &self,
        _egress: &Egress,
        _request: &VisitRequest,
        _deadline: Instant,
    ) -> Result<Outcome, BrowserError> {
        Err(BrowserError::Unavailable(
            self.unavailable().unwrap_or_default(),
        ))
    }

    /// The running browser's connection and `session`'s context in it,
    /// starting (or restarting) Chromium as needed.
    #[cfg(feature = "browser")]
    async fn context(&self, session: &Arc<Session>) -> Result<(Arc<Cdp>, String), BrowserError> {
        let mut running = self.running.lock().await;
        let dead = running.as_mut().is_some_and(|r| !r.chromium.is_alive());
        // Over its memory cap, Chromium restarts once no other page is open.
        let idle = self.pages.available_permits() + 1 == self.config.max_pages;
        let cap = self.config.max_memory_mib.saturating_mul(1024 * 1024);
        let heavy = running
            .as_ref()
            .is_some_and(|r| r.chromium.memory_bytes() > cap);
        if heavy && !idle {
            return Err(BrowserError::Failed(format!(
                "the browser uses more than [browser] max_memory_mib = {} MiB; it restarts once its open pages close, retry then",
                self.config.max_memory_mib
            )));
        }
        if dead || heavy {
            tracing::info!(dead, heavy, "restarting the browser");
            *running = None;
        }
        if running.is_none() {
            let binary = self
                .binary
                .as_deref()
                .unwrap_or(std::path::Path::new("chromium"));
            let chromium = Chromium::start(binary)
                .await
                .map_err(BrowserError::Failed)?;
            *running = Some(Running {
                chromium,
                contexts: HashMap::new(),
            });
        }
        let Some(running) = running.as_mut() else {
            return Err(BrowserError::Failed("the browser did not start".into()));
        };
        let cdp = running.chromium.cdp.clone();
        close_ended(&cdp, &mut running.contexts).await;
        if let Some((_, context)) = running.contexts.get(&session.id) {
            return Ok((cdp, context.clone()));
        }
        let created = cdp
            .call(None, "Target.createBrowserContext", json!({}))
            .await
            .map_err(BrowserError::Failed)?;
        let context = created["browserContextId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        running.contexts.insert(
            session.id.clone(),
            (Arc::downgrade(session), context.clone()),
        );
        Ok((cdp, context))
    }
}

/// What the running browser holds. Without the `browser` feature nothing runs:
/// no cookies, no contexts, no memory.
#[cfg(not(feature = "browser"))]
impl BrowserService {
    /// The cookies `session`'s browser context holds: none.
    pub async fn cookies(&self, _session: &Session) -> Vec<String> {
        Vec::new()
    }

    /// Closes the contexts of sessions that have ended: there are none.
    pub async fn close_ended_contexts(&self) {}

    /// How many browser contexts are open: none.
    pub async fn open_contexts(&self) -> usize {
        0
    }

    /// Chromium's memory: none, it never runs.
    pub async fn memory_bytes(&self) -> Option<u64> {
        None
    }
}

/// What the running browser holds.
#[cfg(feature = "browser")]
impl BrowserService {
    /// The cookies `session`'s browser context holds, as `Set-Cookie` lines.
    pub async fn cookies(&self, session: &Session) -> Vec<String> {
        let running = self.running.lock().await;
        let Some(running) = running.as_ref() else {
            return Vec::new();
        };
        let Some((_, context)) = running.contexts.get(&session.id) else {
            return Vec::new();
        };
        let answer = running
            .chromium
            .cdp
            .call(
                None,
                "Storage.getCookies",
                json!({"browserContextId": context}),
            )
            .await;
        answer
            .map(|a| cookies::lines(&a["cookies"]))
            .unwrap_or_default()
    }

    /// Closes the contexts of sessions that have ended.
    pub async fn close_ended_contexts(&self) {
        let mut running = self.running.lock().await;
        if let Some(running) = running.as_mut() {
            let cdp = running.chromium.cdp.clone();
            close_ended(&cdp, &mut running.contexts).await;
        }
    }

    /// How many browser contexts are open (for tests and `/healthz`).
    pub async fn open_contexts(&self) -> usize {
        let running = self.running.lock().await;
        running.as_ref().map_or(0, |r| r.contexts.len())
    }

    /// Chromium's memory now (the proportional set size of all its
    /// processes); none when it is not running.
    pub async fn memory_bytes(&self) -> Option<u64> {
        let running = self.running.lock().await;
        running.as_ref().map(|r| r.chromium.memory_bytes())
    }
}

/// Disposes of the contexts whose session no one holds any more.
#[cfg(feature = "browser")]
async fn close_ended(cdp: &Cdp, contexts: &mut HashMap<String, (Weak<Session>, String)>) {
    let ended: Vec<String> = contexts
        .iter()
        .filter(|(_, (session, _))| session.strong_count() == 0)
        .map(|(id, _)| id.clone())
        .collect();
    for id in ended {
        if let Some((_, context)) = contexts.remove(&id) {
            let _ = cdp
                .call(
                    None,
                    "Target.disposeBrowserContext",
                    json!({"browserContextId": context}),
                )
                .await;
        }
    }
}

/// Every `every`, while the service lives: lets go of the sessions whose time
/// to live has passed, then closes their browser contexts.
pub fn close_ended_periodically(
    service: &Arc<BrowserService>,
    sessions: &Arc<crate::capabilities::http::session::Sessions>,
    every: Duration,
) {
    let (weak, sessions) = (Arc::downgrade(service), Arc::downgrade(sessions));
    if let Ok(handle) = tokio::runtime::Handle::try_current() {
        handle.spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let (Some(service), Some(sessions)) = (weak.upgrade(), sessions.upgrade()) else {
                    return;
                };
                sessions.prune();
                drop(sessions);
                service.close_ended_contexts().await;
            }
        });
    }
}
