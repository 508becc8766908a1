//! Reading one page of a profile: the request, the answers that are errors,
//! and which reading of the page holds its reviews.
//!
//! Angi sometimes serves a reduced variant of a profile page, without the
//! business or review data, and one public scraper found that a cookie Angi
//! sets can keep a client on it. Such a page is asked for again, up to
//! [`ATTEMPTS`] times in all, the later attempts without the fetch's cookies.

use gleaner_sdk::html::Html;
use gleaner_sdk::listing::{self, Shown};
use gleaner_sdk::{http, log, FetchError};

use crate::flight::Flight;
use crate::model::{Business, Listing};
use crate::paging::Cursor;
use crate::query::{self, Profile};
use crate::{dom, rsc};

/// Requests of one page when Angi answers its reduced variant.
pub const ATTEMPTS: u32 = 3;

/// What the plugin looks for on a profile page, named in a changed-layout error.
pub const LOOKED_FOR: &[(&str, &str)] = &[
    ("the flight data review list", "data-testid:\"reviewsList\""),
    ("the business header", "data-testid:\"businessProfileHero\""),
    (
        "the older review list",
        "div#reviews-section div#reviews > div",
    ),
];

/// How a page is read.
#[derive(Debug)]
pub(crate) enum Classified {
    /// Reviews, or a page that says the pro has none.
    Read(Box<Read>),
    /// Nothing of the profile: Angi's reduced variant, worth asking again.
    Reduced,
    /// Profile data without reviews and without anything saying there are none.
    Changed,
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
    /// What says the pro has no reviews, for a page without any.
    pub empty_signal: Option<String>,
}

/// Reads the page the cursor points at.
pub fn read(profile: &Profile, cursor: &Cursor) -> Result<Read, FetchError> {
    let url = cursor.url(&profile.url);
    for attempt in 1..=ATTEMPTS {
        let mut headers = Vec::new();
        if attempt > 1 {
            // An own (empty) Cookie header: the host then sends none of the jar's.
            headers.push(("cookie", ""));
        }
        let response = checked(
            http::get_as(http::Profile::Document, &url, &headers)?,
            profile,
        )?;
        match classify(&response.text(), cursor.page) {
            Classified::Read(mut read) => {
                read.attempts = attempt;
                return Ok(*read);
            }
            Classified::Changed => return Err(listing::layout_changed("Angi", &url, LOOKED_FOR)),
            Classified::Reduced => log::info(&format!(
                "{url} came without review data (attempt {attempt} of {ATTEMPTS}): Angi's reduced page variant"
            )),
        }
    }
    Err(match listing::layout_changed("Angi", &url, LOOKED_FOR) {
        FetchError::Upstream(message) => FetchError::Upstream(format!(
            "{message}; or Angi kept serving its reduced page variant in {ATTEMPTS} attempts \
             (retry later, or through a proxy)"
        )),
        other => other,
    })
}

/// The answers that are errors: a bot wall or refusal (502 naming what would
/// help), a missing profile (404), a redirect away from the profile.
fn checked(response: http::Response, profile: &Profile) -> Result<http::Response, FetchError> {
    if response.is_missing() {
        return Err(FetchError::NotFound(format!(
            "Angi has no profile at {} (HTTP {}); check the URL",
            response.final_url, response.status
        )));
    }
    let response = response.checked("Angi's profile page")?;
    let same_profile = query::parse(&response.final_url).is_ok_and(|p| p.id == profile.id);
    if !same_profile {
        return Err(FetchError::NotFound(format!(
            "Angi no longer lists the profile {}: it led to {}",
            profile.url, response.final_url
        )));
    }
    Ok(response)
}

/// Which reading holds the reviews. A page without reviews is a pro without
/// reviews only where it says so: a "no reviews" text, a zero count or
/// average, or a header whose count is unset (`"$undefined"`, how the page
/// states a pro without reviews). Otherwise a page with profile data is a
/// changed layout, and one without any is the reduced variant.
pub(crate) fn classify(html: &str, page: u32) -> Classified {
    let flight = Flight::from_html(html);
    let business = rsc::business(&flight);
    let doc = Html::parse_document(html);
    let (listing, recipe) = match rsc::listing(&flight) {
        Some(listing) => (listing, Some(Recipe::Flight)),
        None => match dom::listing(&doc, page) {
            Some(listing) => (listing, Some(Recipe::Markup)),
            None => (Listing::default(), None),
        },
    };
    let mut read = Read {
        listing,
        recipe,
        business,
        attempts: 1,
        empty_signal: None,
    };
    // Reviews, or a later page past the last one.
    if !read.listing.reviews.is_empty() || (page > 1 && read.recipe.is_some()) {
        return Classified::Read(Box::new(read));
    }
    let count = read.listing.total.or(read.business.total_reviews);
    let unset_header = (read.business.seen && count.is_none())
        .then(|| "the header gives no review count".to_owned());
    let shown = [
        Shown::Number("review count", count.map(|n| n as f64)),
        Shown::Number("average rating", read.business.average_rating),
    ];
    read.empty_signal = listing::no_reviews(&doc, &[], &shown).or(unset_header);
    match read.empty_signal {
        Some(_) => Classified::Read(Box::new(read)),
        None if read.business.seen || read.recipe.is_some() => Classified::Changed,
        None => Classified::Reduced,
    }
}
