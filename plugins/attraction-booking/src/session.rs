//! The fetch's cookie session.
//!
//! The host keeps one cookie jar per review fetch, across its pages and its
//! continuation tokens, and sends the jar's cookies with every request of the
//! fetch (RFC 6265 rules: domain, path, expiry, Secure); the plugin neither
//! stores nor sends cookies itself. The activity page sets the visitor id,
//! CSRF token and session id that the review API also wants as headers
//! ([`endpoints::COOKIE_HEADERS`]): a page is preceded by a visit of the
//! activity page whenever the jar holds no `visitor_id` for it (a new fetch,
//! or a continuation whose session expired in the host), and the header
//! values are read back from the jar on every call, so a cookie the API
//! renews is echoed from then on. A visit that fails or sets no visitor
//! cookie is no error: the fetch goes on without one (the review API may then
//! refuse, and the older listing take over), and its later pages do not visit
//! again. Only a 404 of the page itself ends the fetch.

use gleaner_sdk::{botwall, http, log, session, FetchError};

use crate::activity::Activity;
use crate::endpoints;
use crate::query::Target;

/// The cookie whose absence means the session has not visited the page.
pub const VISITOR_COOKIE: &str = "visitor_id";

/// Whether the session holds the visitor cookie for the activity page.
pub fn has_visitor(target: &Target) -> bool {
    cookie(&target.url, VISITOR_COOKIE).is_some()
}

/// Visits the activity page, as a browser would before the page's API
/// calls: the host keeps the cookies it sets. Returns what the page says of
/// the activity (nothing when the visit failed or was refused).
pub fn visit(target: &Target) -> Result<Activity, FetchError> {
    let response = match http::prime(&target.url) {
        Ok(r) => r,
        Err(e) => {
            log::warn(&format!(
                "the activity page {} could not be visited ({e:?}); going on without its cookies",
                target.url
            ));
            return Ok(Activity::default());
        }
    };
    let wall = botwall::detect(&response);
    if matches!(response.status, 404 | 410) && wall.is_none() {
        return Err(FetchError::NotFound(format!(
            "GetYourGuide has no activity page at {} (HTTP {}); check the URL",
            response.final_url, response.status
        )));
    }
    if response.is_success() && wall.is_none() {
        return Ok(Activity::from_page(&response.text()));
    }
    log::info(&format!(
        "the activity page answered {}; going on with the cookies it set, if any",
        botwall::seen(&response)
    ));
    Ok(Activity::default())
}

/// The review API's headers that carry cookie values. Each value is the one
/// the API itself receives in its `Cookie` header (so a cookie the API set
/// or renewed wins), else the page's own cookie, as the page's script would
/// read it.
pub fn api_headers(target: &Target) -> Vec<(&'static str, String)> {
    let api = endpoints::blocks();
    endpoints::COOKIE_HEADERS
        .iter()
        .filter_map(|(name, headers)| {
            let value = cookie(&api, name).or_else(|| cookie(&target.url, name))?;
            Some(headers.iter().map(move |h| (*h, value.clone())))
        })
        .flatten()
        .collect()
}

/// The non-empty value of cookie `name` that a request to `url` would send.
fn cookie(url: &str, name: &str) -> Option<String> {
    session::cookie(url, name).filter(|v| !v.is_empty())
}
