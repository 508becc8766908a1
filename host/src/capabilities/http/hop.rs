//! One hop of a request: answered from recordings, or sent over the network,
//! through the session's proxy when the plugin has proxies, moving on to the
//! next proxy when one fails or the site blocks it.

use std::time::Instant;

use url::Url;

use super::destination::check_ip_literal;
use super::policy::Policy;
use super::session::Session;
use super::transport;
use super::{HttpError, HttpService};

impl HttpService {
    /// Sends one hop before `deadline`, from recordings or over the network.
    pub(super) async fn send_hop(
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
