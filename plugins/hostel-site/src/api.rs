//! Requests to the Hostelworld API with its rotating public `api-key`.
//!
//! The key is the one the Hostelworld web app ships to every browser in its
//! Nuxt runtime config (`APIGEE_KEY:"…"`). It is read from
//! [`endpoints::KEY_PAGE`], kept in the plugin cache for
//! [`endpoints::KEY_TTL_SECONDS`], and sent as `api-key`. When the API answers
//! 401 the key has rotated: it is read again from the page (bypassing the
//! cache) and the request retried once; a second 401 is a `blocked` error.

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::{botwall, cache, log, FetchError};
use serde_json::Value;

use crate::endpoints;

/// The plugin-cache entry holding the key.
const CACHE_KEY: &str = "apigee_key";

/// What to tell the user when the site refuses this address.
const WHAT_HELPS: &str = "retry later with slower pacing (a lower `upstream_concurrency`) \
or through a proxy";

/// A client for one plugin call: it reads the key at most twice (once from
/// the cache or the page, once more after a 401).
pub struct Client {
    key: Option<String>,
    reread: bool,
}

impl Client {
    /// A client with no key read yet.
    pub fn new() -> Client {
        Client {
            key: None,
            reread: false,
        }
    }

    /// GETs `url` as JSON with the api-key; `what` names it in errors.
    pub fn get_json(&mut self, url: &str, what: &str) -> Result<Value, FetchError> {
        let key = match self.key.clone() {
            Some(k) => k,
            None => self.read_key(false)?,
        };
        let mut response = send(url, &key)?;
        if response.status == 401 {
            if self.reread {
                return Err(refused_twice(what, url));
            }
            log::info("Hostelworld answered 401: reading the api-key again from its web app");
            let fresh = self.read_key(true)?;
            response = send(url, &fresh)?;
            if response.status == 401 {
                return Err(refused_twice(what, url));
            }
        }
        json(response, what)
    }

    /// The key from the cache, or (when `bypass_cache` or not cached) from the page.
    fn read_key(&mut self, bypass_cache: bool) -> Result<String, FetchError> {
        if !bypass_cache {
            if let Some(k) = cache::get(CACHE_KEY).filter(|k| valid_key(k)) {
                self.key = Some(k.clone());
                return Ok(k);
            }
        }
        self.reread = bypass_cache;
        let page = http::get_html(endpoints::KEY_PAGE)?;
        let what = "the Hostelworld web-app page that carries the api-key";
        let found = page
            .is_success()
            .then(|| extract_key(&page.text()))
            .flatten();
        let key = match found {
            Some(key) => key,
            None => {
                if refused(&page) {
                    return Err(blocked(what, &page));
                }
                page.checked(what)?;
                return Err(FetchError::Upstream(format!(
                    "{} has no `{}:\"…\"` in its runtime config any more: the page layout changed and the plugin needs an update",
                    endpoints::KEY_PAGE,
                    endpoints::KEY_MARKER
                )));
            }
        };
        cache::set(CACHE_KEY, &key, endpoints::KEY_TTL_SECONDS);
        self.key = Some(key.clone());
        Ok(key)
    }
}

fn send(url: &str, key: &str) -> Result<Response, FetchError> {
    http::get(url, &[("accept", "application/json"), ("api-key", key)])
}

fn refused_twice(what: &str, url: &str) -> FetchError {
    FetchError::Blocked(format!(
        "{what}: Hostelworld refused the api-key with HTTP 401 for {url}, and again after the key was read anew from its web app ({}); \
the key is no longer published there in the expected form, or this address is refused: {WHAT_HELPS}",
        endpoints::KEY_PAGE
    ))
}

/// The error for a refusal: what answered, what it was, and what would help.
fn blocked(what: &str, response: &Response) -> FetchError {
    FetchError::Blocked(format!(
        "{what}: Hostelworld answered {} for {}; {WHAT_HELPS}",
        botwall::answered(response),
        response.final_url
    ))
}

/// Whether the answer is a refusal: a bot wall or a gateway's rate limit
/// (whatever the status), or HTTP 401, 403 or 429.
fn refused(response: &Response) -> bool {
    matches!(response.status, 401 | 403 | 429) || botwall::detect(response).is_some()
}

