//! Clients, and how much each may ask at once. A request counts against its
//! API key and against its client address, each with a limit of requests in
//! flight; beyond either, the answer is 429 at once, with `Retry-After` and
//! the limit's name, before any plugin pool is touched. So one key (or one
//! address) flooding slow routes holds at most its own share of the server.
//!
//! The client address is the connection's peer, with IPv6 clients keyed by
//! their /64 (one host owns a whole /64). Behind a reverse proxy every
//! connection comes from the proxy: listing it in `trusted_proxies` makes the
//! address the right-most `X-Forwarded-For` entry that is not itself a
//! trusted proxy. Off by default: a forwarded header from anyone else is
//! ignored, since a client could write any address there.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::http::HeaderMap;

use crate::error::ApiError;

/// Who a request counts against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Client {
    /// The API key it showed (its index among the configured keys).
    pub key: Option<usize>,
    /// Its address (IPv6 by /64).
    pub address: Option<IpAddr>,
}

impl Client {
    /// Who `request` counts against: the key it showed, and its address (the
    /// connection's peer, or what a trusted proxy forwarded), IPv6 by /64.
    pub fn of<B>(
        key: Option<usize>,
        request: &axum::http::Request<B>,
        trusted: &TrustedProxies,
    ) -> Client {
        Client {
            key,
            address: request
                .extensions()
                .get::<Peer>()
                .map(|peer| trusted.client_address(peer.0.ip(), request.headers()))
                .map(counted_address),
        }
    }
}

/// Proxies whose `X-Forwarded-For` is believed: addresses or CIDR blocks.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies {
    nets: Vec<ipnet::IpNet>,
}

