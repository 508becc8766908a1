//! code-hosting-project: user reviews of an open-source project on SourceForge.
//!
//! SourceForge shows reviews only on the project's server-rendered reviews
//! page, `sourceforge.net/projects/<slug>/reviews/?offset=<n>`, 25 to a page,
//! newest first, with `&stars=<n>` for one star rating. Each page also shows
//! the project's rating summary (average, reviews per star, and the ease,
//! features, design and support ratings). The cursor holds the next offset.

mod parse;
mod query;
mod site;

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::{cursor, FetchError, Order, Page, PageRequest, SourceMeta};
use serde_json::json;

use parse::{Listing, ReviewsPage};

gleaner_sdk::export_source!(
    |req: PageRequest| fetch_page(&req),
    prepare = || gleaner_sdk::html::prepare(site::all_selectors())
);

/// What the plugin reads, for messages.
const WHAT: &str = "the SourceForge reviews page";

/// Where the next page of the listing starts.
#[derive(Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Cursor {
    /// Reviews of the listing already read.
    offset: usize,
}

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let slug = query::parse(&req.query).map_err(FetchError::BadQuery)?;
    let stars = req.filter::<u8>()?;
    let offset = req.cursor_state::<Cursor>()?.map_or(0, |c| c.offset);
    let url = site::page_url(&slug, offset, stars);
    let response = checked(http::get_html(&url)?, &slug)?;
    let parsed = parse::page(&response.text(), &slug)?.ok_or_else(|| changed(&response))?;
    // A renamed project redirects to its new address: report that one.
    let slug = query::parse(&response.final_url).unwrap_or(slug);
    Ok(assemble(parsed, &slug, &url, offset, stars))
}

/// The page the host receives: reviews, the next cursor, the metadata, and a
/// notice when the page says why it lists nothing.
fn assemble(parsed: ReviewsPage, slug: &str, url: &str, offset: usize, stars: Option<u8>) -> Page {
    let summary = parsed.summary;
    let matching = summary.matching(stars);
    let (reviews, notice) = match parsed.listing {
        Listing::Reviews(reviews) => (reviews, None),
        Listing::NotAllowed => (
            Vec::new(),
            Some(
                "This SourceForge project does not allow reviews to be posted, so it has none"
                    .to_owned(),
            ),
        ),
        Listing::Empty if offset > 0 => (Vec::new(), None),
        Listing::Empty => (
            Vec::new(),
            Some(match stars {
                Some(n) => format!("This SourceForge project has no {n}-star reviews"),
                None => "This SourceForge project has no reviews yet".to_owned(),
            }),
        ),
    };
    let (next_cursor, ahead) = continuation(offset, reviews.len(), matching);
    let mut extra = json!({
        "project": slug,
        "project_url": site::project_url(slug),
        "page_url": url,
        "offset": offset,
        "stars_filter": stars,
        "reviews_matching_filter": matching,
        "rating_distribution": summary.distribution_json(),
        "dimensional_ratings": summary.dimensions_json(),
    });
    if let Some(n) = notice {
        extra["notice"] = json!(n);
    }
    Page {
        ahead,
        reviews,
        next_cursor,
        order: Order::NewestFirst,
        meta: SourceMeta {
            resolved_url: Some(site::reviews_url(slug)),
            name: summary.name.clone(),
            average_rating: summary.average,
            total_reviews: summary.total(),
            extra_json: extra.to_string(),
        },
    }
}

/// The cursor of the next page, and the cursors of every later page up to
/// the count the rating summary gives (`matching`): one per page of the size
/// this page was served at, so the host can fetch several at once. Without a
/// count, a full page asks for the next one only; an empty page ends the listing.
fn continuation(
    offset: usize,
    on_page: usize,
    matching: Option<u64>,
) -> (Option<String>, Vec<String>) {
    let next = offset + on_page;
    if on_page == 0 {
        return (None, Vec::new());
    }
    match matching {
        Some(m) => {
            let end = usize::try_from(m).unwrap_or(usize::MAX);
            let ahead = cursor::ahead((next..end).step_by(on_page).map(|offset| Cursor { offset }));
            (ahead.first().cloned(), ahead)
        }
        None => (
            (on_page >= site::PAGE_SIZE).then(|| cursor::encode(&Cursor { offset: next })),
            Vec::new(),
        ),
    }
}

/// Passes a usable answer; a bot wall or refusal is "blocked" (what was seen,
/// what would help), a 404 is "not found", anything else non-2xx "upstream".
fn checked(response: Response, slug: &str) -> Result<Response, FetchError> {
    if response.is_missing() {
        return Err(FetchError::NotFound(format!(
            "SourceForge has no project {slug:?}: {} answered HTTP {}; check the slug in the \
             project's address, https://sourceforge.net/projects/<slug>/",
            response.final_url, response.status
        )));
    }
    response.checked(WHAT)
}

