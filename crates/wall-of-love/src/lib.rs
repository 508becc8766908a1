//! Walls of love on testimonial products (Shapo, Testimonial.to, Senja,
//! Endorsal): one small adapter per product, chosen by the wall URL's host.
//! A source plugin that reads walls depends on this crate beside the SDK:
//! `gleaner-wall-of-love = { path = "../../crates/wall-of-love" }`.
//!
//! - [`dispatch`]: the host table, [`parse_query`] (a pasted URL to a [`Wall`]),
//!   [`fetch_page`] (one page by offset) and [`fetch_whole`] (every page, for
//!   plugins that sort or filter a wall themselves);
//! - [`shapo`]: the wall page's `__NEXT_DATA__`, the whole wall in one page;
//! - [`testimonial_to`]: the server-rendered embed's cards, paged by offset;
//! - [`senja`]: the public widget configuration JSON, in one answer;
//! - [`endorsal`]: the public wall API, paged by offset and limit;
//! - [`common`]: what they share (loose JSON values, ratings, dates, Mux
//!   videos, transcripts, bot walls versus changed pages).
//!
//! No product sorts its wall by date, so every page is declared unordered, and
//! no product has helpful votes.

pub mod common;
pub mod dispatch;
pub mod endorsal;
pub mod senja;
pub mod shapo;
pub mod testimonial_to;

pub use common::Offset;
pub use dispatch::{fetch_page, fetch_whole, parse_query, product_of, Product, Wall, PRODUCTS};
