//! Fetching a website through the host: a page as the user gave it (a bare
//! domain meaning its home page), its home page (refusing non-HTML answers) and
//! its web app manifest. Parsing what comes back is [`crate::webpage`]'s.

use ::url::Url;

use crate::http::{self, Response};
use crate::webpage::{self, WebAppManifest};

/// Why a website could not be read: the input is not a site, or the site failed.
#[derive(Debug)]
pub enum WebsiteError {
    /// The input is not a domain or http(s) URL.
    Input(String),
    /// The site was unreachable, refused, blocked by the sandbox, or not HTML.
    Site(String),
}

/// The URL of the page a user means: a domain or URL (`example.com`,
/// `https://example.com/blog/post?id=3`, `www.example.com/about`) read as given,
/// with `https://` added when no scheme is given and the fragment dropped. A
/// bare domain is its home page. Errors say what is accepted.
pub fn page_url(query: &str) -> Result<String, WebsiteError> {
    let home = webpage::site_url(query).map_err(WebsiteError::Input)?;
    let t = query.trim();
    let with_scheme = if t.contains("://") {
        t.to_owned()
    } else {
        format!("https://{t}")
    };
    let Ok(mut url) = Url::parse(&with_scheme) else {
        return Ok(home);
    };
    url.set_fragment(None);
    Ok(url.into())
}

/// The home page (`scheme://host[:port]/`) of an absolute http(s) URL.
pub fn home_of(url: &str) -> Option<String> {
    let mut url = Url::parse(url.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return None;
    }
    url.set_path("/");
    url.set_query(None);
    url.set_fragment(None);
    Some(url.into())
}

/// Whether `url` is its site's home page (path `/` with no query).
pub fn is_home(url: &str) -> bool {
    home_of(url).is_some_and(|home| Url::parse(url).is_ok_and(|u| u.as_str() == home))
}

/// Fetches `url` and returns (final URL, HTML); a non-HTML answer is an error.
pub fn html_at(url: &str) -> Result<(String, String), WebsiteError> {
    let response = http::get_html(url)
        .and_then(|r| r.checked("the website"))
        .map_err(|e| WebsiteError::Site(http::describe(&e)))?;
    let html = response.text().into_owned();
    let declared_html = response
        .header("content-type")
        .is_none_or(|t| t.contains("html"));
    let trimmed = html.trim_start().as_bytes();
    let head = trimmed[..trimmed.len().min(512)].to_ascii_lowercase();
    let looks_html =
        memchr::memmem::find(&head, b"<html").is_some() || head.starts_with(b"<!doctype html");
    if !declared_html || !looks_html {
        return Err(WebsiteError::Site(format!(
            "{} did not answer with an HTML page (content-type {:?}); give a web page's address",
            response.final_url,
            response.header("content-type").unwrap_or("none")
        )));
    }
    Ok((response.final_url, html))
}

/// Fetches the page a user gave ([`page_url`]); returns (final URL, HTML).
pub fn page(query: &str) -> Result<(String, String), WebsiteError> {
    html_at(&page_url(query)?)
}

/// Fetches the home page of a domain or URL; returns (final URL, HTML).
pub fn home_page(query: &str) -> Result<(String, String), WebsiteError> {
    html_at(&webpage::site_url(query).map_err(WebsiteError::Input)?)
}

/// The web app manifest a page declares, when it answers and parses.
pub fn manifest(meta: &webpage::PageMeta) -> Option<WebAppManifest> {
    let url = meta.manifest_url.as_deref()?;
    http::get(
        url,
        &[("accept", "application/manifest+json,application/json")],
    )
    .ok()
    .filter(Response::is_success)
    .and_then(|r| webpage::web_manifest(&r.text(), url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_page_url_as_given() {
        let url = |q: &str| page_url(q).map_err(|e| format!("{e:?}"));
        assert_eq!(url("example.com").unwrap(), "https://example.com/");
        assert_eq!(
            url("Example.com/Blog/Post").unwrap(),
            "https://example.com/Blog/Post"
        );
        assert_eq!(
            url(" http://www.example.com/a/b?id=3#top ").unwrap(),
            "http://www.example.com/a/b?id=3"
        );
        assert_eq!(url("https://example.com").unwrap(), "https://example.com/");
        assert!(url("not a domain").is_err());
        assert!(url("ftp://example.com/x").is_err());
        assert_eq!(
            home_of("https://example.com:8443/a/b?x=1").as_deref(),
            Some("https://example.com:8443/")
        );
        assert_eq!(home_of("mailto:a@b.co"), None);
        assert!(is_home("https://example.com"));
        assert!(!is_home("https://example.com/?p=1"));
        assert!(!is_home("https://example.com/article"));
    }
}
