//! Upstream override: sends a named host's requests to another base URL, keeping
//! path, query and the original Host header. The documented way to aim a plugin at
//! a loopback test server or at staging.
//!
//! An override is either scoped to one plugin (`plugin:host=base-url`) or applies
//! to every plugin (`host=base-url`). Overridden requests skip the SSRF guard,
//! since their target is chosen by the operator, so an unscoped override also
//! redirects website processors and redirects from any site to that host.

use std::collections::BTreeMap;

use url::Url;

/// (plugin, host) → replacement base URL; plugin `None` applies to all plugins.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    targets: BTreeMap<(Option<String>, String), Url>,
}

impl Overrides {
    /// Parses `[plugin:]host → base-url` pairs; each base must be an http(s) URL.
    pub fn new(pairs: &BTreeMap<String, String>) -> Result<Overrides, String> {
        let mut targets = BTreeMap::new();
        for (key, base) in pairs {
            let (plugin, host) = match key.split_once(':') {
                Some((plugin, host)) => {
                    crate::manifest::check_plugin_name(plugin).map_err(|e| {
                        format!("upstream override {key:?}: write plugin:host, where {e}")
                    })?;
                    (Some(plugin.to_owned()), host)
                }
                None => (None, key.as_str()),
            };
            if host.is_empty() || host.contains(['/', '@', ' ']) {
                return Err(format!(
                    "upstream override {key:?}: write host=base-url or plugin:host=base-url, e.g. www.reddit.com=http://127.0.0.1:9000"
                ));
            }
            let url = Url::parse(base)
                .map_err(|e| format!("upstream override for {key}: {base:?} is not a URL ({e})"))?;
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                return Err(format!(
                    "upstream override for {key}: {base:?} must be an http(s) base URL such as http://127.0.0.1:9000"
                ));
            }
            targets.insert((plugin, host.to_ascii_lowercase()), url);
        }
        Ok(Overrides { targets })
    }

    /// Whether no override is configured.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// The rewritten URL for `url` when its host is overridden for `plugin`
    /// (a scoped override first, then an unscoped one).
    pub fn rewrite(&self, plugin: &str, url: &Url) -> Option<Url> {
        let host = url.host_str()?.to_ascii_lowercase();
        let base = self
            .targets
            .get(&(Some(plugin.to_owned()), host.clone()))
            .or_else(|| self.targets.get(&(None, host)))?;
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
            o.rewrite("any", &url).unwrap().as_str(),
            "http://127.0.0.1:9000/r/x/about/?raw_json=1"
        );
        assert!(o
            .rewrite("any", &Url::parse("https://oauth.reddit.com/").unwrap())
            .is_none());
    }

    #[test]
    fn scoped_overrides_apply_to_their_plugin_only() {
        let pairs = BTreeMap::from([
            (
                "forum-site:www.reddit.com".to_owned(),
                "http://127.0.0.1:9000".to_owned(),
            ),
            ("example.com".to_owned(), "http://127.0.0.1:9001".to_owned()),
            (
                "forum-site:example.com".to_owned(),
                "http://127.0.0.1:9002".to_owned(),
            ),
        ]);
        let o = Overrides::new(&pairs).unwrap();
        let reddit = Url::parse("https://www.reddit.com/r/x").unwrap();
        assert!(o.rewrite("forum-site", &reddit).is_some());
        assert!(o.rewrite("domain-to-asset", &reddit).is_none());
        let example = Url::parse("https://example.com/").unwrap();
        assert_eq!(
            o.rewrite("forum-site", &example).unwrap().port(),
            Some(9002)
        );
        assert_eq!(
            o.rewrite("wol-meta-info", &example).unwrap().port(),
            Some(9001)
        );
    }

    #[test]
    fn rejects_bad_keys_and_bases() {
        for (key, base) in [
            ("a", "ftp://x"),
            ("../x:a.com", "http://127.0.0.1:1"),
            ("p:", "http://127.0.0.1:1"),
            ("a/b", "http://127.0.0.1:1"),
        ] {
            let pairs = BTreeMap::from([(key.to_owned(), base.to_owned())]);
            assert!(Overrides::new(&pairs).is_err(), "{key}={base}");
        }
    }
}
