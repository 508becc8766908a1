//! Paging: the plugin's cursor (the page of a profile to read) and the
//! address of that page. It depends on nothing else in the plugin.

use serde::{Deserialize, Serialize};

/// Reviews per page, as the profile page's own page links ask.
pub const PAGE_SIZE: u32 = 25;

/// The plugin's cursor, the `pagination_data` the host signs: the page to
/// read, and the limit and offset its URL carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    /// 1-based page number.
    pub page: u32,
    /// Reviews per page.
    pub limit: u32,
    /// Reviews before this page.
    pub offset: u32,
}

impl Cursor {
    /// The first page.
    pub fn start() -> Cursor {
        Cursor {
            page: 1,
            limit: PAGE_SIZE,
            offset: 0,
        }
    }

    /// The page after this one, for pages of `limit` reviews.
    pub fn next(&self, limit: u32) -> Cursor {
        Cursor {
            page: self.page + 1,
            limit,
            offset: self.page * limit,
        }
    }

    /// The page of the profile this cursor points at: the plain profile URL
    /// for the first page, then the page, limit and offset the site's page
    /// links carry.
    pub fn url(&self, profile_url: &str) -> String {
        if self.page <= 1 {
            return profile_url.to_owned();
        }
        format!(
            "{profile_url}?page={}&featuredReviewsLimit={}&featuredReviewsOffset={}",
            self.page, self.limit, self.offset
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_urls_carry_page_limit_and_offset() {
        let url = "https://www.angi.com/companylist/us/il/barrington/x-reviews-1.htm";
        let first = Cursor::start();
        assert_eq!(first.url(url), url);
        let second = first.next(25);
        assert_eq!(
            second,
            Cursor {
                page: 2,
                limit: 25,
                offset: 25
            }
        );
        assert_eq!(
            second.next(25).url(url),
            format!("{url}?page=3&featuredReviewsLimit=25&featuredReviewsOffset=50")
        );
    }

    #[test]
    fn the_cursor_is_page_limit_offset() {
        let text = serde_json::to_string(&Cursor::start().next(25)).unwrap();
        assert_eq!(text, r#"{"page":2,"limit":25,"offset":25}"#);
    }
}
