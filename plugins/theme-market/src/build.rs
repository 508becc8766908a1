//! From a fetched reviews page to the page the host receives: telling a
//! changed layout from an item without reviews, deciding whether a next page
//! exists, and the item's metadata (from the API when configured, else the page).

use gleaner_sdk::http::Response;
use gleaner_sdk::{cursor, FetchError, Order, Page, SourceMeta};
use serde_json::{json, Value};

use crate::parse::{self, ParsedPage};
use crate::{dates, endpoints, query, Cursor, DEFAULT_SORT, SELECTORS};

/// What comes after a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Read page N next.
    Page(u32),
    /// The listing ended.
    End,
    /// The listing ended short of the count the site states: why.
    Short(String),
}

/// Decides what follows page `page`, given the reviews on the pages before it
/// (`seen_before`), those on it, whether it links a next page, and the
/// item's review count. A next link, or a count not reached yet, means more
/// (a page without reviews then ends the listing).
pub fn next(page: u32, seen_before: u64, on_page: u64, has_next: bool, total: Option<u64>) -> Next {
    let seen = seen_before + on_page;
    let short_of_total = total.is_some_and(|t| seen < t);
    if on_page > 0 && (has_next || short_of_total) {
        Next::Page(page + 1)
    } else if short_of_total && page > 1 {
        Next::Short(format!(
            "Envato Market states {} reviews for this item, but its pages ended after {seen}",
            total.unwrap_or_default()
        ))
    } else {
        Next::End
    }
}

/// The pages after page `next` (itself included) up to the last one the
/// item's review count gives at `page_size` reviews a page; none when either
/// is unknown.
pub fn pages_from(next: u32, page_size: u64, total: Option<u64>) -> std::ops::RangeInclusive<u32> {
    let last = match total {
        Some(total) if page_size > 0 => {
            u32::try_from(total.div_ceil(page_size)).unwrap_or(u32::MAX)
        }
        _ => 0,
    };
    next..=last
}

/// The reviews page read, checked and turned into the host's page.
pub fn page(mut state: Cursor, response: Response, sort: &str) -> Result<Page, FetchError> {
    let reference = response
        .header("date")
        .and_then(gleaner_sdk::date::Served::from_http);
    let parsed = parse::parse_page(&response.text(), &response.final_url, reference)?;
    if state.page == 1 {
        settle_place(&mut state, &parsed, &response.final_url);
    }
    let on_page = parsed.reviews.len() as u64;
    if state.page == 1 {
        state.page_size = on_page;
    }
    let says_empty = parsed.empty_signal.is_some();
    // A page without reviews must say the item has none (its "no reviews"
    // statement or text, a zero count); a later page may simply be past the
    // end, as long as it is still an item page.
    if on_page == 0 && ((state.page == 1 && !says_empty) || !parsed.recognised()) {
        return Err(gleaner_sdk::listing::layout_changed(
            "Envato Market",
            &response.final_url,
            &[
                ("reviews", SELECTORS.review),
                ("the item header", SELECTORS.item_name),
                ("the review count", SELECTORS.item_review_count),
                ("the \"no reviews\" notice", SELECTORS.no_reviews),
            ],
        ));
    }
    let total = state
        .api
        .as_ref()
        .and_then(|a| a.rating_count)
        .or(parsed.item.review_count);
    let seen_before = u64::from(state.page.saturating_sub(1)) * state.page_size;
    let step = next(state.page, seen_before, on_page, parsed.has_next, total);
    let meta = meta(
        &state,
        &parsed,
        reference,
        sort,
        total,
        &step,
        says_empty && on_page == 0,
    );
    // Pages are numbered up to the count the review total gives: list them
    // all, so the host can fetch several at once. A next page the count does
    // not foresee (the site links one past it) is followed alone.
    let (next_cursor, ahead) = match step {
        Next::Page(n) => {
            let at = |page: u32| Cursor {
                page,
                ..state.clone()
            };
            let next_cursor = cursor::encode(&at(n));
            let mut ahead = cursor::ahead(pages_from(n, state.page_size, total).map(at));
            if ahead.first() != Some(&next_cursor) {
                ahead.clear();
            }
            (Some(next_cursor), ahead)
        }
        Next::End | Next::Short(_) => (None, Vec::new()),
    };
    Ok(Page {
        ahead,
        reviews: parsed.reviews,
        next_cursor,
        // Envato lists `date_descending` strictly newest first (nothing pinned,
        // one language); the rating sorts are not dated.
        order: if sort == DEFAULT_SORT {
            Order::NewestFirst
        } else {
            Order::Unordered
        },
        meta,
    })
}

/// On the first page, the item's own host and slug: from the canonical link,
/// else from where the request landed (a redirect to the item's marketplace).
fn settle_place(state: &mut Cursor, parsed: &ParsedPage, final_url: &str) {
    let same_item = |url: &str| {
        query::parse(url)
            .ok()
            .filter(|t| t.id == state.id)
            .and_then(|t| Some((t.host?, t.slug?)))
    };
    let landed = same_item(final_url);
    let canonical = parsed.item.canonical.as_deref().and_then(same_item);
    if let Some((host, _)) = &landed {
        state.host = host.clone();
    }
    if let Some((_, slug)) = canonical.or(landed) {
        state.slug = slug;
    }
}

