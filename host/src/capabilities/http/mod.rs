//! Outbound HTTP, the one way plugins reach the network.
//!
//! Policy lives next to the capability: the allowlist ([`policy`]), the SSRF guard
//! ([`ssrf`], [`resolver`]), redirects re-checked hop by hop, timeouts, size caps,
//! per-host concurrency, retries on 429/503, HAR replay and record ([`har`]) and
//! the upstream override ([`overrides`]). Every request is made in a
//! [`session::Session`]: its cookie jar and its browser [`profile`].

pub mod cooldowns;
pub mod credentials;
pub mod guest;
pub mod har;
pub mod overrides;
pub mod pacing;
pub mod policy;
pub mod profile;
pub mod proxies;
pub mod resolver;
pub mod session;
pub mod ssrf;
mod transport;
mod wire;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use url::Url;

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

    /// Whether `url` is a destination `plugin` (or the host itself, as
    /// `webhooks`) may reach, checked before anything is sent: an http(s) URL
    /// whose host is not a non-public address, written as such or resolved;
    /// an upstream override for it counts as reachable, as for plugins.
    pub async fn check_destination(&self, plugin: &str, url: &Url) -> Result<(), String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "scheme {:?} is not allowed; use http or https",
                url.scheme()
            ));
        }
        if self.overrides.rewrite(plugin, url).is_some() {
            return Ok(());
        }
        check_ip_literal(url, &self.resolver).map_err(|e| e.to_string())?;
        match url.host() {
            Some(url::Host::Domain(host)) if self.replay.is_none() => {
                self.resolver.check_public(host).await
            }
            Some(_) => Ok(()),
            None => Err(format!("{url} has no host")),
        }
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

    async fn send_hops(
        &self,
        policy: &Policy,
        session: &Session,
        request: OutboundRequest,
        deadline: Instant,
        max_redirects: usize,
    ) -> Result<OutboundResponse, HttpError> {
        let mut url = Url::parse(&request.url)
            .map_err(|e| HttpError::Transport(format!("invalid URL {:?}: {e}", request.url)))?;
        let mut method = request.method.to_ascii_uppercase();
        let mut headers = profile::apply(session.profile, request.profile, &request.headers);
        let own_cookies = headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("cookie"));
        let mut body = request.body;
        for _ in 0..=max_redirects {
            policy.check(&url).map_err(HttpError::Denied)?;
            let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
            if let Some(why) = self.backoffs.refusal(&host) {
                crate::telemetry::metrics::upstream_held_back(&host);
                return Err(HttpError::Transport(why));
            }
            let mut hop_headers = headers.clone();
            if !own_cookies {
                if let Some(cookies) = session.cookie_header(&url) {
                    hop_headers.push(("cookie".into(), cookies));
                }
            }
            let hop = transport::Hop {
                method: &method,
                url: &url,
                headers: &hop_headers,
                body: body.as_deref(),
                browser: request.profile.map(|_| session.profile),
            };
            let response = self.send_hop(policy, session, hop, deadline).await?;
            session.store(&url, &response.headers);
            let location = response_location(&response, &url).filter(|_| max_redirects > 0);
            let Some(next) = location else {
                let mut answer = OutboundResponse {
                    status: response.status,
                    headers: response.headers,
                    body: response.body,
                    final_url: url.to_string(),
                    wall: None,
                };
                let wall = mark_wall(&policy.plugin, &mut answer);
                if let Some(wall) = wall {
                    self.backoffs.wall_seen(&host, wall.code());
                }
                if let Some(observed) = &self.observed {
                    let mut observed = observed.lock().unwrap_or_else(|p| p.into_inner());
                    observed.push(Observed {
                        url: credentials::redact_url(&answer.final_url),
                        status: answer.status,
                        wall,
                    });
                }
                return Ok(answer);
            };
            if response.status == 303 || (matches!(response.status, 301 | 302) && method == "POST")
            {
                method = "GET".into();
                body = None;
            }
            if next.host_str() != url.host_str() {
                headers.retain(|(name, _)| !credentials::is_credential(name));
            }
            url = next;
        }
        Err(HttpError::Transport(format!(
            "more than {max_redirects} redirects starting at {}",
            request.url
        )))
    }

    async fn send_hop(
        &self,
        policy: &Policy,
        session: &Session,
        hop: transport::Hop<'_>,
        deadline: Instant,
    ) -> Result<transport::HopResponse, HttpError> {
        let host = hop.url.host_str().unwrap_or_default().to_ascii_lowercase();
        let overridden = self.overrides.rewrite(&policy.plugin, hop.url);
        if overridden.is_none() {
            check_ip_literal(hop.url, &self.resolver)?;
        }
        // A replay answers from recordings, but refuses what the live guard
        // would: the private addresses a URL names itself.
        if let Some(replay) = &self.replay {
            return transport::replay(replay, &hop);
        }
        let proxied = !self.proxies.for_plugin(&policy.plugin).is_empty();
        loop {
            let proxy = if proxied {
                let picked = self
                    .proxies
                    .pick(&policy.plugin, &host, session.proxy().as_deref())
                    .cloned()
                    .ok_or_else(|| {
                        HttpError::Transport(format!(
                            "{host} has blocked every configured proxy for now; retry after the cool-down \
                             ([proxies] cooldown_secs), or add proxies"
                        ))
                    })?;
                session.set_proxy(Some(picked.url.clone()));
                Some(picked)
            } else {
                None
            };
            if proxy.is_some() && overridden.is_none() {
                // The proxy resolves the name: refuse names that point inside.
                self.resolver
                    .check_public(&host)
                    .await
                    .map_err(HttpError::Denied)?;
            }
            let sent = self
                .send_network(
                    policy,
                    session,
                    &hop,
                    overridden.clone(),
                    proxy.as_ref(),
                    deadline,
                )
                .await;
            let Some(proxy) = proxy else {
                return sent;
            };
            // A proxy that fails or that the site blocks is retired for this
            // site, and the request goes on through the next one.
            let failed = match &sent {
                Ok(response) => blocks_proxy(response, hop.url),
                Err(HttpError::ProxyFailed(why)) => {
                    tracing::info!(plugin = %policy.plugin, %host, error = %why, "proxy failed");
                    true
                }
                Err(_) => false,
            };
            if !failed {
                return sent;
            }
            self.proxies.retire(&proxy, &host);
            session.set_proxy(None);
            let another = self.proxies.pick(&policy.plugin, &host, None).is_some();
            if !another || Instant::now() >= deadline {
                return sent;
            }
        }
    }

    /// One hop over the network: the host's pace, a connection slot, the request.
    async fn send_network(
        &self,
        policy: &Policy,
        session: &Session,
        hop: &transport::Hop<'_>,
        overridden: Option<Url>,
        proxy: Option<&proxies::Proxy>,
        deadline: Instant,
    ) -> Result<transport::HopResponse, HttpError> {
        let connect_ms = policy.limits.connect_timeout_ms;
        let (client, target) = match overridden {
            Some(target) => (self.client(true, connect_ms, proxy, hop.browser)?, target),
            None => (
                self.client(false, connect_ms, proxy, hop.browser)?,
                hop.url.clone(),
            ),
        };
        let host = hop.url.host_str().unwrap_or_default();
        let pace = self.pacer.pace_for(host, policy.limits.pace);
        self.pacer
            .wait_turn(host, pace, deadline)
            .await
            .map_err(|late| {
                HttpError::Timeout(format!(
                    "the next request to {host} may start only in {} ms, after this call's deadline \
                     (the site's pace: [limits] min_delay_ms / requests_per_minute, or [pacing] for the host)",
                    late.wait.as_millis()
                ))
            })?;
        let slot = self.host_slot(policy, hop.url);
        // Waiting for a slot is bounded by one request's timeout, and only this
        // plugin's requests to this host compete for it.
        let wait_until = deadline.min(
            Instant::now() + std::time::Duration::from_millis(policy.limits.request_timeout_ms),
        );
        let _permit = tokio::time::timeout_at(wait_until.into(), slot.acquire_owned())
            .await
            .map_err(|_| {
                HttpError::Timeout(format!(
                    "waited too long for a free connection to {} (limits.upstream_concurrency = {} for this plugin)",
                    hop.url, policy.limits.upstream_concurrency
                ))
            })?
            .map_err(|_| HttpError::Transport("connection slots closed".into()))?;
        let started = std::time::SystemTime::now();
        let clock = Instant::now();
        let shown = proxy.map(|p| p.shown.as_str());
        let response =
            transport::network(&client, &target, hop, &policy.limits, deadline, shown).await?;
        if self.is_recording() {
            let exchange = transport::exchange(hop, &response);
            self.record(
                exchange,
                session,
                started,
                clock.elapsed().as_secs_f64() * 1000.0,
            );
        }
        Ok(response)
    }

    fn host_slot(&self, policy: &Policy, url: &Url) -> Arc<tokio::sync::Semaphore> {
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let permits = policy.limits.upstream_concurrency.max(1);
        let mut slots = self.host_slots.lock().unwrap_or_else(|p| p.into_inner());
        slots
            .entry((policy.plugin.clone(), host))
            .or_insert_with(|| Arc::new(tokio::sync::Semaphore::new(permits)))
            .clone()
    }
}

