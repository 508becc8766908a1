//! Outbound HTTP, the one way plugins reach the network.
//!
//! Policy lives next to the capability: the allowlist ([`policy`]), the SSRF guard
//! ([`ssrf`], [`resolver`]), redirects re-checked hop by hop, timeouts, size caps,
//! per-host concurrency, retries on 429/503, HAR replay and record ([`har`]) and
//! the upstream override ([`overrides`]). Every request is made in a
//! [`session::Session`]: its cookie jar and its browser [`profile`].

pub mod answers;
pub mod cooldowns;
pub mod credentials;
mod destination;
pub mod guest;
pub mod har;
mod hop;
mod network;
pub mod overrides;
pub mod pacing;
pub mod policy;
pub mod profile;
pub mod proxies;
mod redirects;
pub mod resolver;
pub mod session;
pub mod ssrf;
mod transport;
mod walls;
mod wire;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use self::har::{HarRecorder, HarReplay};
use self::overrides::Overrides;
use self::policy::Policy;
use self::session::Session;

/// The User-Agent sent when a plugin sets none.
pub const DEFAULT_USER_AGENT: &str =
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/149.0.0.0 Safari/537.36";

/// Redirect hops followed before giving up.
const MAX_REDIRECTS: usize = 10;

/// An outbound request as a plugin asks for it.
#[derive(Debug, Clone)]
pub struct OutboundRequest {
    /// Method.
    pub method: String,
    /// Absolute URL.
    pub url: String,
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Option<Vec<u8>>,
    /// The kind of browser request it stands for, which decides the
    /// profile's headers (`Accept`, `Sec-Fetch-*`); none adds only the
    /// session's user agent, language and client hints.
    pub profile: Option<profile::Kind>,
}

/// The final answer after redirects.
#[derive(Debug, Clone)]
pub struct OutboundResponse {
    /// Status code.
    pub status: u16,
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
    /// The URL that answered.
    pub final_url: String,
    /// The host's verdict: the bot wall or sign-in page this answer is, if any.
    pub wall: Option<gleaner_botwall::Wall>,
}

/// Why an outbound request failed; mirrors the WIT `http.error` variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// Not on the allowlist, or a non-public address.
    #[error("denied: {0}")]
    Denied(String),
    /// No answer in time.
    #[error("timeout: {0}")]
    Timeout(String),
    /// Response over the size cap.
    #[error("too large: {0}")]
    TooLarge(String),
    /// Connection, protocol, or replay miss.
    #[error("transport: {0}")]
    Transport(String),
    /// The session's proxy could not be reached, or refused to carry the
    /// request (a refused tunnel or credentials); a transport error to plugins.
    #[error("proxy: {0}")]
    ProxyFailed(String),
}

