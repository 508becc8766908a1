//! The site's robots.txt, honoured for the product token `Gleaner` (so a
//! site's `User-agent: *` group applies, and a `Gleaner` group when it has
//! one) unless the operator sets `respect_robots_txt = false`. The rules
//! are matched by a port of Google's matcher, and unreadable files are
//! taken as RFC 9309 says: a 4xx answer allows everything; a 5xx answer, or
//! none, disallows everything until the site answers. A site's file is kept
//! for an hour in the plugin's cache.

use gleaner_sdk::http;
use gleaner_sdk::FetchError;
use url::Url;

/// The product token robots.txt rules are matched for.
pub const AGENT: &str = "Gleaner";
/// The operator setting that turns the check off.
pub const SETTING: &str = "respect_robots_txt";
/// How long a site's robots.txt is kept.
const KEEP_SECONDS: u32 = 3600;
/// The most of a robots.txt that is read (RFC 9309 asks for at least 500 KiB).
const MAX_BYTES: usize = 512 * 1024;

/// What a site's robots.txt says.
#[derive(Debug, Clone, PartialEq)]
pub enum Rules {
    /// The file's text.
    File(String),
    /// No file (a 4xx answer): everything is allowed.
    AllowAll,
    /// The site could not say (a 5xx answer, or no answer): nothing is.
    Unreachable(String),
}

/// Whether the operator has left the check on (the default).
pub fn respected() -> bool {
    gleaner_sdk::config::get(SETTING).is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"))
}

/// Refuses `url` when its site's robots.txt disallows it; the refusal says
/// why and what the operator can change.
pub fn check(url: &str) -> Result<(), FetchError> {
    if !respected() {
        return Ok(());
    }
    let Some(robots_url) = robots_url(url) else {
        return Ok(());
    };
    let rules = rules_of(&robots_url);
    match allowed(&rules, url) {
        true => Ok(()),
        false => Err(FetchError::BadQuery(match rules {
            Rules::Unreachable(why) => format!(
                "{robots_url} could not be read ({why}), and a site that cannot say what it allows allows nothing (RFC 9309); try again later, or the operator can set the web-page plugin's `{SETTING}` to false"
            ),
            _ => format!(
                "{robots_url} disallows {url} for crawlers (user agent {AGENT}, or *); choose a page the site allows, or the operator can set the web-page plugin's `{SETTING}` to false"
            ),
        })),
    }
}

/// Whether `rules` allow `url`.
pub fn allowed(rules: &Rules, url: &str) -> bool {
    match rules {
        Rules::AllowAll => true,
        Rules::Unreachable(_) => false,
        Rules::File(text) => {
            robotstxt::DefaultMatcher::default().one_agent_allowed_by_robots(text, AGENT, url)
        }
    }
}

/// `https://host[:port]/robots.txt` of a page.
fn robots_url(url: &str) -> Option<String> {
    let mut u = Url::parse(url).ok()?;
    u.set_path("/robots.txt");
    u.set_query(None);
    u.set_fragment(None);
    Some(u.into())
}

fn rules_of(robots_url: &str) -> Rules {
    let key = format!("robots:{robots_url}");
    if let Some(kept) = gleaner_sdk::cache::get(&key).and_then(|t| serde_json::from_str(&t).ok()) {
        return from_kept(kept);
    }
    let rules = match http::get(robots_url, &[("accept", "text/plain")]) {
        Ok(r) if r.is_success() => {
            let text = r.text();
            let end = (0..=text.len().min(MAX_BYTES))
                .rev()
                .find(|i| text.is_char_boundary(*i))
                .unwrap_or(0);
            Rules::File(text[..end].to_owned())
        }
        Ok(r) if (400..500).contains(&r.status) => Rules::AllowAll,
        Ok(r) => Rules::Unreachable(format!("HTTP {}", r.status)),
        Err(e) => Rules::Unreachable(http::describe(&e)),
    };
    if !matches!(rules, Rules::Unreachable(_)) {
        gleaner_sdk::cache::set(&key, &to_kept(&rules).to_string(), KEEP_SECONDS);
    }
    rules
}

fn to_kept(rules: &Rules) -> serde_json::Value {
    match rules {
        Rules::File(text) => serde_json::json!({"file": text}),
        _ => serde_json::json!({"allow_all": true}),
    }
}

fn from_kept(kept: serde_json::Value) -> Rules {
    match kept["file"].as_str() {
        Some(text) => Rules::File(text.to_owned()),
        None => Rules::AllowAll,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_matched_for_gleaner_and_star() {
        let file = Rules::File(
            "User-agent: *\nDisallow: /checkout\n\nUser-agent: Gleaner\nDisallow: /private\nAllow: /private/reviews\n"
                .into(),
        );
        assert!(allowed(&file, "https://shop.example/p/kettle"));
        assert!(!allowed(&file, "https://shop.example/private/x"));
        assert!(allowed(&file, "https://shop.example/private/reviews"));
        // The Gleaner group replaces the * group for Gleaner.
        assert!(allowed(&file, "https://shop.example/checkout"));
        let star = Rules::File("User-agent: *\nDisallow: /\n".into());
        assert!(!allowed(&star, "https://shop.example/p/kettle"));
        assert!(allowed(&Rules::AllowAll, "https://shop.example/x"));
        assert!(!allowed(
            &Rules::Unreachable("HTTP 503".into()),
            "https://shop.example/x"
        ));
        assert_eq!(
            robots_url("https://shop.example:8443/a/b?c=d#e").as_deref(),
            Some("https://shop.example:8443/robots.txt")
        );
        assert_eq!(from_kept(to_kept(&file)), file);
    }
}
