//! home-services: reviews of a pro's profile on Angi (formerly Angie's List).
//!
//! One request per page: the server-rendered profile page
//! (`…/companylist/us/{state}/{city}/{name}-reviews-{id}.htm`, then
//! `?page=N&featuredReviewsLimit=25&featuredReviewsOffset=…`). Its reviews are
//! read from the page's flight data ([`rsc`], through [`flight`]), else from
//! the older review markup ([`dom`]); [`page`] makes the request and tells
//! refusals, missing profiles and pages without review data apart. Angi prints
//! review dates by month only, so dates are `YYYY-MM`.

mod dom;
mod flight;
mod model;
mod page;
mod paging;
mod query;
mod review;
mod rsc;

use gleaner_sdk::{cursor, FetchError, Page, PageRequest, SourceMeta};
use serde_json::json;

pub use paging::Cursor;
pub use query::Profile;

gleaner_sdk::export_source!(|req: PageRequest| fetch_page(&req));

/// The only order the site lists reviews in.
pub const DEFAULT_SORT: &str = "most_recent";

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let profile = query::parse(&req.query).map_err(FetchError::BadQuery)?;
    let sort = req.sort_or(DEFAULT_SORT);
    if sort != DEFAULT_SORT {
        return Err(FetchError::BadQuery(format!(
            "sort_type {sort:?} is not offered by Angi; the one value is {DEFAULT_SORT}"
        )));
    }
    let cursor = req.cursor_state::<Cursor>()?.unwrap_or_else(Cursor::start);
    if cursor.page == 0 || cursor.limit == 0 {
        return Err(FetchError::BadCursor(
            "pagination_data names no page; send back the object a previous answer returned".into(),
        ));
    }
    let read = page::read(&profile, &cursor)?;
    if let Some(served) = read.listing.page.filter(|p| *p != cursor.page) {
        return Err(FetchError::Upstream(format!(
            "Angi answered review page {served} when page {} was asked for: the page parameters \
             changed and the plugin needs an update",
            cursor.page
        )));
    }
    let total = read.listing.total.or(read.business.total_reviews);
    let (next_cursor, ahead) = continuation(&cursor, &read, total);
    let reviews = read
        .listing
        .reviews
        .iter()
        .cloned()
        .map(|entry| entry.build(&profile.url))
        .collect::<Result<Vec<_>, _>>()?;
    // Newest first only as far as the page's (month) dates show it: only
    // then may the host stop early on `sync_date`.
    let order = gleaner_sdk::review::order_by_dates(&reviews, None);
    let meta = meta(&profile, &cursor, &read, total, reviews.is_empty());
    Ok(Page {
        ahead,
        reviews,
        next_cursor,
        order,
        meta,
    })
}

/// The cursor of the next page, and, where the flight data counts the pages
/// (`totalPages`, else `totalCount`), the cursors of every later page, so
/// the host can fetch several at once. A cursor is the page number with the
/// limit and offset that follow from it, the same whichever page computed it.
/// The older markup only links the next page: there the pages form a chain.
fn continuation(
    cursor: &Cursor,
    read: &page::Read,
    total: Option<u64>,
) -> (Option<String>, Vec<String>) {
    let listing = &read.listing;
    let limit = listing.page_size.unwrap_or(cursor.limit);
    let count = listing.reviews.len() as u32;
    let more = count > 0
        && match (listing.total_pages, total) {
            (Some(pages), _) => cursor.page < pages,
            (None, Some(total)) => u64::from(cursor.offset + count) < total,
            (None, None) => count >= limit,
        };
    if !more {
        return (None, Vec::new());
    }
    let next = cursor.next(limit);
    let counted = read.recipe == Some(page::Recipe::Flight);
    let last = match (listing.total_pages, total) {
        _ if !counted => None,
        (Some(pages), _) => Some(pages),
        (None, Some(total)) => u32::try_from(total.div_ceil(u64::from(limit))).ok(),
        (None, None) => None,
    };
    let ahead = last.map_or_else(Vec::new, |last| {
        cursor::ahead((next.page..=last).map(|page| Cursor {
            page,
            limit,
            offset: (page - 1).saturating_mul(limit),
        }))
    });
    (Some(cursor::encode(&next)), ahead)
}

