//! G2: a product's server-rendered reviews page,
//! `www.g2.com/products/<slug>/reviews?order=<order>&page=<n>`, 10 reviews a
//! page. G2 sorts (`order=`) and filters by stars (`filters[star_rating]=`)
//! itself; the cursor holds the next page number. G2 guards its pages with
//! DataDome and Cloudflare, so a wall answer is the common failure.

pub mod parse;

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::{cursor, FetchError, Order, Page, PageRequest, SourceMeta};
use serde_json::json;

use crate::options::{star_of, Filter, Options, Sort};

/// The reviews page; `{query}` is `order=…&page=…` with the star filter.
pub const PAGE_URL: &str = "https://www.g2.com/products/{slug}/reviews?{query}";
/// The product's reviews page without parameters (the resolved URL).
pub const REVIEWS_URL: &str = "https://www.g2.com/products/{slug}/reviews";
/// The star filter parameter (`filters[star_rating]`, URL-encoded).
pub const STAR_PARAM: &str = "filters%5Bstar_rating%5D";
/// What the plugin reads, for messages.
pub const WHAT: &str = "G2 reviews page";

/// Where the next page of a listing starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cursor {
    /// The 1-based page number to read.
    pub page: u32,
}

/// G2's `order=` value for a request: the helpful filter reads G2's
/// most-helpful order, otherwise the sort's.
pub fn order(options: &Options) -> &'static str {
    match (options.filter, options.sort) {
        (Some(Filter::Helpful), _) => "most_helpful",
        (_, Sort::MostRecent) => "most_recent",
        (_, Sort::HighestRated) => "highest_rated",
    }
}

/// The URL of one page of the listing.
pub fn page_url(slug: &str, options: &Options, page: u32) -> String {
    let mut query = format!("order={}&page={page}", order(options));
    if let Some(Filter::Stars(n)) = options.filter {
        query.push_str(&format!("&{STAR_PARAM}={n}"));
    }
    PAGE_URL.replace("{slug}", slug).replace("{query}", &query)
}

/// Reads one page of a product's reviews.
pub fn fetch(slug: &str, options: &Options, req: &PageRequest) -> Result<Page, FetchError> {
    let page = req.cursor_state::<Cursor>()?.map_or(1, |c| c.page.max(1));
    let url = page_url(slug, options, page);
    let response = checked(http::get_html(&url)?, slug)?;
    let reviews_url = REVIEWS_URL.replace("{slug}", slug);
    // A first page without cards must say it has none (a "no reviews" line,
    // a zero count); otherwise the markup is no longer the one read here.
    let parsed = parse::page(&response.text(), &reviews_url)?
        .filter(|p| page > 1 || !p.reviews.is_empty() || p.empty_signal.is_some())
        .ok_or_else(|| changed(&response))?;
    Ok(assemble(parsed, slug, options, page, &url))
}

/// The page the host receives. The star filter is applied again here (half
/// stars count with the star below), and the helpful filter keeps reviews
/// with a vote; a listing in G2's most-helpful order ends at the first review
/// without one.
pub fn assemble(
    parsed: parse::ReviewsPage,
    slug: &str,
    options: &Options,
    page: u32,
    url: &str,
) -> Page {
    let listed = parsed.reviews.len();
    let mut reviews = parsed.reviews;
    let mut more = parsed.has_next && listed > 0;
    match options.filter {
        Some(Filter::Stars(n)) => reviews.retain(|r| r.rating.map(star_of) == Some(n)),
        Some(Filter::Helpful) => {
            let voted = |r: &gleaner_sdk::types::Review| r.helpful_votes.unwrap_or(0) > 0;
            more &= reviews.iter().all(voted);
            reviews.retain(voted);
            reviews.sort_by_key(|r| std::cmp::Reverse(r.helpful_votes.unwrap_or(0)));
        }
        None => {}
    }
    // G2's `most_recent` lists strictly by date (nothing pinned, translated
    // reviews in place); its rating and helpfulness orders are not dated.
    let newest_first = options.sort == Sort::MostRecent && options.filter != Some(Filter::Helpful);
    let (sort, filter) = options.describe();
    let mut extra = json!({
        "site": "g2",
        "product_slug": slug,
        "page": page,
        "page_url": url,
        "order": order(options),
        "sort": sort,
        "filter": filter,
        "reviews_listed": listed,
    });
    if let Some(signal) = &parsed.empty_signal {
        extra["empty_signal"] = json!(signal);
    }
    if page == 1 && reviews.is_empty() {
        extra["notice"] = json!(match filter {
            Some(f) if f == "helpful" =>
                "no review of this G2 product has a helpful vote".to_owned(),
            Some(n) => format!("this G2 product has no {n}-star reviews"),
            None => "this G2 product has no reviews yet".to_owned(),
        });
    }
    Page {
        ahead: Vec::new(),
        reviews,
        next_cursor: more.then(|| cursor::encode(&Cursor { page: page + 1 })),
        order: if newest_first {
            Order::NewestFirst
        } else {
            Order::Unordered
        },
        meta: SourceMeta {
            resolved_url: Some(REVIEWS_URL.replace("{slug}", slug)),
            name: parsed.product.name,
            average_rating: parsed.product.average,
            total_reviews: parsed.product.total,
            extra_json: extra.to_string(),
        },
    }
}

/// Passes a usable answer. A bot wall (DataDome, Cloudflare) or a refusal is
/// "blocked", naming what was seen and what would help; 404/410 is "not found";
/// anything else non-2xx is "upstream".
pub fn checked(response: Response, slug: &str) -> Result<Response, FetchError> {
    if response.is_missing() {
        return Err(FetchError::NotFound(format!(
            "G2 has no product {slug:?}: {} answered HTTP {}; check the product's address, {}",
            response.final_url,
            response.status,
            crate::query::G2_FORM
        )));
    }
    response.checked(WHAT)
}

/// The error for a 2xx page with neither review cards nor anything saying
/// the product has none.
fn changed(response: &Response) -> FetchError {
    gleaner_sdk::listing::layout_changed(
        WHAT,
        &response.final_url,
        &[
            ("the review list", parse::LIST),
            ("review cards", parse::CARD),
            ("the review count", parse::PRODUCT_COUNT),
        ],
    )
}

#[cfg(test)]
mod tests;
