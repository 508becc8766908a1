//! auto-research: Cars.com consumer reviews of one vehicle model year.
//!
//! Recipe (built against the documented markup of the consumer-reviews page,
//! not against recorded pages): `GET
//! https://www.cars.com/research/{make}-{model}-{year}/consumer-reviews/?page_size=N&sort=S[&rating=R]`
//! ([`query`] reads the vehicle, [`paging`] makes the address), read the review
//! cards and the vehicle's summary ([`page`], every selector in
//! [`selectors::SELECTORS`]; each card in [`reviews`]), and follow the page's own
//! next link (`.sds-pagination__next`), kept in `pagination_data`.
//!
//! The order is declared newest-first only for the `newest` sort, and only when
//! the page's dates really run from newest to oldest (also across pages).
//!
//! Plain HTTP first, the browser only after a wall: a review page that answers
//! with a challenge a browser can pass (Akamai's "Access Denied", say) is
//! opened in the host's headless browser ([`read_list`]), whose document is
//! read like a plain answer; its cookies join the fetch's session, so the
//! next pages are plain HTTP again.

pub mod page;
pub mod paging;
pub mod query;
pub mod reviews;
pub mod selectors;

use gleaner_sdk::browser::{self, Wait};
use gleaner_sdk::http::{self, Response};
use gleaner_sdk::types::Review;
use gleaner_sdk::{
    botwall, config, cursor, date, listing, log, FetchError, Order, Page, PageRequest, SourceMeta,
};
use serde_json::{json, Value};
use url::Url;

use crate::page::Parsed;
use crate::paging::{Params, State, DEFAULT_SORT};
use crate::query::Vehicle;
use crate::reviews::Context;

gleaner_sdk::export_source!(
    |req: PageRequest| fetch_page(&req),
    prepare = || gleaner_sdk::html::prepare(selectors::SELECTORS.css())
);

/// What the plugin reads, for messages.
const WHAT: &str = "Cars.com consumer-reviews page";

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let vehicle = query::parse(&req.query).map_err(FetchError::BadQuery)?;
    let params = Params {
        sort: req.sort_or(DEFAULT_SORT).to_owned(),
        rating: req.filter_text().and_then(|f| f.parse().ok()),
        page_size: paging::page_size(config::get("page_size").as_deref())?,
    };
    let state = req.cursor_state::<State>()?;
    let url = match &state {
        Some(s) => paging::own_page(&s.slug, &s.url, &params).ok_or_else(|| {
            FetchError::BadCursor(format!(
                "the continuation points to {}, which is not a page of the consumer reviews of {}; \
                 start the fetch again",
                s.url, s.slug
            ))
        })?,
        None => paging::first_url(&vehicle.slug, &params),
    };
    let page_no = state.as_ref().map_or(1, |s| s.page);
    let response = read_list(&url, &vehicle)?;
    let resolved = resolved_vehicle(&vehicle, &url, &response)?;
    let ctx = Context {
        reviews_url: resolved.reviews_url(),
        today: response.header("date").and_then(date::Served::from_http),
    };
    let mut parsed = page::parse(&response.text(), &response.final_url, &ctx)?;
    let mut extra = json!({
        "vehicle": resolved.slug,
        "make": resolved.make,
        "model": resolved.model,
        "year": resolved.year,
        "research_url": resolved.research_url(),
        "sort": params.sort,
        "rating_filter": params.rating,
        "page": page_no,
        "recommend_percent": parsed.summary.recommend_percent,
        "category_averages": std::mem::take(&mut parsed.summary.category_averages),
    });
    if parsed.reviews.is_empty() {
        if page_no == 1 && parsed.no_reviews.is_none() {
            return Err(listing::layout_changed(
                WHAT,
                &url,
                &[
                    ("review cards", selectors::SELECTORS.review),
                    ("empty-list note", selectors::SELECTORS.empty),
                ],
            ));
        }
        if page_no == 1 {
            extra["notice"] = json!(match params.rating {
                Some(r) => format!("this vehicle has no {r}-star consumer reviews"),
                None => "this vehicle has no consumer reviews yet".to_owned(),
            });
        }
        return Ok(page_of(
            parsed,
            Vec::new(),
            None,
            Order::Unordered,
            &ctx,
            extra,
        ));
    }
    let state = state.unwrap_or(State {
        url: url.clone(),
        slug: resolved.slug.clone(),
        page: 1,
        seen: 0,
        last_day: None,
        first_id: None,
    });
    let first_id = parsed.reviews.first().map(|r| r.id.clone());
    if page_no > 1 && first_id == state.first_id {
        extra["source_limit"] = json!(format!(
            "page {page_no} of the reviews ({url}) repeats the page before it, so the site pages no further"
        ));
        return Ok(page_of(
            parsed,
            Vec::new(),
            None,
            Order::Unordered,
            &ctx,
            extra,
        ));
    }
    let reviews = std::mem::take(&mut parsed.reviews);
    let seen = state.seen + reviews.len() as u64;
    let order = paging::declared_order(&params.sort, &reviews, state.last_day.as_deref());
    extra["dates_newest_first"] = json!(order == Order::NewestFirst);
    let next = parsed
        .next
        .as_deref()
        .and_then(|n| paging::own_page(&resolved.slug, n, &params))
        .filter(|n| *n != url);
    if let (None, None, Some(total)) = (&next, params.rating, parsed.summary.total) {
        if seen < total {
            extra["source_limit"] = json!(format!(
                "the review list shows {seen} of the {total} reviews it counts and links no further page"
            ));
        }
    }
    let next_cursor = next.map(|next| {
        cursor::encode(&State {
            url: next,
            slug: resolved.slug.clone(),
            page: page_no + 1,
            seen,
            last_day: reviews.last().and_then(paging::day).map(str::to_owned),
            first_id,
        })
    });
    Ok(page_of(parsed, reviews, next_cursor, order, &ctx, extra))
}