/// The item's metadata and what the user should know.
fn meta(
    state: &Cursor,
    parsed: &ParsedPage,
    reference: Option<dates::Served>,
    sort: &str,
    total: Option<u64>,
    step: &Next,
    empty: bool,
) -> SourceMeta {
    let api = state.api.clone().unwrap_or_default();
    let name = api.name.clone().or_else(|| parsed.item.name.clone());
    let mut notices: Vec<String> = Vec::new();
    if empty {
        let said = parsed
            .no_reviews
            .as_deref()
            .map(|t| format!(" (the page says: \"{t}\")"))
            .or_else(|| parsed.empty_signal.as_deref().map(|s| format!(" ({s})")))
            .unwrap_or_default();
        notices.push(format!(
            "{} has no reviews on {} yet{said}",
            name.as_deref().unwrap_or("this item"),
            state.host
        ));
    }
    if parsed.relative_dates && reference.is_none() {
        notices.push(
            "the page gives relative dates (\"2 months ago\") and its answer carried no Date \
             header to resolve them against, so those reviews have no review_date (their text is \
             kept in extra.date_text)"
                .into(),
        );
    }
    notices.extend(state.api_notice.clone());
    let mut extra = json!({
        "marketplace": state.host,
        "item_id": state.id,
        "item_url": endpoints::item(&state.host, &state.slug, &state.id),
        "item_author": api.author.clone().or_else(|| parsed.item.author.clone()),
        "metadata_source": if state.api.is_some() { "envato_api" } else { "page" },
        "number_of_sales": api.number_of_sales,
        "sort": sort,
        "page": state.page,
        "date_reference": reference.map(|r| dates::iso_day(r.day())),
    });
    if !notices.is_empty() {
        extra["notice"] = Value::String(notices.join("; "));
    }
    if let Next::Short(why) = step {
        extra["source_limit"] = Value::String(why.clone());
    }
    SourceMeta {
        resolved_url: Some(endpoints::reviews(&state.host, &state.slug, &state.id)),
        name,
        average_rating: api.rating.or(parsed.item.average_rating),
        total_reviews: total,
        extra_json: extra.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decides_the_next_page() {
        assert_eq!(next(1, 0, 5, true, Some(12)), Next::Page(2));
        assert_eq!(next(2, 5, 5, true, Some(12)), Next::Page(3));
        assert_eq!(next(3, 10, 2, false, Some(12)), Next::End);
        assert_eq!(next(1, 0, 5, false, None), Next::End);
        // No next link, but the stated count is not reached: try the next page.
        assert_eq!(next(1, 0, 5, false, Some(12)), Next::Page(2));
        // That page is empty: the listing ended short of the count.
        assert!(
            matches!(next(2, 5, 0, false, Some(12)), Next::Short(m) if m.contains("states 12 reviews") && m.contains("after 5"))
        );
        assert_eq!(next(2, 5, 0, false, None), Next::End);
        assert_eq!(next(1, 0, 0, false, Some(0)), Next::End);
        assert_eq!(next(1, 0, 0, true, Some(3)), Next::End);
    }

    fn state() -> Cursor {
        Cursor {
            page: 1,
            host: "codecanyon.net".into(),
            slug: "example-mobile-app-script".into(),
            id: "21000000".into(),
            page_size: 0,
            api: None,
            api_notice: None,
        }
    }

    /// The host's page for fixture `a-<sort>-p<n>.html`, read with `state`.
    fn read(state: Cursor, sort: &str) -> Page {
        let file = format!(
            "{}/tests/samples/a-{}-p{}.html",
            env!("CARGO_MANIFEST_DIR"),
            sort.replace('_', "-"),
            state.page
        );
        let response = Response {
            status: 200,
            headers: vec![("date".into(), "Fri, 18 Oct 2019 09:00:00 GMT".into())],
            body: std::fs::read(file).unwrap(),
            final_url: endpoints::reviews_page(
                &state.host,
                &state.slug,
                &state.id,
                sort,
                state.page,
            ),
            wall: None,
        };
        page(state, response, sort).unwrap()
    }

    #[test]
    fn ahead_lists_the_cursors_the_later_pages_give() {
        for sort in ["date_descending", "ratings_ascending", "ratings_descending"] {
            let first = read(state(), sort);
            let pages: Vec<(u32, u64)> = first
                .ahead
                .iter()
                .map(|c| cursor::decode::<Cursor>(c).unwrap())
                .map(|c| (c.page, c.page_size))
                .collect();
            assert_eq!(pages, [(2, 5), (3, 5)], "12 reviews, 5 a page ({sort})");
            assert_eq!(first.next_cursor.as_ref(), first.ahead.first());
            // Each page reached along the list gives the rest of it, byte for byte.
            for (k, c) in first.ahead.iter().enumerate() {
                let later = read(cursor::decode(c).unwrap(), sort);
                assert_eq!(
                    later.next_cursor.as_ref(),
                    first.ahead.get(k + 1),
                    "{sort} {k}"
                );
                assert_eq!(later.ahead, first.ahead[k + 1..].to_vec(), "{sort} {k}");
            }
        }
        assert_eq!(pages_from(2, 5, Some(12)), 2..=3);
        assert!(pages_from(2, 5, None).is_empty());
        assert!(pages_from(2, 0, Some(12)).is_empty());
        assert!(
            pages_from(3, 5, Some(10)).is_empty(),
            "a next page past the count"
        );
    }
}
