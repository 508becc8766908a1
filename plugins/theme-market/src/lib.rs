//! theme-market: item reviews on Envato Market (ThemeForest, CodeCanyon,
//! VideoHive, AudioJungle, GraphicRiver, PhotoDune, 3DOcean; one engine).
//!
//! Reads the server-rendered reviews page `https://<market>/item/<slug>/reviews/<id>`
//! with CSS selectors ([`SELECTORS`], the one table to touch when the layout
//! changes), page by page with `page=N`, in Envato's own sort
//! (`reviews_controls[sort]`). Relative dates are resolved against the
//! response's `Date` header ([`dates`]). With an `api_token`, the item's
//! metadata comes from the official API ([`api`]); otherwise from the page.

pub mod api;
mod build;
pub mod dates;
pub mod parse;
pub mod query;

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::{botwall, config, FetchError, Page, PageRequest};

use api::{ItemInfo, Lookup};

gleaner_sdk::export_source!(
    |req: PageRequest| fetch_page(&req),
    prepare = || gleaner_sdk::html::prepare(SELECTORS.css())
);

/// Every CSS selector the plugin reads. Review fields are read inside each
/// `review` element; the rest on the whole page.
#[derive(Debug, Clone, Copy)]
pub struct Selectors {
    /// One review: `<article id="review_<id>">`.
    pub review: &'static str,
    /// Every star icon of a review's rating.
    pub stars: &'static str,
    /// The grey (empty) ones among them: the rating is stars minus these.
    pub empty_stars: &'static str,
    /// An accessible "Rated N out of 5" text, where the icons are missing.
    pub rating_text: &'static str,
    /// The reason line, "for <strong>Documentation Quality</strong>".
    pub reason: &'static str,
    /// The reason itself.
    pub reason_name: &'static str,
    /// The reviewer's profile link, `/user/<name>`.
    pub reviewer: &'static str,
    /// The reviewer's avatar (absent from the recorded markup).
    pub reviewer_avatar: &'static str,
    /// The date ("2 months ago").
    pub date: &'static str,
    /// The permalink around the date, `/ratings/<id>`.
    pub permalink: &'static str,
    /// The paragraphs of the review text.
    pub text: &'static str,
    /// The item author's response.
    pub reply: &'static str,
    /// Its paragraphs (the first is the "Author response" label).
    pub reply_paragraphs: &'static str,
    /// The label inside a label paragraph.
    pub reply_label: &'static str,
    /// The responding author's avatar; its `alt` is their username.
    pub reply_avatar: &'static str,
    /// The item's name in the page header.
    pub item_name: &'static str,
    /// The item's name in the Open Graph tags, where the header lacks it.
    pub og_title: &'static str,
    /// The item author's link in the page header.
    pub item_author: &'static str,
    /// The average rating beside the Reviews tab ("4.00 … 4.00 stars").
    pub item_rating: &'static str,
    /// The review count on the Reviews tab.
    pub item_review_count: &'static str,
    /// The canonical URL (the item's own host and slug).
    pub canonical: &'static str,
    /// A link to the next page.
    pub next_page: &'static str,
    /// The page's own statement that the item has no reviews.
    pub no_reviews: &'static str,
}

impl Selectors {
    /// Every CSS selector here, parsed ahead of any call (the plugin's `prepare`).
    pub const fn css(&self) -> [&'static str; 23] {
        let s = self;
        [
            s.review,
            s.stars,
            s.empty_stars,
            s.rating_text,
            s.reason,
            s.reason_name,
            s.reviewer,
            s.reviewer_avatar,
            s.date,
            s.permalink,
            s.text,
            s.reply,
            s.reply_paragraphs,
            s.reply_label,
            s.reply_avatar,
            s.item_name,
            s.og_title,
            s.item_author,
            s.item_rating,
            s.item_review_count,
            s.canonical,
            s.next_page,
            s.no_reviews,
        ]
    }
}

