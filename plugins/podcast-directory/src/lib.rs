//! podcast-directory: Apple Podcasts show reviews.
//!
//! Two recipes, pinned by the cursor for a whole fetch:
//! - the web review API (`amp-api.podcasts.apple.com`), which carries the
//!   show's replies; it needs the web token that the show page carries, and is
//!   tried first for `mostrecent`;
//! - the public review feed (`itunes.apple.com/.../rss/customerreviews/.../json`),
//!   the default: for `mosthelpful`, and for `mostrecent` when the web API has
//!   no token or refuses. It serves at most 10 pages per storefront and sort.
//!
//! The first page also reads the show page for the show's name and rating,
//! carried in the cursor to the later pages.

mod amp;
mod query;
mod rss;
mod show;

use gleaner_sdk::http::Response;
use gleaner_sdk::types::Review;
use gleaner_sdk::{botwall, cursor, FetchError, Order, Page, PageRequest, SourceMeta};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

gleaner_sdk::export_source!(|req: PageRequest| fetch_page(&req));

/// Every address, page marker and limit the plugin uses, in one table.
pub mod site {
    /// The show page: web token, name, rating (`{cc}`, `{id}`).
    pub const SHOW_PAGE: &str = "https://podcasts.apple.com/{cc}/podcast/id{id}";
    /// The origin the web API expects requests from.
    pub const WEB_ORIGIN: &str = "https://podcasts.apple.com";
    /// Older show pages: URL-encoded JSON config holding the web token.
    pub const TOKEN_META: &str = r#"meta[name="web-experience-app/config/environment"]"#;
    /// Newer show pages: the JS bundle `/assets/index~<hash>.js` holding the web token.
    pub const BUNDLE_SCRIPT: &str = "script[src]";
    /// The path prefix of that bundle.
    pub const BUNDLE_PATH: &str = "/assets/index";
    /// The show's name when the JSON-LD lacks it.
    pub const OG_TITLE: &str = r#"meta[property="og:title"]"#;
    /// JSON-LD types of the show object (with `name` and `aggregateRating`).
    pub const SHOW_TYPES: [&str; 2] = ["PodcastSeries", "CreativeWorkSeries"];
    /// The web review API (`{cc}`, `{id}`, `{offset}`); 20 reviews a page.
    pub const AMP_REVIEWS: &str = "https://amp-api.podcasts.apple.com/v1/catalog/{cc}/podcasts/{id}/reviews?l=en-US&offset={offset}&limit=20";
    /// The public review feed (`{cc}`, `{page}`, `{id}`, `{sort}`).
    pub const RSS_FEED: &str =
        "https://itunes.apple.com/{cc}/rss/customerreviews/page={page}/id={id}/sortby={sort}/json";
    /// The feed's last page.
    pub const RSS_MAX_PAGES: u32 = 10;
    /// Reviews on a full feed page.
    pub const RSS_PAGE_SIZE: usize = 50;
    /// Cache key of the web token (one token serves every storefront).
    pub const TOKEN_CACHE_KEY: &str = "amp-web-token";
    /// How long a working web token is kept.
    pub const TOKEN_TTL_SECONDS: u32 = 6 * 3600;
    /// The storefront when neither `country` nor the URL names one.
    pub const DEFAULT_STOREFRONT: &str = "us";
}

/// Apple's two review orders (`sort_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sort {
    /// Newest first; the web API first, else the feed.
    MostRecent,
    /// Most helpful first; the feed only.
    MostHelpful,
}

impl Sort {
    /// The `sort_type` value, which is also the feed's `sortby`.
    pub fn name(self) -> &'static str {
        match self {
            Sort::MostRecent => "mostrecent",
            Sort::MostHelpful => "mosthelpful",
        }
    }

    fn parse(value: &str) -> Result<Sort, FetchError> {
        match value {
            "mostrecent" => Ok(Sort::MostRecent),
            "mosthelpful" => Ok(Sort::MostHelpful),
            other => Err(FetchError::BadQuery(format!(
                "`sort_type` {other:?} is not offered; use \"mostrecent\" or \"mosthelpful\""
            ))),
        }
    }
}

