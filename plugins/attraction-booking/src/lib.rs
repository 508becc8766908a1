//! attraction-booking: GetYourGuide activity reviews.
//!
//! Reviews come from the review API behind the activity page ([`blocks`],
//! POST, 20 a page by offset). That API expects the visitor's cookies, and
//! some of their values as headers: the host keeps one cookie jar per fetch,
//! across its pages and continuation tokens, and a page first visits the
//! activity page whenever that jar has no visitor cookie yet ([`session`];
//! in the host's headless browser when plain HTTP meets a JavaScript
//! challenge), so the first page visits and reads reviews in the same call.
//! Where the review API refuses (a bot wall, 400/401/403/429, 5xx, or a page
//! instead of JSON), the activity reviews API public clients read takes over
//! ([`activities`]), and where that refuses too, the older `reviews.json`
//! listing beside the activity page ([`legacy`]); the cursor keeps the
//! recipe that serves for the rest of the fetch.
//!
//! Sorted by date, GetYourGuide lists the reviews in the site's language
//! first (newest first), then the other languages: neither date sort is
//! strictly by date, so both are declared unordered and `sync_date` filters
//! every page.

mod activities;
mod activity;
mod blocks;
mod legacy;
mod query;
mod review;
mod session;

use gleaner_sdk::{cursor, FetchError, Order, Page, PageRequest, SourceMeta};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

pub use activity::Activity;
pub use query::Target;

gleaner_sdk::export_source!(|req: PageRequest| fetch_page(&req));

/// Every URL, header and limit the plugin uses, in one place.
pub mod endpoints {
    /// The site; activity pages and the older `reviews.json` listing live here.
    pub const SITE: &str = "https://www.getyourguide.com";
    /// The review API behind the activity page ("blocks" of the page's UI).
    pub const BLOCKS: &str =
        "https://travelers-api.getyourguide.com/user-interface/activity-details-page/blocks";
    /// The ranking id the API takes in its URL and payload: any UUID will do;
    /// a fixed one keeps requests reproducible.
    pub const RANKING_UUID: &str = "3b0c2d1e-4f5a-4b6c-8d7e-9f0a1b2c3d4e";
    /// Reviews per page, in both recipes.
    pub const PAGE_SIZE: u32 = 20;
    /// The review API serves no further than about offset 320 for one sort and
    /// filter. A listing that ends at or past this position is taken as cut
    /// by that cap when the activity has more reviews (or their number is
    /// unknown).
    pub const CAP_NEAR: u32 = 300;
    /// Language of the API's answers (review texts stay in their own language).
    pub const LANGUAGE: &str = "en-US";
    /// The fixed headers of a review API call, besides the host's browser
    /// profile for a script's JSON request (the cookie-derived ones and the
    /// Referer are added per call; the cookies themselves come from the host).
    pub const BLOCKS_HEADERS: &[(&str, &str)] = &[
        ("content-type", "application/json"),
        ("accept", "application/json, text/plain, */*"),
        ("origin", "https://www.getyourguide.com"),
        ("accept-currency", "EUR"),
        ("accept-language", "en-US"),
        ("geo-ip-country", "DE"),
        ("visitor-platform", "desktop"),
        ("x-gyg-app-type", "Web"),
    ];
    /// Cookie → the review API headers that carry its value.
    pub const COOKIE_HEADERS: &[(&str, &[&str])] = &[
        ("visitor_id", &["visitor-id", "x-gyg-visitor-id"]),
        ("csrfToken", &["x-gyg-csrf-token"]),
        ("session_id", &["x-gyg-session-id"]),
    ];

    /// The review API URL.
    pub fn blocks() -> String {
        format!("{BLOCKS}?ranking_uuid={RANKING_UUID}")
    }

    /// The activity reviews API public clients read.
    pub const ACTIVITIES: &str = "https://travelers-api.getyourguide.com/activities";

