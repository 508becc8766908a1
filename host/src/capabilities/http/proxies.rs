//! Operator-configured proxies: `[proxies] urls = [...]` (or `GLEANER_PROXIES`)
//! for every plugin, `[plugins.<name>] proxies = [...]` for one. A fetch's
//! session keeps one proxy; when a site blocks it (a 403, a 429 or a wall) the
//! proxy is retired for that host for a cool-down and the session moves to the
//! next one. Proxy URLs carry credentials: they are secrets, shown only redacted.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use sha2::Digest;
use url::Url;

use super::cooldowns::{Cooldown, SharedCooldowns};
use super::credentials::redact_url;
use gleaner_jobs::clock::now_ms;

/// A proxy's id between replicas: a digest of its URL, which holds credentials.
pub fn proxy_id(url: &str) -> String {
    hex::encode(&sha2::Sha256::digest(url.as_bytes())[..16])
}

/// The proxy settings, as the configuration gives them.
#[derive(Debug, Clone, Default)]
pub struct ProxySettings {
    /// Proxies for every plugin without its own.
    pub urls: Vec<String>,
    /// A plugin's own proxies.
    pub per_plugin: BTreeMap<String, Vec<String>>,
    /// How long a proxy a host blocked is left out for that host.
    pub cooldown: Duration,
}

/// One proxy.
#[derive(Debug, Clone)]
pub struct Proxy {
    /// The URL, credentials included: for the HTTP client only.
    pub url: String,
    /// The URL with its credentials replaced, for logs and messages.
    pub shown: String,
}

