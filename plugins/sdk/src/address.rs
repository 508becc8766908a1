//! The user's query as an address on a source's site.
//!
//! A source declares its site once, as a [`Site`]: what its addresses are
//! called, the hosts they are on and the URL forms it accepts. [`Site::read`]
//! reads a pasted URL into an [`Address`] — `https://` added when no scheme is
//! given, http(s) only, the host lower-cased without its trailing dot or
//! `www.` — and every refusal names what was wrong, then lists the accepted
//! forms. What the path means (which segment is the id, short links, bare ids)
//! stays the source's.
//!
//! ```
//! use gleaner_sdk::address::Site;
//!
//! const SITE: Site = Site {
//!     name: "an Example Shop address",
//!     hosts: &["shop.example", "*.shop.example.org"],
//!     forms: "use a product page such as https://shop.example/p/42",
//! };
//!
//! let address = SITE.read("WWW.Shop.Example./p/42/?ref=mail#top").unwrap();
//! assert_eq!(address.host, "shop.example");
//! assert_eq!(address.segments(), ["p", "42"]);
//! assert_eq!(address.param("ref").as_deref(), Some("mail"));
//! assert_eq!(
//!     SITE.read("https://elsewhere.example/p/42").unwrap_err(),
//!     "\"https://elsewhere.example/p/42\" is not an Example Shop address; \
//!      use a product page such as https://shop.example/p/42"
//! );
//! ```

use std::fmt::Display;

use ::url::Url;

/// A source's site: the hosts of its addresses and the URL forms it accepts.
#[derive(Debug, Clone, Copy)]
pub struct Site {
    /// What the site's addresses are, as a refusal of another site's says it,
    /// article included: a query on another host "is not `a GetYourGuide
    /// address`".
    pub name: &'static str,
    /// The site's hosts, without `www.` (which every host may carry):
    /// `cars.com` is that host only, `*.classpass.com` is classpass.com and
    /// any subdomain of it, `*.getyourguide.*` is getyourguide under any
    /// country's domain (one or two labels of two or three letters: `.de`,
    /// `.co.uk`) and any subdomain of those.
    pub hosts: &'static [&'static str],
    /// The accepted forms, ending every refusal: "use a product page such as
    /// `https://shop.example/p/42`".
    pub forms: &'static str,
}

/// A query read as a web address on a site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    /// The host, lower case, without its trailing dot or `www.`.
    pub host: String,
    /// The parsed URL, as given (but for the added scheme).
    pub url: Url,
}

/// Why a query is not an address on a site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The query is empty.
    Empty,
    /// The query is not a URL: it has neither a dot nor a slash, or the URL
    /// standard cannot read it.
    NotUrl,
    /// The URL is not an http(s) one.
    NotWeb,
    /// The web address is on another site.
    Elsewhere(Address),
}

impl Site {
    /// Reads a query into an address on this site; the error, for a 400, says
    /// what was wrong and lists the accepted forms.
    pub fn read(&self, query: &str) -> Result<Address, String> {
        self.parse(query).map_err(|r| self.refusal(query, &r))
    }

    /// [`Site::read`], refusing with the reason, for a source that words a
    /// refusal itself (one naming the other site, say).
    pub fn parse(&self, query: &str) -> Result<Address, Refusal> {
        let q = query.trim();
        if q.is_empty() {
            return Err(Refusal::Empty);
        }
        if !q.contains(['.', '/']) {
            return Err(Refusal::NotUrl);
        }
        let url = web_url(q)?;
        let address = Address {
            host: normal_host(url.host_str().unwrap_or_default()),
            url,
        };
        if self.owns(&address.host) {
            Ok(address)
        } else {
            Err(Refusal::Elsewhere(address))
        }
    }

    /// Whether `host` (any case, with or without `www.` and trailing dot) is
    /// one of the site's.
    pub fn owns(&self, host: &str) -> bool {
        let host = normal_host(host);
        self.hosts
            .iter()
            .any(|pattern| host_matches(pattern, &host))
    }

    /// The message refusing `query` for `refusal`.
    pub fn refusal(&self, query: &str, refusal: &Refusal) -> String {
        match refusal {
            Refusal::Empty => format!("the query is empty; {}", self.forms),
            Refusal::NotUrl => self.refuse(query, "is not a URL"),
            Refusal::NotWeb => self.refuse(query, "is not a web address"),
            Refusal::Elsewhere(_) => self.refuse(query, format_args!("is not {}", self.name)),
        }
    }

    /// A refusal of `query` saying `why`, then the accepted forms:
    /// `"<query>" <why>; <forms>`.
    pub fn refuse(&self, query: &str, why: impl Display) -> String {
        format!("{:?} {why}; {}", query.trim(), self.forms)
    }