    /// A page of the activity reviews API; `sort` as that API writes it
    /// (`date:desc`), none for its default order.
    pub fn activities(id: u64, sort: Option<&str>, offset: u32) -> String {
        let mut url = format!("{ACTIVITIES}/{id}/reviews?limit={PAGE_SIZE}&offset={offset}");
        if let Some(sort) = sort {
            url.push_str(&format!("&sort={sort}"));
        }
        url
    }

    /// One page (0-based) of the older listing, `{activity URL}reviews.json`;
    /// `sort` is `(sortBy, direction)`, none for the site's default order.
    pub fn legacy(activity_url: &str, sort: Option<(&str, &str)>, page: u32) -> String {
        let mut url = format!("{activity_url}reviews.json?count={PAGE_SIZE}&page={page}&rating=0");
        if let Some((by, direction)) = sort {
            url.push_str(&format!("&sortBy={by}&direction={direction}"));
        }
        url
    }

    /// A review's URL: the activity's review section (reviews have no permalink).
    pub fn review_url(activity_url: &str) -> String {
        format!("{activity_url}#reviews")
    }
}

/// One `sort_type` and what it is on the site.
#[derive(Debug)]
pub struct SortRow {
    /// The spec's name.
    name: &'static str,
    /// `selectedReviewsSortingOrder` of the review API; none for the default order.
    blocks: Option<&'static str>,
    /// `sort` of the activity reviews API; none for its default order.
    activities: Option<&'static str>,
    /// `sortBy` and `direction` of the older listing; none for the default order.
    legacy: Option<(&'static str, &'static str)>,
}

/// The spec's sorts and what each is on the site. The rating sorts of the
/// activity reviews API follow its `date:desc` form (unverified).
const SORTS: &[SortRow] = &[
    SortRow {
        name: "most_relevant",
        blocks: None,
        activities: None,
        legacy: None,
    },
    SortRow {
        name: "newest",
        blocks: Some("date_desc"),
        activities: Some("date:desc"),
        legacy: Some(("date_of_review", "DESC")),
    },
    SortRow {
        name: "oldest",
        blocks: Some("date_asc"),
        activities: Some("date:asc"),
        legacy: Some(("date_of_review", "ASC")),
    },
    SortRow {
        name: "highest_rating",
        blocks: Some("rating_desc"),
        activities: Some("rating:desc"),
        legacy: Some(("rating", "DESC")),
    },
    SortRow {
        name: "lowest_rating",
        blocks: Some("rating_asc"),
        activities: Some("rating:asc"),
        legacy: Some(("rating", "ASC")),
    },
];

/// The sort used when the request names none.
pub const DEFAULT_SORT: &str = "most_relevant";

/// A sort of [`SORTS`].
#[derive(Debug, Clone, Copy)]
pub struct Sort(&'static SortRow);

impl Sort {
    /// The row of `name`; the host has validated it against the manifest.
    pub fn named(name: &str) -> Result<Sort, FetchError> {
        SORTS
            .iter()
            .find(|row| row.name == name)
            .map(Sort)
            .ok_or_else(|| {
                let names: Vec<&str> = SORTS.iter().map(|row| row.name).collect();
                FetchError::BadQuery(format!(
                    "sort_type {name:?} is not one of {}",
                    names.join(", ")
                ))
            })
    }
    /// The spec's name.
    pub fn name(self) -> &'static str {
        self.0.name
    }
    /// `selectedReviewsSortingOrder` of the review API; none for the default order.
    pub fn blocks(self) -> Option<&'static str> {
        self.0.blocks
    }
    /// `sort` of the activity reviews API; none for its default order.
    pub fn activities(self) -> Option<&'static str> {
        self.0.activities
    }
    /// `sortBy` and `direction` of the older listing; none for the default order.
    pub fn legacy(self) -> Option<(&'static str, &'static str)> {
        self.0.legacy
    }
    /// The order the reviews come in: none is strictly by date (see the
    /// crate's documentation), so every sort is unordered to the host.
    pub fn order(self) -> Order {
        Order::Unordered
    }
}

