//! Testimonial walls: read whole through the wall-of-love adapters, then sorted
//! and filtered here, since no wall product sorts or filters its wall. The
//! whole sorted wall is one page; the host cuts it for `reviews_to_fetch` and
//! resumes it from `pagination_data` without loss.

use std::cmp::Ordering;

use gleaner_sdk::types::Review;
use gleaner_sdk::{FetchError, Order, Page};
use gleaner_wall_of_love::{self as walls, Wall};
use serde_json::{json, Value};

use crate::options::{star_of, Filter, Options, Sort};

/// The most pages of a paged wall (Testimonial.to, Endorsal: 20 items each)
/// read to sort it.
pub const MAX_PAGES: u32 = 10;

/// Reads, filters and sorts a wall.
pub fn fetch(wall: &Wall, options: &Options) -> Result<Page, FetchError> {
    let product = wall.product().name;
    if options.filter == Some(Filter::Helpful) {
        return Err(FetchError::BadQuery(format!(
            "filter_by \"helpful\": a {product} wall of love has no helpful votes; on a wall \
             use filter_by 5, 4, 3, 2, 1 or null (\"helpful\" works on G2 product pages)"
        )));
    }
    let (mut page, truncated) = walls::fetch_whole(wall, MAX_PAGES)?;
    let read = page.reviews.len();
    if let Some(Filter::Stars(n)) = options.filter {
        page.reviews.retain(|r| r.rating.map(star_of) == Some(n));
    }
    arrange(&mut page.reviews, options.sort);
    page.order = match options.sort {
        Sort::MostRecent => Order::NewestFirst,
        Sort::HighestRated => Order::Unordered,
    };
    let mut extra: Value = serde_json::from_str(&page.meta.extra_json).unwrap_or(json!({}));
    let (sort, filter) = options.describe();
    extra["sort"] = json!(sort);
    extra["filter"] = json!(filter);
    extra["testimonials_read"] = json!(read);
    if truncated {
        extra["source_limit"] = json!(format!(
            "only the first {read} testimonials of this {product} wall ({MAX_PAGES} pages) \
             were read, sorted and filtered"
        ));
    }
    // An empty wall carries the adapters' own notice; here, a filter that
    // matched nothing on a wall that has testimonials.
    if read > 0 && page.reviews.is_empty() {
        extra["notice"] = json!(format!(
            "no testimonial of this {product} wall matches filter_by {}",
            filter.unwrap_or_default()
        ));
    }
    page.meta.extra_json = extra.to_string();
    Ok(page)
}

/// Sorts a wall: newest first, or best rated first (newest first among equals);
/// items without a date or rating go last, in the wall's order.
pub fn arrange(reviews: &mut [Review], sort: Sort) {
    let by_date = |a: &Review, b: &Review| match (&a.date, &b.date) {
        (Some(x), Some(y)) => y.cmp(x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    match sort {
        Sort::MostRecent => reviews.sort_by(by_date),
        Sort::HighestRated => reviews.sort_by(|a, b| {
            let ra = a.rating.unwrap_or(f64::NEG_INFINITY);
            let rb = b.rating.unwrap_or(f64::NEG_INFINITY);
            rb.total_cmp(&ra).then_with(|| by_date(a, b))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::review::ReviewBuilder;

    fn r(id: &str, rating: Option<f64>, date: Option<&str>) -> Review {
        ReviewBuilder::new(id)
            .rating(rating, 5.0)
            .date(date.map(str::to_owned))
            .build()
            .unwrap()
    }

    fn ids(reviews: &[Review]) -> Vec<&str> {
        reviews.iter().map(|r| r.id.as_str()).collect()
    }

    #[test]
    fn sorts_by_date_or_rating_with_the_unknown_last() {
        let mut all = vec![
            r("a", Some(4.0), Some("2024-01-02T00:00:00Z")),
            r("b", None, Some("2024-03-01T00:00:00Z")),
            r("c", Some(5.0), None),
            r("d", Some(5.0), Some("2023-12-31T00:00:00Z")),
        ];
        arrange(&mut all, Sort::MostRecent);
        assert_eq!(ids(&all), ["b", "a", "d", "c"]);
        arrange(&mut all, Sort::HighestRated);
        assert_eq!(ids(&all), ["d", "c", "a", "b"]);
    }
}
