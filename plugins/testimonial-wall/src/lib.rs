//! testimonial-wall: the testimonials of a wall of love on Shapo, Testimonial.to,
//! Senja or Endorsal.
//!
//! A thin plugin over the wall-of-love adapters ([`gleaner_wall_of_love`]): the URL's
//! host picks the product's adapter, and the cursor holds the offset of the
//! next page for the products that page (Testimonial.to, Endorsal). No product
//! sorts its wall by date, so every page is declared unordered.
//!
//! A wall that holds nothing answers with no reviews and a notice (the SDK's
//! adapters tell an empty Testimonial.to embed from a changed layout).

use gleaner_sdk::{FetchError, Page, PageRequest};
use gleaner_wall_of_love::{self as walls, Offset};

gleaner_sdk::export_source!(|req: PageRequest| fetch_page(&req));

/// Resolves the wall and reads the page the cursor points at.
fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let wall = walls::parse_query(&req.query).map_err(FetchError::BadQuery)?;
    let offset = req.cursor_state::<Offset>()?.map_or(0, |c| c.offset);
    walls::fetch_page(&wall, offset)
}

#[cfg(test)]
mod tests;