    /// Checks that a source's manifest (`include_str!("../manifest.toml")`)
    /// agrees with this declaration, for a unit test of each source: `parse`,
    /// the source's reader of its query, accepts the manifest's example `query`
    /// and each example URL in the forms (those without a placeholder such as
    /// `<id>`), and the manifest's `query_description` names every host. The
    /// error lists every disagreement.
    pub fn check_manifest<T, E: Display>(
        &self,
        manifest: &str,
        parse: impl Fn(&str) -> Result<T, E>,
    ) -> Result<(), String> {
        let mut wrong = Vec::new();
        let description = manifest_string(manifest, "query_description").unwrap_or_default();
        for host in self.hosts {
            let named = host.trim_start_matches("*.").trim_end_matches(".*");
            if !description.contains(named) {
                wrong.push(format!("query_description does not name the host {named}"));
            }
        }
        let example = manifest_string(manifest, "query");
        if example.is_none() {
            wrong.push("the manifest has no example query".to_owned());
        }
        let examples = example
            .into_iter()
            .chain(self.example_urls().map(str::to_owned));
        for example in examples {
            if let Err(e) = parse(&example) {
                wrong.push(format!("the example {example} is refused: {e}"));
            }
        }
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(wrong.join("\n"))
        }
    }

    /// The URLs the forms give as examples: those without a placeholder.
    fn example_urls(&self) -> impl Iterator<Item = &'static str> {
        self.forms
            .split_whitespace()
            .filter(|w| w.starts_with("https://") || w.starts_with("http://"))
            .map(|w| w.trim_end_matches([',', ';', ')', '.']))
            .filter(|w| !w.contains(['<', '{', '…']))
    }
}

impl Address {
    /// The path's non-empty segments, as written (percent-encoded).
    pub fn segments(&self) -> Vec<&str> {
        self.url
            .path_segments()
            .map(|s| s.filter(|s| !s.is_empty()).collect())
            .unwrap_or_default()
    }

    /// The first value of query parameter `name`, decoded.
    pub fn param(&self, name: &str) -> Option<String> {
        self.url
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    }
}

/// Whether `text` begins with a scheme and `://`.
/// A pasted web address as a URL: `https://` added when it names no scheme;
/// refused unless the URL standard reads it and it is http(s).
pub fn web_url(query: &str) -> Result<Url, Refusal> {
    let q = query.trim();
    let absolute = if has_scheme(q) {
        q.to_owned()
    } else {
        format!("https://{q}")
    };
    let url = Url::parse(&absolute).map_err(|_| Refusal::NotUrl)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Refusal::NotWeb);
    }
    Ok(url)
}