/// Whether a site's answer means it blocks the proxy it came through: a 403,
/// a 429, or a wall.
fn blocks_proxy(response: &transport::HopResponse, url: &Url) -> bool {
    matches!(response.status, 403 | 429)
        || gleaner_botwall::classify(&gleaner_botwall::Response {
            status: response.status,
            headers: &response.headers,
            final_url: url.as_str(),
            body: &response.body,
        })
        .is_some()
}

/// Classifies a final response (see `gleaner-botwall`) once, natively: a wall is
/// logged with its vendor, and the verdict goes to the plugin in the answer's
/// `wall` field, so the SDK need not classify again.
fn mark_wall(plugin: &str, answer: &mut OutboundResponse) -> Option<gleaner_botwall::Wall> {
    let wall = gleaner_botwall::classify(&gleaner_botwall::Response {
        status: answer.status,
        headers: &answer.headers,
        final_url: &answer.final_url,
        body: &answer.body,
    });
    if let Some(wall) = wall {
        let url = credentials::redact_url(&answer.final_url);
        tracing::info!(plugin, %url, status = answer.status, wall = wall.code(), "the site answered with a wall");
    }
    answer.wall = wall;
    wall
}

/// Refuses a URL whose host is an address `resolver`'s guard refuses, written
/// as such: an IP literal, or `localhost` (and its subdomains, which resolve
/// to loopback). DNS names are checked by the resolver as they resolve.
fn check_ip_literal(url: &Url, resolver: &resolver::GuardedResolver) -> Result<(), HttpError> {
    let ip: Option<IpAddr> = match url.host() {
        Some(url::Host::Ipv4(v4)) => Some(v4.into()),
        Some(url::Host::Ipv6(v6)) => Some(v6.into()),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            (name == "localhost" || name.ends_with(".localhost"))
                .then_some(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST))
        }
        None => None,
    };
    match ip {
        Some(ip) if !resolver.allows(ip) => {
            let why = match ssrf::check(ip) {
                Err(blocked) => blocked.to_string(),
                Ok(()) => "not an address this service may reach".to_owned(),
            };
            Err(HttpError::Denied(format!(
                "{} is {why}; plugins may only reach public addresses{}",
                url.host_str().unwrap_or_default(),
                ssrf::LOCAL_SITE_HINT
            )))
        }
        _ => Ok(()),
    }
}