/// The selector table (the review markup is Envato's recorded markup; the page
/// shell around it follows Envato's item-page markup).
pub const SELECTORS: Selectors = Selectors {
    review: r#"article[id^="review_"]"#,
    stars: ".rating-basic__star-rating .e-icon.-icon-star",
    empty_stars: ".rating-basic__star-rating .e-icon.-color-grey-medium",
    rating_text: ".review-header__rating .is-visually-hidden",
    reason: ".review-header__rating p",
    reason_name: ".review-header__rating p strong",
    reviewer: r#".review-header__reviewer a[href*="/user/"]"#,
    reviewer_avatar: ".review-header__reviewer img",
    date: ".review-header__date",
    permalink: ".review-header__date a[href]",
    text: ".e-box.h-p2 > p",
    reply: ".media__body",
    reply_paragraphs: ".media__body > p",
    reply_label: "strong",
    reply_avatar: ".media__item img",
    item_name: ".item-header__title h1",
    og_title: r#"meta[property="og:title"]"#,
    item_author: r#".item-header__author-details a[rel~="author"]"#,
    item_rating: ".js-item-navigation-reviews .rating-detailed-small__stars",
    item_review_count: ".js-item-navigation-reviews .item-navigation-reviews-comments",
    canonical: r#"link[rel="canonical"]"#,
    next_page: r#"a[rel~="next"], link[rel~="next"], a.pagination__next"#,
    no_reviews: ".reviews-empty",
};

/// Every URL the plugin requests or builds, in one place.
pub mod endpoints {
    /// An item's reviews page.
    pub const REVIEWS: &str = "https://{host}/item/{slug}/reviews/{id}";
    /// The sort, as the site's own sort form submits it.
    pub const SORT_QUERY: &str = "?utf8=%E2%9C%93&reviews_controls%5Bsort%5D={sort}";
    /// Pages after the first (1-based).
    pub const PAGE_QUERY: &str = "&page={page}";
    /// An item's page.
    pub const ITEM: &str = "https://{host}/item/{slug}/{id}";
    /// The official API's item lookup (needs a personal token).
    pub const API_ITEM: &str = "https://api.envato.com/v3/market/catalog/item?id={id}";
    /// The slug used when only the item id is known; the site serves the item under any slug.
    pub const PLACEHOLDER_SLUG: &str = "x";

    fn fill(template: &str, host: &str, slug: &str, id: &str) -> String {
        template
            .replace("{host}", host)
            .replace("{slug}", slug)
            .replace("{id}", id)
    }

    /// The reviews page without paging or sort parameters (the resolved URL).
    pub fn reviews(host: &str, slug: &str, id: &str) -> String {
        fill(REVIEWS, host, slug, id)
    }

    /// Page `page` (1-based) of an item's reviews in `sort`.
    pub fn reviews_page(host: &str, slug: &str, id: &str, sort: &str, page: u32) -> String {
        let mut url = reviews(host, slug, id) + &SORT_QUERY.replace("{sort}", sort);
        if page > 1 {
            url.push_str(&PAGE_QUERY.replace("{page}", &page.to_string()));
        }
        url
    }

    /// The item's page.
    pub fn item(host: &str, slug: &str, id: &str) -> String {
        fill(ITEM, host, slug, id)
    }

    /// The API lookup of an item.
    pub fn api_item(id: &str) -> String {
        API_ITEM.replace("{id}", id)
    }
}

/// The sort used when the request names none: newest first.
pub const DEFAULT_SORT: &str = "date_descending";

/// What the plugin reads, for messages.
const WHAT: &str = "the Envato Market reviews page";