/// Checks one proxy URL: `http://`, `https://`, `socks5://` or `socks5h://`, with a host.
pub fn parse(text: &str) -> Result<Proxy, String> {
    let url = Url::parse(text.trim()).map_err(|e| {
        format!(
            "{:?} is not a proxy URL ({e}); write it as scheme://[user:password@]host:port",
            redact_url(text)
        )
    })?;
    if !matches!(url.scheme(), "http" | "https" | "socks5" | "socks5h") {
        return Err(format!(
            "{} uses scheme {:?}; proxies are http://, https://, socks5:// or socks5h://",
            redact_url(text),
            url.scheme()
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("{} has no host", redact_url(text)));
    }
    Ok(Proxy {
        url: url.to_string(),
        shown: redact_url(url.as_str()),
    })
}

/// The proxies of the server and which hosts each one is retired for.
#[derive(Default)]
pub struct Proxies {
    global: Vec<Proxy>,
    per_plugin: BTreeMap<String, Vec<Proxy>>,
    cooldown: Duration,
    /// (proxy URL, host) → until when the proxy is left out for the host.
    retired: Mutex<HashMap<(String, String), Instant>>,
    /// Where the next session starts in its list, so sessions spread over the proxies.
    turn: AtomicUsize,
    /// The cluster that hears of each retirement, in cluster mode.
    shared: OnceLock<Arc<dyn SharedCooldowns>>,
}

impl Proxies {
    /// Checks every URL; an invalid one is refused, named (redacted).
    pub fn new(settings: ProxySettings) -> Result<Proxies, String> {
        let parse_all =
            |urls: &[String]| urls.iter().map(|u| parse(u)).collect::<Result<Vec<_>, _>>();
        let mut per_plugin = BTreeMap::new();
        for (plugin, urls) in &settings.per_plugin {
            per_plugin.insert(
                plugin.clone(),
                parse_all(urls).map_err(|e| format!("[plugins.{plugin}] proxies: {e}"))?,
            );
        }
        Ok(Proxies {
            global: parse_all(&settings.urls).map_err(|e| format!("proxies: {e}"))?,
            per_plugin,
            cooldown: settings.cooldown,
            retired: Mutex::new(HashMap::new()),
            turn: AtomicUsize::new(0),
            shared: OnceLock::new(),
        })
    }

    /// The proxies `plugin` uses: its own, else the server's.
    pub fn for_plugin(&self, plugin: &str) -> &[Proxy] {
        self.per_plugin.get(plugin).unwrap_or(&self.global)
    }

    fn is_retired(&self, proxy: &str, host: &str) -> bool {
        let retired = self.retired.lock().unwrap_or_else(PoisonError::into_inner);
        retired
            .get(&(proxy.to_owned(), host.to_owned()))
            .is_some_and(|until| Instant::now() < *until)
    }

    /// The proxy for a request of `plugin` to `host`: the session's `current`
    /// one while the host has not retired it, else the next one in turn that
    /// the host has not retired. None when the plugin has no proxies, or the
    /// host has retired them all.
    pub fn pick(&self, plugin: &str, host: &str, current: Option<&str>) -> Option<&Proxy> {
        let list = self.for_plugin(plugin);
        if list.is_empty() {
            return None;
        }
        if let Some(current) = current {
            if let Some(p) = list.iter().find(|p| p.url == current) {
                if !self.is_retired(&p.url, host) {
                    return Some(p);
                }
            }
        }
        let start = match current.and_then(|c| list.iter().position(|p| p.url == c)) {
            Some(at) => at + 1,
            None => self.turn.fetch_add(1, Ordering::Relaxed),
        };
        (0..list.len())
            .map(|i| &list[(start + i) % list.len()])
            .find(|p| !self.is_retired(&p.url, host))
    }

    /// Tells `shared` of each retirement from now on (a cluster replica's).
    pub fn share(&self, shared: Arc<dyn SharedCooldowns>) {
        let _ = self.shared.set(shared);
    }

    /// Leaves `proxy` out for `host` for the cool-down (on every replica, in a cluster).
    pub fn retire(&self, proxy: &Proxy, host: &str) {
        tracing::info!(proxy = %proxy.shown, host, cooldown_s = self.cooldown.as_secs(), "proxy blocked by the site; rotating");
        let mut retired = self.retired.lock().unwrap_or_else(PoisonError::into_inner);
        retired.insert(
            (proxy.url.clone(), host.to_owned()),
            Instant::now() + self.cooldown,
        );
        drop(retired);
        if let Some(shared) = self.shared.get() {
            shared.announce(Cooldown::Proxy {
                proxy: proxy_id(&proxy.url),
                host: host.to_owned(),
                until_ms: now_ms() + self.cooldown.as_millis() as i64,
            });
        }
    }

    /// Leaves the proxy with id `proxy` out for `host` until `until_ms`, as
    /// another replica asked; a proxy this replica does not have is ignored.
    pub fn retire_id(&self, proxy: &str, host: &str, until_ms: i64) {
        let left = until_ms - now_ms();
        if left <= 0 {
            return;
        }
        let all = self.global.iter().chain(self.per_plugin.values().flatten());
        let Some(found) = all.into_iter().find(|p| proxy_id(&p.url) == proxy) else {
            return;
        };
        let until = Instant::now() + Duration::from_millis(left as u64);
        let mut retired = self.retired.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (found.url.clone(), host.to_owned());
        if retired.get(&key).is_none_or(|t| *t < until) {
            retired.insert(key, until);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(urls: &[&str]) -> Proxies {
        Proxies::new(ProxySettings {
            urls: urls.iter().map(|u| (*u).to_owned()).collect(),
            per_plugin: BTreeMap::from([(
                "own".to_owned(),
                vec!["socks5://p:q@own.example:1080".to_owned()],
            )]),
            cooldown: Duration::from_secs(60),
        })
        .unwrap()
    }

    #[test]
    fn urls_are_checked_and_shown_without_credentials() {
        let p = parse("http://user:s3cret@proxy.example:3128").unwrap();
        assert!(
            p.url.contains("s3cret") && !p.shown.contains("s3cret"),
            "{}",
            p.shown
        );
        assert!(parse("ftp://proxy.example")
            .unwrap_err()
            .contains("http://, https://, socks5://"));
        let e = parse("not a url with s3cret").unwrap_err();
        assert!(e.contains("scheme://"), "{e}");
    }

    #[test]
    fn a_blocked_proxy_is_left_out_for_that_host_only() {
        let all = proxies(&["http://a.example:1", "http://b.example:1"]);
        let first = all.pick("p", "site.example", None).unwrap().clone();
        assert_eq!(
            all.pick("p", "site.example", Some(&first.url)).unwrap().url,
            first.url,
            "sticky"
        );
        all.retire(&first, "site.example");
        let next = all.pick("p", "site.example", Some(&first.url)).unwrap();
        assert_ne!(next.url, first.url);
        assert_eq!(
            all.pick("p", "other.example", Some(&first.url))
                .unwrap()
                .url,
            first.url
        );
        let second = next.clone();
        all.retire(&second, "site.example");
        assert!(
            all.pick("p", "site.example", Some(&second.url)).is_none(),
            "all retired"
        );
        assert_eq!(all.for_plugin("own").len(), 1, "a plugin's own list wins");
        assert!(proxies(&[]).pick("p", "x", None).is_none());
    }
}
