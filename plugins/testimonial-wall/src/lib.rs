//! testimonial-wall: the testimonials of a wall of love on Shapo, Testimonial.to,
//! Senja or Endorsal.
//!
//! The URL's host picks one small adapter per product ([`dispatch`]):
//! - [`shapo`]: the wall page's `__NEXT_DATA__`, the whole wall in one page;
//! - [`testimonial_to`]: the server-rendered embed's cards, paged by offset;
//! - [`senja`]: the public widget configuration JSON, in one answer;
//! - [`endorsal`]: the public wall API, paged by offset and limit.
//!
//! [`common`] holds what they share. No product sorts its wall by date, so every
//! page is declared unordered.

pub mod common;
pub mod dispatch;
pub mod endorsal;
pub mod senja;
pub mod shapo;
pub mod testimonial_to;

use gleaner_sdk::{FetchError, Page, PageRequest, PluginInfo};

gleaner_sdk::plugin_bindings!("source");

struct TestimonialWall;

impl exports::gleaner::plugin::source_plugin::Guest for TestimonialWall {
    fn info() -> PluginInfo {
        gleaner_sdk::plugin_info!()
    }

    fn fetch_page(req: PageRequest) -> Result<Page, FetchError> {
        dispatch::fetch_page(&req)
    }
}

export!(TestimonialWall);
