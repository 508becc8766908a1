//! Bot walls and refusals: recognising the challenge, interstitial or block page a site's
//! anti-bot service answers instead of the content (Cloudflare, DataDome,
//! Akamai, PerimeterX, a bare CAPTCHA, a gateway's rate limit) or a sign-in
//! page, so a plugin reports a clear 502 rather than "the layout changed" or an
//! empty success. The classifier is `gleaner-botwall`, the one the host runs
//! after every response too.

use crate::http::Response;
use crate::FetchError;

pub use gleaner_botwall::Wall;

/// The wall this response is, if any: the host's verdict, given with every
/// answer (any status can carry one: sites answer challenges with 403, 429 or
/// 503, and some with 200).
pub fn detect(response: &Response) -> Option<Wall> {
    response.wall
}

/// What a refusing or unusable answer was, in words, for a plugin's own
/// message: the wall, else the refusal status, else the kind of body.
pub fn seen(response: &Response) -> String {
    if let Some(wall) = detect(response) {
        return wall.phrase().to_owned();
    }
    match response.status {
        401 => return "HTTP 401 Unauthorized".into(),
        403 => return "HTTP 403 Forbidden".into(),
        429 => return "HTTP 429 Too Many Requests".into(),
        _ => {}
    }
    let head = String::from_utf8_lossy(&response.body[..response.body.len().min(1024)])
        .trim_start()
        .to_ascii_lowercase();
    if head.is_empty() {
        "an empty answer".into()
    } else if head.starts_with("<!doctype") || head.starts_with("<html") || head.contains("<body") {
        "an HTML page (an interstitial or error page) instead of data".into()
    } else {
        format!("HTTP {} with an unexpected body", response.status)
    }
}

/// What an answer was, with its status: "HTTP 403 with a Cloudflare bot
/// challenge", "HTTP 429 Too Many Requests", "HTTP 200 with an empty answer".
pub fn answered(response: &Response) -> String {
    let seen = seen(response);
    if seen.starts_with("HTTP ") {
        seen
    } else {
        format!("HTTP {} with {seen}", response.status)
    }
}

/// The error for a wall met while reading `what`: the address, the status and
/// the wall seen, and what would help.
pub fn blocked(wall: Wall, what: &str, response: &Response) -> FetchError {
    FetchError::Blocked(format!(
        "{what}: {} answered HTTP {} with {}; {}",
        response.final_url,
        response.status,
        wall.phrase(),
        wall.remedy()
    ))
}

impl Response {
    /// Fails with [`FetchError::Blocked`] naming the service when the response is a
    /// bot wall, whatever its status; otherwise hands the response back.
    pub fn ensure_not_walled(self, what: &str) -> Result<Response, FetchError> {
        match detect(&self) {
            Some(wall) => Err(blocked(wall, what, &self)),
            None => Ok(self),
        }
    }

    /// The one check of an answer before a source reads it; `site` names the
    /// site or the page being read ("SourceForge's review page"). A bot wall,
    /// whatever the status, or a refusal (401, 403, 429) is
    /// [`FetchError::Blocked`], saying what was seen and the classifier's
    /// remedy; 404 and 410 are [`FetchError::NotFound`]; any other non-2xx
    /// status is [`FetchError::Upstream`]. A source with more to say about a
    /// missing page asks [`Response::is_missing`] first.
    pub fn checked(self, site: &str) -> Result<Response, FetchError> {
        let response = self.ensure_not_walled(site)?;
        let (url, status) = (&response.final_url, response.status);
        if let Some(remedy) = gleaner_botwall::refusal_remedy(status) {
            return Err(FetchError::Blocked(format!(
                "{site}: the site answered {} for {url}; {remedy}",
                answered(&response)
            )));
        }
        match status {
            200..=299 => Ok(response),
            404 | 410 => Err(FetchError::NotFound(format!(
                "{site}: the site has no such page ({url} answered HTTP {status}); check the \
                 address in the query"
            ))),
            _ => Err(FetchError::Upstream(format!(
                "{site}: the site answered HTTP {status} for {url}; it may be failing: retry later"
            ))),
        }
    }

    /// Whether the site says the page does not exist: 404 or 410, and no wall.
    pub fn is_missing(&self) -> bool {
        matches!(self.status, 404 | 410) && detect(self).is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(status: u16, headers: &[(&str, &str)], body: &str) -> Response {
        crate::testing::response(status, "https://example.com/x", body).with_headers(headers)
    }

    #[test]
    fn says_what_was_seen() {
        let akamai = page(
            403,
            &[],
            "<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>Reference&#32;&#35;18&#46;5c2d</BODY></HTML>",
        );
        assert_eq!(seen(&akamai), "an Akamai \"Access Denied\" page");
        assert_eq!(seen(&page(429, &[], "")), "HTTP 429 Too Many Requests");
        assert!(seen(&page(200, &[], "<!DOCTYPE html><p>hold on")).starts_with("an HTML page"));
        assert_eq!(seen(&page(200, &[], "")), "an empty answer");
        assert_eq!(
            seen(&page(500, &[], "oops")),
            "HTTP 500 with an unexpected body"
        );
    }

    #[test]
    fn the_host_s_verdict_is_trusted() {
        let content = page(200, &[], "<title>Just a moment...</title>").with_wall(None);
        assert_eq!(detect(&content), None, "the host said content");
        let wall = page(403, &[], "").with_wall(Some(Wall::DataDome));
        assert_eq!(detect(&wall), Some(Wall::DataDome));
    }

    #[test]
    fn walls_become_blocked_errors_naming_the_remedy() {
        assert!(page(200, &[], "{}").ensure_not_walled("reviews").is_ok());
        let e = page(403, &[("x-datadome", "protected")], "")
            .ensure_not_walled("the review page")
            .unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("DataDome") && m.contains("proxy")),
            "{e:?}"
        );
        let login = page(200, &[], "<title>Log in</title><input type=\"password\">");
        let e = login.ensure_not_walled("the review page").unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("sign-in page") && m.contains("credentials")),
            "{e:?}"
        );
    }

    #[test]
    fn one_check_maps_every_answer() {
        let challenge = "<html><title>Just a moment...</title></html>";
        let e = page(403, &[], challenge)
            .checked("the wall page")
            .unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains(
                "the wall page: https://example.com/x answered HTTP 403 with a Cloudflare bot challenge; retry later"
            ) && m.contains("a proxy the site trusts")),
            "{e:?}"
        );
        let e = page(200, &[], challenge).checked("x").unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("HTTP 200 with")),
            "{e:?}"
        );
        let e = page(429, &[], "").checked("the API").unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("answered HTTP 429 Too Many Requests for https://example.com/x; the site is rate-limiting")),
            "{e:?}"
        );
        let e = page(401, &[], "").checked("the API").unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("credentials")),
            "{e:?}"
        );
        assert!(matches!(
            page(404, &[], "{}").checked("x"),
            Err(FetchError::NotFound(_))
        ));
        assert!(matches!(
            page(410, &[], "").checked("x"),
            Err(FetchError::NotFound(_))
        ));
        assert!(matches!(
            page(500, &[], "oops").checked("x"),
            Err(FetchError::Upstream(_))
        ));
        assert!(page(204, &[], "").checked("x").is_ok());
        assert!(page(404, &[], "").is_missing());
        assert!(!page(404, &[], "")
            .with_wall(Some(Wall::DataDome))
            .is_missing());
    }
}
