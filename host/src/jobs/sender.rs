//! The server's webhook sender: one attempt of a delivery the engine hands
//! it ([`gleaner_jobs::Sender`]), signed as the engine says. A webhook URL goes through the same SSRF guard as plugin traffic (as the
//! host's own `webhooks`, which an upstream override for its host reaches),
//! on an HTTP service of its own that never answers from recordings; with
//! `webhook_allow_private` (on in `gleaner demo`) the guard also lets
//! loopback and private receivers through, never link-local ones.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;

use super::model::{now_ms, PendingDelivery};
use super::webhooks::{headers, Reply};
use crate::capabilities::http::credentials::redact_urls_in;
use crate::capabilities::http::policy::Policy;
use crate::capabilities::http::resolver::{GuardedResolver, SystemLookup};
use crate::capabilities::http::session::Session;
use crate::capabilities::http::ssrf;
use crate::capabilities::http::{HttpService, OutboundRequest};
use crate::manifest::{Limits, Network};

/// The name webhook traffic goes under: upstream overrides scoped to it
/// (`webhooks:host=...`) apply, and so do unscoped ones.
pub const SENDER: &str = "webhooks";

/// Time one attempt may take, connecting included.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

/// The policy webhook requests go out under: any public host.
pub fn policy() -> Policy {
    let network = Network {
        allow: Vec::new(),
        any_public_host: true,
    };
    Policy::new(SENDER, &network, &Limits::default()).expect("an open policy is valid")
}

/// The guard webhook requests resolve through: public addresses only, or
/// with `allow_private` loopback and private ones too.
pub fn guard(allow_private: bool) -> GuardedResolver {
    match allow_private {
        true => GuardedResolver::new(Arc::new(SystemLookup), ssrf::is_public_or_local),
        false => GuardedResolver::default(),
    }
}

/// Checks a webhook URL before a job takes it: http(s), and an address the
/// webhooks' guard lets through (public, unless private receivers are
/// allowed), written as such or resolved.
pub async fn check_url(http: &HttpService, url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|e| {
        format!("`webhook.url` {url:?} is not a URL ({e}); give an absolute http(s) URL")
    })?;
    http.check_destination(SENDER, &parsed).await.map_err(|e| {
        format!(
            "`webhook.url` cannot be used: {e}; give a public http(s) URL (a receiver on this \
             machine or network needs GLEANER_WEBHOOK_ALLOW_PRIVATE=true, which `gleaner demo` sets)"
        )
    })
}

/// Sends deliveries through the server's webhook HTTP service.
pub struct HttpSender {
    http: Arc<HttpService>,
    policy: Policy,
}

impl HttpSender {
    /// A sender on `http`, the server's webhook service.
    pub fn new(http: Arc<HttpService>) -> HttpSender {
        HttpSender {
            http,
            policy: policy(),
        }
    }
}

#[async_trait]
impl super::Sender for HttpSender {
    async fn send(&self, delivery: &PendingDelivery) -> Reply {
        let request = OutboundRequest {
            method: "POST".into(),
            url: delivery.webhook.url.clone(),
            headers: headers(delivery, now_ms() / 1_000),
            body: Some(delivery.body.clone().into_bytes()),
            profile: None,
        };
        let session = Session::new();
        match self
            .http
            .send(
                &self.policy,
                &session,
                request,
                Instant::now() + ATTEMPT_TIMEOUT,
            )
            .await
        {
            Ok(answer) => (Some(answer.status), None),
            // The error is kept and answered: no credentials of the URL in it.
            Err(e) => (None, Some(redact_urls_in(&e.to_string()))),
        }
    }
}
