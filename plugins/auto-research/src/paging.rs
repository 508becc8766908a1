//! Pages of the review list: the first page's address for a sort, star filter
//! and page size, the next page as the page links it (kept on this vehicle's
//! review list and carrying the fetch's parameters), the cursor state, and the
//! order a page may declare.

use gleaner_sdk::types::Review;
use gleaner_sdk::{FetchError, Order};
use url::Url;

use crate::query::{self, ORIGIN};

/// The query parameter of the sort (unverified against the live site).
pub const SORT_PARAM: &str = "sort";
/// The query parameter of the star filter (unverified against the live site).
pub const RATING_PARAM: &str = "rating";
/// The query parameter of the page size (seen in public crawlers, up to 200).
pub const PAGE_SIZE_PARAM: &str = "page_size";
/// The sort an omitted `sort_type` means (the manifest's default).
pub const DEFAULT_SORT: &str = "newest";
/// Reviews per page when the operator sets no `page_size`.
pub const DEFAULT_PAGE_SIZE: u32 = 50;
/// The largest page size seen in use.
pub const MAX_PAGE_SIZE: u32 = 200;

/// What one fetch asks the review list for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    /// The sort, one of the manifest's values.
    pub sort: String,
    /// The star filter, 1–5.
    pub rating: Option<u8>,
    /// Reviews per page.
    pub page_size: u32,
}

impl Params {
    /// The query parameters every page of the fetch carries.
    fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = vec![
            (PAGE_SIZE_PARAM, self.page_size.to_string()),
            (SORT_PARAM, self.sort.clone()),
        ];
        if let Some(r) = self.rating {
            pairs.push((RATING_PARAM, r.to_string()));
        }
        pairs
    }
}

/// The cursor: the next page of reviews, as the previous page linked it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct State {
    /// The next page's URL.
    pub url: String,
    /// The vehicle slug whose review list it belongs to.
    pub slug: String,
    /// Its number, counting the first page as 1.
    pub page: u32,
    /// Reviews on the pages before it.
    pub seen: u64,
    /// The day of the last review before it, to check the order across pages.
    pub last_day: Option<String>,
    /// The first review id of the page before it, to notice a page served again.
    pub first_id: Option<String>,
}

/// The `page_size` setting: 1 to [`MAX_PAGE_SIZE`], [`DEFAULT_PAGE_SIZE`] when unset.
pub fn page_size(setting: Option<&str>) -> Result<u32, FetchError> {
    match setting.map(str::trim) {
        None | Some("") => Ok(DEFAULT_PAGE_SIZE),
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_PAGE_SIZE).contains(n))
            .ok_or_else(|| {
                FetchError::Upstream(format!(
                    "the setting GLEANER_PLUGIN_AUTO_RESEARCH_PAGE_SIZE is {s:?}; it must be a \
                     number from 1 to {MAX_PAGE_SIZE}, or left unset (default {DEFAULT_PAGE_SIZE})"
                ))
            }),
    }
}

/// The first page of the review list of `slug`.
pub fn first_url(slug: &str, params: &Params) -> String {
    let mut url = Url::parse(&format!("{ORIGIN}/research/{slug}/consumer-reviews/"))
        .expect("the origin and a checked slug make a URL");
    url.query_pairs_mut().extend_pairs(params.pairs());
    url.to_string()
}

/// A link to another page of `slug`'s review list, made canonical, with every
/// parameter of the fetch it lacks added; none for any other address.
pub fn own_page(slug: &str, link: &str, params: &Params) -> Option<String> {
    let url = Url::parse(link).ok()?;
    let on_site = matches!(url.scheme(), "http" | "https") && query::is_site_host(url.host_str()?);
    let vehicle = query::reviews_page_vehicle(url.path())?;
    if !on_site || vehicle.slug != slug {
        return None;
    }
    let mut own = Url::parse(&vehicle.reviews_url()).ok()?;
    let kept: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    let missing: Vec<(&str, String)> = params
        .pairs()
        .into_iter()
        .filter(|(k, _)| !kept.iter().any(|(name, _)| name == k))
        .collect();
    if !kept.is_empty() || !missing.is_empty() {
        own.query_pairs_mut()
            .extend_pairs(kept)
            .extend_pairs(missing);
    }
    Some(own.to_string())
}

