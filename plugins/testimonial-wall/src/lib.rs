//! testimonial-wall: the testimonials of a wall of love on Shapo, Testimonial.to,
//! Senja or Endorsal.
//!
//! A thin plugin over the SDK's wall adapters ([`gleaner_sdk::walls`]): the URL's
//! host picks the product's adapter, and the cursor holds the offset of the
//! next page for the products that page (Testimonial.to, Endorsal). No product
//! sorts its wall by date, so every page is declared unordered.

use gleaner_sdk::walls::{self, Offset};
use gleaner_sdk::{FetchError, Page, PageRequest, PluginInfo};

gleaner_sdk::plugin_bindings!("source");

struct TestimonialWall;

impl exports::gleaner::plugin::source_plugin::Guest for TestimonialWall {
    fn info() -> PluginInfo {
        gleaner_sdk::plugin_info!()
    }

    fn fetch_page(req: PageRequest) -> Result<Page, FetchError> {
        fetch_page(&req)
    }
}

export!(TestimonialWall);

/// Resolves the wall and reads the page the cursor points at.
fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let wall = walls::parse_query(&req.query).map_err(FetchError::BadQuery)?;
    let offset = req.cursor_state::<Offset>()?.map_or(0, |c| c.offset);
    walls::fetch_page(&wall, offset)
}

#[cfg(test)]
mod tests;