fn has_scheme(text: &str) -> bool {
    text.split_once("://").is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

/// A host lower-cased, without its trailing dot or `www.`.
fn normal_host(host: &str) -> String {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    match host.strip_prefix("www.") {
        Some(rest) => rest.to_owned(),
        None => host,
    }
}

/// Whether a normal host matches one of [`Site::hosts`]' patterns.
fn host_matches(pattern: &str, host: &str) -> bool {
    let (any_sub, pattern) = match pattern.strip_prefix("*.") {
        Some(domain) => (true, domain),
        None => (false, pattern),
    };
    let under = |host: &str, domain: &str| {
        host == domain
            || any_sub
                && host
                    .strip_suffix(domain)
                    .is_some_and(|sub| sub.ends_with('.'))
    };
    match pattern.strip_suffix(".*") {
        None => under(host, pattern),
        Some(name) => (1..=2).any(|labels| {
            without_country_domain(host, labels).is_some_and(|rest| under(rest, name))
        }),
    }
}

/// `host` without its last `labels` labels, when they are a country's domain
/// (two or three lower-case letters each: `de`, `co.uk`, `com.au`).
fn without_country_domain(host: &str, labels: usize) -> Option<&str> {
    let mut end = host.len();
    for _ in 0..labels {
        let dot = host[..end].rfind('.')?;
        let label = &host[dot + 1..end];
        if !(2..=3).contains(&label.len()) || !label.bytes().all(|b| b.is_ascii_lowercase()) {
            return None;
        }
        end = dot;
    }
    Some(&host[..end])
}

/// The value of a manifest's `key = "…"` line (a basic string on one line).
fn manifest_string(manifest: &str, key: &str) -> Option<String> {
    manifest.lines().find_map(|line| {
        let (k, v) = line.split_once('=')?;
        let v = v.trim().strip_prefix('"')?.strip_suffix('"')?;
        (k.trim() == key).then(|| v.replace("\\\"", "\"").replace("\\\\", "\\"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SITE: Site = Site {
        name: "an Example address",
        hosts: &[
            "shop.example",
            "m.shop.example",
            "*.example.org",
            "*.brand.*",
        ],
        forms: "use https://shop.example/p/<id>, such as https://shop.example/p/42.",
    };

    fn host(q: &str) -> String {
        SITE.read(q).unwrap_or_else(|e| panic!("{q}: {e}")).host
    }

    #[test]
    fn reads_every_form_a_user_pastes() {
        for q in [
            "https://shop.example/p/42",
            "  http://shop.example/p/42  ",
            "shop.example/p/42",
            "//shop.example/p/42",
            "www.shop.example/p/42",
            "HTTPS://WWW.SHOP.EXAMPLE./p/42",
            "https://user@shop.example:8443/p/42",
            "shop.example/p/42?next=https://elsewhere.example/",
        ] {
            assert_eq!(host(q), "shop.example", "{q}");
        }
        let a = SITE
            .read("https://shop.example//p/%20x/?a=1&b=x%20y&a=2#r")
            .unwrap();
        assert_eq!(a.segments(), ["p", "%20x"]);
        assert_eq!(a.param("a").as_deref(), Some("1"));
        assert_eq!(a.param("b").as_deref(), Some("x y"));
        assert_eq!(a.param("c"), None);
        assert_eq!(a.url.fragment(), Some("r"));
        assert!(SITE.read("shop.example").unwrap().segments().is_empty());
    }

    #[test]
    fn matches_exact_hosts_domains_and_country_domains() {
        for (h, owned) in [
            ("shop.example", true),
            ("WWW.Shop.Example.", true),
            ("m.shop.example", true),
            ("img.shop.example", false),
            ("shop.example.evil", false),
            ("example.org", true),
            ("a.b.example.org", true),
            ("notexample.org", false),
            ("brand.com", true),
            ("m.brand.de", true),
            ("brand.co.uk", true),
            ("brand.com.evil.example", false),
            ("brand-x.com", false),
            ("brand", false),
        ] {
            assert_eq!(SITE.owns(h), owned, "{h}");
        }
    }

    #[test]
    fn refusals_say_what_is_wrong_and_list_the_forms() {
        let forms = "; use https://shop.example/p/<id>, such as https://shop.example/p/42.";
        for (q, refusal, message) in [
            ("  ", Refusal::Empty, "the query is empty"),
            ("shop", Refusal::NotUrl, "\"shop\" is not a URL"),
            (
                "a b.example",
                Refusal::NotUrl,
                "\"a b.example\" is not a URL",
            ),
            (
                "ftp://shop.example/p/1",
                Refusal::NotWeb,
                "\"ftp://shop.example/p/1\" is not a web address",
            ),
        ] {
            assert_eq!(SITE.parse(q), Err(refusal), "{q}");
            assert_eq!(SITE.read(q).unwrap_err(), format!("{message}{forms}"));
        }
        let Err(Refusal::Elsewhere(other)) = SITE.parse("https://www.Other.example/x") else {
            panic!("another site's address is refused");
        };
        assert_eq!(other.host, "other.example");
        assert_eq!(
            SITE.read(" other.example/x ").unwrap_err(),
            format!("\"other.example/x\" is not an Example address{forms}")
        );
        assert_eq!(
            SITE.refuse(" shop.example/ ", "names no product"),
            format!("\"shop.example/\" names no product{forms}")
        );
    }

    #[test]
    fn checks_a_manifest_against_the_site() {
        let parse = |q: &str| SITE.read(q).map(|a| a.segments().len() == 2);
        let manifest = "[source]\nquery_description = \"https://shop.example/p/<id> \
                        (m.shop.example, *.example.org and brand.* too)\"\n\n\
                        [example]\nquery = \"https://shop.example/p/42\"\n";
        assert_eq!(SITE.check_manifest(manifest, parse), Ok(()));
        assert_eq!(
            SITE.example_urls().collect::<Vec<_>>(),
            ["https://shop.example/p/42"]
        );

        let wrong = "query_description = \"a shop.example page\"\nquery = \"https://x.example/\"";
        let e = SITE.check_manifest(wrong, parse).unwrap_err();
        for part in [
            "does not name the host m.shop.example",
            "does not name the host example.org",
            "does not name the host brand",
            "the example https://x.example/ is refused: \"https://x.example/\" is not an Example address",
        ] {
            assert!(e.contains(part), "{part}: {e}");
        }
        assert!(SITE
            .check_manifest("query_description = \"\"", parse)
            .is_err());
    }

    #[test]
    fn reads_a_manifest_string() {
        let m =
            "name = \"x\"\nquery_description = \"say \\\"hi\\\"\"\n# query = \"no\"\nquery = \"q\"";
        assert_eq!(
            manifest_string(m, "query_description").as_deref(),
            Some("say \"hi\"")
        );
        assert_eq!(manifest_string(m, "query").as_deref(), Some("q"));
        assert_eq!(manifest_string(m, "missing"), None);
    }
}
