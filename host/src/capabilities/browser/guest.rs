//! The plugin side of the browser: the `gleaner:plugin/browser` import,
//! served through [`BrowserView`] under the plugin's grant and the call's
//! deadline, live or from recordings.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use url::Url;

use super::visit::{Egress, Outcome, VisitRequest, Wait};
use super::{cookies, record, BrowserError, BrowserService};
use crate::bindings::sdk::gleaner::plugin::browser;
use crate::capabilities::http::{credentials, HttpService};
use crate::capabilities::{view_link, CallContext};

/// What the browser import sees of a call.
pub struct BrowserView<'a> {
    /// The call.
    pub call: &'a mut CallContext,
    /// The server-wide browser.
    pub service: &'a Arc<BrowserService>,
    /// The server-wide HTTP service, the browser's egress.
    pub http: &'a Arc<HttpService>,
}

view_link!(BrowserLink, BrowserView, browser);

impl browser::Host for BrowserView<'_> {
    async fn visit(
        &mut self,
        req: browser::VisitRequest,
    ) -> wasmtime::Result<Result<browser::Page, browser::Error>> {
        self.call.charge(req.url.len())?;
        let result = self.open(req).await;
        let size = result.as_ref().map_or(0, |(o, _)| {
            o.document.len() + o.kept.iter().map(|k| k.body.len()).sum::<usize>()
        });
        self.call.charge(size)?;
        let plugin = self.call.grant.name.as_str();
        let request_id = self.call.request_id.as_str();
        Ok(match result {
            Ok((outcome, cookies)) => {
                tracing::info!(plugin, request_id, url = %credentials::redact_url(&outcome.final_url), status = outcome.status, "browser visit");
                Ok(to_wit(outcome, cookies))
            }
            Err(e) => {
                tracing::info!(plugin, request_id, error = %credentials::redact_urls_in(&e.to_string()), "browser visit failed");
                Err(match e {
                    BrowserError::Unavailable(m) => browser::Error::Unavailable(m),
                    BrowserError::Denied(m) => browser::Error::Denied(m),
                    BrowserError::Timeout(m) => browser::Error::Timeout(m),
                    BrowserError::Failed(m) => browser::Error::Failed(m),
                })
            }
        })
    }
}

impl BrowserView<'_> {
    /// The visit and the cookie count of its final URL afterwards.
    async fn open(&mut self, req: browser::VisitRequest) -> Result<(Outcome, u32), BrowserError> {
        let grant = self.call.grant.clone();
        if !grant.uses_browser {
            return Err(BrowserError::Denied(
                "this plugin's manifest does not declare uses_browser = true".into(),
            ));
        }
        let url = Url::parse(&req.url)
            .map_err(|e| BrowserError::Denied(format!("{:?} is not a URL: {e}", req.url)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(BrowserError::Denied(format!(
                "scheme {:?} is not allowed; the browser opens only http(s) pages",
                url.scheme()
            )));
        }
        grant.policy.check(&url).map_err(BrowserError::Denied)?;
        let request = VisitRequest {
            url,
            wait: match req.wait {
                browser::Wait::Selector(s) => Wait::Selector(s),
                browser::Wait::Response(p) => Wait::Response(p),
                browser::Wait::Idle => Wait::Idle,
            },
            keep: req.keep,
        };
        let session = self.call.session.clone();
        let outcome = if self.http.is_replaying() {
            let body = record::request_body(&request);
            let entry = self
                .http
                .replayed(record::METHOD, request.url.as_str(), Some(&body))
                .ok_or_else(|| {
                    BrowserError::Failed(format!(
                        "no recorded visit of {} waiting for {:?}; record one (GLEANER_RECORD) with the browser on",
                        credentials::redact_url(request.url.as_str()),
                        request.wait
                    ))
                })?;
            let (outcome, lines) = record::outcome(&entry).map_err(BrowserError::Failed)?;
            cookies::store_lines(&session, &lines);
            outcome
        } else {
            let egress = Egress {
                http: self.http.clone(),
                grant,
                session: session.clone(),
                request_id: self.call.request_id.clone(),
            };
            let started = (SystemTime::now(), Instant::now());
            let outcome = self
                .service
                .visit(&egress, &request, self.call.deadline)
                .await?;
            let lines = self.service.cookies(&session).await;
            cookies::store_lines(&session, &lines);
            if self.http.is_recording() {
                let elapsed = started.1.elapsed().as_secs_f64() * 1000.0;
                let entry = record::exchange(&request, &outcome, &lines);
                self.http.record(entry, &session, started.0, elapsed);
            }
            outcome
        };
        let count = Url::parse(&outcome.final_url)
            .ok()
            .and_then(|u| session.cookie_header(&u))
            .map_or(0, |h| h.split("; ").count());
        Ok((outcome, count as u32))
    }
}

/// The outcome as the plugin receives it, with the host's wall verdict.
fn to_wit(outcome: Outcome, cookies: u32) -> browser::Page {
    let wall = gleaner_botwall::classify(&gleaner_botwall::Response {
        status: outcome.status,
        headers: &[],
        final_url: &outcome.final_url,
        body: outcome.document.as_bytes(),
    });
    browser::Page {
        status: outcome.status,
        final_url: outcome.final_url,
        document: outcome.document,
        kept: outcome
            .kept
            .into_iter()
            .map(|k| browser::KeptResponse {
                url: k.url,
                status: k.status,
                body: k.body,
            })
            .collect(),
        cookies,
        wall: wall.map(crate::capabilities::http::guest::verdict),
    }
}
