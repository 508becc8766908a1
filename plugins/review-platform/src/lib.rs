//! review-platform: the reviews behind a "wall of love" URL.
//!
//! The query's host picks the recipe ([`query`]):
//! - a G2 product ([`g2`]): its server-rendered reviews page, 10 reviews a page,
//!   sorted and filtered by G2 itself and paged by page number;
//! - a testimonial wall on Shapo, Testimonial.to, Senja or Endorsal ([`wall`]):
//!   read whole through the SDK's wall adapters, then sorted and filtered here
//!   (walls have no helpful votes).
//!
//! [`options`] reads the request's sort and filter.

pub mod g2;
pub mod options;
pub mod query;
pub mod wall;

use gleaner_sdk::{FetchError, Page, PageRequest};

use options::Options;
use query::Target;

gleaner_sdk::export_source!(
    |req: PageRequest| fetch_page(&req),
    prepare = || gleaner_sdk::html::prepare(g2::parse::ALL)
);

/// Resolves the query and runs the recipe of its site.
fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let target = query::parse(&req.query).map_err(FetchError::BadQuery)?;
    let options = Options::from_request(req)?;
    match target {
        Target::G2 { slug } => g2::fetch(&slug, &options, req),
        Target::Wall(w) => wall::fetch(&w, &options),
    }
}
