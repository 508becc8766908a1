//! DNS resolution with the SSRF guard: the host resolves names itself and hands
//! the connector only the public addresses it found.

use std::net::SocketAddr;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::ssrf;

/// A resolver that drops every non-public address and fails when none is left.
#[derive(Debug, Clone, Copy, Default)]
pub struct PublicOnlyResolver;

impl Resolve for PublicOnlyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let resolved: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let (public, blocked): (Vec<_>, Vec<_>) =
                resolved.into_iter().partition(|a| ssrf::is_public(a.ip()));
            if public.is_empty() {
                let why = blocked
                    .first()
                    .and_then(|a| ssrf::check(a.ip()).err())
                    .map(|b| format!(" ({} is {b})", blocked[0].ip()))
                    .unwrap_or_default();
                return Err(format!("{host} resolves to no public address{why}").into());
            }
            let addrs: Addrs = Box::new(public.into_iter());
            Ok(addrs)
        })
    }
}
