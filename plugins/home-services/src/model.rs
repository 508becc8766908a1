//! What a profile page holds, whichever reading found it: a page of reviews
//! and what the page says of the pro. The readers fill it and the page
//! request returns it; it depends only on the review entry.

use serde_json::{Map, Value};

use crate::review::Entry;

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