/// Which request recipe serves the pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Recipe {
    /// The review API (`travelers-api…/activity-details-page/blocks`).
    #[serde(rename = "b")]
    Blocks,
    /// The activity reviews API (`travelers-api…/activities/{id}/reviews`),
    /// once the review API refused.
    #[serde(rename = "a")]
    Activities,
    /// The older `reviews.json` listing, once both APIs refused.
    #[serde(rename = "l")]
    Legacy,
}

impl Recipe {
    fn label(self) -> &'static str {
        match self {
            Recipe::Blocks => "review-api",
            Recipe::Activities => "activity-reviews-api",
            Recipe::Legacy => "reviews-json",
        }
    }
}

/// The plugin's cursor. It ends up in a token the client can read, so it holds
/// no cookie (the host keeps the fetch's cookies in its session).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cursor {
    /// The recipe, pinned for the rest of the fetch once the fallback is taken.
    #[serde(rename = "r")]
    pub recipe: Recipe,
    /// Reviews of the listing before this page.
    #[serde(rename = "o")]
    pub offset: u32,
    /// Name, rating and count read from the activity page.
    #[serde(rename = "a", default)]
    pub activity: Activity,
    /// Why the review API was given up, once it was.
    #[serde(rename = "w", default)]
    pub fallback: Option<String>,
    /// The fetch's visit of the activity page set no visitor cookie: later
    /// pages do not visit again.
    #[serde(rename = "n", default, skip_serializing_if = "std::ops::Not::not")]
    pub cookieless: bool,
    /// Why the activity reviews API was given up, once it was.
    #[serde(rename = "v", default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The ids the activity reviews API listed on the page before, which it
    /// may repeat.
    #[serde(rename = "s", default, skip_serializing_if = "Vec::is_empty")]
    pub seen: Vec<String>,
}

impl Cursor {
    /// The cursor of a fetch's first page.
    fn start() -> Cursor {
        Cursor {
            recipe: Recipe::Blocks,
            offset: 0,
            activity: Activity::default(),
            fallback: None,
            cookieless: false,
            refused: None,
            seen: Vec::new(),
        }
    }
}

/// One page of reviews as a recipe read it.
#[derive(Default)]
pub struct Listing {
    /// The page's reviews.
    pub reviews: Vec<gleaner_sdk::types::Review>,
    /// Where the next page starts; none at the end of the listing.
    pub next_offset: Option<u32>,
    /// The activity's review count, where the answer states it.
    pub total: Option<u64>,
    /// Whether the answer had no review data at all (an empty listing).
    pub empty: bool,
}

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let target = query::parse(&req.query).map_err(FetchError::BadQuery)?;
    let sort = Sort::named(req.sort_or(DEFAULT_SORT))?;
    let mut cursor = req.cursor_state::<Cursor>()?.unwrap_or_else(Cursor::start);
    // A new session (or one the host let expire) visits the activity page
    // first; its metadata is kept from the first visit that gave any.
    let mut page_wall = None;
    if !cursor.cookieless && !session::has_visitor(&target) {
        let visit = session::visit(&target)?;
        if visit.activity != Activity::default() {
            cursor.activity = visit.activity;
        }
        cursor.cookieless = !session::has_visitor(&target);
        page_wall = visit.wall;
    }
    page(&target, sort, cursor, page_wall.as_deref())
}

