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
//! renews is echoed from then on. The visit is plain HTTP; only when the page
//! answers with a JavaScript challenge a browser can pass (Cloudflare,
//! DataDome, Akamai, PerimeterX) is it opened in the host's headless browser,
//! whose cookies (the challenge's clearance and the page's own) join the jar,
//! and the activity is read from the document the browser ended with. A
//! visit that fails or sets no visitor cookie (the browser missing, failing
//! or stopped by the wall too) is no error: the fetch goes on without one
//! (the review API may then refuse, and the older listing take over), and its
//! later pages do not visit again. Only a 404 of the page itself ends the
//! fetch.

use gleaner_sdk::browser::{self, Wait};
use gleaner_sdk::{botwall, http, log, session, FetchError};

use crate::activity::Activity;
use crate::endpoints;
use crate::query::Target;

/// The cookie whose absence means the session has not visited the page.
pub const VISITOR_COOKIE: &str = "visitor_id";

/// What tells the browser the activity page itself is there, not a
/// challenge: the schema.org JSON-LD [`Activity::from_page`] reads.
pub const PAGE_READY: &str = r#"script[type="application/ld+json"]"#;

/// What a visit of the activity page gave.
#[derive(Debug, Default)]
pub struct Visit {
    /// What the page says of the activity (nothing when it could not be read).
    pub activity: Activity,
    /// The wall the page answered and why the browser did not get past it,
    /// for the error of a fetch that every recipe refuses afterwards.
    pub wall: Option<String>,
}

/// Whether the session holds the visitor cookie for the activity page.
pub fn has_visitor(target: &Target) -> bool {
    cookie(&target.url, VISITOR_COOKIE).is_some()
}

/// Visits the activity page, as a browser would before the page's API
/// calls: the host keeps the cookies it sets. Returns what the page says of
/// the activity (nothing when the visit failed or was refused) and, when
/// its wall was not passed, what it answered.
pub fn visit(target: &Target) -> Result<Visit, FetchError> {
    let response = match http::prime(&target.url) {
        Ok(r) => r,
        Err(e) => {
            log::warn(&format!(
                "the activity page {} could not be visited ({e:?}); going on without its cookies",
                target.url
            ));
            return Ok(Visit::default());
        }
    };
    let wall = botwall::detect(&response);
    if matches!(response.status, 404 | 410) && wall.is_none() {
        return Err(not_found(&response.final_url, response.status));
    }
    if response.is_success() && wall.is_none() {
        return Ok(Visit {
            activity: Activity::from_page(&response.text()),
            wall: None,
        });
    }
    if browser::passable(wall) {
        return in_browser(target, &botwall::answered(&response));
    }
    log::info(&format!(
        "the activity page answered {}; going on with the cookies it set, if any",
        botwall::seen(&response)
    ));
    Ok(Visit::default())
}

/// Opens the activity page in the host's headless browser after plain HTTP
/// met a wall the browser can pass (`answered`, in words), and reads the
/// activity from the document the browser ended with. A browser that is
/// missing, fails or meets the wall too is logged, and the fetch goes on.
fn in_browser(target: &Target, answered: &str) -> Result<Visit, FetchError> {
    log::info(&format!(
        "the activity page answered {answered}; opening it in the browser"
    ));
    let why = match browser::visit(&target.url, Wait::Selector(PAGE_READY.into()), &[]) {
        Ok(page) => match page.wall {
            None if matches!(page.status, 404 | 410) => {
                return Err(not_found(&page.final_url, page.status));
            }
            None => {
                return Ok(Visit {
                    activity: Activity::from_page(&page.document),
                    wall: None,
                });
            }
            Some(wall) => format!("it met {} too", wall.phrase()),
        },
        Err(e) => http::message(&e).to_owned(),
    };
    log::warn(&format!(
        "the browser did not get past the activity page's wall ({why}); going on with the cookies the session holds, if any"
    ));
    Ok(Visit {
        activity: Activity::default(),
        wall: Some(format!(
            "{answered}, which the host's headless browser did not get past ({why})"
        )),
    })
}

/// The error of an activity page that is not there.
fn not_found(url: &str, status: u16) -> FetchError {
    FetchError::NotFound(format!(
        "GetYourGuide has no activity page at {url} (HTTP {status}); check the URL"
    ))
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