/// The calendar day of a review's date.
pub fn day(review: &Review) -> Option<&str> {
    review.date.as_deref().and_then(|d| d.get(..10))
}

/// `NewestFirst` for the `newest` sort when every review is dated and the days
/// never rise, from the previous page's last day on; otherwise `Unordered`, so
/// a site that ignores the sort never makes `sync_date` stop early by mistake.
pub fn declared_order(sort: &str, reviews: &[Review], last_day: Option<&str>) -> Order {
    if sort != "newest" {
        return Order::Unordered;
    }
    gleaner_sdk::review::order_by_dates(reviews, last_day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::review::ReviewBuilder;

    const SLUG: &str = "mazda-cx_5-2021";

    fn params(sort: &str, rating: Option<u8>) -> Params {
        Params {
            sort: sort.into(),
            rating,
            page_size: 50,
        }
    }

    #[test]
    fn builds_first_pages() {
        assert_eq!(
            first_url(SLUG, &params("newest", None)),
            "https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/?page_size=50&sort=newest"
        );
        assert_eq!(
            first_url(SLUG, &params("lowest", Some(2))),
            "https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/?page_size=50&sort=lowest&rating=2"
        );
    }

    #[test]
    fn follows_only_this_vehicles_pages_keeping_the_fetch_parameters() {
        let p = params("helpful", Some(4));
        assert_eq!(
            own_page(SLUG, "https://cars.com/research/mazda-cx_5-2021/consumer-reviews?page=2&sort=helpful", &p)
                .as_deref(),
            Some("https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/?page=2&sort=helpful&page_size=50&rating=4")
        );
        assert!(own_page(
            SLUG,
            "https://www.cars.com/research/mazda-cx_5-2022/consumer-reviews/?page=2",
            &p
        )
        .is_none());
        assert!(own_page(
            SLUG,
            "https://www.cars.com/research/mazda-cx_5-2021/?page=2",
            &p
        )
        .is_none());
        assert!(own_page(
            SLUG,
            "https://evil.example/research/mazda-cx_5-2021/consumer-reviews/?page=2",
            &p
        )
        .is_none());
        assert!(own_page(SLUG, "javascript:alert(1)", &p).is_none());
    }

    #[test]
    fn reads_the_page_size_setting() {
        assert_eq!(page_size(None).unwrap(), 50);
        assert_eq!(page_size(Some(" 5 ")).unwrap(), 5);
        assert_eq!(page_size(Some("200")).unwrap(), 200);
        for bad in ["0", "201", "many"] {
            let e = page_size(Some(bad)).unwrap_err();
            assert!(
                matches!(&e, FetchError::Upstream(m) if m.contains("GLEANER_PLUGIN_AUTO_RESEARCH_PAGE_SIZE"))
            );
        }
    }

    fn dated(days: &[&str]) -> Vec<Review> {
        days.iter()
            .enumerate()
            .map(|(i, d)| {
                ReviewBuilder::new(format!("r{i}"))
                    .date(Some((*d).into()))
                    .build()
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn declares_newest_first_only_when_the_dates_say_so() {
        let down = dated(&["2024-03-20", "2024-03-18", "2024-03-18"]);
        assert_eq!(declared_order("newest", &down, None), Order::NewestFirst);
        assert_eq!(
            declared_order("newest", &down, Some("2024-03-21")),
            Order::NewestFirst
        );
        assert_eq!(
            declared_order("newest", &down, Some("2024-03-19")),
            Order::Unordered
        );
        assert_eq!(declared_order("helpful", &down, None), Order::Unordered);
        assert_eq!(
            declared_order("newest", &dated(&["2024-03-18", "2024-03-20"]), None),
            Order::Unordered
        );
        let mut undated = dated(&["2024-03-18"]);
        undated.push(ReviewBuilder::new("u").build().unwrap());
        assert_eq!(declared_order("newest", &undated, None), Order::Unordered);
    }
}
