//! Bot walls: recognising the challenge, interstitial or block page a site's
//! anti-bot service answers instead of the content (Cloudflare, DataDome,
//! Akamai, PerimeterX, a bare CAPTCHA), so a plugin reports a clear 502 rather
//! than "the layout changed" or an empty success.

use crate::http::Response;
use crate::FetchError;

/// An anti-bot service whose wall was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wall {
    /// Cloudflare's "Just a moment..." challenge or its block page.
    Cloudflare,
    /// DataDome's CAPTCHA / device check.
    DataDome,
    /// Akamai Bot Manager's "Access Denied" page.
    Akamai,
    /// PerimeterX (HUMAN)'s "Press & Hold" challenge.
    PerimeterX,
    /// A CAPTCHA page of no known vendor (reCAPTCHA, hCaptcha, Turnstile).
    Captcha,
    /// An API gateway's rate-limit answer (Apigee's spike arrest or quota).
    RateLimit,
}

impl Wall {
    /// The service's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Wall::Cloudflare => "Cloudflare",
            Wall::DataDome => "DataDome",
            Wall::Akamai => "Akamai",
            Wall::PerimeterX => "PerimeterX",
            Wall::Captcha => "CAPTCHA",
            Wall::RateLimit => "API gateway rate-limit",
        }
    }

    /// What was seen, as a phrase for messages ("a Cloudflare bot challenge").
    pub fn phrase(self) -> &'static str {
        match self {
            Wall::Cloudflare => "a Cloudflare bot challenge",
            Wall::DataDome => "a DataDome CAPTCHA",
            Wall::Akamai => "an Akamai \"Access Denied\" page",
            Wall::PerimeterX => "a PerimeterX (HUMAN) challenge",
            Wall::Captcha => "a CAPTCHA page",
            Wall::RateLimit => "an API gateway's rate-limit answer",
        }
    }
}

/// Markers in a page's text, lower-cased: (service, marker, strong). A strong
/// marker is only ever on a wall page; a weak one is also on ordinary pages the
/// service protects (its sensor script, a form's CAPTCHA), so it counts only
/// when the status is a refusal (401, 403, 429, 503).
const BODY_MARKERS: &[(Wall, &str, bool)] = &[
    (Wall::Cloudflare, "<title>just a moment...</title>", true),
    (Wall::Cloudflare, "cf_chl_opt", true),
    (Wall::Cloudflare, "cf-browser-verification", true),
    (Wall::Cloudflare, "attention required! | cloudflare", true),
    (Wall::DataDome, "geo.captcha-delivery.com", true),
    (Wall::DataDome, "ct.captcha-delivery.com", true),
    (Wall::PerimeterX, "px-captcha", true),
    (Wall::Akamai, "errors.edgesuite.net", true),
    (Wall::Cloudflare, "/cdn-cgi/challenge-platform/", false),
    (Wall::PerimeterX, "_pxappid", false),
    (Wall::PerimeterX, "perimeterx", false),
    (Wall::Captcha, "g-recaptcha", false),
    (Wall::Captcha, "h-captcha", false),
    (Wall::Captcha, "challenges.cloudflare.com/turnstile", false),
    (Wall::RateLimit, "spike arrest violation", false),
    (Wall::RateLimit, "spikearrest", false),
    (Wall::RateLimit, "quota violation", false),
];

/// Response headers that name a wall: (service, header, value substring or ""
/// for any, strong).
const HEADER_MARKERS: &[(Wall, &str, &str, bool)] = &[
    (Wall::Cloudflare, "cf-mitigated", "challenge", true),
    (Wall::PerimeterX, "x-px-blocked", "", true),
    (Wall::DataDome, "x-datadome", "", false),
    (Wall::DataDome, "x-dd-b", "", false),
];

/// Only the start of a body is read: wall pages are small, content pages large.
const SCAN_BYTES: usize = 64 * 1024;

