//! The two transports below the guard. A browser request (a profile's
//! `document`, `xhr` or `json`) goes out over [`Wire::Browser`]: BoringSSL
//! through `wreq` (in `gleaner_browser::tls`), with the session's browser's
//! TLS ClientHello (cipher and extension order, GREASE, ALPN) and HTTP/2
//! settings (SETTINGS frame, pseudo-header order, window update), from
//! `wreq-util`'s emulation of the browser version its user agent names. A
//! plain API call keeps [`Wire::Plain`], reqwest over rustls. Both are built
//! by [`super::HttpService`] with the same SSRF-guarded resolver, proxy, root
//! certificates, connect timeout and no redirects (the host follows them
//! itself, re-checking each hop), so everything above them — the allowlist,
//! pacing, cookies, HAR recording and replay, the wall classifier — is the
//! same for both.
//!
//! Without the `browser-tls` feature there is no browser transport: a browser
//! request fails with an error that names the feature and how to build it.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
#[cfg(feature = "browser-tls")]
use gleaner_browser::tls;
use url::Url;

use super::profile::Profile;
use super::proxies::Proxy;
use super::resolver::{GuardedResolver, NoPublicAddress};
use super::HttpError;

/// A connection pool of one transport.
#[derive(Clone)]
pub enum Wire {
    /// reqwest over rustls, for plain API calls.
    Plain(reqwest::Client),
    /// wreq over BoringSSL with a browser's fingerprint.
    #[cfg(feature = "browser-tls")]
    Browser(tls::Client),
}

/// How a pool is built.
pub struct Build<'a> {
    /// Resolve with the guard (none for an operator's upstream override).
    pub resolver: Option<&'a GuardedResolver>,
    /// TCP connect timeout.
    pub connect: Duration,
    /// The session's proxy, if any.
    pub proxy: Option<&'a Proxy>,
    /// PEM CA certificates trusted beside the public roots.
    pub trusted_pem: &'a [u8],
}

/// An answer's head, with its body still to read.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub content_length: Option<u64>,
    pub body: BoxStream<'static, Result<Bytes, String>>,
}

/// Why no answer came: its message (with the error's causes) and kind.
pub struct Failure {
    pub message: String,
    pub timeout: bool,
    pub connect: bool,
    /// The guard refused every address of the name.
    pub denied: bool,
}

fn proxy_refused(proxy: &Proxy, e: impl std::fmt::Display) -> HttpError {
    HttpError::Transport(format!("proxy {} cannot be used: {e}", proxy.shown))
}

impl Wire {
    /// The plain transport.
    pub fn plain(build: &Build<'_>) -> Result<Wire, HttpError> {
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(build.connect)
            .pool_idle_timeout(Duration::from_secs(30));
        if !build.trusted_pem.is_empty() {
            let roots = reqwest::Certificate::from_pem_bundle(build.trusted_pem)
                .map_err(|e| HttpError::Transport(format!("upstream_ca_file: {e}")))?;
            for root in roots {
                builder = builder.add_root_certificate(root);
            }
        }
        builder = match build.proxy {
            Some(p) => builder.proxy(reqwest::Proxy::all(&p.url).map_err(|e| proxy_refused(p, e))?),
            None => builder.no_proxy(),
        };
        if let Some(resolver) = build.resolver {
            builder = builder.dns_resolver(Arc::new(resolver.clone()));
        }
        builder
            .build()
            .map(Wire::Plain)
            .map_err(|e| HttpError::Transport(format!("cannot build the HTTP client: {e}")))
    }

    /// The browser transport for `profile`'s browser: this binary has none.
    #[cfg(not(feature = "browser-tls"))]
    pub fn browser(_build: &Build<'_>, _profile: &Profile) -> Result<Wire, HttpError> {
        Err(HttpError::Transport(
            crate::features::Missing::new(
                "browser-tls",
                "a browser request (a profile's document, xhr or json)",
            )
            .to_string(),
        ))
    }

    /// The browser transport for `profile`'s browser. Its own default headers
    /// are off: the profile's coherent set is already on the request.
    #[cfg(feature = "browser-tls")]
    pub fn browser(build: &Build<'_>, profile: &Profile) -> Result<Wire, HttpError> {
        let settings = tls::Settings {
            fingerprint: profile.wire,
            resolver: build
                .resolver
                .map(|r| Arc::new(r.clone()) as Arc<dyn tls::Resolve>),
            connect: build.connect,
            proxy: build.proxy.map(|p| p.url.as_str()),
            trusted_pem: build.trusted_pem,
        };
        tls::Client::build(&settings)
            .map(Wire::Browser)
            .map_err(|e| match (&e, build.proxy) {
                (tls::Error::Roots(_), _) => HttpError::Transport(format!("upstream_ca_file: {e}")),
                (tls::Error::Proxy(_), Some(p)) => proxy_refused(p, e),
                _ => HttpError::Transport(format!("cannot build the browser client: {e}")),
            })
    }

    /// Sends one request; the headers are sent as given, in order.
    pub async fn send(
        &self,
        method: &str,
        url: &Url,
        headers: &[(String, String)],
        body: Option<Vec<u8>>,
    ) -> Result<Answer, Failure> {
        match self {
            Wire::Plain(client) => {
                let method = reqwest::Method::from_bytes(method.as_bytes())
                    .map_err(|_| invalid_method(method))?;
                let mut request = client.request(method, url.clone());
                for (name, value) in headers {
                    request = request.header(name.as_str(), value.as_str());
                }
                if let Some(body) = body {
                    request = request.body(body);
                }
                let response = request.send().await.map_err(|e| Failure {
                    timeout: e.is_timeout(),
                    connect: e.is_connect(),
                    ..failure(&e)
                })?;
                Ok(Answer {
                    status: response.status().as_u16(),
                    headers: head(
                        response
                            .headers()
                            .iter()
                            .map(|(n, v)| (n.as_str(), v.as_bytes())),
                    ),
                    content_length: response.content_length(),
                    body: response
                        .bytes_stream()
                        .map(|c| c.map_err(|e| e.to_string()))
                        .boxed(),
                })
            }
            #[cfg(feature = "browser-tls")]
            Wire::Browser(client) => {
                let answer = client
                    .send(method, url.as_str(), headers, body)
                    .await
                    .map_err(|e| Failure {
                        timeout: e.is_timeout(),
                        connect: e.is_connect(),
                        ..failure(&e)
                    })?;
                Ok(Answer {
                    status: answer.status,
                    headers: answer.headers,
                    content_length: answer.content_length,
                    body: answer.body,
                })
            }
        }
    }
}

fn invalid_method(method: &str) -> Failure {
    Failure {
        message: format!("invalid method {method:?}"),
        timeout: false,
        connect: false,
        denied: false,
    }
}

fn head<'a>(headers: impl Iterator<Item = (&'a str, &'a [u8])>) -> Vec<(String, String)> {
    headers
        .map(|(n, v)| (n.to_owned(), String::from_utf8_lossy(v).into_owned()))
        .collect()
}

/// The message of an error with its causes, and whether the guard refused.
fn failure(e: &(dyn std::error::Error + 'static)) -> Failure {
    let mut message = e.to_string();
    let mut denied = false;
    let mut source = e.source();
    while let Some(inner) = source {
        message.push_str(": ");
        message.push_str(&inner.to_string());
        denied |= inner.downcast_ref::<NoPublicAddress>().is_some();
        source = inner.source();
    }
    Failure {
        message,
        timeout: false,
        connect: false,
        denied,
    }
}
