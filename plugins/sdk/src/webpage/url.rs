//! URLs in pages: the home page of what a user typed, and references resolved
//! against the page, with the `url` crate (WHATWG rules, as browsers apply them).

use ::url::Url;

/// The home page URL for a domain or URL given by a user: `example.com`,
/// `https://example.com/x`, `www.example.com/`. Errors say what is accepted.
pub fn site_url(input: &str) -> Result<String, String> {
    let t = input.trim();
    let with_scheme = if t.contains("://") {
        t.to_owned()
    } else {
        format!("https://{t}")
    };
    let (scheme, rest) = with_scheme.split_once("://").unwrap_or(("https", ""));
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_ok = !host.is_empty()
        && host.contains(['.', ':', '['])
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c));
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") || !host_ok {
        return Err(format!(
            "{t:?} is not a website; give a domain such as example.com or an http(s) URL"
        ));
    }
    Ok(format!(
        "{}://{}/",
        scheme.to_ascii_lowercase(),
        host.to_ascii_lowercase()
    ))
}

/// Resolves `href` against `base` to an absolute http(s) URL, as a browser
/// would: absolute, protocol-relative, root-relative, relative, query-only and
/// fragment-only references; tabs and line breaks are dropped and backslashes
/// read as slashes. `None` for other schemes (`javascript:`, `data:`, `mailto:`,
/// …), an empty `href`, or a `base` that is not an absolute http(s) URL. The
/// fragment is dropped.
pub fn resolve(base: &str, href: &str) -> Option<String> {
    if href.trim().is_empty() {
        return None;
    }
    let base = Url::parse(base.trim()).ok().filter(is_web)?;
    let mut url = base.join(href.trim()).ok().filter(is_web)?;
    url.host_str()?;
    url.set_fragment(None);
    Some(url.into())
}

/// `url` normalised, when it is an absolute http(s) URL.
pub(crate) fn absolute(url: &str) -> Option<String> {
    let mut url = Url::parse(url.trim()).ok().filter(is_web)?;
    url.set_fragment(None);
    Some(url.into())
}

fn is_web(url: &Url) -> bool {
    matches!(url.scheme(), "http" | "https")
}
