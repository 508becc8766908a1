//! hostel-site: Hostelworld property reviews.
//!
//! Reads the JSON API behind Hostelworld's web app (PWA): the property details
//! once per fetch (name, city, country, rating breakdown), then the review
//! listing page by page. Every request carries the site's public `api-key`,
//! which rotates: it is read from the PWA page's Nuxt runtime config, cached,
//! and read again once when the API answers 401 (see [`api`]).

mod api;
mod parse;
mod query;

use gleaner_sdk::{cursor, FetchError, Order, Page, PageRequest};

pub use parse::{Listing, Property};
pub use query::Target;

gleaner_sdk::export_source!(|req: PageRequest| fetch_page(&req));

/// Every URL the plugin requests or builds, in one place.
pub mod endpoints {
    use gleaner_sdk::http::encode_component;

    /// The JSON API behind the Hostelworld web app.
    pub const API: &str = "https://prod.apigee.hostelworld.com/legacy-hwapi-service/2.2";
    /// A page of the web app whose Nuxt runtime config carries `APIGEE_KEY:"…"`
    /// (a city search page; any PWA page carries the same config).
    pub const KEY_PAGE: &str = "https://www.hostelworld.com/pwa/s?q=Amsterdam,%20Netherlands&country=Netherlands&city=Amsterdam&type=city&id=15";
    /// The marker of the key in [`KEY_PAGE`].
    pub const KEY_MARKER: &str = "APIGEE_KEY";
    /// Reviews per page (the largest value seen in use).
    pub const PER_PAGE: u32 = 50;
    /// The review window in months: older reviews are not listed. 72 is the
    /// widest window seen in use (the web app itself asks for 36).
    pub const MONTH_COUNT: u32 = 72;
    /// How long a key read from [`KEY_PAGE`] is kept in the plugin cache.
    pub const KEY_TTL_SECONDS: u32 = 6 * 3600;

    /// Property details: name, city, rating breakdown, total ratings.
    pub fn property(id: &str) -> String {
        format!("{API}/properties/{id}/?application=web")
    }

    /// One page (1-based) of a property's reviews.
    pub fn reviews(id: &str, sort: &str, all_languages: bool, page: u32) -> String {
        format!(
            "{API}/properties/{id}/reviews/?sort={}&allLanguages={all_languages}&page={page}&per-page={PER_PAGE}&monthCount={MONTH_COUNT}&application=web",
            encode_component(sort)
        )
    }

    /// The property's page on the site, `hosteldetails.php/{Name}/{City}/{id}`
    /// (reviews have no permalink of their own).
    pub fn property_page(id: &str, name: &str, city: &str) -> String {
        let segment =
            |s: &str| encode_component(&s.split_whitespace().collect::<Vec<_>>().join("-"));
        format!(
            "https://www.hostelworld.com/hosteldetails.php/{}/{}/{id}",
            segment(name),
            segment(city)
        )
    }
}

/// The sort used when the request names none: newest first.
pub const DEFAULT_SORT: &str = "-date";

/// Where the next page starts, and the property details read on the first
/// page (so later pages do not fetch them again).
#[derive(serde::Serialize, serde::Deserialize)]
struct Cursor {
    page: u32,
    property: Property,
}

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let target = query::parse(&req.query).map_err(FetchError::BadQuery)?;
    let id = target.id.clone();
    let sort = req.sort_or(DEFAULT_SORT).to_owned();
    let all_languages = req.filter::<bool>()?.unwrap_or(false);
    let mut client = api::Client::new();
    let (page, property) = match req.cursor_state::<Cursor>()? {
        Some(c) if c.page >= 1 => (c.page, c.property),
        Some(_) => {
            return Err(FetchError::BadCursor(
                "the cursor names page 0; pages start at 1".into(),
            ))
        }
        None => {
            let details = client.get_json(&endpoints::property(&id), "the property details")?;
            (1, Property::from_details(&details, &target)?)
        }
    };
    let url = endpoints::reviews(&id, &sort, all_languages, page);
    let listing = Listing::parse(&client.get_json(&url, "the review listing")?)?;
    let reviews = listing
        .reviews
        .iter()
        .map(|r| parse::review(r, &property).map_err(FetchError::Upstream))
        .collect::<Result<Vec<_>, _>>()?;
    let (next_cursor, ahead) = continuation(page, &listing, &property, !reviews.is_empty());
    let meta = parse::meta(&property, &listing, all_languages, page == 1);
    let order = order(&sort, &reviews);
    Ok(Page {
        ahead,
        reviews,
        next_cursor,
        order,
        meta,
    })
}

/// The order of a page: newest first under `-date` where the page's dates
/// never increase (should the API ever put a review out of date order, such
/// as one language ahead of the others, the page is unordered and the host
/// does not stop early on it); every other sort is not by date, or (`date`)
/// unverified on the site.
fn order(sort: &str, reviews: &[gleaner_sdk::types::Review]) -> Order {
    if sort == DEFAULT_SORT {
        gleaner_sdk::review::order_by_dates(reviews, None)
    } else {
        Order::Unordered
    }
}

