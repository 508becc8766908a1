//! Browser requests on the wire: BoringSSL through `wreq`, with a browser's
//! TLS ClientHello (cipher and extension order, GREASE, ALPN) and HTTP/2
//! settings (SETTINGS frame, pseudo-header order, window update), from
//! `wreq-util`'s emulation of one [`Fingerprint`].
//!
//! A [`Client`] is a connection pool built from [`Settings`]: the resolver it
//! is given (the server's SSRF guard), a proxy, extra root certificates, a
//! connect timeout, and no redirects (the server follows them itself). Its
//! own default headers are off: the server puts a browser profile's coherent
//! set on each request. [`Client::send`] turns an answer into plain data
//! ([`Answer`]) and a failure into an [`Error`] whose causes are its sources.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;

pub use wreq::dns::{Addrs, Name, Resolve, Resolving};

use crate::Fingerprint;

/// How a [`Client`] is built.
pub struct Settings<'a> {
    /// The browser whose fingerprint the requests carry.
    pub fingerprint: Fingerprint,
    /// Resolves names (the server's guard); none for the system's resolver.
    pub resolver: Option<Arc<dyn Resolve>>,
    /// TCP connect timeout.
    pub connect: Duration,
    /// The proxy URL, credentials included, if any.
    pub proxy: Option<&'a str>,
    /// PEM CA certificates trusted beside the public roots.
    pub trusted_pem: &'a [u8],
}

/// Why a client could not be built, or a request got no answer. Each kind
/// shows as wreq's error, whose causes are its sources.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The extra root certificates cannot be read.
    #[error(transparent)]
    Roots(wreq::Error),
    /// The proxy cannot be used.
    #[error(transparent)]
    Proxy(wreq::Error),
    /// The client cannot be built.
    #[error(transparent)]
    Build(wreq::Error),
    /// Not an HTTP method.
    #[error("invalid method {0:?}")]
    Method(String),
    /// The request got no answer.
    #[error(transparent)]
    Send(wreq::Error),
}

impl Error {
    /// Whether the request ran out of time.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Error::Send(e) if e.is_timeout())
    }

    /// Whether no connection could be made, to the site or through the proxy.
    pub fn is_connect(&self) -> bool {
        matches!(self, Error::Send(e) if e.is_connect() || e.is_proxy_connect())
    }
}

/// An answer's head, with its body still to read.
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The headers, in the order received; values that are not UTF-8 read lossily.
    pub headers: Vec<(String, String)>,
    /// `Content-Length`, when announced.
    pub content_length: Option<u64>,
    /// The body, decoded, as it arrives; an error as its message.
    pub body: BoxStream<'static, Result<Bytes, String>>,
}

/// A connection pool whose requests carry one browser's fingerprint.
#[derive(Clone)]
pub struct Client(wreq::Client);

impl Client {
    /// The pool `settings` describe.
    pub fn build(settings: &Settings<'_>) -> Result<Client, Error> {
        let emulation = wreq_util::Emulation::builder()
            .profile(match settings.fingerprint {
                Fingerprint::Chrome149 => wreq_util::Profile::Chrome149,
                Fingerprint::Firefox151 => wreq_util::Profile::Firefox151,
            })
            .headers(false)
            .build();
        let mut builder = wreq::Client::builder()
            .emulation(emulation)
            .redirect(wreq::redirect::Policy::none())
            .connect_timeout(settings.connect)
            .pool_idle_timeout(Duration::from_secs(30))
            .gzip(true)
            .brotli(true)
            .zstd(true);
        if !settings.trusted_pem.is_empty() {
            let store = wreq::tls::trust::CertStore::builder()
                .add_der_certs(webpki_root_certs::TLS_SERVER_ROOT_CERTS)
                .add_stack_pem_certs(settings.trusted_pem)
                .build()
                .map_err(Error::Roots)?;
            builder = builder.tls_cert_store(store);
        }
        builder = match settings.proxy {
            Some(url) => builder.proxy(wreq::Proxy::all(url).map_err(Error::Proxy)?),
            None => builder.no_proxy(),
        };
        if let Some(resolver) = &settings.resolver {
            builder = builder.dns_resolver(resolver.clone());
        }
        builder.build().map(Client).map_err(Error::Build)
    }

    /// Sends one request; the headers are sent as given, in order.
    pub async fn send(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: Option<Vec<u8>>,
    ) -> Result<Answer, Error> {
        let method = wreq::Method::from_bytes(method.as_bytes())
            .map_err(|_| Error::Method(method.to_owned()))?;
        let mut request = self.0.request(method, url);
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if let Some(body) = body {
            request = request.body(body);
        }
        let response = request.send().await.map_err(Error::Send)?;
        Ok(Answer {
            status: response.status().as_u16(),
            headers: response
                .headers()
                .iter()
                .map(|(n, v)| {
                    let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
                    (n.as_str().to_owned(), value)
                })
                .collect(),
            content_length: response.content_length(),
            body: response
                .bytes_stream()
                .map(|c| c.map_err(|e| e.to_string()))
                .boxed(),
        })
    }
}