/// What one fetch reads, fixed on its first page and carried in the cursor.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Context {
    /// The show id.
    pub id: String,
    /// The storefront used.
    pub cc: String,
    /// The order.
    pub sort: Sort,
    /// The show page's details.
    pub show: show::Info,
    /// Why the web API was not used for `mostrecent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web_api_unavailable: Option<String>,
}

/// Where the next page starts, in the recipe the fetch began with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "recipe", rename_all = "kebab-case")]
pub enum Step {
    /// The public feed's page (1..=10); `page_size` is how many reviews page 1 held.
    Rss {
        /// Page number.
        page: u32,
        /// Reviews on page 1: a later page that holds as many is full.
        page_size: usize,
    },
    /// The web API's offset.
    AmpApi {
        /// Offset of the next review.
        offset: u32,
    },
}

/// The plugin's cursor.
#[derive(Serialize, Deserialize)]
struct Cursor {
    ctx: Context,
    next: Step,
}

/// One page read by a recipe.
pub struct Fetched {
    /// The reviews, in the source's order.
    pub reviews: Vec<Review>,
    /// The next page, if any.
    pub next: Option<Step>,
    /// Every page after this one the recipe can enumerate, in order (the
    /// first is `next`); empty when only `next` is known.
    pub ahead: Vec<Step>,
    /// Recipe-specific metadata (`recipe`, `page`, `offset`, `source_limit`, ...).
    pub extra: Map<String, Value>,
    /// The show's name as the answer gives it, when the show page did not.
    pub name_hint: Option<String>,
}

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let target = query::parse(&req.query).map_err(FetchError::BadQuery)?;
    let country = req
        .filter::<Option<String>>()?
        .flatten()
        .map(|c| query::storefront(&c))
        .transpose()
        .map_err(FetchError::BadQuery)?;
    let sort = Sort::parse(req.sort_or(Sort::MostRecent.name()))?;
    if let Some(c) = req.cursor_state::<Cursor>()? {
        if c.ctx.id != target.id || c.ctx.sort != sort {
            return Err(FetchError::BadCursor(
                "`pagination_data` belongs to another show or sort; drop it to start over".into(),
            ));
        }
        let fetched = match &c.next {
            Step::Rss { page, page_size } => rss::fetch(&c.ctx, *page, *page_size)?,
            Step::AmpApi { offset } => amp::page(&c.ctx, *offset)?,
        };
        return Ok(assemble(c.ctx, fetched));
    }
    let cc = country
        .or(target.storefront)
        .unwrap_or_else(|| site::DEFAULT_STOREFRONT.to_owned());
    let show = show::fetch(&cc, &target.id)?;
    let mut ctx = Context {
        id: target.id,
        cc,
        sort,
        show: show.info.clone(),
        web_api_unavailable: None,
    };
    if sort == Sort::MostRecent {
        match amp::first_page(&ctx, &show) {
            Ok(fetched) => return Ok(assemble(ctx, fetched)),
            Err(why) => {
                gleaner_sdk::log::info(&format!(
                    "web review API not used, reading the public feed: {why}"
                ));
                ctx.web_api_unavailable = Some(why);
            }
        }
    }
    let fetched = rss::fetch(&ctx, 1, 0)?;
    Ok(assemble(ctx, fetched))
}

/// The order of a page: the public feed's `mostrecent` is newest first; the
/// web review API takes no sort parameter and its order is not documented
/// (public code that reads it sorts the reviews itself), so its pages are
/// unordered, as is `mosthelpful`.
fn order(sort: Sort, extra: &Map<String, Value>) -> Order {
    let feed = extra.get("recipe") == Some(&json!("rss"));
    match sort {
        Sort::MostRecent if feed => Order::NewestFirst,
        _ => Order::Unordered,
    }
}

