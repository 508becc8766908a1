//! Upstream override: sends a named host's requests to another base URL, keeping
//! path, query and the original Host header. The documented way to aim a plugin at
//! a loopback test server or at staging.

use std::collections::BTreeMap;

use url::Url;

/// Host name → replacement base URL.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    targets: BTreeMap<String, Url>,
}

impl Overrides {
    /// Parses `host → base-url` pairs; each base must be an http(s) URL.
    pub fn new(pairs: &BTreeMap<String, String>) -> Result<Overrides, String> {
        let mut targets = BTreeMap::new();
        for (host, base) in pairs {
            let url = Url::parse(base).map_err(|e| {
                format!("upstream override for {host}: {base:?} is not a URL ({e})")
            })?;
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                return Err(format!(
                    "upstream override for {host}: {base:?} must be an http(s) base URL such as http://127.0.0.1:9000"
                ));
            }
            targets.insert(host.to_ascii_lowercase(), url);
        }
        Ok(Overrides { targets })
    }

    /// Whether no override is configured.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// The rewritten URL for `url` when its host is overridden.
    pub fn rewrite(&self, url: &Url) -> Option<Url> {
        let host = url.host_str()?.to_ascii_lowercase();
        let base = self.targets.get(&host)?;
        let mut target = base.clone();
        let base_path = base.path().trim_end_matches('/');
        target.set_path(&format!("{base_path}{}", url.path()));
        target.set_query(url.query());
        Some(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_host_and_keeps_path_and_query() {
        let pairs = BTreeMap::from([(
            "www.reddit.com".to_owned(),
            "http://127.0.0.1:9000".to_owned(),
        )]);
        let o = Overrides::new(&pairs).unwrap();
        let url = Url::parse("https://www.reddit.com/r/x/about/?raw_json=1").unwrap();
        assert_eq!(
            o.rewrite(&url).unwrap().as_str(),
            "http://127.0.0.1:9000/r/x/about/?raw_json=1"
        );
        assert!(o
            .rewrite(&Url::parse("https://oauth.reddit.com/").unwrap())
            .is_none());
    }

    #[test]
    fn rejects_non_http_base() {
        let pairs = BTreeMap::from([("a".to_owned(), "ftp://x".to_owned())]);
        assert!(Overrides::new(&pairs).is_err());
    }
}
