//! The plugin side of outbound HTTP: the `gleaner:plugin/http` import, served
//! through [`HttpView`] under the plugin's policy and the call's deadline.

use std::sync::Arc;
use std::time::Instant;

use gleaner_botwall::Wall;
use tracing::Instrument;

use super::profile::Kind;
use super::session::Session;
use super::{credentials, HttpError, HttpService, OutboundRequest};
use crate::bindings::sdk::gleaner::plugin::http;
use crate::capabilities::{view_link, CallContext, PluginGrant};
use crate::telemetry::metrics::{self, UpstreamOutcome};

/// What the http import sees of a call.
pub struct HttpView<'a> {
    /// The call.
    pub call: &'a mut CallContext,
    /// The server-wide HTTP service.
    pub service: &'a Arc<HttpService>,
}

view_link!(HttpLink, HttpView, http);

/// What an outbound request needs from the call, detached from the store so
/// several requests can run at once.
#[derive(Clone)]
struct Outbound {
    http: Arc<HttpService>,
    grant: Arc<PluginGrant>,
    session: Arc<Session>,
    request_id: String,
    deadline: Instant,
}

impl Outbound {
    /// Sends one request under this plugin's policy, logging the outcome.
    async fn send_one(self, req: http::Request) -> Result<http::Response, http::Error> {
        let request = OutboundRequest {
            method: req.method,
            url: req.url,
            headers: req.headers.into_iter().map(|h| (h.name, h.value)).collect(),
            body: req.body,
            profile: req.profile.map(kind),
        };
        let started = Instant::now();
        // Only a fetch that asked for receipts pays for what they cite.
        let kept = self.session.answers.kept();
        let request_url = kept.then(|| request.url.clone());
        let url = credentials::redact_url(&request.url);
        let host = url::Url::parse(&url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        let span = tracing::info_span!(
            "upstream",
            method = %request.method,
            %host,
            status = tracing::field::Empty,
        );
        let result = self
            .http
            .send(&self.grant.policy, &self.session, request, self.deadline)
            .instrument(span.clone())
            .await;
        if let Ok(r) = &result {
            span.record("status", r.status);
        }
        let elapsed = started.elapsed();
        let elapsed_ms = elapsed.as_millis() as u64;
        let plugin = self.grant.name.as_str();
        count(&url, &result, elapsed);
        match &result {
            Ok(r) => {
                tracing::debug!(plugin, request_id = %self.request_id, %url, status = r.status, elapsed_ms, "upstream")
            }
            Err(e) => {
                // The error quotes the URL, and with it any secret the plugin put in it.
                let error = credentials::redact_urls_in(&e.to_string());
                let error = self.session.scrubber().scrub(&error).into_owned();
                tracing::info!(plugin, request_id = %self.request_id, %url, %error, elapsed_ms, "upstream failed")
            }
        }
        let answered = result
            .as_ref()
            .ok()
            .filter(|r| (200..300).contains(&r.status));
        if let (Some(r), Some(request_url)) = (answered, &request_url) {
            let source = match r.final_url.is_empty() {
                true => request_url,
                false => &r.final_url,
            };
            // No credential, cookie or secret setting in the URL a receipt shows.
            let shown = credentials::redact_url(source);
            let shown = self.session.scrubber().scrub(&shown).into_owned();
            self.session.answers.note(&shown, &r.body);
        }
        result.map_err(to_wit_error).map(|response| http::Response {
            status: response.status,
            headers: response
                .headers
                .into_iter()
                .map(|(name, value)| http::Header { name, value })
                .collect(),
            body: response.body,
            final_url: response.final_url,
            wall: response.wall.map(verdict),
        })
    }
}

/// Counts an upstream request's outcome in the metrics; `url` (redacted)
/// names the host when no answer came.
pub(crate) fn count(
    url: &str,
    result: &Result<super::OutboundResponse, HttpError>,
    elapsed: std::time::Duration,
) {
    match result {
        Ok(r) => {
            let outcome = UpstreamOutcome::of_answer(r.status, r.wall.is_some());
            metrics::upstream(&r.final_url, Some(r.status), outcome, elapsed);
        }
        Err(e) => {
            let outcome = match e {
                HttpError::Denied(_) => UpstreamOutcome::Denied,
                HttpError::Timeout(_) => UpstreamOutcome::Timeout,
                HttpError::TooLarge(_) | HttpError::Transport(_) | HttpError::ProxyFailed(_) => {
                    UpstreamOutcome::Error
                }
            };
            metrics::upstream(url, None, outcome, elapsed);
        }
    }
}

/// The profile kind a plugin's request names.
fn kind(profile: http::Profile) -> Kind {
    match profile {
        http::Profile::Document => Kind::Document,
        http::Profile::Xhr => Kind::Xhr,
        http::Profile::Json => Kind::Json,
    }
}

/// The host's wall verdict as the plugin receives it.
pub(crate) fn verdict(wall: Wall) -> http::Wall {
    match wall {
        Wall::Cloudflare => http::Wall::Cloudflare,
        Wall::DataDome => http::Wall::Datadome,
        Wall::Akamai => http::Wall::Akamai,
        Wall::PerimeterX => http::Wall::Perimeterx,
        Wall::Captcha => http::Wall::Captcha,
        Wall::RateLimit => http::Wall::RateLimit,
        Wall::LoginWall => http::Wall::LoginWall,
    }
}

impl HttpView<'_> {
    fn outbound(&self) -> Outbound {
        Outbound {
            http: self.service.clone(),
            grant: self.call.grant.clone(),
            session: self.call.session.clone(),
            request_id: self.call.request_id.clone(),
            deadline: self.call.deadline,
        }
    }
}

fn request_size(req: &http::Request) -> usize {
    req.url.len() + req.body.as_ref().map_or(0, Vec::len)
}

fn response_size(result: &Result<http::Response, http::Error>) -> usize {
    result.as_ref().map_or(0, |r| r.body.len())
}

impl http::Host for HttpView<'_> {
    async fn send(
        &mut self,
        req: http::Request,
    ) -> wasmtime::Result<Result<http::Response, http::Error>> {
        self.call.charge(request_size(&req))?;
        let result = self.outbound().send_one(req).await;
        self.call.charge(response_size(&result))?;
        Ok(result)
    }

    async fn send_batch(
        &mut self,
        reqs: Vec<http::Request>,
    ) -> wasmtime::Result<Vec<Result<http::Response, http::Error>>> {
        self.call.charge(reqs.iter().map(request_size).sum())?;
        let outbound = self.outbound();
        let results =
            futures_util::future::join_all(reqs.into_iter().map(|r| outbound.clone().send_one(r)))
                .await;
        self.call.charge(results.iter().map(response_size).sum())?;
        Ok(results)
    }
}

/// The error a plugin sees; the URLs it quotes lose their credentials, since
/// plugins pass such messages on to clients.
fn to_wit_error(e: HttpError) -> http::Error {
    use super::credentials::redact_urls_in as clean;
    match e {
        HttpError::Denied(m) => http::Error::Denied(clean(&m)),
        HttpError::Timeout(m) => http::Error::Timeout(clean(&m)),
        HttpError::TooLarge(m) => http::Error::TooLarge(clean(&m)),
        HttpError::Transport(m) | HttpError::ProxyFailed(m) => http::Error::Transport(clean(&m)),
    }
}
