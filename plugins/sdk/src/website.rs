//! Fetching a website through the host: its home page (refusing non-HTML
//! answers) and its web app manifest. Parsing what comes back is [`crate::page`]'s.

use crate::http::{self, Response};
use crate::page::{self, WebAppManifest};

/// Why a website could not be read: the input is not a site, or the site failed.
#[derive(Debug)]
pub enum WebsiteError {
    /// The input is not a domain or http(s) URL.
    Input(String),
    /// The site was unreachable, refused, blocked by the sandbox, or not HTML.
    Site(String),
}

/// Fetches the home page of a domain or URL; returns (final URL, HTML).
pub fn home_page(query: &str) -> Result<(String, String), WebsiteError> {
    let url = page::site_url(query).map_err(WebsiteError::Input)?;
    let response = http::get_html(&url)
        .and_then(|r| r.ensure_success("the website"))
        .map_err(|e| WebsiteError::Site(http::describe(&e)))?;
    let html = response.text();
    let declared_html = response
        .header("content-type")
        .is_none_or(|t| t.contains("html"));
    let start = html.trim_start().to_ascii_lowercase();
    let looks_html =
        start.get(..512).unwrap_or(&start).contains("<html") || start.starts_with("<!doctype html");
    if !declared_html || !looks_html {
        return Err(WebsiteError::Site(format!(
            "{} did not answer with an HTML page (content-type {:?}); give the site's home page",
            response.final_url,
            response.header("content-type").unwrap_or("none")
        )));
    }
    Ok((response.final_url, html))
}

/// The web app manifest a page declares, when it answers and parses.
pub fn manifest(meta: &page::PageMeta) -> Option<WebAppManifest> {
    let url = meta.manifest_url.as_deref()?;
    http::get(
        url,
        &[("accept", "application/manifest+json,application/json")],
    )
    .ok()
    .filter(Response::is_success)
    .and_then(|r| page::web_manifest(&r.text(), url))
}
