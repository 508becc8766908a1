//! Browser profiles: the coherent set of default headers a real browser sends,
//! so a request never pairs a Chrome user agent with Firefox's headers or a
//! document request with an XHR's. A session keeps one profile; a plugin picks
//! the kind of request (`document`, `xhr` or `json`) in the request's WIT
//! `profile` field. Headers the plugin sets itself win over the profile's. `Accept-Encoding` (gzip, br, zstd) is
//! added, and the body decoded, by the HTTP client.

/// One browser: its user agent and client hints.
#[derive(Debug)]
pub struct Profile {
    /// Short name, for logs.
    pub name: &'static str,
    /// `User-Agent`.
    pub user_agent: &'static str,
    /// `sec-ch-ua`, `sec-ch-ua-mobile`, `sec-ch-ua-platform`; none for browsers that send no client hints.
    pub client_hints: Option<[&'static str; 3]>,
    /// `Accept` of a document request.
    pub accept_document: &'static str,
    /// The browser whose TLS ClientHello and HTTP/2 settings its browser
    /// requests go out with, the version of its user agent.
    pub wire: Fingerprint,
}

// The browser build whose TLS ClientHello and HTTP/2 settings a browser
// request goes out with (over BoringSSL, with the `browser-tls` feature),
// defined beside the wire that sends them.
pub use gleaner_browser::Fingerprint;

/// The profiles sessions are given, one at random per session.
pub const PROFILES: [Profile; 3] = [
    Profile {
        name: "chrome-linux",
        user_agent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/149.0.0.0 Safari/537.36",
        client_hints: Some([
            r#""Google Chrome";v="149", "Chromium";v="149", "Not)A;Brand";v="24""#,
            "?0",
            r#""Linux""#,
        ]),
        accept_document: "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
        wire: Fingerprint::Chrome149,
    },
    Profile {
        name: "chrome-windows",
        user_agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/149.0.0.0 Safari/537.36",
        client_hints: Some([
            r#""Google Chrome";v="149", "Chromium";v="149", "Not)A;Brand";v="24""#,
            "?0",
            r#""Windows""#,
        ]),
        accept_document: "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
        wire: Fingerprint::Chrome149,
    },
    Profile {
        name: "firefox-windows",
        user_agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:151.0) Gecko/20100101 Firefox/151.0",
        client_hints: None,
        accept_document: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        wire: Fingerprint::Firefox151,
    },
];

/// The kind of request, which decides `Accept` and the `Sec-Fetch-*` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A page the browser navigates to.
    Document,
    /// A script's request for anything.
    Xhr,
    /// A script's request for JSON.
    Json,
}

impl Profile {
    /// A profile picked at random.
    pub fn pick() -> &'static Profile {
        &PROFILES[fastrand::usize(..PROFILES.len())]
    }

    /// The profile named `name`, if there is one.
    pub fn named(name: &str) -> Option<&'static Profile> {
        let all: &'static [Profile; 3] = &PROFILES;
        all.iter().find(|p| p.name == name)
    }

    /// The default headers of a request of `kind` (without `Accept-Encoding`,
    /// which the client adds). Without a kind only the identity headers are
    /// sent: user agent, client hints and language.
    pub fn headers(&self, kind: Option<Kind>) -> Vec<(&'static str, &'static str)> {
        let mut headers = vec![
            ("user-agent", self.user_agent),
            ("accept-language", "en-US,en;q=0.9"),
        ];
        if let Some([ua, mobile, platform]) = self.client_hints {
            headers.extend([
                ("sec-ch-ua", ua),
                ("sec-ch-ua-mobile", mobile),
                ("sec-ch-ua-platform", platform),
            ]);
        }
        match kind {
            None => {}
            Some(Kind::Document) => headers.extend([
                ("accept", self.accept_document),
                ("upgrade-insecure-requests", "1"),
                ("sec-fetch-dest", "document"),
                ("sec-fetch-mode", "navigate"),
                ("sec-fetch-site", "none"),
                ("sec-fetch-user", "?1"),
            ]),
            Some(Kind::Xhr) => headers.extend([
                ("accept", "*/*"),
                ("sec-fetch-dest", "empty"),
                ("sec-fetch-mode", "cors"),
                ("sec-fetch-site", "same-site"),
            ]),
            Some(Kind::Json) => headers.extend([
                ("accept", "application/json, text/plain, */*"),
                ("sec-fetch-dest", "empty"),
                ("sec-fetch-mode", "cors"),
                ("sec-fetch-site", "same-site"),
            ]),
        }
        headers
    }
}

/// A plugin's headers merged over its session's profile: the profile fills in
/// every header the plugin left out, with those of the request's `kind`.
pub fn apply(
    profile: &Profile,
    kind: Option<Kind>,
    headers: &[(String, String)],
) -> Vec<(String, String)> {
    let mut merged: Vec<(String, String)> = headers.to_vec();
    // Client hints describe the profile's browser: a plugin that names its own
    // user agent (an API that wants a descriptive one) gets none of them.
    let own_agent = merged
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("user-agent"));
    for (name, value) in profile.headers(kind) {
        if own_agent && name.starts_with("sec-ch-ua") {
            continue;
        }
        if !merged.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            merged.push((name.to_owned(), value.to_owned()));
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn a_document_request_looks_like_its_browser() {
        let chrome = &PROFILES[0];
        let h = apply(chrome, Some(Kind::Document), &[]);
        assert_eq!(header(&h, "user-agent"), Some(chrome.user_agent));
        assert_eq!(header(&h, "sec-fetch-mode"), Some("navigate"));
        assert_eq!(header(&h, "upgrade-insecure-requests"), Some("1"));
        assert!(header(&h, "sec-ch-ua").unwrap().contains("Chrome"));
        let firefox = &PROFILES[2];
        let h = apply(firefox, Some(Kind::Json), &[]);
        assert!(
            header(&h, "sec-ch-ua").is_none(),
            "Firefox sends no client hints"
        );
        assert_eq!(
            header(&h, "accept"),
            Some("application/json, text/plain, */*")
        );
    }

    #[test]
    fn the_plugin_s_own_headers_win() {
        let h = apply(
            &PROFILES[0],
            Some(Kind::Json),
            &[
                ("Accept".into(), "application/vnd.api+json".into()),
                ("User-Agent".into(), "my-bot/1.0".into()),
            ],
        );
        assert_eq!(header(&h, "Accept"), Some("application/vnd.api+json"));
        assert_eq!(header(&h, "User-Agent"), Some("my-bot/1.0"));
        assert!(header(&h, "accept").is_none() && header(&h, "user-agent").is_none());
        assert!(
            header(&h, "sec-ch-ua").is_none(),
            "no browser hints beside another agent"
        );
        let plain = apply(&PROFILES[1], None, &[]);
        assert_eq!(header(&plain, "user-agent"), Some(PROFILES[1].user_agent));
        assert!(
            header(&plain, "sec-fetch-mode").is_none(),
            "no kind, no fetch metadata"
        );
    }
}