/// Maps an API answer: a refusal page → blocked, 404 → not found, other
/// failures → upstream, a body that is not JSON → upstream (layout changed).
fn json(response: Response, what: &str) -> Result<Value, FetchError> {
    if response.is_success() {
        if let Ok(value) = serde_json::from_slice(&response.body) {
            return Ok(value);
        }
    }
    if refused(&response) {
        return Err(blocked(what, &response));
    }
    if matches!(response.status, 404 | 410) {
        return Err(FetchError::NotFound(format!(
            "{what}: Hostelworld has no such property ({} answered HTTP {}); check the property id",
            response.final_url, response.status
        )));
    }
    let response = response.checked(what)?;
    Err(FetchError::Upstream(format!(
        "{what}: {} did not answer with JSON; the Hostelworld API changed and the plugin needs an update",
        response.final_url
    )))
}

/// Whether a value looks like an api-key.
fn valid_key(k: &str) -> bool {
    (8..=256).contains(&k.len())
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The value of `APIGEE_KEY:"…"` (or the JSON form `"APIGEE_KEY":"…"`) in a page.
pub fn extract_key(page: &str) -> Option<String> {
    page.match_indices(endpoints::KEY_MARKER)
        .find_map(|(at, m)| {
            let rest = page[at + m.len()..].trim_start_matches('"').trim_start();
            let rest = rest.strip_prefix(':')?.trim_start();
            let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
            let (value, _) = rest[1..].split_once(quote)?;
            valid_key(value).then(|| value.to_owned())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16, body: &str) -> Response {
        gleaner_sdk::testing::response(status, "https://prod.apigee.hostelworld.com/x", body)
    }

    #[test]
    fn reads_the_key_from_the_nuxt_runtime_config() {
        let page = r#"<script>window.__NUXT__=(function(a){return {config:{BOOKING_SERVICE:"https://x/booking-service/v2",APIGEE_KEY:"abcDEF123456ghi",FOO:"bar"}}})()</script>"#;
        assert_eq!(extract_key(page).as_deref(), Some("abcDEF123456ghi"));
        assert_eq!(
            extract_key(r#"{"APIGEE_KEY": "abcDEF123456ghi"}"#).as_deref(),
            Some("abcDEF123456ghi")
        );
        assert_eq!(
            extract_key(r#"x APIGEE_KEY y APIGEE_KEY:"k2k2k2k2k2""#).as_deref(),
            Some("k2k2k2k2k2")
        );
        assert_eq!(extract_key("<html>no key</html>"), None);
        assert_eq!(extract_key(r#"APIGEE_KEY:"""#), None);
        assert_eq!(extract_key(r#"APIGEE_KEY:"has space""#), None);
        assert_eq!(extract_key(r#"APIGEE_KEY:"unterminated"#).as_deref(), None);
    }

    /// The blocked message of `json` for an answer.
    fn blocked_message(status: u16, body: &str) -> String {
        match json(response(status, body), "the property details") {
            Err(FetchError::Blocked(m)) => m,
            other => panic!("expected a blocked error, got {other:?}"),
        }
    }

    #[test]
    fn refusals_name_what_was_seen_and_what_helps() {
        let akamai = include_str!("../tests/samples/blocked_access_denied.html");
        let m = blocked_message(403, akamai);
        assert!(
            m.contains("answered HTTP 403 with an Akamai \"Access Denied\" page for https://prod.apigee.hostelworld.com/x")
                && m.contains("upstream_concurrency")
                && m.contains("through a proxy"),
            "{m}"
        );
        let m = blocked_message(200, "<script src=\"https://ct.captcha-delivery.com/c.js\">");
        assert!(m.contains("HTTP 200 with a DataDome CAPTCHA"), "{m}");
        let m = blocked_message(429, r#"{"fault":{"faultstring":"Spike arrest violation"}}"#);
        assert!(m.contains("rate-limit answer"), "{m}");
        let m = blocked_message(429, "");
        assert!(m.contains("answered HTTP 429 Too Many Requests for"), "{m}");
        let m = blocked_message(403, "<html>Access Denied. Reference #1</html>");
        assert!(m.contains("answered HTTP 403 Forbidden for"), "{m}");
    }

    #[test]
    fn maps_statuses() {
        assert!(matches!(
            json(response(404, "{}"), "the property details"),
            Err(FetchError::NotFound(m)) if m.contains("check the property id")
        ));
        assert!(matches!(
            json(response(500, "oops"), "x"),
            Err(FetchError::Upstream(m)) if m.contains("HTTP 500")
        ));
        assert!(matches!(
            json(response(200, "<html>maintenance</html>"), "x"),
            Err(FetchError::Upstream(m)) if m.contains("did not answer with JSON")
        ));
        assert_eq!(json(response(200, "{\"a\":1}"), "x").unwrap()["a"], 1);
        assert!(matches!(
            refused_twice("the review listing", "u"),
            FetchError::Blocked(m) if m.contains("HTTP 401") && m.contains("read anew")
        ));
    }
}
