//! design-market: Creative Market product reviews.
//!
//! Recipe (built against Creative Market's documented review model and the
//! schema.org `Product`/`Review` format, not against recorded pages): `GET` the
//! server-rendered product page ([`query`] makes the canonical URL), read the
//! review list of its reviews section and the JSON-LD `Product` block
//! ([`page`], every selector in [`selectors::SELECTORS`]), map each review
//! ([`reviews`]), and follow the page's own "more reviews" link to the next
//! page. When the page has no review list but its JSON-LD block carries
//! `review[]`, those reviews are read instead (rating, text, date, author).
//!
//! The order is declared newest-first only for the `newest` sort, and only when
//! the page's dates really run from newest to oldest (also across pages), so a
//! site that ignores the sort never makes `sync_date` stop early by mistake.

pub mod page;
pub mod query;
pub mod reviews;
pub mod selectors;

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::types::Review;
use gleaner_sdk::{botwall, cursor, date, FetchError, Order, Page, PageRequest, SourceMeta};
use serde_json::json;
use url::Url;

use crate::page::Parsed;
use crate::query::{Product, ORIGIN};
use crate::reviews::Context;

gleaner_sdk::export_source!(
    |req: PageRequest| fetch_page(&req),
    prepare = || gleaner_sdk::html::prepare(selectors::SELECTORS.css())
);

/// The first page of a non-default sort; the default (`newest`) reads the plain product page.
pub const SORTED_PAGE: &str = "{product_url}?sort={sort}";
/// The sort an omitted `sort_type` means (the manifest's default).
pub const DEFAULT_SORT: &str = "newest";
/// What the plugin reads, for messages.
const WHAT: &str = "Creative Market product page";

/// The plugin's cursor: the next page of reviews, as the previous page linked it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct State {
    /// The next page's URL (on the product's own page).
    pub url: String,
    /// Its number, counting the first page as 1.
    pub page: u32,
    /// Reviews on the pages before it.
    pub seen: u64,
    /// The day of the last review before it, to check the order across pages.
    pub last_day: Option<String>,
    /// The first review id of the page before it, to notice a page served again.
    pub first_id: Option<String>,
}

/// The first page's URL for a sort.
pub fn first_url(product: &Product, sort: &str) -> String {
    if sort == DEFAULT_SORT {
        product.url()
    } else {
        SORTED_PAGE
            .replace("{product_url}", &product.url())
            .replace("{sort}", &http::encode_component(sort))
    }
}

/// A link to another page of this product's reviews, made canonical; none for
/// any other address.
pub fn own_page(product: &Product, link: &str) -> Option<String> {
    let url = Url::parse(link).ok()?;
    let on_site = matches!(url.scheme(), "http" | "https") && query::is_site_host(url.host_str()?);
    (on_site && product.owns_path(url.path())).then(|| match url.query() {
        Some(q) => format!("{ORIGIN}{}?{q}", url.path()),
        None => format!("{ORIGIN}{}", url.path()),
    })
}