fn meta(
    profile: &Profile,
    cursor: &Cursor,
    read: &page::Read,
    total: Option<u64>,
    empty: bool,
) -> SourceMeta {
    let business = &read.business;
    let mut extra = json!({
        "profile_id": profile.id,
        "business_id": business.business_id,
        "categories": business.categories,
        "rating_distribution": business.distribution,
        "recipe": read.recipe.map(page::Recipe::label),
        "sort": DEFAULT_SORT,
        "page": cursor.page,
        "total_pages": read.listing.total_pages,
        "attempts": read.attempts,
        "rating_scale_max": review::SCALE,
    });
    if empty && cursor.page == 1 {
        extra["notice"] = json!("Angi lists no reviews for this pro");
        extra["no_reviews_signal"] = json!(read.empty_signal);
    }
    SourceMeta {
        resolved_url: Some(profile.url.clone()),
        name: business.name.clone(),
        average_rating: business.average_rating,
        total_reviews: total,
        extra_json: extra.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page `cursor` points at, read from the fixture of profile 6480784.
    fn read(cursor: &Cursor) -> page::Read {
        let file = format!(
            "{}/tests/samples/profile-6480784-p{}.html",
            env!("CARGO_MANIFEST_DIR"),
            cursor.page
        );
        found(&std::fs::read_to_string(file).unwrap(), cursor.page)
    }

    /// The page read from `html`, which must hold reviews or say it has none.
    fn found(html: &str, page: u32) -> page::Read {
        match page::classify(html, page) {
            page::Classified::Read(read) => *read,
            other => panic!("not read: {other:?}"),
        }
    }

    /// The next cursor and the list ahead of the page `cursor` points at.
    fn after(cursor: &Cursor) -> (Option<String>, Vec<String>) {
        let read = read(cursor);
        let total = read.listing.total.or(read.business.total_reviews);
        continuation(cursor, &read, total)
    }

    #[test]
    fn ahead_lists_the_cursors_the_later_pages_give() {
        let (next, ahead) = after(&Cursor::start());
        let pages: Vec<Cursor> = ahead.iter().map(|c| cursor::decode(c).unwrap()).collect();
        assert_eq!(pages.len(), 6, "pages 2 to 7 of 7");
        assert_eq!(
            pages[5],
            Cursor {
                page: 7,
                limit: 25,
                offset: 150
            }
        );
        assert_eq!(next.as_ref(), ahead.first());
        // Each page reached along the list gives the rest of it, byte for byte.
        for (k, c) in pages.iter().enumerate() {
            let (next, rest) = after(c);
            assert_eq!(next.as_ref(), ahead.get(k + 1), "page {}", c.page);
            assert_eq!(rest, ahead[k + 1..].to_vec(), "page {}", c.page);
        }
    }

    #[test]
    fn a_page_without_reviews_must_say_so() {
        let sample = |name: &str| {
            std::fs::read_to_string(format!(
                "{}/tests/samples/{name}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap()
        };
        let read = found(&sample("profile-9100006-markup-no-reviews.html"), 1);
        assert!(read.listing.reviews.is_empty());
        assert!(read
            .empty_signal
            .is_some_and(|s| s.contains("no reviews yet")));
        assert!(matches!(
            page::classify(&sample("profile-9100005-layout-changed.html"), 1),
            page::Classified::Changed
        ));
        assert!(matches!(
            page::classify(&sample("profile-9100007-markup-empty-list.html"), 1),
            page::Classified::Changed
        ));
        assert!(matches!(
            page::classify(&sample("reduced-variant.html"), 1),
            page::Classified::Reduced
        ));
    }

    #[test]
    fn the_older_markup_pages_as_a_chain() {
        let html = include_str!("../tests/samples/profile-9100001-markup-p1.html");
        let read = found(html, 1);
        assert_eq!(read.recipe, Some(page::Recipe::Markup));
        let (next, ahead) = continuation(&Cursor::start(), &read, None);
        assert!(
            next.is_some() && ahead.is_empty(),
            "only the next page is linked"
        );
    }
}