/// Where the next page starts, and what the first page established.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Cursor {
    /// The page to read (1-based).
    page: u32,
    /// The item's marketplace host.
    host: String,
    /// The item's slug.
    slug: String,
    /// The item id.
    id: String,
    /// Reviews on page 1 (0 until it is read). Every page before the last
    /// holds as many, so the pages before `page` hold `(page - 1) × page_size`:
    /// the cursor of a page is the same whichever page computed it.
    page_size: u64,
    /// Metadata from the API, when a token is configured and it answered.
    api: Option<ItemInfo>,
    /// Why the API's metadata is missing, when a token is configured.
    api_notice: Option<String>,
}

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let sort = req.sort_or(DEFAULT_SORT).to_owned();
    let (state, response) = match req.cursor_state::<Cursor>()? {
        Some(c) if c.page >= 2 && valid_place(&c.host, &c.slug, &c.id) => {
            let url = endpoints::reviews_page(&c.host, &c.slug, &c.id, &sort, c.page);
            let response = checked(http::get_html(&url)?, &c.id)?;
            (c, response)
        }
        Some(_) => {
            return Err(FetchError::BadCursor(
                "the cursor does not name a later page of an Envato Market item; start again without pagination_token".into(),
            ))
        }
        None => first_page(&req.query, &sort)?,
    };
    build::page(state, response, &sort)
}

/// Whether a cursor's place is one this plugin would request.
fn valid_place(host: &str, slug: &str, id: &str) -> bool {
    query::MARKETS.contains(&host)
        && query::is_item_id(id)
        && !slug.is_empty()
        && slug
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.%".contains(&b))
}

/// Reads the query, asks the API when a token is configured, and fetches the first page.
fn first_page(query: &str, sort: &str) -> Result<(Cursor, Response), FetchError> {
    let target = query::parse(query).map_err(FetchError::BadQuery)?;
    let (api, api_notice) = match config::get("api_token") {
        None => (None, None),
        Some(token) => match api::lookup(&target.id, &token)? {
            Lookup::Found(info) => (Some(info), None),
            Lookup::Unavailable(notice) => (None, Some(notice)),
        },
    };
    let place = match &target.host {
        Some(host) => Some((
            host.clone(),
            target
                .slug
                .clone()
                .unwrap_or_else(|| endpoints::PLACEHOLDER_SLUG.into()),
        )),
        None => api.as_ref().and_then(|info| info.place(&target.id)),
    };
    let ((host, slug), response) = match place {
        Some((host, slug)) => {
            let url = endpoints::reviews_page(&host, &slug, &target.id, sort, 1);
            let response = checked(http::get_html(&url)?, &target.id)?;
            ((host, slug), response)
        }
        None => probe(&target.id, sort)?,
    };
    let state = Cursor {
        page: 1,
        host,
        slug,
        id: target.id,
        page_size: 0,
        api,
        api_notice,
    };
    Ok((state, response))
}

/// Looks a bare item id up on each marketplace in turn (an item may also
/// redirect to its own marketplace); a 404 means "not on this one".
fn probe(id: &str, sort: &str) -> Result<((String, String), Response), FetchError> {
    for host in query::MARKETS {
        let slug = endpoints::PLACEHOLDER_SLUG;
        let response = http::get_html(&endpoints::reviews_page(host, slug, id, sort, 1))?;
        if matches!(response.status, 404 | 410) && botwall::detect(&response).is_none() {
            continue;
        }
        return Ok((
            ((*host).to_owned(), slug.to_owned()),
            checked(response, id)?,
        ));
    }
    Err(FetchError::NotFound(format!(
        "no Envato Market site has an item {id} (tried {}); check the id, or give the item's URL",
        query::MARKETS.join(", ")
    )))
}

/// Maps a refusing or failed answer: a bot wall or 401/403/429 is "blocked"
/// (naming what was seen and what would help), 404/410 "not found".
fn checked(response: Response, id: &str) -> Result<Response, FetchError> {
    if response.is_missing() {
        return Err(FetchError::NotFound(format!(
            "Envato Market has no item {id} at {} (HTTP {}); check the item's URL or id",
            response.final_url, response.status
        )));
    }
    response.checked(WHAT)
}
