//! HTTP through the host capability, with errors already mapped to [`FetchError`].

use std::borrow::Cow;

use serde::de::DeserializeOwned;

use gleaner_botwall::Wall;

use crate::wit::gleaner::plugin::http as host;
use crate::FetchError;

/// `bytes` as text, as `String::from_utf8_lossy` gives it, but checked with
/// `simdutf8`'s SIMD validation first (core's has no SIMD path on
/// WebAssembly, and a page runs to hundreds of KiB).
pub fn utf8_lossy(bytes: &[u8]) -> Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// A response from the host's HTTP capability.
#[derive(Debug, Clone)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
    /// The URL that answered, after redirects.
    pub final_url: String,
    /// The host's verdict: the bot wall or sign-in page this answer is, if
    /// any (the host classifies every answer; see [`crate::botwall`]).
    pub wall: Option<Wall>,
}

impl Response {
    /// The body as text: borrowed when it is valid UTF-8, else with each
    /// invalid sequence replaced by U+FFFD.
    pub fn text(&self) -> Cow<'_, str> {
        utf8_lossy(&self.body)
    }

    /// The body parsed as JSON.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, FetchError> {
        serde_json::from_slice(&self.body).map_err(|e| {
            FetchError::Upstream(format!(
                "{} did not return the expected JSON: {e}",
                self.final_url
            ))
        })
    }

    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Sends a request through the host.
pub fn send(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<Vec<u8>>,
) -> Result<Response, FetchError> {
    convert(host::send(&request(method, url, headers, body, None)))
}

/// Sends a request as the browser request `profile`: the host adds the
/// headers a browser sends for that kind (with the session's user agent and
/// client hints). Headers a plugin sets itself win.
pub fn send_as(
    profile: Profile,
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<Vec<u8>>,
) -> Result<Response, FetchError> {
    convert(host::send(&request(
        method,
        url,
        headers,
        body,
        Some(profile),
    )))
}

/// GET with headers.
pub fn get(url: &str, headers: &[(&str, &str)]) -> Result<Response, FetchError> {
    send("GET", url, headers, None)
}

/// GET as the browser request `profile`, with headers.
pub fn get_as(
    profile: Profile,
    url: &str,
    headers: &[(&str, &str)],
) -> Result<Response, FetchError> {
    send_as(profile, "GET", url, headers, None)
}

/// Kinds of browser request, each with its headers: `Document` (a page the
/// browser navigates to: `Accept: text/html…`, `Sec-Fetch-Mode: navigate`),
/// `Xhr` (a script's request for anything: `Accept: */*`,
/// `Sec-Fetch-Mode: cors`), `Json` (a script's request for JSON:
/// `Accept: application/json, text/plain, */*`).
pub use host::Profile;

/// GET an HTML page, as a browser navigating to it.
pub fn get_html(url: &str) -> Result<Response, FetchError> {
    get_as(Profile::Document, url, &[])
}

/// Visits a page for the cookies it sets (a visitor id, a CSRF token, a bot
/// manager's clearance), as a browser would before the site's API calls. The
/// host keeps them in the fetch's session and sends them with every later
/// request of the fetch, including after a continuation token. Fails only when
/// the host could not reach the page; a refusal is in the response's status.
pub fn prime(url: &str) -> Result<Response, FetchError> {
    get_html(url)
}

/// GET JSON and parse it, failing on non-2xx statuses.
pub fn get_json<T: DeserializeOwned>(
    url: &str,
    headers: &[(&str, &str)],
    what: &str,
) -> Result<T, FetchError> {
    get_as(Profile::Json, url, headers)?.checked(what)?.json()
}

/// Percent-encodes a query component.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Sends several GET requests concurrently (the host runs them in parallel); results keep their order.
pub fn get_all(requests: &[(&str, &[(&str, &str)])]) -> Vec<Result<Response, FetchError>> {
    let batch: Vec<host::Request> = requests
        .iter()
        .map(|(url, headers)| request("GET", url, headers, None, None))
        .collect();
    host::send_batch(&batch).into_iter().map(convert).collect()
}

fn request(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<Vec<u8>>,
    profile: Option<Profile>,
) -> host::Request {
    host::Request {
        method: method.to_owned(),
        url: url.to_owned(),
        headers: headers
            .iter()
            .map(|(n, v)| host::Header {
                name: (*n).to_owned(),
                value: (*v).to_owned(),
            })
            .collect(),
        body,
        profile,
    }
}

fn convert(result: Result<host::Response, host::Error>) -> Result<Response, FetchError> {
    match result {
        Ok(r) => Ok(Response {
            status: r.status,
            headers: r.headers.into_iter().map(|h| (h.name, h.value)).collect(),
            body: r.body,
            final_url: r.final_url,
            wall: r.wall.map(verdict),
        }),
        Err(host::Error::Timeout(m)) => Err(FetchError::Timeout(m)),
        Err(host::Error::Denied(m)) => Err(FetchError::Upstream(format!(
            "request denied by the host: {m}"
        ))),
        Err(host::Error::TooLarge(m)) => {
            Err(FetchError::Upstream(format!("response too large: {m}")))
        }
        Err(host::Error::Transport(m)) => Err(FetchError::Upstream(m)),
    }
}

/// The host's wall verdict as the classifier names it.
pub(crate) fn verdict(verdict: host::Wall) -> Wall {
    match verdict {
        host::Wall::Cloudflare => Wall::Cloudflare,
        host::Wall::Datadome => Wall::DataDome,
        host::Wall::Akamai => Wall::Akamai,
        host::Wall::Perimeterx => Wall::PerimeterX,
        host::Wall::Captcha => Wall::Captcha,
        host::Wall::RateLimit => Wall::RateLimit,
        host::Wall::LoginWall => Wall::LoginWall,
    }
}

/// The text a fetch error carries, whatever its kind.
pub fn message(e: &FetchError) -> &str {
    match e {
        FetchError::BadQuery(m)
        | FetchError::NotFound(m)
        | FetchError::Blocked(m)
        | FetchError::Upstream(m)
        | FetchError::Timeout(m)
        | FetchError::BadCursor(m) => m,
    }
}

/// A plain message for a fetch error, for processors that report it to the user.
pub fn describe(e: &FetchError) -> String {
    match e {
        FetchError::BadQuery(m) | FetchError::BadCursor(m) => m.clone(),
        FetchError::NotFound(m) => format!("the site has no such page: {m}"),
        FetchError::Blocked(m) => format!("the site refused the request: {m}"),
        FetchError::Upstream(m) => format!("the site could not be read: {m}"),
        FetchError::Timeout(m) => format!("the site did not answer in time: {m}"),
    }
}