/// `NewestFirst` for the `newest` sort when every review is dated and the days
/// never rise, from the previous page's last day on; otherwise `Unordered`.
pub fn declared_order(sort: &str, reviews: &[Review], last_day: Option<&str>) -> Order {
    if sort != DEFAULT_SORT {
        return Order::Unordered;
    }
    gleaner_sdk::review::order_by_dates(reviews, last_day)
}

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let product = query::parse(&req.query).map_err(FetchError::BadQuery)?;
    let sort = req.sort_or(DEFAULT_SORT).to_owned();
    let state = req.cursor_state::<State>()?;
    let url = match &state {
        Some(s) => own_page(&product, &s.url).ok_or_else(|| {
            FetchError::BadCursor(format!(
                "the continuation points to {} which is not a page of {}; start the fetch again",
                s.url,
                product.url()
            ))
        })?,
        None => first_url(&product, &sort),
    };
    let page_no = state.as_ref().map_or(1, |s| s.page);
    let response = checked(http::get_html(&url)?)?;
    let product_url = canonical_url(&product, &response)?;
    let ctx = Context {
        product_url: product_url.clone(),
        page_url: response.final_url.clone(),
        shop_name: None,
        today: response.header("date").and_then(date::Served::from_http),
    };
    let mut parsed = page::parse(&response.text(), &response.final_url, &ctx)?;
    let mut extra = json!({
        "product_id": product.id,
        "shop": parsed.product.shop_name.clone().unwrap_or_else(|| product.shop.clone()),
        "shop_slug": product.shop,
        "shop_url": product.shop_url(),
        "product_url": product_url,
        "sort": sort,
        "page": page_no,
        "recipe": parsed.recipe.map(page::Recipe::name),
    });
    if parsed.reviews.is_empty() {
        let ends_list = page_no > 1 && parsed.section;
        let says_empty = page_no == 1 && parsed.says_empty;
        if !ends_list && !says_empty {
            return Err(layout_changed(&url));
        }
        if says_empty {
            extra["notice"] = json!("this product has no reviews yet");
            extra["empty_signal"] = json!(parsed.empty_signal);
        }
        return Ok(page_of(
            parsed,
            Vec::new(),
            None,
            Order::Unordered,
            product_url,
            extra,
        ));
    }
    let state = state.unwrap_or(State {
        url: url.clone(),
        page: 1,
        seen: 0,
        last_day: None,
        first_id: None,
    });
    let first_id = parsed.reviews.first().map(|r| r.id.clone());
    if page_no > 1 && first_id.is_some() && first_id == state.first_id {
        extra["source_limit"] = json!(format!(
            "page {page_no} of the reviews ({url}) repeats the page before it, so the site pages no further"
        ));
        return Ok(page_of(
            parsed,
            Vec::new(),
            None,
            Order::Unordered,
            product_url,
            extra,
        ));
    }
    let reviews = std::mem::take(&mut parsed.reviews);
    let seen = state.seen + reviews.len() as u64;
    let order = declared_order(&sort, &reviews, state.last_day.as_deref());
    extra["dates_newest_first"] = json!(order == Order::NewestFirst);
    let next = parsed
        .next
        .as_deref()
        .and_then(|n| own_page(&product, n))
        .filter(|n| *n != url);
    if next.is_none() {
        if let Some(total) = parsed.product.total.filter(|t| seen < *t) {
            extra["source_limit"] = json!(format!(
                "the product page lists {seen} of the {total} reviews it counts and links no further page"
            ));
        }
    }
    let next_cursor = next.map(|next| {
        cursor::encode(&State {
            url: next,
            page: page_no + 1,
            seen,
            last_day: reviews
                .last()
                .and_then(|r| r.date.as_deref())
                .and_then(|d| d.get(..10))
                .map(str::to_owned),
            first_id,
        })
    });
    Ok(page_of(
        parsed,
        reviews,
        next_cursor,
        order,
        product_url,
        extra,
    ))
}

/// Maps a refusal: a bot wall (whatever its status) or 401/403/429 is "blocked",
/// saying what was seen and what would help (the site needs no credentials);
/// 404/410 is "not found"; other failures are upstream errors.
fn checked(response: Response) -> Result<Response, FetchError> {
    if botwall::detect(&response) == Some(botwall::Wall::LoginWall) {
        return Err(FetchError::Blocked(format!(
            "{WHAT}: the request led to the sign-in page {} (a login wall); product pages are \
             public, so the site is refusing this client: retry later at a slower pace, or from a \
             residential network or through a residential proxy",
            response.final_url
        )));
    }
    response.checked(WHAT)
}

/// The canonical product URL from the URL that answered; an answer from any
/// other page (the site redirected a removed product to its shop, say) is "not found".
fn canonical_url(product: &Product, response: &Response) -> Result<String, FetchError> {
    let answered = Url::parse(&response.final_url).ok();
    let path = answered
        .as_ref()
        .filter(|u| u.host_str().is_some_and(query::is_site_host))
        .map(Url::path)
        .filter(|p| product.owns_path(p));
    match path {
        Some(path) => Ok(format!("{ORIGIN}{path}")),
        None => Err(FetchError::NotFound(format!(
            "Creative Market has no product {} any more: {} led to {}, which is not its product page; \
             check the URL on the site",
            product.id,
            product.url(),
            response.final_url
        ))),
    }
}

/// The error for a page with neither reviews nor anything saying the product
/// has none: what was looked for, by selector.
fn layout_changed(url: &str) -> FetchError {
    gleaner_sdk::listing::layout_changed(
        WHAT,
        url,
        &[
            ("the reviews section", selectors::SELECTORS.section),
            ("its reviews", selectors::SELECTORS.review),
            ("the JSON-LD reviews", "Product.review[]"),
            ("the \"no reviews yet\" note", selectors::SELECTORS.empty),
        ],
    )
}