/// The review page at `url`, over plain HTTP; after a wall a browser can pass,
/// the same page opened in the host's headless browser, until the review list
/// or the page's statement that it has none is there ([`selectors::READY`]).
fn read_list(url: &str, vehicle: &Vehicle) -> Result<Response, FetchError> {
    let response = http::get_html(url)?;
    if !browser::passable(response.wall) {
        return checked(response, vehicle);
    }
    log::info(&format!(
        "{} answered {}; opening it in the browser",
        response.final_url,
        botwall::answered(&response)
    ));
    let visit = browser::visit(url, Wait::Selector(selectors::READY.join(", ")), &[]);
    past_wall(response, visit, vehicle)
}

/// The browser's page in place of `walled`, the plain answer that was a wall:
/// checked and read as a plain answer would be. When the browser is missing,
/// fails, or its page is a wall or a refusal too, the answer is `walled`'s
/// "blocked", with its remedy and what the browser met.
fn past_wall(
    walled: Response,
    visit: Result<browser::Page, FetchError>,
    vehicle: &Vehicle,
) -> Result<Response, FetchError> {
    let why = match visit {
        Ok(page) => {
            let opened = as_response(page, &walled);
            let answered = botwall::answered(&opened);
            match checked(opened, vehicle) {
                Err(FetchError::Blocked(_)) => format!("its page answered {answered}"),
                read => return read,
            }
        }
        Err(e) => http::message(&e).to_owned(),
    };
    match checked(walled, vehicle) {
        Err(FetchError::Blocked(m)) => Err(FetchError::Blocked(format!(
            "{m}; the host's headless browser did not get past it either ({why})"
        ))),
        other => other,
    }
}

/// The browser's page as an answer: its status, final URL, document and the
/// host's verdict, with the `Date` of the plain answer before it (the browser
/// gives no headers; relative review dates resolve against that day).
fn as_response(page: browser::Page, before: &Response) -> Response {
    Response {
        status: page.status,
        headers: before
            .header("date")
            .map(|d| ("date".to_owned(), d.to_owned()))
            .into_iter()
            .collect(),
        body: page.document.into_bytes(),
        final_url: page.final_url,
        wall: page.wall,
    }
}