/// A page of reviews, by the cursor's recipe, falling to the next recipe
/// when one refuses. `page_wall` is the wall this call's visit of the
/// activity page met and did not get past, named in the error when every
/// recipe refuses.
fn page(
    target: &Target,
    sort: Sort,
    mut cursor: Cursor,
    page_wall: Option<&str>,
) -> Result<Page, FetchError> {
    if cursor.recipe == Recipe::Blocks {
        match blocks::fetch(target, sort, cursor.offset)? {
            blocks::Outcome::Listing(listing) => return finish(target, sort, cursor, listing),
            blocks::Outcome::Refused(why) => {
                gleaner_sdk::log::info(&format!(
                    "the review API refused ({why}); reading the activity reviews API from here on"
                ));
                cursor.recipe = Recipe::Activities;
                cursor.fallback = Some(why);
            }
        }
    }
    if cursor.recipe == Recipe::Activities {
        match activities::fetch(target, sort, cursor.offset, &cursor.seen)? {
            activities::Outcome::Listing(listing, ids) => {
                cursor.seen = ids;
                return finish(target, sort, cursor, listing);
            }
            activities::Outcome::Refused(why) => {
                gleaner_sdk::log::info(&format!(
                    "the activity reviews API refused ({why}); reading the reviews.json listing from here on"
                ));
                cursor.recipe = Recipe::Legacy;
                cursor.seen.clear();
                cursor.refused = Some(why);
            }
        }
    }
    let refusals = [
        ("activity page", page_wall),
        ("review API", cursor.fallback.as_deref()),
        ("activity reviews API", cursor.refused.as_deref()),
    ];
    let listing = legacy::fetch(target, sort, cursor.offset, &refusals)?;
    finish(target, sort, cursor, listing)
}

/// The page of `listing`, with its metadata and the cursor of the next.
fn finish(
    target: &Target,
    sort: Sort,
    cursor: Cursor,
    listing: Listing,
) -> Result<Page, FetchError> {
    let mut reserved = Map::new();
    let total = listing.total.or(cursor.activity.total);
    let reached = cursor.offset + listing.reviews.len() as u32;
    if listing.next_offset.is_none() && capped(reached, total, cursor.recipe) {
        reserved.insert(
            "source_limit".into(),
            json!(cap_message(reached, total, sort)),
        );
    }
    if listing.empty && cursor.offset == 0 {
        reserved.insert(
            "notice".into(),
            json!("GetYourGuide lists no reviews for this activity"),
        );
    }
    let meta = meta(target, sort, &cursor, listing.total, reserved);
    let next_cursor = listing.next_offset.map(|offset| {
        cursor::encode(&Cursor {
            offset,
            ..cursor.clone()
        })
    });
    Ok(Page {
        ahead: Vec::new(),
        reviews: listing.reviews,
        next_cursor,
        order: sort.order(),
        meta,
    })
}

/// Whether a listing that ended at `reached` was cut by the review API's
/// offset cap rather than exhausted.
pub fn capped(reached: u32, total: Option<u64>, recipe: Recipe) -> bool {
    recipe == Recipe::Blocks
        && reached >= endpoints::CAP_NEAR
        && total.is_none_or(|t| t > u64::from(reached))
}

fn cap_message(reached: u32, total: Option<u64>, sort: Sort) -> String {
    let other = if sort.name() == "oldest" {
        "newest"
    } else {
        "oldest"
    };
    let of = total.map_or_else(
        || "the activity may have more".to_owned(),
        |t| format!("the activity has {t}"),
    );
    format!(
        "GetYourGuide's review API serves only about the first 320 reviews of each sort and stopped after {reached} ({of}); \
         fetch again with another sort_type ({other} reads the listing from its other end)"
    )
}

