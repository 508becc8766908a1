//! Per-plugin outbound policy: the allowlist of origins from the manifest, plus limits.

use url::Url;

use crate::manifest::{Limits, Network};

/// One allowed origin: scheme, host (optionally `*.`-prefixed for subdomains) and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    scheme: String,
    host: String,
    wildcard: bool,
    port: u16,
}

impl Origin {
    /// Parses `https://www.example.com`, `https://*.example.com` or `http://example.com:8080`.
    pub fn parse(text: &str) -> Result<Origin, String> {
        let (scheme, rest) = text
            .split_once("://")
            .ok_or("write it as scheme://host, e.g. https://www.example.com")?;
        let scheme = scheme.to_ascii_lowercase();
        let default_port = match scheme.as_str() {
            "https" => 443,
            "http" => 80,
            _ => return Err("the scheme must be http or https".into()),
        };
        let rest = rest.trim_end_matches('/');
        if rest.contains('/') || rest.contains('@') || rest.contains('?') {
            return Err("give only scheme://host[:port], without path, query or user".into());
        }
        let (host, port) = match rest.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || rest.starts_with('[') => (
                h,
                p.parse::<u16>().map_err(|_| "the port must be a number")?,
            ),
            _ => (rest, default_port),
        };
        let (wildcard, host) = match host.strip_prefix("*.") {
            Some(h) => (true, h),
            None => (false, host),
        };
        if host.is_empty() || host.contains('*') {
            return Err("the host must be a name; only a leading `*.` wildcard is allowed".into());
        }
        Ok(Origin {
            scheme,
            host: host.to_ascii_lowercase(),
            wildcard,
            port,
        })
    }

    fn matches(&self, url: &Url) -> bool {
        let Some(host) = url.host_str() else {
            return false;
        };
        let host = host.to_ascii_lowercase();
        let host_ok = if self.wildcard {
            host.len() > self.host.len() + 1
                && host.ends_with(&self.host)
                && host.as_bytes()[host.len() - self.host.len() - 1] == b'.'
        } else {
            host == self.host
        };
        host_ok && url.scheme() == self.scheme && url.port_or_known_default() == Some(self.port)
    }
}

/// The outbound limits of one plugin: the HTTP part of its manifest's `[limits]`.
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// Largest upstream response body, in bytes.
    pub max_response_bytes: usize,
    /// Concurrent requests to one upstream host.
    pub upstream_concurrency: usize,
    /// TCP connect timeout, in ms.
    pub connect_timeout_ms: u64,
    /// Time to the response headers, in ms.
    pub first_byte_timeout_ms: u64,
    /// Total time of one outbound request, body included, in ms.
    pub request_timeout_ms: u64,
    /// Retries on 429/503.
    pub max_retries: u32,
    /// The pace the manifest asks for its hosts.
    pub pace: super::pacing::Pace,
}

impl From<&Limits> for HttpLimits {
    fn from(l: &Limits) -> HttpLimits {
        HttpLimits {
            max_response_bytes: l.max_response_bytes,
            upstream_concurrency: l.upstream_concurrency,
            connect_timeout_ms: l.connect_timeout_ms,
            first_byte_timeout_ms: l.first_byte_timeout_ms,
            request_timeout_ms: l.request_timeout_ms,
            max_retries: l.max_retries,
            pace: super::pacing::Pace {
                min_delay_ms: l.min_delay_ms,
                delay_jitter_ms: l.delay_jitter_ms,
                requests_per_minute: l.requests_per_minute,
            },
        }
    }
}

/// What one plugin may reach and how hard it may push.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The plugin this policy belongs to (scopes overrides and upstream slots).
    pub plugin: String,
    origins: Vec<Origin>,
    any_public_host: bool,
    /// The plugin's outbound limits.
    pub limits: HttpLimits,
}

impl Policy {
    /// Builds the policy from the manifest's network table and limits; an
    /// allowlist entry that is not an origin is refused, naming the entry.
    pub fn new(plugin: &str, network: &Network, limits: &Limits) -> Result<Policy, String> {
        let origins = network
            .allow
            .iter()
            .map(|o| Origin::parse(o).map_err(|e| format!("network.allow entry {o:?}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Policy {
            plugin: plugin.to_owned(),
            origins,
            any_public_host: network.any_public_host,
            limits: limits.into(),
        })
    }

    /// This policy with `origins` allowed too (each `scheme://host[:port]`,
    /// as in a manifest).
    pub fn widened(&self, origins: &[&str]) -> Result<Policy, String> {
        let mut widened = self.clone();
        for origin in origins {
            widened.origins.push(Origin::parse(origin)?);
        }
        Ok(widened)
    }

    /// Checks a URL against the allowlist. An empty allowlist denies everything.
    pub fn check(&self, url: &Url) -> Result<(), String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "scheme {:?} is not allowed; use http or https",
                url.scheme()
            ));
        }
        if self.any_public_host || self.origins.iter().any(|o| o.matches(url)) {
            return Ok(());
        }
        Err(format!(
            "{} is not on this plugin's allowlist; add its origin to [network] allow in the manifest",
            origin_of(url)
        ))
    }
}

/// `scheme://host[:port]` of a URL, for messages.
pub fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: &[&str]) -> Policy {
        let network = Network {
            allow: allow.iter().map(|s| s.to_string()).collect(),
            any_public_host: false,
        };
        Policy::new("test", &network, &Limits::default()).unwrap()
    }

    #[test]
    fn allowlist_matches_scheme_host_and_port() {
        let p = policy(&[
            "https://www.example.com",
            "https://*.example.org",
            "http://api.test:8080",
        ]);
        let ok = |u: &str| p.check(&Url::parse(u).unwrap()).is_ok();
        assert!(ok("https://www.example.com/a?b"));
        assert!(!ok("http://www.example.com/"));
        assert!(!ok("https://www.example.com:8443/"));
        assert!(!ok("https://evil-www.example.com/"));
        assert!(ok("https://de.example.org/"));
        assert!(!ok("https://example.org/"));
        assert!(!ok("https://notexample.org/"));
        assert!(ok("http://api.test:8080/x"));
        assert!(!ok("http://api.test/x"));
    }

    #[test]
    fn bad_origins_are_refused_with_the_entry() {
        let network = Network {
            allow: vec!["ftp://x".into()],
            any_public_host: false,
        };
        let err = Policy::new("test", &network, &Limits::default()).unwrap_err();
        assert!(err.contains("network.allow entry \"ftp://x\""), "{err}");
    }

    #[test]
    fn empty_allowlist_denies_everything() {
        let p = policy(&[]);
        let err = p
            .check(&Url::parse("https://www.example.com/").unwrap())
            .unwrap_err();
        assert!(err.contains("allowlist"), "{err}");
    }
}
