//! One hop over the network: the host's pace, a connection slot per plugin
//! and host, the request itself, and its recording.

use std::sync::Arc;
use std::time::Instant;

use url::Url;

use super::policy::Policy;
use super::session::Session;
use super::{proxies, transport};
use super::{HttpError, HttpService};

impl HttpService {
    /// One hop over the network: the host's pace, a connection slot, the request.
    pub(super) async fn send_network(
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
