//! Every URL the plugin requests or builds, and the site's constants, in one
//! place; it depends on nothing else in the plugin.

/// The public REST API behind classpass.com (also served on the site's own
/// host as `https://classpass.com/_api/…`).
pub const API: &str = "https://api.classpass.com";
/// Reviews per page: the most the site's own pages ask for.
pub const PAGE_SIZE: usize = 50;
/// How long an alias → venue mapping stays in the plugin cache.
pub const VENUE_TTL_SECONDS: u32 = 24 * 3600;

/// The venue endpoint; it takes the alias or the numeric id.
pub fn venue(alias: &str) -> String {
    format!("{API}/v2/venues/{alias}")
}

/// One page (0-based) of a venue's reviews.
pub fn reviews(venue_id: u64, page: u32) -> String {
    format!("{API}/v2/venues/{venue_id}/reviews?page_size={PAGE_SIZE}&page={page}")
}

/// A studio's page on classpass.com (reviews have no permalink of their own).
pub fn studio_page(alias: &str) -> String {
    format!("https://classpass.com/studios/{alias}")
}

/// The top of ClassPass's rating scale: reviews are rated 1 to 5 stars (every
/// value 1–5 occurs in recorded review data, and nothing above 5), and the
/// studio's average is shown as a star rating such as "4.9".
pub const SCALE: f64 = 5.0;