fn page_of(
    parsed: Parsed,
    reviews: Vec<Review>,
    next_cursor: Option<String>,
    order: Order,
    product_url: String,
    extra: serde_json::Value,
) -> Page {
    Page {
        ahead: Vec::new(),
        reviews,
        next_cursor,
        order,
        meta: SourceMeta {
            resolved_url: Some(product_url),
            name: parsed.product.name,
            average_rating: parsed.product.average,
            total_reviews: parsed.product.total,
            extra_json: extra.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::review::ReviewBuilder;

    fn product() -> Product {
        query::parse("https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family").unwrap()
    }

    fn dated(days: &[&str]) -> Vec<Review> {
        days.iter()
            .enumerate()
            .map(|(i, d)| {
                ReviewBuilder::new(format!("r{i}"))
                    .date(Some((*d).to_owned()))
                    .build()
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn builds_first_pages_per_sort() {
        let p = product();
        assert_eq!(first_url(&p, "newest"), p.url());
        assert_eq!(
            first_url(&p, "lowest_rated"),
            "https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family?sort=lowest_rated"
        );
    }

    #[test]
    fn follows_only_this_products_pages() {
        let p = product();
        assert_eq!(
            own_page(
                &p,
                "https://www.creativemarket.com/NorthwindType/4821337-Alder-Serif-Family?page=2"
            )
            .as_deref(),
            Some("https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family?page=2")
        );
        assert!(own_page(
            &p,
            "https://creativemarket.com/NorthwindType/4821338-Other?page=2"
        )
        .is_none());
        assert!(own_page(
            &p,
            "https://evil.example/NorthwindType/4821337-Alder?page=2"
        )
        .is_none());
        assert!(own_page(&p, "javascript:alert(1)").is_none());
    }

    #[test]
    fn declares_newest_first_only_when_the_dates_say_so() {
        let down = dated(&["2024-03-20T10:00:00Z", "2024-03-18", "2024-03-18T01:00:00Z"]);
        assert_eq!(declared_order("newest", &down, None), Order::NewestFirst);
        assert_eq!(
            declared_order("newest", &down, Some("2024-03-21")),
            Order::NewestFirst
        );
        assert_eq!(
            declared_order("newest", &down, Some("2024-03-19")),
            Order::Unordered
        );
        assert_eq!(
            declared_order("highest_rated", &down, None),
            Order::Unordered
        );
        let up = dated(&["2024-03-18", "2024-03-20"]);
        assert_eq!(declared_order("newest", &up, None), Order::Unordered);
        let mut undated = dated(&["2024-03-18"]);
        undated.push(ReviewBuilder::new("u").build().unwrap());
        assert_eq!(declared_order("newest", &undated, None), Order::Unordered);
    }

    fn answer(status: u16, headers: &[(&str, &str)], body: &str) -> Response {
        gleaner_sdk::testing::response(status, "https://creativemarket.com/NorthwindType/1-X", body)
            .with_headers(headers)
    }

    const CHALLENGE: &str = include_str!("../tests/samples/bot-challenge.html");

    #[test]
    fn refusals_say_what_was_seen_and_what_helps() {
        for (status, headers) in [(403, &[("cf-mitigated", "challenge")][..]), (200, &[][..])] {
            let e = checked(answer(status, headers, CHALLENGE)).unwrap_err();
            assert!(
                matches!(&e, FetchError::Blocked(m) if m.contains(&format!(
                    "https://creativemarket.com/NorthwindType/1-X answered HTTP {status} with a Cloudflare bot challenge"
                )) && m.contains("a proxy the site trusts")),
                "{e:?}"
            );
        }
        let e = checked(answer(429, &[], "")).unwrap_err();
        assert!(matches!(&e, FetchError::Blocked(m) if m.contains("HTTP 429 Too Many Requests")));
        assert!(matches!(
            checked(answer(404, &[], "<html>")),
            Err(FetchError::NotFound(_))
        ));
        assert!(matches!(
            checked(answer(500, &[], "oops")),
            Err(FetchError::Upstream(_))
        ));
        assert!(checked(answer(200, &[], "<html><h1>Alder</h1></html>")).is_ok());
    }

    #[test]
    fn tells_a_removed_product_from_a_login_wall() {
        let p = product();
        let at = |url: &str| gleaner_sdk::testing::response(200, url, "<html></html>");
        assert_eq!(
            canonical_url(
                &p,
                &at("https://www.creativemarket.com/NorthwindType/4821337-Alder-Serif-Family?x=1")
            )
            .unwrap(),
            "https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family"
        );
        let e = canonical_url(&p, &at("https://creativemarket.com/NorthwindType")).unwrap_err();
        assert!(
            matches!(&e, FetchError::NotFound(m) if m.contains("no product 4821337")),
            "{e:?}"
        );
        let e = checked(at("https://creativemarket.com/login?next=%2FNorthwindType")).unwrap_err();
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("a login wall")),
            "{e:?}"
        );
    }
}