/// The page's metadata: the activity, the recipe and any reserved keys.
fn meta(
    target: &Target,
    sort: Sort,
    cursor: &Cursor,
    total: Option<u64>,
    reserved: Map<String, Value>,
) -> SourceMeta {
    let mut extra = json!({
        "activity_id": target.id,
        "recipe": cursor.recipe.label(),
        "fallback_reason": cursor.fallback,
        "activity_reviews_refusal": cursor.refused,
        "sort": match cursor.recipe {
            Recipe::Blocks => json!(sort.blocks()),
            Recipe::Activities => json!(sort.activities()),
            Recipe::Legacy => json!(sort.legacy().map(|(by, dir)| format!("{by} {dir}"))),
        },
        "rating_scale_max": review::SCALE,
    });
    if let Some(map) = extra.as_object_mut() {
        map.extend(reserved);
    }
    SourceMeta {
        resolved_url: Some(target.url.clone()),
        name: cursor.activity.name.clone(),
        average_rating: cursor.activity.rating,
        total_reviews: total.or(cursor.activity.total),
        extra_json: extra.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_map_to_the_site() {
        let row = |n: &str| Sort::named(n).unwrap();
        assert_eq!(row("most_relevant").blocks(), None);
        assert_eq!(row("most_relevant").legacy(), None);
        assert_eq!(row("newest").blocks(), Some("date_desc"));
        assert_eq!(row("newest").legacy(), Some(("date_of_review", "DESC")));
        assert_eq!(row("newest").activities(), Some("date:desc"));
        assert_eq!(
            row("newest").order(),
            Order::Unordered,
            "the site's language first, then the others"
        );
        assert_eq!(row("oldest").blocks(), Some("date_asc"));
        assert_eq!(row("oldest").order(), Order::Unordered);
        assert_eq!(row("highest_rating").blocks(), Some("rating_desc"));
        assert_eq!(row("lowest_rating").legacy(), Some(("rating", "ASC")));
        assert_eq!(row("lowest_rating").order(), Order::Unordered);
        assert!(Sort::named("recent").is_err());
    }

    #[test]
    fn endpoint_urls() {
        assert_eq!(
            endpoints::blocks(),
            "https://travelers-api.getyourguide.com/user-interface/activity-details-page/blocks?ranking_uuid=3b0c2d1e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"
        );
        let url = "https://www.getyourguide.com/berlin-l17/tempelhof-t23776/";
        assert_eq!(
            endpoints::legacy(url, Some(("date_of_review", "DESC")), 0),
            "https://www.getyourguide.com/berlin-l17/tempelhof-t23776/reviews.json?count=20&page=0&rating=0&sortBy=date_of_review&direction=DESC"
        );
        assert_eq!(
            endpoints::legacy(url, None, 2),
            "https://www.getyourguide.com/berlin-l17/tempelhof-t23776/reviews.json?count=20&page=2&rating=0"
        );
        assert_eq!(
            endpoints::activities(23776, Some("date:desc"), 40),
            "https://travelers-api.getyourguide.com/activities/23776/reviews?limit=20&offset=40&sort=date:desc"
        );
        assert_eq!(
            endpoints::review_url(url),
            "https://www.getyourguide.com/berlin-l17/tempelhof-t23776/#reviews"
        );
    }

    #[test]
    fn the_cap_is_told_from_the_end_of_a_listing() {
        assert!(capped(320, Some(579), Recipe::Blocks));
        assert!(capped(300, None, Recipe::Blocks));
        assert!(!capped(320, Some(320), Recipe::Blocks), "all there is");
        assert!(!capped(45, Some(579), Recipe::Blocks), "far from the cap");
        assert!(!capped(320, Some(579), Recipe::Legacy));
        let newest = Sort::named("newest").unwrap();
        let oldest = Sort::named("oldest").unwrap();
        assert!(cap_message(320, Some(579), newest)
            .contains("stopped after 320 (the activity has 579)"));
        assert!(cap_message(300, None, newest).contains(
            "(the activity may have more); fetch again with another sort_type (oldest reads"
        ));
        assert!(cap_message(320, None, oldest).contains("(newest reads"));
    }

    #[test]
    fn the_cursor_holds_no_cookie() {
        let c = Cursor {
            recipe: Recipe::Legacy,
            offset: 40,
            fallback: Some("HTTP 403".into()),
            ..Cursor::start()
        };
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(
            text,
            r#"{"r":"l","o":40,"a":{"name":null,"rating":null,"total":null},"w":"HTTP 403"}"#
        );
        let back: Cursor = cursor::decode(&cursor::encode(&c)).unwrap();
        assert_eq!((back.recipe, back.offset), (Recipe::Legacy, 40));
        assert!(!back.cookieless);
        let cookieless = Cursor {
            cookieless: true,
            ..Cursor::start()
        };
        let back: Cursor = cursor::decode(&cursor::encode(&cookieless)).unwrap();
        assert!(back.cookieless);
    }
}
