//! Reading one page of a profile: the request, the answers that are errors,
//! and which reading of the page holds its reviews.
//!
//! Angi sometimes serves a reduced variant of a profile page, without the
//! business or review data, and one public scraper found that a cookie Angi
//! sets can keep a client on it. Such a page is asked for again, up to
//! [`ATTEMPTS`] times in all, the later attempts without the fetch's cookies.

use gleaner_sdk::html::Html;
use gleaner_sdk::{botwall, http, log, FetchError};
use serde_json::{Map, Value};

use crate::flight::Flight;
use crate::query::{self, Profile};
use crate::review::Entry;
use crate::{dom, endpoints, rsc, Cursor};

/// Requests of one page when Angi answers its reduced variant.
pub const ATTEMPTS: u32 = 3;

/// One page of reviews.
#[derive(Debug, Default)]
pub struct Listing {
    /// The page's reviews.
    pub reviews: Vec<Entry>,
    /// The page number the site says it served.
    pub page: Option<u32>,
    /// The number of pages.
    pub total_pages: Option<u32>,
    /// Reviews per page.
    pub page_size: Option<u32>,
    /// The profile's review count.
    pub total: Option<u64>,
}

/// What the page says of the pro.
#[derive(Debug, Default)]
pub struct Business {
    /// The business name.
    pub name: Option<String>,
    /// The average rating, 1–5.
    pub average_rating: Option<f64>,
    /// The review count.
    pub total_reviews: Option<u64>,
    /// Angi's business UUID.
    pub business_id: Option<String>,
    /// The services the pro lists.
    pub categories: Option<Vec<String>>,
    /// Reviews per star, `"1"`–`"5"` → count.
    pub distribution: Option<Map<String, Value>>,
    /// Whether the page had the header or the star breakdown at all.
    pub seen: bool,
}

/// Which reading of the page gave the reviews.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipe {
    /// The flight data's `reviewsList` component.
    Flight,
    /// The older review markup.
    Markup,
}

impl Recipe {
    /// The name shown in `extra_information.source.recipe`.
    pub fn label(self) -> &'static str {
        match self {
            Recipe::Flight => "flight-data",
            Recipe::Markup => "review-markup",
        }
    }
}

/// A page read.
#[derive(Debug)]
pub struct Read {
    /// Its reviews (none for a profile without reviews).
    pub listing: Listing,
    /// The reading that found them; none when the profile has no reviews.
    pub recipe: Option<Recipe>,
    /// The pro.
    pub business: Business,
    /// Requests it took.
    pub attempts: u32,
}

/// Reads the page the cursor points at.
pub fn read(profile: &Profile, cursor: &Cursor) -> Result<Read, FetchError> {
    let url = endpoints::page_url(&profile.url, cursor);
    for attempt in 1..=ATTEMPTS {
        let mut headers = vec![http::DOCUMENT];
        if attempt > 1 {
            // An own (empty) Cookie header: the host then sends none of the jar's.
            headers.push(("cookie", ""));
        }
        let response = checked(http::get(&url, &headers)?, profile)?;
        if let Some(mut read) = classify(&response.text(), cursor.page) {
            read.attempts = attempt;
            return Ok(read);
        }
        log::info(&format!(
            "{url} came without review data (attempt {attempt} of {ATTEMPTS}): Angi's reduced page variant"
        ));
    }
    Err(FetchError::Upstream(format!(
        "Angi's profile page {url} held no review data in {ATTEMPTS} attempts: either Angi kept \
         serving its reduced page variant (retry later, or through a proxy) or the page layout \
         changed and the plugin needs an update"
    )))
}

/// The answers that are errors: a bot wall or refusal (502 naming what would
/// help), a missing profile (404), a redirect away from the profile.
fn checked(response: http::Response, profile: &Profile) -> Result<http::Response, FetchError> {
    let what = "Angi's profile page";
    if let Some(wall) = botwall::detect(&response) {
        return Err(botwall::blocked(wall, what, &response.final_url));
    }
    match response.status {
        200..=299 => {}
        404 | 410 => {
            return Err(FetchError::NotFound(format!(
                "Angi has no profile at {} (HTTP {}); check the URL",
                response.final_url, response.status
            )))
        }
        401 | 403 | 429 => {
            return Err(FetchError::Blocked(format!(
                "{what}: Angi answered {} for {}; Angi limits quick or datacenter clients: retry \
                 later with slower pacing, or through residential proxies",
                botwall::seen(&response),
                response.final_url
            )))
        }
        status => {
            return Err(FetchError::Upstream(format!(
                "{what}: Angi answered HTTP {status} for {}",
                response.final_url
            )))
        }
    }
    let same_profile = query::parse(&response.final_url).is_ok_and(|p| p.id == profile.id);
    if !same_profile {
        return Err(FetchError::NotFound(format!(
            "Angi no longer lists the profile {}: it led to {}",
            profile.url, response.final_url
        )));
    }
    Ok(response)
}

/// Which reading holds the reviews; none for a page without review data
/// (the reduced variant, or a changed layout).
pub(crate) fn classify(html: &str, page: u32) -> Option<Read> {
    let flight = Flight::from_html(html);
    let business = rsc::business(&flight);
    let (listing, recipe) = match rsc::listing(&flight) {
        Some(listing) => (listing, Some(Recipe::Flight)),
        None => match dom::listing(&Html::parse_document(html), page) {
            Some(listing) => (listing, Some(Recipe::Markup)),
            // A header that counts no reviews, and no list: a pro without reviews.
            None if business.seen && business.total_reviews.unwrap_or(0) == 0 => {
                (Listing::default(), None)
            }
            None => return None,
        },
    };
    Some(Read {
        listing,
        recipe,
        business,
        attempts: 1,
    })
}
