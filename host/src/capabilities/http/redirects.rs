//! Following redirects: each hop re-checked against the policy and the
//! host's back-off, the session's cookies given and kept hop by hop, and the
//! final answer classified.

use std::time::Instant;

use url::Url;

use super::policy::Policy;
use super::session::Session;
use super::walls::mark_wall;
use super::{credentials, profile, transport};
use super::{HttpError, HttpService, Observed, OutboundRequest, OutboundResponse};

impl HttpService {
    /// Sends a request hop by hop, following at most `max_redirects` redirects.
    pub(super) async fn send_hops(
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
}

/// Where a redirect answer points, resolved against the URL that gave it.
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
