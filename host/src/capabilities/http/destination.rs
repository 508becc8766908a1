//! Which destinations may be reached: http(s) URLs whose host is not a
//! non-public address, written as such or resolved.

use std::net::IpAddr;

use url::Url;

use super::{resolver, ssrf};
use super::{HttpError, HttpService};

impl HttpService {
    /// Whether `url` is a destination `plugin` (or the host itself, as
    /// `webhooks`) may reach, checked before anything is sent: an http(s) URL
    /// whose host is not a non-public address, written as such or resolved;
    /// an upstream override for it counts as reachable, as for plugins.
    pub async fn check_destination(&self, plugin: &str, url: &Url) -> Result<(), String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "scheme {:?} is not allowed; use http or https",
                url.scheme()
            ));
        }
        if self.overrides.rewrite(plugin, url).is_some() {
            return Ok(());
        }
        check_ip_literal(url, &self.resolver).map_err(|e| e.to_string())?;
        match url.host() {
            Some(url::Host::Domain(host)) if self.replay.is_none() => {
                self.resolver.check_public(host).await
            }
            Some(_) => Ok(()),
            None => Err(format!("{url} has no host")),
        }
    }
}

/// Refuses a URL whose host is an address `resolver`'s guard refuses, written
/// as such: an IP literal, or `localhost` (and its subdomains, which resolve
/// to loopback). DNS names are checked by the resolver as they resolve.
pub(super) fn check_ip_literal(
    url: &Url,
    resolver: &resolver::GuardedResolver,
) -> Result<(), HttpError> {
    let ip: Option<IpAddr> = match url.host() {
        Some(url::Host::Ipv4(v4)) => Some(v4.into()),
        Some(url::Host::Ipv6(v6)) => Some(v6.into()),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            (name == "localhost" || name.ends_with(".localhost"))
                .then_some(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST))
        }
        None => None,
    };
    match ip {
        Some(ip) if !resolver.allows(ip) => {
            let why = match ssrf::check(ip) {
                Err(blocked) => blocked.to_string(),
                Ok(()) => "not an address this service may reach".to_owned(),
            };
            Err(HttpError::Denied(format!(
                "{} is {why}; plugins may only reach public addresses{}",
                url.host_str().unwrap_or_default(),
                ssrf::LOCAL_SITE_HINT
            )))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_private_addresses_are_denied() {
        for u in [
            "http://127.0.0.1/",
            "http://[::1]/",
            "http://169.254.169.254/latest",
            "http://10.0.0.1/",
        ] {
            assert!(
                matches!(
                    check_ip_literal(&Url::parse(u).unwrap(), &Default::default()),
                    Err(HttpError::Denied(_))
                ),
                "{u}"
            );
        }
        let public = Url::parse("http://93.184.216.34/").unwrap();
        assert!(check_ip_literal(&public, &Default::default()).is_ok());
    }

    #[test]
    fn a_guard_for_local_receivers_lets_loopback_and_private_through_but_not_link_local() {
        let local = resolver::GuardedResolver::new(
            std::sync::Arc::new(resolver::SystemLookup),
            ssrf::is_public_or_local,
        );
        for u in [
            "http://127.0.0.1:9000/",
            "http://localhost/",
            "http://10.0.0.1/",
            "http://[fd00::1]/",
        ] {
            assert!(
                check_ip_literal(&Url::parse(u).unwrap(), &local).is_ok(),
                "{u}"
            );
        }
        let metadata = Url::parse("http://169.254.169.254/latest").unwrap();
        assert!(matches!(
            check_ip_literal(&metadata, &local),
            Err(HttpError::Denied(_))
        ));
    }
}