/// The page the host gets: reviews, the cursor of the next page, and metadata.
fn assemble(ctx: Context, fetched: Fetched) -> Page {
    let order = order(ctx.sort, &fetched.extra);
    let mut extra = Map::new();
    extra.insert("podcast_id".into(), json!(ctx.id));
    extra.insert("storefront".into(), json!(ctx.cc));
    extra.insert("sort".into(), json!(ctx.sort.name()));
    extra.extend(fetched.extra);
    extra.insert("rating_count".into(), json!(ctx.show.rating_count));
    if let Some(why) = &ctx.web_api_unavailable {
        extra.insert("web_api_unavailable".into(), json!(why));
    }
    let first = extra.get("page") == Some(&json!(1)) || extra.get("offset") == Some(&json!(0));
    if first && fetched.reviews.is_empty() {
        extra.insert(
            "notice".into(),
            json!(format!(
                "Apple lists no reviews for this show in the \"{}\" storefront",
                ctx.cc
            )),
        );
    }
    let meta = SourceMeta {
        resolved_url: Some(ctx.show.url.clone()),
        name: ctx.show.name.clone().or(fetched.name_hint),
        average_rating: ctx.show.average,
        total_reviews: ctx.show.total,
        extra_json: Value::Object(extra).to_string(),
    };
    let at = |next: Step| Cursor {
        ctx: ctx.clone(),
        next,
    };
    let next_cursor = fetched.next.map(|next| cursor::encode(&at(next)));
    let ahead = cursor::ahead(fetched.ahead.into_iter().map(at));
    // Apple gives a review no permalink: it is seen on the show's page.
    let mut reviews = fetched.reviews;
    for review in &mut reviews {
        review
            .review_url
            .get_or_insert_with(|| ctx.show.url.clone());
    }
    Page {
        ahead,
        reviews,
        next_cursor,
        order,
        meta,
    }
}

/// Fills `{key}` placeholders of an address template.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    values
        .iter()
        .fold(template.to_owned(), |url, (key, value)| {
            url.replace(&format!("{{{key}}}"), value)
        })
}

const BLOCKED_HELP: &str = "This is rate limiting or bot protection, not a missing show: \
slow down (fewer fetches per minute), retry later, or send the requests through another \
network or a proxy. Apple's public review feed needs no credentials.";

/// The error for a non-2xx answer, or a 2xx answer that is a web page instead of
/// JSON: 404/410 → not found; 401/403/429 or a challenge page → blocked, naming
/// what was seen and what would help; others → upstream.
pub fn refused(what: &str, resp: &Response) -> FetchError {
    let url = &resp.final_url;
    match resp.status {
        404 | 410 => FetchError::NotFound(format!(
            "{what}: Apple has no such page ({url} answered HTTP {}); check the show id and the storefront (`country`)",
            resp.status
        )),
        status @ (401 | 403 | 429) => {
            let seen = match botwall::detect(resp) {
                Some(wall) => format!("HTTP {status} and {}", wall.phrase()),
                None => botwall::seen(resp),
            };
            FetchError::Blocked(format!(
                "{what}: Apple refused {url} with {seen}. {BLOCKED_HELP}"
            ))
        }
        status if (200..300).contains(&status) || botwall::detect(resp).is_some() => {
            FetchError::Blocked(format!(
                "{what}: {url} answered HTTP {status} with {}. {BLOCKED_HELP}",
                botwall::seen(resp)
            ))
        }
        status => FetchError::Upstream(format!(
            "{what}: {url} answered HTTP {status}; Apple may be having trouble, retry later"
        )),
    }
}

