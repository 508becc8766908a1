//! GET requests to the ClassPass API, with its answers mapped to clear errors:
//! a Cloudflare challenge or a refusal → blocked (502), 404 → not found, other
//! failures and bodies that are not JSON → upstream (502).
//!
//! The API is called directly first; when it answers with a JavaScript
//! challenge a browser can pass, the studio's page on classpass.com is opened
//! in the host's headless browser, whose cookies (Cloudflare's clearance for
//! the site and its subdomains) join the fetch's session, and the request is
//! sent once more ([`browser::after_wall`]). A challenge the browser does not
//! pass either is answered as it came.

use gleaner_sdk::browser::{self, Wait};
use gleaner_sdk::http::{self, Response};
use gleaner_sdk::{botwall, FetchError};
use serde_json::Value;

/// What tells the browser the studio's page itself is there, not the
/// challenge: the page's canonical link or its Open Graph title, which a
/// challenge page has neither of.
pub const PAGE_READY: &str = r#"link[rel="canonical"], meta[property="og:title"]"#;

/// What to tell the user when ClassPass refuses this address.
const WHAT_HELPS: &str = "ClassPass sits behind Cloudflare, which refuses some addresses \
(data-centre ranges especially): retry later with slower pacing (a lower `upstream_concurrency` \
or a larger `min_delay_ms`), or through a proxy with a residential address";

/// GETs `url` as a script's JSON request and parses the answer; `what` names
/// it in errors, `missing` says what a 404 means ("no studio …"). After a
/// challenge a browser can pass, `page` (the studio's page on classpass.com)
/// is opened in the browser and `url` asked again.
pub fn get_json(url: &str, page: &str, what: &str, missing: &str) -> Result<Value, FetchError> {
    let response = browser::after_wall(page, Wait::Selector(PAGE_READY.into()), || {
        http::get_as(http::Profile::Json, url, &[])
    })?;
    json(response, what, missing)
}

/// Whether the answer is a refusal: a bot wall (whatever the status), or
/// HTTP 401, 403 or 429.
fn refused(response: &Response) -> bool {
    matches!(response.status, 401 | 403 | 429) || botwall::detect(response).is_some()
}

/// Maps an answer: JSON on 2xx → the value; a refusal → blocked; 404/410 →
/// not found; other failures → upstream; 2xx that is not JSON → upstream
/// (the API changed).
pub fn json(response: Response, what: &str, missing: &str) -> Result<Value, FetchError> {
    if refused(&response) {
        return Err(FetchError::Blocked(format!(
            "{what}: ClassPass answered {} for {}; {WHAT_HELPS}",
            botwall::answered(&response),
            response.final_url
        )));
    }
    if matches!(response.status, 404 | 410) {
        return Err(FetchError::NotFound(format!(
            "{what}: {missing} ({} answered HTTP {}); check the studio page's address",
            response.final_url, response.status
        )));
    }
    let response = response.checked(what)?;
    serde_json::from_slice(&response.body).map_err(|_| {
        FetchError::Upstream(format!(
            "{what}: {} answered {} instead of JSON; the ClassPass API changed and the plugin needs an update",
            response.final_url,
            botwall::seen(&response)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16, body: &str) -> Response {
        gleaner_sdk::testing::response(status, "https://api.classpass.com/v2/venues/x", body)
    }

    fn map(status: u16, body: &str) -> Result<Value, FetchError> {
        json(
            response(status, body),
            "the studio",
            "ClassPass has no such studio",
        )
    }

    #[test]
    fn a_cloudflare_challenge_is_blocked_naming_what_helps() {
        let page = include_str!("../tests/samples/cloudflare_challenge.html");
        let Err(FetchError::Blocked(m)) = map(403, page) else {
            panic!("expected blocked")
        };
        assert!(
            m.contains("HTTP 403 with a Cloudflare")
                && m.contains("https://api.classpass.com/v2/venues/x")
                && m.contains("residential"),
            "{m}"
        );
        assert!(matches!(map(200, page), Err(FetchError::Blocked(_))));
        let Err(FetchError::Blocked(m)) = map(429, "") else {
            panic!("expected blocked")
        };
        assert!(m.contains("HTTP 429 Too Many Requests"), "{m}");
    }

    #[test]
    fn maps_statuses_and_bodies() {
        assert!(matches!(
            map(404, "{}"),
            Err(FetchError::NotFound(m)) if m.contains("no such studio") && m.contains("HTTP 404")
        ));
        assert!(matches!(map(500, "oops"), Err(FetchError::Upstream(m)) if m.contains("HTTP 500")));
        assert!(matches!(
            map(200, "<!DOCTYPE html><p>maintenance"),
            Err(FetchError::Upstream(m)) if m.contains("instead of JSON")
        ));
        assert_eq!(map(200, "{\"a\":1}").unwrap()["a"], 1);
    }
}