/// Maps a refusal: a bot wall (whatever its status) or 401/403/429 is
/// "blocked", saying what was seen and what would help (the site needs no
/// credentials); 404/410 is "not found"; other failures are upstream errors.
fn checked(response: Response, vehicle: &Vehicle) -> Result<Response, FetchError> {
    if response.is_missing() {
        return Err(not_found(vehicle, &response));
    }
    response.checked(WHAT)
}

fn not_found(vehicle: &Vehicle, response: &Response) -> FetchError {
    FetchError::NotFound(format!(
        "Cars.com has no consumer reviews of {} {} {} (the make-model-year slug {:?}): {} answered \
         HTTP {}; check the make, model and year on the site, e.g. \
         https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/",
        vehicle.year,
        vehicle.make,
        vehicle.model,
        vehicle.slug,
        response.final_url,
        response.status
    ))
}

/// The vehicle whose review list answered; an answer from any other page (the
/// site redirected an unknown model year to the model's overview, say) is "not found".
fn resolved_vehicle(
    vehicle: &Vehicle,
    url: &str,
    response: &Response,
) -> Result<Vehicle, FetchError> {
    Url::parse(&response.final_url)
        .ok()
        .filter(|u| u.host_str().is_some_and(query::is_site_host))
        .and_then(|u| query::reviews_page_vehicle(u.path()))
        .ok_or_else(|| {
            FetchError::NotFound(format!(
                "Cars.com has no consumer-reviews page for {:?}: {url} led to {}, which is not a \
                 consumer-reviews page; check the make, model and year on the site",
                vehicle.slug, response.final_url
            ))
        })
}