/// The wall this response is, if any. Any status can carry one: sites answer
/// challenges with 403, 429 or 503, and some with 200.
pub fn detect(response: &Response) -> Option<Wall> {
    let refused = matches!(response.status, 401 | 403 | 429 | 503);
    for (wall, name, value, strong) in HEADER_MARKERS {
        let Some(v) = response.header(name) else {
            continue;
        };
        if (*strong || refused) && (value.is_empty() || v.to_ascii_lowercase().contains(value)) {
            return Some(*wall);
        }
    }
    let head = &response.body[..response.body.len().min(SCAN_BYTES)];
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    // Akamai writes its reference line with entities: "Reference&#32;&#35;18&#46;…".
    let akamai_reference = ["reference #", "reference&#32;&#35;", "edgesuite"]
        .iter()
        .any(|m| text.contains(m));
    if text.contains("<title>access denied</title>") && (akamai_reference || refused) {
        return Some(Wall::Akamai);
    }
    BODY_MARKERS
        .iter()
        .find(|(_, marker, strong)| (*strong || refused) && text.contains(marker))
        .map(|(wall, _, _)| *wall)
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

/// The error for a wall met while reading `what`: names the service and what would help.
pub fn blocked(wall: Wall, what: &str, url: &str) -> FetchError {
    FetchError::Blocked(format!(
        "{what}: the site answered with {} instead of the page ({url}); \
         retry later with slower pacing, or configure a proxy or the site's credentials",
        wall.phrase()
    ))
}

impl Response {
    /// Fails with [`FetchError::Blocked`] naming the service when the response is a
    /// bot wall, whatever its status; otherwise hands the response back.
    pub fn ensure_not_walled(self, what: &str) -> Result<Response, FetchError> {
        match detect(&self) {
            Some(wall) => Err(blocked(wall, what, &self.final_url)),
            None => Ok(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(status: u16, headers: &[(&str, &str)], body: &str) -> Response {
        Response {
            status,
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            body: body.as_bytes().to_vec(),
            final_url: "https://example.com/x".into(),
        }
    }

    #[test]
    fn recognises_the_common_walls() {
        let cf = page(
            403,
            &[],
            "<html><head><title>Just a moment...</title></head><script src=\"/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1\"></script>",
        );
        assert_eq!(detect(&cf), Some(Wall::Cloudflare));
        let header_only = page(403, &[("cf-mitigated", "challenge")], "");
        assert_eq!(detect(&header_only), Some(Wall::Cloudflare));
        let dd = page(
            403,
            &[],
            "<script>var dd={'cid':'x','host':'geo.captcha-delivery.com'}</script>",
        );
        assert_eq!(detect(&dd), Some(Wall::DataDome));
        let px = page(
            403,
            &[],
            "<div id=\"px-captcha\"></div><script>window._pxAppId='PXabc';</script>",
        );
        assert_eq!(detect(&px), Some(Wall::PerimeterX));
        let akamai = page(
            403,
            &[],
            "<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY>You don't have permission to access \"http://x/\" on this server.<P>Reference #18.1</BODY></HTML>",
        );
        assert_eq!(detect(&akamai), Some(Wall::Akamai));
    }

    #[test]
    fn says_what_was_seen() {
        let akamai = page(
            403,
            &[],
            "<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>Reference&#32;&#35;18&#46;5c2d</BODY></HTML>",
        );
        assert_eq!(seen(&akamai), "an Akamai \"Access Denied\" page");
        let apigee = page(
            429,
            &[],
            r#"{"fault":{"faultstring":"Spike arrest violation"}}"#,
        );
        assert_eq!(detect(&apigee), Some(Wall::RateLimit));
        assert_eq!(seen(&page(429, &[], "")), "HTTP 429 Too Many Requests");
        assert!(seen(&page(200, &[], "<!DOCTYPE html><p>hold on")).starts_with("an HTML page"));
        assert_eq!(seen(&page(200, &[], "")), "an empty answer");
        assert_eq!(
            seen(&page(500, &[], "oops")),
            "HTTP 500 with an unexpected body"
        );
    }

    #[test]
    fn content_pages_are_not_walls() {
        let review = page(
            200,
            &[("x-datadome", "protected")],
            "<html><title>Reviews</title><p>The captcha at checkout was annoying, access denied twice.</p>\
             <form><div class=\"g-recaptcha\"></div></form><script src=\"/cdn-cgi/challenge-platform/scripts/jsd/main.js\"></script></html>",
        );
        assert_eq!(
            detect(&review),
            None,
            "sensor scripts and form CAPTCHAs on a content page"
        );
        let json = page(404, &[], r#"{"error":"not found"}"#);
        assert_eq!(detect(&json), None);
        assert!(page(200, &[], "{}").ensure_not_walled("reviews").is_ok());
        let e = page(403, &[("x-datadome", "protected")], "")
            .ensure_not_walled("the review page")
            .unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("DataDome") && m.contains("proxy")),
            "{e:?}"
        );
    }
}
