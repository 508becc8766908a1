//! DNS resolution with the SSRF guard: the host resolves names itself and hands
//! the connector only the addresses that passed the guard. The connector connects
//! to exactly those addresses; there is no second lookup between the check and
//! the connection, so a name that rebinds to a private address after the check
//! is never reached.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

use super::ssrf;

/// The future a [`Lookup`] returns.
pub type LookupFuture = Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send>>;

/// Turns a host name into addresses. The system resolver in production; tests
/// inject their own.
pub trait Lookup: Send + Sync {
    /// The addresses of `host`.
    fn lookup(&self, host: &str) -> LookupFuture;
}

/// The operating system's resolver.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(&self, host: &str) -> LookupFuture {
        let host = host.to_owned();
        Box::pin(async move {
            Ok(tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .map(|a| a.ip())
                .collect())
        })
    }
}

/// Which addresses may be connected to: [`ssrf::is_public`] in production.
pub type AddressFilter = fn(IpAddr) -> bool;

/// A resolver that drops every address the filter refuses and fails when none is left.
#[derive(Clone)]
pub struct GuardedResolver {
    lookup: Arc<dyn Lookup>,
    allowed: AddressFilter,
}

impl Default for GuardedResolver {
    fn default() -> Self {
        GuardedResolver::new(Arc::new(SystemLookup), ssrf::is_public)
    }
}

impl GuardedResolver {
    /// A resolver over `lookup` that passes only addresses `allowed` accepts.
    pub fn new(lookup: Arc<dyn Lookup>, allowed: AddressFilter) -> GuardedResolver {
        GuardedResolver { lookup, allowed }
    }

    /// Whether the guard lets `ip` through.
    pub fn allows(&self, ip: IpAddr) -> bool {
        (self.allowed)(ip)
    }

    /// Checks that `host` resolves to a public address, for requests a proxy
    /// makes: the proxy resolves the name itself, so this cannot pin the
    /// address it connects to, only refuse names that point inside.
    pub async fn check_public(&self, host: &str) -> Result<(), String> {
        self.guarded(host.to_owned())
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// The addresses of `host` that pass the filter, or why there are none.
    fn guarded(
        &self,
        host: String,
    ) -> impl Future<Output = Result<Vec<SocketAddr>, Box<dyn std::error::Error + Send + Sync>>>
    {
        let lookup = self.lookup.clone();
        let allowed = self.allowed;
        async move {
            let resolved = lookup.lookup(&host).await?;
            let (pass, blocked): (Vec<IpAddr>, Vec<IpAddr>) =
                resolved.into_iter().partition(|ip| allowed(*ip));
            if pass.is_empty() {
                let why = blocked
                    .first()
                    .map(|ip| match ssrf::check(*ip) {
                        Err(b) => format!(" ({ip} is {b})"),
                        Ok(()) => format!(" ({ip} is not allowed)"),
                    })
                    .unwrap_or_default();
                return Err(Box::new(NoPublicAddress { host, why }) as _);
            }
            Ok(pass.into_iter().map(|ip| SocketAddr::new(ip, 0)).collect())
        }
    }
}

/// The typed error of a name with no allowed address, so callers need not read messages.
#[derive(Debug, thiserror::Error)]
#[error("{host} resolves to no public address{why}")]
pub struct NoPublicAddress {
    host: String,
    why: String,
}

/// The guard for the plain (reqwest) transport.
impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let resolving = self.guarded(name.as_str().to_owned());
        Box::pin(async move {
            let addrs: reqwest::dns::Addrs = Box::new(resolving.await?.into_iter());
            Ok(addrs)
        })
    }
}

/// The same guard for the browser (wreq) transport.
#[cfg(feature = "browser-tls")]
impl gleaner_browser::tls::Resolve for GuardedResolver {
    fn resolve(&self, name: gleaner_browser::tls::Name) -> gleaner_browser::tls::Resolving {
        let resolving = self.guarded(name.as_str().to_owned());
        Box::pin(async move {
            let addrs: gleaner_browser::tls::Addrs = Box::new(resolving.await?.into_iter());
            Ok(addrs)
        })
    }
}