/// What tells connection pools apart: override target, connect timeout (ms),
/// proxy URL, and the browser whose fingerprint the pool has (none: plain).
type ClientKey = (bool, u64, Option<String>, Option<&'static str>);

/// Server-wide outbound HTTP state: connection pools, replay/record, overrides, per-host caps.
pub struct HttpService {
    /// Connection pools by [`ClientKey`]: the connect timeout is per plugin,
    /// the proxy and the browser per session, and the HTTP clients set all
    /// of them per client.
    clients: Mutex<HashMap<ClientKey, wire::Wire>>,
    /// The operator's proxies and which hosts have blocked them.
    proxies: proxies::Proxies,
    replay: Option<Arc<HarReplay>>,
    recorder: Option<Arc<HarRecorder>>,
    overrides: Overrides,
    resolver: resolver::GuardedResolver,
    /// Upstream connection slots per (plugin, host): a slow host fills only the
    /// share of the plugin that talks to it.
    host_slots: Mutex<HashMap<(String, String), Arc<tokio::sync::Semaphore>>>,
    /// Each host's turn, across the server.
    pacer: pacing::Pacer,
    /// Hosts backed off after a wall, in cluster mode.
    backoffs: cooldowns::Backoffs,
    /// The final responses seen, when asked for (`gleaner doctor`).
    observed: Option<Mutex<Vec<Observed>>>,
    /// PEM CA certificates trusted beside the public roots.
    trusted_roots: Vec<u8>,
}

/// A final response as `gleaner doctor` reports it.
#[derive(Debug, Clone)]
pub struct Observed {
    /// The URL that answered, credentials redacted.
    pub url: String,
    /// Its status.
    pub status: u16,
    /// The wall it is, if any.
    pub wall: Option<gleaner_botwall::Wall>,
}

/// How the service is built.
#[derive(Default)]
pub struct HttpSettings {
    /// Answer from these recordings instead of the network.
    pub replay: Option<HarReplay>,
    /// Record real exchanges here.
    pub recorder: Option<HarRecorder>,
    /// Host overrides.
    pub overrides: Overrides,
    /// DNS with the SSRF guard (the system resolver and the public-address filter by default).
    pub resolver: resolver::GuardedResolver,
    /// The operator's pace per host, over the manifests'.
    pub pacing: std::collections::BTreeMap<String, pacing::Pace>,
    /// The operator's proxies.
    pub proxies: proxies::ProxySettings,
    /// Keep every final response's status and wall, for [`HttpService::observed`].
    pub observe: bool,
    /// PEM CA certificates trusted beside the public roots, for upstream
    /// sites and HTTPS proxies (`upstream_ca_file`); empty for none.
    pub trusted_roots: Vec<u8>,
}

impl HttpService {
    /// Each host's turn, across the server (and the cluster, once shared).
    pub fn pacer(&self) -> &pacing::Pacer {
        &self.pacer
    }

    /// Shares wall back-offs (of `backoff` each) and proxy cool-downs with
    /// the cluster from now on.
    pub fn share_cooldowns(
        &self,
        shared: Arc<dyn cooldowns::SharedCooldowns>,
        backoff: std::time::Duration,
    ) {
        self.backoffs.share(shared.clone(), backoff);
        self.proxies.share(shared);
    }

    /// Applies a cool-down another replica (or this one) announced.
    pub fn apply_cooldown(&self, cooldown: &cooldowns::Cooldown) {
        match cooldown {
            cooldowns::Cooldown::Wall { .. } => self.backoffs.apply(cooldown),
            cooldowns::Cooldown::Proxy {
                proxy,
                host,
                until_ms,
            } => self.proxies.retire_id(proxy, host, *until_ms),
        }
    }

    /// Builds the service and its connection pools.
    pub fn new(settings: HttpSettings) -> anyhow::Result<HttpService> {
        let service = HttpService {
            clients: Mutex::new(HashMap::new()),
            replay: settings.replay.map(Arc::new),
            recorder: settings.recorder.map(Arc::new),
            overrides: settings.overrides,
            resolver: settings.resolver,
            host_slots: Mutex::new(HashMap::new()),
            pacer: pacing::Pacer::new(settings.pacing),
            backoffs: cooldowns::Backoffs::default(),
            proxies: proxies::Proxies::new(settings.proxies).map_err(anyhow::Error::msg)?,
            observed: settings.observe.then(|| Mutex::new(Vec::new())),
            trusted_roots: settings.trusted_roots,
        };
        service.client(false, 5_000, None, None)?;
        Ok(service)
    }

    /// The pool for public targets (SSRF-guarded DNS) or override targets, with
    /// a connect timeout, direct or through a proxy, plain or with `browser`'s
    /// fingerprint.
    fn client(
        &self,
        overridden: bool,
        connect_ms: u64,
        proxy: Option<&proxies::Proxy>,
        browser: Option<&'static profile::Profile>,
    ) -> Result<wire::Wire, HttpError> {
        let key = (
            overridden,
            connect_ms,
            proxy.map(|p| p.url.clone()),
            browser.map(|b| b.name),
        );
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = clients.get(&key) {
            return Ok(client.clone());
        }
        let build = wire::Build {
            resolver: (!overridden).then_some(&self.resolver),
            connect: std::time::Duration::from_millis(connect_ms.max(1)),
            proxy,
            trusted_pem: &self.trusted_roots,
        };
        let client = match browser {
            Some(profile) => wire::Wire::browser(&build, profile)?,
            None => wire::Wire::plain(&build)?,
        };
        clients.insert(key, client.clone());
        Ok(client)
    }

    /// The final responses seen so far, when the service was built to observe.
    pub fn observed(&self) -> Vec<Observed> {
        self.observed.as_ref().map_or_else(Vec::new, |o| {
            o.lock().unwrap_or_else(|p| p.into_inner()).clone()
        })
    }

    /// Whether requests are answered from recordings.
    pub fn is_replaying(&self) -> bool {
        self.replay.is_some()
    }

    /// Sends a request under `policy` in `session`, following redirects, before
    /// `deadline`. The session's profile fills in the headers the plugin left
    /// out; its jar gives each hop its cookies and keeps the ones it sets.
    pub async fn send(
        &self,
        policy: &Policy,
        session: &Session,
        request: OutboundRequest,
        deadline: Instant,
    ) -> Result<OutboundResponse, HttpError> {
        self.send_hops(policy, session, request, deadline, MAX_REDIRECTS)
            .await
    }

    /// [`HttpService::send`] for a browser, which follows redirects itself:
    /// one hop, a redirect answered as it came.
    pub async fn send_unfollowed(
        &self,
        policy: &Policy,
        session: &Session,
        request: OutboundRequest,
        deadline: Instant,
    ) -> Result<OutboundResponse, HttpError> {
        self.send_hops(policy, session, request, deadline, 0).await
    }

    /// The recorded answer to a request, when answering from recordings.
    pub fn replayed(&self, method: &str, url: &str, body: Option<&[u8]>) -> Option<har::Exchange> {
        self.replay.as_ref()?.find(method, url, body)
    }

    /// Whether exchanges are being recorded.
    pub fn is_recording(&self) -> bool {
        self.recorder.is_some()
    }

    /// Adds `exchange` to the recording, if one is being made, with the
    /// session's secrets redacted.
    pub fn record(
        &self,
        exchange: har::Exchange,
        session: &Session,
        started: std::time::SystemTime,
        elapsed_ms: f64,
    ) {
        if let Some(recorder) = &self.recorder {
            if let Err(e) = recorder.record(exchange, started, elapsed_ms, &session.scrubber()) {
                tracing::warn!(error = %e, "could not write the HAR recording");
            }
        }
    }
}
