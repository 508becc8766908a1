//! The host's headless browser, for plugins whose manifest declares
//! `uses_browser = true`: a page opened in the fetch's session, every request
//! it makes going through the host's egress, its cookies joining the session.
//! A browser once, plain HTTP after: [`after_wall`] tries plain HTTP first
//! and opens the browser only when a wall a browser can pass answered.

use gleaner_botwall::Wall;

use crate::http::Response;
use crate::wit::gleaner::plugin::browser as host;
use crate::FetchError;

/// When a visit is done: `Selector(css)`, `Response(url_part)` or `Idle`.
pub use host::Wait;

/// A response the page's scripts received, kept as asked.
#[derive(Debug, Clone)]
pub struct Kept {
    /// Its URL.
    pub url: String,
    /// Its status.
    pub status: u16,
    /// Its body.
    pub body: Vec<u8>,
}

/// The page as the visit left it.
#[derive(Debug, Clone)]
pub struct Page {
    /// The status of the last document the page loaded.
    pub status: u16,
    /// The page's URL at the end.
    pub final_url: String,
    /// The document as the scripts left it.
    pub document: String,
    /// The kept responses, in the order they answered.
    pub kept: Vec<Kept>,
    /// The cookies the session holds for the final URL afterwards.
    pub cookies: u32,
    /// The host's verdict on the final document: the wall it still is, if any.
    pub wall: Option<Wall>,
}

/// Opens `url` in the session's browser and waits for `wait`, keeping the
/// responses whose URL contains one of `keep`. Without a browser on the host
/// the error is a 502 that names the setting and the package.
pub fn visit(url: &str, wait: Wait, keep: &[&str]) -> Result<Page, FetchError> {
    let request = host::VisitRequest {
        url: url.to_owned(),
        wait,
        keep: keep.iter().map(|k| (*k).to_owned()).collect(),
    };
    match host::visit(&request) {
        Ok(page) => Ok(Page {
            status: page.status,
            final_url: page.final_url,
            document: page.document,
            kept: page
                .kept
                .into_iter()
                .map(|k| Kept {
                    url: k.url,
                    status: k.status,
                    body: k.body,
                })
                .collect(),
            cookies: page.cookies,
            wall: page.wall.map(crate::http::verdict),
        }),
        Err(host::Error::Unavailable(m)) => Err(FetchError::Upstream(format!(
            "the host's browser is unavailable: {m}"
        ))),
        Err(host::Error::Denied(m)) => Err(FetchError::Upstream(format!(
            "browser visit denied by the host: {m}"
        ))),
        Err(host::Error::Timeout(m)) => Err(FetchError::Timeout(m)),
        Err(host::Error::Failed(m)) => Err(FetchError::Upstream(m)),
    }
}

/// Whether a browser can pass `wall`: a JavaScript challenge (Cloudflare,
/// DataDome, Akamai, PerimeterX). A CAPTCHA wants a person, a rate limit
/// wants time, a sign-in page wants an account: no browser helps.
pub fn passable(wall: Option<Wall>) -> bool {
    matches!(
        wall,
        Some(Wall::Cloudflare | Wall::DataDome | Wall::Akamai | Wall::PerimeterX)
    )
}

/// Plain HTTP first, the browser only after a wall it can pass: `send` is
/// tried; when its answer is such a wall, `page` is opened in the browser
/// until `wait` (its challenge leaves its cookies in the session) and `send`
/// is tried once more. A wall the browser could not pass either is answered
/// as it came, so the caller's usual check reports it.
pub fn after_wall(
    page: &str,
    wait: Wait,
    send: impl Fn() -> Result<Response, FetchError>,
) -> Result<Response, FetchError> {
    let first = send()?;
    if !passable(first.wall) {
        return Ok(first);
    }
    crate::log::info(&format!(
        "{} answered with a {} wall; opening {page} in the browser",
        first.final_url,
        first.wall.map_or("", Wall::code)
    ));
    let visited = visit(page, wait, &[])?;
    if visited.wall.is_some() {
        return Ok(first);
    }
    send()
}