fn response_location(response: &transport::HopResponse, base: &Url) -> Option<Url> {
    if !matches!(response.status, 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let value = response
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("location"))?;
    base.join(&value.1).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_answer_carries_the_wall_verdict() {
        let mut challenge = OutboundResponse {
            status: 403,
            headers: vec![("cf-mitigated".into(), "challenge".into())],
            body: b"<title>Just a moment...</title>".to_vec(),
            final_url: "https://www.example.com/r".into(),
            wall: None,
        };
        mark_wall("p", &mut challenge);
        assert_eq!(challenge.wall, Some(gleaner_botwall::Wall::Cloudflare));
        let mut content = OutboundResponse {
            status: 200,
            headers: vec![],
            body: b"<p>The captcha was annoying.</p>".to_vec(),
            final_url: "https://www.example.com/r".into(),
            wall: Some(gleaner_botwall::Wall::Captcha),
        };
        mark_wall("p", &mut content);
        assert_eq!(content.wall, None, "content, whatever was set before");
        assert!(content.headers.is_empty(), "no pseudo-header is added");
    }

    #[test]
    fn literal_private_addresses_are_denied() {
        for u in [
            "http://127.0.0.1/",
            "http://[::1]/",
            "http://169.254.169.254/latest",
            "http://10.0.0.1/",
        ] {
            assert!(
                matches!(
                    check_ip_literal(&Url::parse(u).unwrap(), &Default::default()),
                    Err(HttpError::Denied(_))
                ),
                "{u}"
            );
        }
        let public = Url::parse("http://93.184.216.34/").unwrap();
        assert!(check_ip_literal(&public, &Default::default()).is_ok());
    }

    #[test]
    fn a_guard_for_local_receivers_lets_loopback_and_private_through_but_not_link_local() {
        let local = resolver::GuardedResolver::new(
            std::sync::Arc::new(resolver::SystemLookup),
            ssrf::is_public_or_local,
        );
        for u in [
            "http://127.0.0.1:9000/",
            "http://localhost/",
            "http://10.0.0.1/",
            "http://[fd00::1]/",
        ] {
            assert!(
                check_ip_literal(&Url::parse(u).unwrap(), &local).is_ok(),
                "{u}"
            );
        }
        let metadata = Url::parse("http://169.254.169.254/latest").unwrap();
        assert!(matches!(
            check_ip_literal(&metadata, &local),
            Err(HttpError::Denied(_))
        ));
    }
}