/// The error for a 2xx page without any part of a reviews page.
fn changed(response: &Response) -> FetchError {
    gleaner_sdk::listing::layout_changed(
        "SourceForge",
        &response.final_url,
        &[
            ("reviews", site::SELECTORS.review),
            ("the \"no reviews\" notice", site::SELECTORS.no_reviews),
            (
                "the \"does not allow reviews\" text",
                site::SELECTORS.not_allowed,
            ),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, body: &str) -> Response {
        gleaner_sdk::testing::response(
            status,
            "https://sourceforge.net/projects/x/reviews/?offset=0",
            body,
        )
    }

    const CHALLENGE: &str = include_str!("../tests/samples/bot-challenge.html");

    #[test]
    fn refusals_name_what_was_seen_and_what_helps() {
        for status in [200, 403, 503] {
            let e = checked(answer(status, CHALLENGE), "x").unwrap_err();
            assert!(
                matches!(&e, FetchError::Blocked(m) if m.contains("Cloudflare") && m.contains("proxy")),
                "{e:?}"
            );
        }
        let e = checked(answer(429, ""), "x").unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("HTTP 429 Too Many Requests") && m.contains("slower pacing")),
            "{e:?}"
        );
        let e = checked(answer(404, "<html>gone</html>"), "nope").unwrap_err();
        assert!(
            matches!(&e, FetchError::NotFound(m) if m.contains("no project \"nope\"")),
            "{e:?}"
        );
        assert!(matches!(
            checked(answer(500, "oops"), "x"),
            Err(FetchError::Upstream(_))
        ));
        assert!(checked(answer(200, "<html></html>"), "x").is_ok());
    }

    fn listing(count: usize) -> Vec<gleaner_sdk::types::Review> {
        (0..count)
            .map(|i| {
                gleaner_sdk::review::ReviewBuilder::new(format!("r{i}"))
                    .build()
                    .unwrap()
            })
            .collect()
    }

    fn parsed(listing: Listing, distribution: Vec<(u8, u64)>) -> ReviewsPage {
        ReviewsPage {
            listing,
            summary: parse::Summary {
                distribution,
                ..Default::default()
            },
        }
    }

    #[test]
    fn pages_by_the_count_the_page_shows() {
        let full = vec![(5, 30), (4, 0), (3, 0), (2, 0), (1, 20)];
        let page = assemble(
            parsed(Listing::Reviews(listing(25)), full.clone()),
            "x",
            "u",
            0,
            None,
        );
        assert_eq!(
            page.next_cursor,
            Some(cursor::encode(&Cursor { offset: 25 }))
        );
        let page = assemble(
            parsed(Listing::Reviews(listing(25)), full.clone()),
            "x",
            "u",
            25,
            None,
        );
        assert_eq!(page.next_cursor, None, "50 of 50 read");
        let page = assemble(
            parsed(Listing::Reviews(listing(20)), full),
            "x",
            "u",
            0,
            Some(1),
        );
        assert_eq!(page.next_cursor, None, "the 20 one-star reviews read");
        // Without the counts, a full page asks for the next one.
        let page = assemble(
            parsed(Listing::Reviews(listing(25)), vec![]),
            "x",
            "u",
            0,
            None,
        );
        assert!(page.next_cursor.is_some());
        let page = assemble(
            parsed(Listing::Reviews(listing(24)), vec![]),
            "x",
            "u",
            0,
            None,
        );
        assert!(page.next_cursor.is_none());
        let page = assemble(parsed(Listing::Empty, vec![]), "x", "u", 25, None);
        assert!(page.next_cursor.is_none());
        assert!(
            !page.meta.extra_json.contains("notice"),
            "past the end is no news"
        );
    }

    #[test]
    fn says_why_a_page_lists_nothing() {
        let notice = |listing, stars| {
            let page = assemble(parsed(listing, vec![]), "x", "u", 0, stars);
            let extra: serde_json::Value = serde_json::from_str(&page.meta.extra_json).unwrap();
            extra["notice"].as_str().map(str::to_owned)
        };
        assert_eq!(
            notice(Listing::Empty, None).as_deref(),
            Some("This SourceForge project has no reviews yet")
        );
        assert_eq!(
            notice(Listing::Empty, Some(2)).as_deref(),
            Some("This SourceForge project has no 2-star reviews")
        );
        assert!(
            notice(Listing::NotAllowed, None).is_some_and(|n| n.contains("does not allow reviews"))
        );
    }

    #[test]
    fn ahead_lists_the_cursors_the_later_pages_give() {
        let read = |offset: usize| {
            let path = format!(
                "{}/tests/samples/openproj-offset-{offset}.html",
                env!("CARGO_MANIFEST_DIR")
            );
            let html = std::fs::read_to_string(path).unwrap();
            let parsed = parse::page(&html, "openproj").unwrap().unwrap();
            assemble(parsed, "openproj", "u", offset, None)
        };
        let first = read(0);
        let offsets = |cursors: &[String]| -> Vec<usize> {
            cursors
                .iter()
                .map(|c| cursor::decode::<Cursor>(c).unwrap().offset)
                .collect()
        };
        assert_eq!(offsets(&first.ahead), [25, 50, 75, 100, 125], "134 reviews");
        assert_eq!(first.next_cursor.as_ref(), first.ahead.first());
        // Each page reached along the list gives the rest of it, byte for byte.
        for (k, c) in first.ahead.iter().enumerate() {
            let page = read(cursor::decode::<Cursor>(c).unwrap().offset);
            assert_eq!(page.next_cursor.as_ref(), first.ahead.get(k + 1), "{c}");
            assert_eq!(page.ahead, first.ahead[k + 1..].to_vec(), "{c}");
        }
        // Without a count: the next page only, while pages are full.
        let (next, ahead) = continuation(0, 25, None);
        assert!(next.is_some() && ahead.is_empty());
        assert_eq!(continuation(25, 0, Some(50)), (None, Vec::new()));
    }
}