/// The cursor of the page after `page`, and of every page after it that the
/// listing counts (`numberOfPages`), so the host can fetch several at once.
/// Without a count, only the next page is known (from `pagination.next`); a
/// page without reviews ends the listing.
fn continuation(
    page: u32,
    listing: &Listing,
    property: &Property,
    has_reviews: bool,
) -> (Option<String>, Vec<String>) {
    if !has_reviews || !listing.has_page_after(page) {
        return (None, Vec::new());
    }
    let at = |page: u32| Cursor {
        page,
        property: property.clone(),
    };
    match listing.pages {
        Some(pages) => {
            let last = u32::try_from(pages).unwrap_or(u32::MAX);
            let ahead = cursor::ahead((page + 1..=last).map(at));
            (ahead.first().cloned(), ahead)
        }
        None => (Some(cursor::encode(&at(page + 1))), Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_urls() {
        assert_eq!(
            endpoints::property("93919"),
            "https://prod.apigee.hostelworld.com/legacy-hwapi-service/2.2/properties/93919/?application=web"
        );
        assert_eq!(
            endpoints::reviews("93919", "-date", false, 2),
            "https://prod.apigee.hostelworld.com/legacy-hwapi-service/2.2/properties/93919/reviews/?sort=-date&allLanguages=false&page=2&per-page=50&monthCount=72&application=web"
        );
        assert!(endpoints::reviews("1", "age-group", true, 1)
            .contains("sort=age-group&allLanguages=true&page=1"));
        assert_eq!(
            endpoints::property_page("93919", "ClinkNOORD", "Amsterdam"),
            "https://www.hostelworld.com/hosteldetails.php/ClinkNOORD/Amsterdam/93919"
        );
        assert_eq!(
            endpoints::property_page("7", "Yes! Lisbon Hostel", "Lisbon"),
            "https://www.hostelworld.com/hosteldetails.php/Yes%21-Lisbon-Hostel/Lisbon/7"
        );
    }

    #[test]
    fn only_a_page_in_date_order_is_newest_first() {
        let details: serde_json::Value =
            serde_json::from_str(include_str!("../tests/samples/apigee_property_93919.json"))
                .unwrap();
        let property = Property::from_details(&details, &query::parse("93919").unwrap()).unwrap();
        let page = listing("reviews_93919_all_languages_p1.json");
        let mut reviews: Vec<_> = page
            .reviews
            .iter()
            .map(|r| parse::review(r, &property).unwrap())
            .collect();
        assert_eq!(order("-date", &reviews), Order::NewestFirst);
        assert_eq!(order("-rating", &reviews), Order::Unordered);
        // The translated reviews moved after the others: no longer by date.
        reviews.sort_by_key(|r| r.language.as_deref() != Some("en"));
        assert_eq!(order("-date", &reviews), Order::Unordered);
    }

    /// A listing fixture, parsed.
    fn listing(name: &str) -> Listing {
        let text = std::fs::read_to_string(format!(
            "{}/tests/samples/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        Listing::parse(&serde_json::from_str(&text).unwrap()).unwrap()
    }

    #[test]
    fn ahead_lists_the_cursors_the_later_pages_give() {
        let details: serde_json::Value =
            serde_json::from_str(include_str!("../tests/samples/apigee_property_93919.json"))
                .unwrap();
        let target = query::parse("93919").unwrap();
        let property = Property::from_details(&details, &target).unwrap();
        let first = listing("reviews_93919_newest_p1.json");
        let (next, ahead) = continuation(1, &first, &property, true);
        assert_eq!(ahead.len(), 2, "pages 2 and 3 of 3");
        assert_eq!(next.as_ref(), ahead.first());
        // Each page reached along the list gives the rest of it, byte for byte.
        for (k, cursor_text) in ahead.iter().enumerate() {
            let c: Cursor = cursor::decode(cursor_text).unwrap();
            assert_eq!((c.page, &c.property), (k as u32 + 2, &property));
            let page = listing(&format!("reviews_93919_newest_p{}.json", c.page));
            let (next, rest) = continuation(c.page, &page, &c.property, !page.reviews.is_empty());
            assert_eq!(next.as_ref(), ahead.get(k + 1), "page {}", c.page);
            assert_eq!(rest, ahead[k + 1..].to_vec(), "page {}", c.page);
        }
        // Without a page count, the next page only; without reviews, none.
        let uncounted = Listing {
            pages: None,
            ..first.clone()
        };
        let (next, ahead) = continuation(1, &uncounted, &property, true);
        assert!(next.is_some() && ahead.is_empty());
        assert_eq!(
            continuation(1, &first, &property, false),
            (None, Vec::new())
        );
        let single = listing("reviews_93919_age_group.json");
        assert_eq!(
            continuation(1, &single, &property, true),
            (None, Vec::new())
        );
    }
}
