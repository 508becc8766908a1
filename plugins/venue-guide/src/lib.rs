//! venue-guide: Foursquare venue tips, read through the Foursquare API.
//!
//! The query names a venue (URL, 4sq.com short link, tip link or bare id; see
//! [`query`]). The configured credentials choose the API ([`api::Credentials`]):
//! v2 `venues/{id}/tips` with a client id and secret, or the v3 Places API
//! `places/{id}/tips` with an API key. Both page by `limit` + `offset`; the
//! plugin's cursor holds the offset, the API version and the resolved venue,
//! so later pages neither re-follow a short link nor mix API versions.
//! `recent` (the default) is newest first, so `sync_date` stops early.

pub mod api;
pub mod page;
pub mod query;
pub mod tips;

use api::Credentials;
use gleaner_sdk::http::{self, Response};
use gleaner_sdk::{config, log, FetchError, Page, PageRequest};
use page::{Asked, Cursor, Venue};
use query::Target;
use serde_json::Value;

gleaner_sdk::export_source!(|req: PageRequest| fetch_page(&req));

/// The sort used when the request names none: newest first.
pub const DEFAULT_SORT: &str = "recent";

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let sort = req.sort_or(DEFAULT_SORT).to_owned();
    let state = req.cursor_state::<Cursor>()?;
    let target = query::parse(&req.query).map_err(FetchError::BadQuery)?;
    let creds = Credentials::from_settings(config::get)?;
    let limit = creds.page_size(config::get("page_size"))?;
    let (venue, offset, first, version) = match state {
        Some(c) => {
            if c.api != creds.api() {
                return Err(FetchError::BadCursor(format!(
                    "this pagination_token continues a fetch through Foursquare API {}, but the configured credentials now use API {}; start a new fetch without the token",
                    c.api,
                    creds.api()
                )));
            }
            let venue = Venue {
                id: c.venue,
                name: c.name,
            };
            (venue, c.offset, c.first, c.version_date)
        }
        None => (resolve(target, &creds)?, 0, None, None),
    };
    let asked = Asked {
        venue: &venue,
        sort: &sort,
        limit,
        offset,
    };
    match &creds {
        Credentials::V2 { version_date, .. } => {
            let version = version.unwrap_or_else(|| version_date.clone());
            let url = api::v2_tips_url(&creds, &version, &venue.id, &sort, limit, offset);
            let body = v2_body(&get_json(&url, &creds)?, &format!("venue {}", venue.id))?;
            page::v2(&body, &asked, &version)
        }
        Credentials::V3 { .. } => {
            let url = api::v3_tips_url(&venue.id, &sort, limit, offset);
            let response = get_json(&url, &creds)?;
            let body = api::v3_checked(&response, &format!("place {}", venue.id))?;
            page::v3(&body, &asked, first.as_deref())
        }
    }
}

/// The venue a query names, following short links and tip links.
fn resolve(target: Target, creds: &Credentials) -> Result<Venue, FetchError> {
    match target {
        Target::Venue(id) => Ok(Venue { id, name: None }),
        Target::Tip(tip) => tip_venue(&tip, creds),
        Target::ShortLink(link) => match follow_short_link(&link)? {
            Target::Venue(id) => Ok(Venue { id, name: None }),
            Target::Tip(tip) => tip_venue(&tip, creds),
            Target::ShortLink(_) => Err(FetchError::BadQuery(format!(
                "the short link {link} leads to another short link; use {}",
                query::VALID_FORMS
            ))),
        },
    }
}

/// Follows a 4sq.com short link (the host follows the redirects) and reads the
/// venue from where it ends, or from the venue link on the page it ends on.
fn follow_short_link(link: &str) -> Result<Target, FetchError> {
    let response = http::get_html(link)?;
    if let Ok(t @ (Target::Venue(_) | Target::Tip(_))) = query::parse(&response.final_url) {
        return Ok(t);
    }
    if let Some(wall) = gleaner_sdk::botwall::detect(&response) {
        let what = format!("the short link {link}");
        return Err(gleaner_sdk::botwall::blocked(wall, &what, &response));
    }
    let seen = || gleaner_sdk::botwall::seen(&response);
    match response.status {
        404 | 410 => {
            return Err(FetchError::NotFound(format!(
                "the short link {link} leads nowhere (HTTP {} at {})",
                response.status, response.final_url
            )))
        }
        401 | 403 | 429 | 503 => {
            return Err(FetchError::Blocked(format!(
                "the short link {link} was answered with HTTP {} and {} at {}; retry later, or paste the venue URL instead",
                response.status,
                seen(),
                response.final_url
            )))
        }
        _ => {}
    }
    match query::venue_in_page(&response.text()) {
        Some(id) => Ok(Target::Venue(id)),
        None => Err(FetchError::BadQuery(format!(
            "the short link {link} leads to {}, which is not a Foursquare venue page; use {}",
            response.final_url,
            query::VALID_FORMS
        ))),
    }
}

/// The venue of a tip, from API v2 `tips/{id}`.
fn tip_venue(tip: &str, creds: &Credentials) -> Result<Venue, FetchError> {
    let Credentials::V2 { version_date, .. } = creds else {
        return Err(FetchError::BadQuery(format!(
            "https://foursquare.com/item/{tip} is a tip, and the Places API v3 cannot tell its venue; use the venue's link instead: {}",
            query::VALID_FORMS
        )));
    };
    let what = format!("tip {tip}");
    let response = get_json(&api::v2_tip_url(creds, version_date, tip), creds)?;
    let body = v2_body(&response, &what)?;
    let venue = &body["response"]["tip"]["venue"];
    match venue["id"].as_str().filter(|id| query::is_object_id(id)) {
        Some(id) => Ok(Venue {
            id: id.to_ascii_lowercase(),
            name: venue["name"].as_str().map(str::to_owned),
        }),
        None => Err(FetchError::Upstream(format!(
            "the API answer for {what} names no venue (response.tip.venue.id); the Foursquare API v2 format may have changed"
        ))),
    }
}

/// A checked v2 answer; its deprecation warnings go to the log.
fn v2_body(response: &Response, what: &str) -> Result<Value, FetchError> {
    let body = api::v2_checked(response, what)?;
    if let Some(warning) = api::v2_warning(&body) {
        log::warn(&warning);
    }
    Ok(body)
}

/// GET an API URL as JSON, sending the v3 key when there is one (the host
/// removes the credentials of the URLs its errors quote).
fn get_json(url: &str, creds: &Credentials) -> Result<Response, FetchError> {
    let mut headers = vec![("accept", "application/json")];
    if let Some(key) = creds.authorization() {
        headers.push(("authorization", key));
    }
    http::get(url, &headers)
}