fn page_of(
    parsed: Parsed,
    reviews: Vec<Review>,
    next_cursor: Option<String>,
    order: Order,
    ctx: &Context,
    extra: Value,
) -> Page {
    Page {
        ahead: Vec::new(),
        reviews,
        next_cursor,
        order,
        meta: SourceMeta {
            resolved_url: Some(ctx.reviews_url.clone()),
            name: parsed.summary.name,
            average_rating: parsed.summary.average,
            total_reviews: parsed.summary.total,
            extra_json: extra.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vehicle() -> Vehicle {
        query::parse("mazda-cx_5-2021").unwrap()
    }

    fn answer(status: u16, headers: &[(&str, &str)], body: &str, final_url: &str) -> Response {
        gleaner_sdk::testing::response(status, final_url, body).with_headers(headers)
    }

    const LIST: &str =
        "https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/?page_size=50&sort=newest";
    const AKAMAI: &str = include_str!("../tests/samples/akamai-denied.html");
    const CLOUDFLARE: &str = include_str!("../tests/samples/cloudflare-challenge.html");

    #[test]
    fn refusals_say_what_was_seen_and_what_helps() {
        let e = checked(answer(403, &[], AKAMAI, LIST), &vehicle()).unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("answered HTTP 403 with an Akamai \"Access Denied\" page")
                && m.contains("residential proxy") && m.contains("need no credentials")),
            "{e:?}"
        );
        let e = checked(answer(200, &[], CLOUDFLARE, LIST), &vehicle()).unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("HTTP 200 with a Cloudflare bot challenge"))
        );
        let e = checked(answer(429, &[], "", LIST), &vehicle()).unwrap_err();
        assert!(matches!(&e, FetchError::Blocked(m) if m.contains("HTTP 429 Too Many Requests")));
        let e = checked(answer(404, &[], "<html>", LIST), &vehicle()).unwrap_err();
        assert!(
            matches!(&e, FetchError::NotFound(m) if m.contains("2021 mazda cx_5")),
            "{e:?}"
        );
        assert!(matches!(
            checked(answer(500, &[], "oops", LIST), &vehicle()),
            Err(FetchError::Upstream(_))
        ));
        assert!(checked(
            answer(200, &[], "<html><h1>2021 Mazda CX-5</h1></html>", LIST),
            &vehicle()
        )
        .is_ok());
    }

    const PAGE_1: &str = include_str!("../tests/samples/cx5-newest-1.html");

    /// A page as the browser leaves it, with the host's verdict on it.
    fn visited(status: u16, document: &str, final_url: &str) -> browser::Page {
        let wall = answer(status, &[], document, final_url).wall;
        browser::Page {
            status,
            final_url: final_url.to_owned(),
            document: document.to_owned(),
            kept: Vec::new(),
            cookies: 2,
            wall,
        }
    }

    #[test]
    fn the_browser_s_page_is_read_in_place_of_the_wall() {
        let walled = answer(
            403,
            &[("date", "Mon, 03 Jun 2024 10:00:00 GMT")],
            AKAMAI,
            LIST,
        );
        let page = visited(200, PAGE_1, LIST);
        let read = past_wall(walled, Ok(page), &vehicle()).unwrap();
        assert_eq!((read.status, read.final_url.as_str()), (200, LIST));
        assert_eq!(read.text(), PAGE_1);
        assert_eq!(read.header("date"), Some("Mon, 03 Jun 2024 10:00:00 GMT"));
        assert_eq!(read.wall, None);

        let walled = answer(403, &[], AKAMAI, LIST);
        let e = past_wall(walled, Ok(visited(404, "<html>", LIST)), &vehicle()).unwrap_err();
        assert!(
            matches!(&e, FetchError::NotFound(m) if m.contains("2021 mazda cx_5")),
            "{e:?}"
        );
    }

    #[test]
    fn a_wall_the_browser_does_not_pass_is_blocked_saying_what_the_browser_met() {
        let today =
            "answered HTTP 403 with an Akamai \"Access Denied\" page; the site's pages need \
                     no credentials, but this service lets few automated clients through";
        let still = visited(403, AKAMAI, LIST);
        let e = past_wall(answer(403, &[], AKAMAI, LIST), Ok(still), &vehicle()).unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains(today) && m.contains("residential proxy")
                && m.ends_with("; the host's headless browser did not get past it either (its page \
                                answered HTTP 403 with an Akamai \"Access Denied\" page)")),
            "{e:?}"
        );
        let refused = visited(403, "<html><p>Forbidden</p></html>", LIST);
        let e = past_wall(answer(403, &[], AKAMAI, LIST), Ok(refused), &vehicle()).unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains(today)
                && m.contains("did not get past it either (its page answered HTTP 403 Forbidden)")),
            "{e:?}"
        );
        let missing = FetchError::Upstream(
            "this source needs the host's headless browser: no Chromium is installed; install \
             Debian's chromium package (apt-get install chromium)"
                .into(),
        );
        let e = past_wall(answer(403, &[], AKAMAI, LIST), Err(missing), &vehicle()).unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains(today)
                && m.contains("did not get past it either (this source needs the host's headless browser: no Chromium")),
            "{e:?}"
        );
        let late = FetchError::Timeout(format!(
            "{LIST}: no element matched before the page's deadline"
        ));
        let e = past_wall(answer(200, &[], CLOUDFLARE, LIST), Err(late), &vehicle()).unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("HTTP 200 with a Cloudflare bot challenge; retry later")
                && m.contains("did not get past it either (https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/?page_size=50&sort=newest: no element matched")),
            "{e:?}"
        );
    }

    #[test]
    fn a_redirect_away_from_the_review_list_is_not_found() {
        let v = vehicle();
        let ok = answer(
            200,
            &[],
            "",
            "https://cars.com/research/mazda-cx_5-2021/consumer-reviews?page=2",
        );
        assert_eq!(
            resolved_vehicle(&v, LIST, &ok).unwrap().slug,
            "mazda-cx_5-2021"
        );
        let away = answer(200, &[], "", "https://www.cars.com/research/mazda-cx_5/");
        let e = resolved_vehicle(&v, LIST, &away).unwrap_err();
        assert!(
            matches!(&e, FetchError::NotFound(m) if m.contains("led to https://www.cars.com/research/mazda-cx_5/"))
        );
    }
}