impl TrustedProxies {
    /// Parses `entries` (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`); an entry that
    /// is neither is refused with its text.
    pub fn parse(entries: &[String]) -> Result<TrustedProxies, String> {
        let nets = entries
            .iter()
            .map(|e| {
                let e = e.trim();
                e.parse::<ipnet::IpNet>()
                    .or_else(|_| e.parse::<IpAddr>().map(ipnet::IpNet::from))
                    .map_err(|_| {
                        format!(
                            "trusted_proxies entry {e:?} is neither an IP address nor a CIDR block; \
                             use e.g. 10.0.0.5 or 10.0.0.0/8"
                        )
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(TrustedProxies { nets })
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.nets.iter().any(|n| n.contains(&ip))
    }

    /// The client's address: the peer's, or, when the peer is a trusted
    /// proxy, the right-most `X-Forwarded-For` address no trusted proxy holds.
    pub fn client_address(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        let forwarded = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|a| parse_forwarded(a.trim()))
            .collect::<Vec<_>>();
        forwarded
            .into_iter()
            .rev()
            .find(|ip| !self.trusts(*ip))
            .unwrap_or(peer)
    }
}

/// An `X-Forwarded-For` entry: an address, maybe with a port or brackets.
fn parse_forwarded(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

/// The address a client counts under: IPv4 as it is (IPv4-mapped IPv6 too),
/// IPv6 by its /64.
pub fn counted_address(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// The address of the peer a request came from, in each request's
/// extensions (the server puts it there).
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub std::net::SocketAddr);

/// Requests in flight per key of type `K`, under a limit.
#[derive(Debug)]
struct Counts<K> {
    limit: usize,
    counts: Arc<Mutex<HashMap<K, usize>>>,
}

/// One request counted under a key; uncounted when dropped.
#[derive(Debug)]
struct Counted<K: Eq + Hash> {
    key: K,
    counts: Arc<Mutex<HashMap<K, usize>>>,
}

impl<K: Eq + Hash + Clone> Counts<K> {
    fn new(limit: usize) -> Counts<K> {
        Counts {
            limit: limit.max(1),
            counts: Arc::default(),
        }
    }

    fn enter(&self, key: K) -> Option<Counted<K>> {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let count = counts.entry(key.clone()).or_insert(0);
        if *count >= self.limit {
            return None;
        }
        *count += 1;
        Some(Counted {
            key,
            counts: self.counts.clone(),
        })
    }
}

impl<K: Eq + Hash + Clone> Counts<K> {
    /// Counts a request under `key` (none: nothing to count), or refuses it
    /// with a 429 saying `message` of the limit, counted under `limit` in
    /// the metrics.
    fn admit(
        &self,
        key: Option<K>,
        limit: &'static str,
        message: impl FnOnce(usize) -> String,
    ) -> Result<Option<Counted<K>>, ApiError> {
        let Some(key) = key else {
            return Ok(None);
        };
        match self.enter(key) {
            Some(counted) => Ok(Some(counted)),
            None => {
                crate::telemetry::metrics::client_refused(limit);
                Err(ApiError::TooManyRequests(message(self.limit)))
            }
        }
    }
}

impl<K: Eq + Hash> Drop for Counted<K> {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = counts.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

/// The limits of requests in flight per API key and per client address.
#[derive(Debug)]
pub struct ClientLimits {
    per_key: Counts<usize>,
    per_address: Counts<IpAddr>,
}

/// A request's place under its client's limits, given back when dropped.
#[derive(Debug)]
pub struct ClientSlot {
    _key: Option<Counted<usize>>,
    _address: Option<Counted<IpAddr>>,
}

impl ClientLimits {
    /// At most `per_key` requests in flight per API key, `per_address` per client address.
    pub fn new(per_key: usize, per_address: usize) -> ClientLimits {
        ClientLimits {
            per_key: Counts::new(per_key),
            per_address: Counts::new(per_address),
        }
    }

    /// Counts a request of `client`, or refuses it with a 429 naming the limit.
    pub fn enter(&self, client: &Client) -> Result<ClientSlot, ApiError> {
        let key = self.per_key.admit(client.key, "key", |n| {
            format!(
                "this API key already has {n} requests in flight (max_in_flight_per_key); \
                 wait for one to finish before sending another, or ask the operator to raise \
                 GLEANER_MAX_IN_FLIGHT_PER_KEY"
            )
        })?;
        let address = self.per_address.admit(client.address, "address", |n| {
            format!(
                "this client address already has {n} requests in flight (max_in_flight_per_client); \
                 wait for one to finish before sending another, or ask the operator to raise \
                 GLEANER_MAX_IN_FLIGHT_PER_CLIENT (behind a reverse proxy, list it in \
                 GLEANER_TRUSTED_PROXIES so each client is counted apart)"
            )
        })?;
        Ok(ClientSlot {
            _key: key,
            _address: address,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn keys_and_addresses_have_their_own_limits() {
        let limits = ClientLimits::new(2, 3);
        let a = |key, addr: &str| Client {
            key,
            address: Some(ip(addr)),
        };
        let first = limits.enter(&a(Some(0), "10.0.0.1")).unwrap();
        let _second = limits.enter(&a(Some(0), "10.0.0.2")).unwrap();
        let refused = limits.enter(&a(Some(0), "10.0.0.3")).unwrap_err();
        assert!(
            refused.to_string().contains("max_in_flight_per_key"),
            "{refused}"
        );
        let _third = limits.enter(&a(Some(1), "10.0.0.1")).unwrap();
        let _fourth = limits.enter(&a(Some(2), "10.0.0.1")).unwrap();
        let refused = limits.enter(&a(Some(3), "10.0.0.1")).unwrap_err();
        assert!(
            refused.to_string().contains("max_in_flight_per_client"),
            "{refused}"
        );
        drop(first);
        assert!(
            limits.enter(&a(Some(3), "10.0.0.1")).is_ok(),
            "a finished request frees its place"
        );
    }

    #[test]
    fn ipv6_clients_count_by_their_64() {
        assert_eq!(
            counted_address(ip("2001:db8:1:2:aaaa::1")),
            ip("2001:db8:1:2::")
        );
        assert_eq!(
            counted_address(ip("2001:db8:1:2:ffff::9")),
            ip("2001:db8:1:2::")
        );
        assert_eq!(counted_address(ip("::ffff:10.1.2.3")), ip("10.1.2.3"));
        assert_eq!(counted_address(ip("10.1.2.3")), ip("10.1.2.3"));
    }

    #[test]
    fn forwarded_addresses_are_believed_only_from_trusted_proxies() {
        let trusted = TrustedProxies::parse(&["10.0.0.0/8".into(), "192.0.2.7".into()]).unwrap();
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            "203.0.113.9, 198.51.100.4, 10.1.1.1".parse().unwrap(),
        );
        assert_eq!(
            trusted.client_address(ip("10.0.0.2"), &h),
            ip("198.51.100.4")
        );
        assert_eq!(
            trusted.client_address(ip("192.0.2.7"), &h),
            ip("198.51.100.4")
        );
        assert_eq!(
            trusted.client_address(ip("203.0.113.50"), &h),
            ip("203.0.113.50"),
            "untrusted peer"
        );
        assert_eq!(
            trusted.client_address(ip("10.0.0.2"), &HeaderMap::new()),
            ip("10.0.0.2")
        );
        assert!(TrustedProxies::parse(&["nope".into()])
            .unwrap_err()
            .contains("nope"));
        assert_eq!(
            TrustedProxies::default().client_address(ip("10.0.0.2"), &h),
            ip("10.0.0.2")
        );
    }
}