/// A `{"label": "..."}` value of the feed, or a plain string, when non-empty.
pub fn label(v: &Value) -> Option<String> {
    v.get("label")
        .unwrap_or(v)
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// A number given as a JSON number or a numeric string.
pub fn number(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_feed_sorted_by_date_is_newest_first() {
        let recipe = |r: &str| {
            let mut m = Map::new();
            m.insert("recipe".into(), json!(r));
            m
        };
        assert_eq!(order(Sort::MostRecent, &recipe("rss")), Order::NewestFirst);
        assert_eq!(
            order(Sort::MostRecent, &recipe("amp-api")),
            Order::Unordered
        );
        assert_eq!(order(Sort::MostHelpful, &recipe("rss")), Order::Unordered);
    }

    #[test]
    fn templates_fill() {
        assert_eq!(
            fill(
                site::RSS_FEED,
                &[
                    ("cc", "jp"),
                    ("page", "2"),
                    ("id", "1"),
                    ("sort", "mosthelpful")
                ]
            ),
            "https://itunes.apple.com/jp/rss/customerreviews/page=2/id=1/sortby=mosthelpful/json"
        );
    }

    #[test]
    fn cursors_round_trip() {
        let c = Cursor {
            ctx: Context {
                id: "1".into(),
                cc: "gb".into(),
                sort: Sort::MostRecent,
                show: show::Info::unknown("gb", "1"),
                web_api_unavailable: Some("no token".into()),
            },
            next: Step::AmpApi { offset: 20 },
        };
        let back: Cursor = cursor::decode(&cursor::encode(&c)).unwrap();
        assert_eq!(back.next, Step::AmpApi { offset: 20 });
        assert_eq!(back.ctx.cc, "gb");
        let json: Value = serde_json::to_value(&c).unwrap();
        assert_eq!(json["next"]["recipe"], "amp-api");
        assert_eq!(json["ctx"]["sort"], "mostrecent");
    }

    #[test]
    fn refusals_name_what_was_seen() {
        let resp = |status: u16, body: &str| {
            gleaner_sdk::testing::response(status, "https://itunes.apple.com/x", body)
        };
        let akamai = include_str!("../tests/samples/bot-challenge.html");
        let e = refused("the feed", &resp(403, akamai));
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("with HTTP 403 and an Akamai \"Access Denied\" page. ")
                && m.contains("slow down")),
            "{e:?}"
        );
        let e = refused("the feed", &resp(429, ""));
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("with HTTP 429 Too Many Requests. ")),
            "{e:?}"
        );
        let e = refused("the feed", &resp(200, "<!DOCTYPE html><p>hold on"));
        assert!(matches!(&e, FetchError::Blocked(m) if m.contains("interstitial")));
        assert!(matches!(
            refused("the feed", &resp(404, "")),
            FetchError::NotFound(_)
        ));
        assert!(matches!(
            refused("the feed", &resp(500, "")),
            FetchError::Upstream(_)
        ));
    }

    #[test]
    fn labels_and_numbers() {
        assert_eq!(label(&json!({"label": " 4 "})).as_deref(), Some("4"));
        assert_eq!(label(&json!({"label": ""})), None);
        assert_eq!(label(&json!("x")).as_deref(), Some("x"));
        assert_eq!(label(&Value::Null), None);
        assert_eq!(number(&json!("4.5")), Some(4.5));
        assert_eq!(number(&json!(3)), Some(3.0));
    }

    #[test]
    fn ahead_lists_the_cursors_the_later_pages_give() {
        let read = |ctx: Context, page: u32, page_size: usize| {
            let file = format!(
                "{}/tests/samples/rss-1322200189-us-mostrecent-p{page}.json",
                env!("CARGO_MANIFEST_DIR")
            );
            let body: Value =
                serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            let fetched = rss::parse_feed(&body, &ctx, page, page_size).unwrap();
            assemble(ctx, fetched)
        };
        let ctx = Context {
            id: "1322200189".into(),
            cc: "us".into(),
            sort: Sort::MostRecent,
            show: show::Info {
                average: Some(4.7),
                ..show::Info::unknown("us", "1322200189")
            },
            web_api_unavailable: Some("the show page carries no web token".into()),
        };
        let first = read(ctx, 1, 0);
        assert_eq!(first.ahead.len(), 9, "pages 2 to 10");
        assert_eq!(first.next_cursor.as_ref(), first.ahead.first());
        // Each page reached along the list gives the rest of it, byte for byte.
        for (k, c) in first.ahead.iter().enumerate() {
            let c: Cursor = cursor::decode(c).unwrap();
            let Step::Rss { page, page_size } = c.next else {
                panic!("a feed page")
            };
            assert_eq!((page, page_size), (k as u32 + 2, 3));
            let later = read(c.ctx, page, page_size);
            assert_eq!(
                later.next_cursor.as_ref(),
                first.ahead.get(k + 1),
                "page {page}"
            );
            assert_eq!(later.ahead, first.ahead[k + 1..].to_vec(), "page {page}");
        }
    }
}
