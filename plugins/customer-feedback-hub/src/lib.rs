//! customer-feedback-hub: Trustpilot review pages.
//!
//! Reads the `__NEXT_DATA__` JSON embedded in `https://<host>/review/<domain>`
//! pages (20 reviews per page), pages with `?page=N`, sorts newest first by
//! default (`sort=recency`) so `sync_date` can stop early, and filters by stars.

use gleaner_sdk::embedded::next_data_as;
use gleaner_sdk::json::string;
use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::types::Review;
use gleaner_sdk::{cursor, http};
use gleaner_sdk::{FetchError, Order, Page, PageRequest, SourceMeta};
use serde::Deserialize;
use serde_json::{json, Value};

gleaner_sdk::export_source!(|req: PageRequest| fetch_page(&req));

/// Where the next page starts: Trustpilot pages are numbered from 1.
#[derive(serde::Serialize, serde::Deserialize)]
struct Cursor {
    page: u32,
}

/// A Trustpilot business page: host and the business's domain.
#[derive(Debug, PartialEq)]
pub struct Target {
    /// `www.trustpilot.com` or a country host such as `de.trustpilot.com`.
    pub host: String,
    /// The business identifier, e.g. `www.bhphotovideo.com`.
    pub domain: String,
}

/// Parses `https://[cc.|www.]trustpilot.com/review/<domain>[...]` or a bare business domain.
pub fn parse_query(query: &str) -> Result<Target, String> {
    let q = query.trim();
    let rest = q
        .strip_prefix("https://")
        .or_else(|| q.strip_prefix("http://"))
        .unwrap_or(q);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.to_ascii_lowercase();
    if host == "trustpilot.com" || host.ends_with(".trustpilot.com") {
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let mut parts = path.split('/').filter(|s| !s.is_empty());
        return match (parts.next(), parts.next()) {
            (Some("review"), Some(domain)) => Ok(Target {
                host: if host == "trustpilot.com" { "www.trustpilot.com".into() } else { host },
                domain: domain.to_ascii_lowercase(),
            }),
            _ => Err(format!(
                "{q:?} is not a Trustpilot review page; use https://www.trustpilot.com/review/<company-domain>"
            )),
        };
    }
    let looks_like_domain = path.is_empty()
        && host.contains('.')
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    if looks_like_domain {
        return Ok(Target {
            host: "www.trustpilot.com".into(),
            domain: host,
        });
    }
    Err(format!(
        "{q:?} is not a Trustpilot review page; use https://www.trustpilot.com/review/<company-domain> or the company's domain"
    ))
}

/// The URL of page `page` (1-based) of a business's reviews.
pub fn page_url(target: &Target, sort: &str, stars: Option<&str>, page: u32) -> String {
    let mut url = format!(
        "https://{}/review/{}?languages=all&sort={sort}",
        target.host, target.domain
    );
    if let Some(s) = stars {
        url.push_str(&format!("&stars={s}"));
    }
    if page > 1 {
        url.push_str(&format!("&page={page}"));
    }
    url
}

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let target = parse_query(&req.query).map_err(FetchError::BadQuery)?;
    let page = req.cursor_state::<Cursor>()?.map_or(1, |c| c.page.max(1));
    let sort = req.sort_or("recency").to_owned();
    let stars = req.filter_text();
    let url = page_url(&target, &sort, stars.as_deref(), page);
    let response = http::get_html(&url)?;
    page_from_response(&url, response, &target, page, &sort)
}

/// Builds page `page` from the site's answer to `url` (its [`page_url`]):
/// refuses a bot wall or an error status, reads the embedded `__NEXT_DATA__`,
/// then [`parse_page`].
pub fn page_from_response(
    url: &str,
    response: http::Response,
    target: &Target,
    page: u32,
    sort: &str,
) -> Result<Page, FetchError> {
    let response = response.checked("Trustpilot review page")?;
    let html = response.text();
    let data: NextData = next_data_as(&html)
        .ok_or_else(|| {
            FetchError::Blocked(format!(
                "{url} returned a page without review data (__NEXT_DATA__ missing): likely a bot challenge"
            ))
        })?
        .map_err(|e| {
            FetchError::Upstream(format!(
                "Trustpilot: {url} answered with review data in another shape ({e}): \
                 the page layout changed and the plugin needs an update"
            ))
        })?;
    parse_page(
        data.props.page_props,
        target,
        page,
        sort,
        response.final_url,
    )
}

/// `__NEXT_DATA__` as far as a review page is read from it: everything else
/// is skipped as it is parsed, without being kept.
#[derive(Deserialize)]
struct NextData {
    props: Props,
}

#[derive(Deserialize)]
struct Props {
    #[serde(rename = "pageProps")]
    page_props: PageProps,
}

/// `props.pageProps` of a review page: the reviews, the page count and the
/// business. Values whose type varies are kept as JSON values.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PageProps {
    /// The page's reviews; absent when the layout changed.
    pub reviews: Option<Vec<RawReview>>,
    /// `filters.pagination.totalPages` is read.
    pub filters: Filters,
    /// The business the page is about.
    pub business_unit: BusinessUnit,
}

/// `pageProps.filters`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Filters {
    /// `pagination.totalPages` is read.
    pub pagination: Pagination,
}

/// `pageProps.filters.pagination`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Pagination {
    /// How many pages the listing has.
    pub total_pages: Value,
}

/// `pageProps.businessUnit`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BusinessUnit {
    id: Value,
    identifying_name: Value,
    display_name: Value,
    stars: Value,
    trust_score: Value,
    number_of_reviews: Value,
    website_url: Value,
}

/// One `pageProps.reviews[]` object, as far as it is read.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawReview {
    id: Value,
    title: Value,
    text: Value,
    rating: Value,
    likes: Value,
    language: Value,
    dates: Dates,
    consumer: Consumer,
    reply: Option<Reply>,
    labels: Labels,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Dates {
    published_date: Value,
    experienced_date: Value,
    updated_date: Value,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Consumer {
    id: Value,
    display_name: Value,
    image_url: Value,
    country_code: Value,
    number_of_reviews: Value,
    is_verified: Value,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Reply {
    message: Value,
    published_date: Value,
    updated_date: Value,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Labels {
    verification: Verification,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Verification {
    is_verified: Value,
    review_source_name: Value,
}

/// Builds a page from `props.pageProps` of a review page.
pub fn parse_page(
    props: PageProps,
    target: &Target,
    page: u32,
    sort: &str,
    resolved: String,
) -> Result<Page, FetchError> {
    let reviews = props.reviews.ok_or_else(|| {
        gleaner_sdk::listing::layout_changed(
            "Trustpilot",
            &resolved,
            &[("the review list", "__NEXT_DATA__ props.pageProps.reviews")],
        )
    })?;
    let reviews = reviews
        .iter()
        .map(|r| review(r, &target.host).map_err(FetchError::Upstream))
        .collect::<Result<Vec<_>, _>>()?;
    let total_pages = props.filters.pagination.total_pages.as_u64().unwrap_or(0);
    // Pages are numbered up to a known count: list them all, so the host can
    // fetch several at once.
    let last = if reviews.is_empty() {
        page
    } else {
        u32::try_from(total_pages).unwrap_or(u32::MAX)
    };
    let ahead = cursor::ahead((page + 1..=last).map(|page| Cursor { page }));
    let next_cursor = ahead.first().cloned();
    let unit = props.business_unit;
    let mut extra = json!({
        "business_id": unit.id,
        "identifying_name": unit.identifying_name,
        "stars": unit.stars,
        "website_url": unit.website_url,
        "total_pages": total_pages,
    });
    // An empty list is the page's own "no reviews" answer: the company has
    // none yet, or none with the star rating asked for.
    if reviews.is_empty() && page == 1 {
        extra["notice"] = json!(if unit.number_of_reviews.as_u64().unwrap_or(0) == 0 {
            "Trustpilot lists no reviews for this company yet"
        } else {
            "Trustpilot lists no reviews with this star rating for this company"
        });
    }
    Ok(Page {
        ahead,
        reviews,
        next_cursor,
        // `recency` lists strictly newest first across every language
        // (`languages=all`), with nothing pinned; `relevance` is Trustpilot's
        // own ranking.
        order: if sort == "recency" {
            Order::NewestFirst
        } else {
            Order::Unordered
        },
        meta: SourceMeta {
            resolved_url: Some(resolved),
            name: string(&unit.display_name),
            average_rating: unit.trust_score.as_f64(),
            total_reviews: unit.number_of_reviews.as_u64(),
            extra_json: extra.to_string(),
        },
    })
}

/// The site's verification: of the review (an invitation or a proof of
/// purchase, `labels.verification.isVerified`) or of its author's identity
/// (`consumer.isVerified`); none where the object says nothing of either.
fn verified(review: &Value, author: &Value) -> Option<bool> {
    match (review.as_bool(), author.as_bool()) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (review, author) => review.or(author),
    }
}

/// Maps one `pageProps.reviews[]` object.
pub fn review(r: &RawReview, host: &str) -> Result<Review, String> {
    let id = string(&r.id).ok_or("a review has no id")?;
    let consumer = &r.consumer;
    let verification = &r.labels.verification;
    let (reply_message, reply_date, reply_updated) = match &r.reply {
        Some(reply) => (
            string(&reply.message),
            string(&reply.published_date),
            &reply.updated_date,
        ),
        None => (None, None, &Value::Null),
    };
    ReviewBuilder::new(id.clone())
        .title(string(&r.title))
        .text_plain(string(&r.text))
        .rating(r.rating.as_f64(), 5.0)
        .date(string(&r.dates.published_date))
        .updated_date(string(&r.dates.updated_date))
        // The name the page shows; the object carries no other name.
        .author_name(string(&consumer.display_name))
        .author_image(string(&consumer.image_url))
        .author_url(string(&consumer.id).map(|c| format!("https://{host}/users/{c}")))
        .author_country(string(&consumer.country_code))
        .review_url(Some(format!("https://{host}/reviews/{id}")))
        .reply(reply_message, reply_date, None)
        .helpful_votes(r.likes.as_i64())
        .language(string(&r.language))
        .verified(verified(&verification.is_verified, &consumer.is_verified))
        .extra(json!({
            "review_source": verification.review_source_name,
            "experienced_date": r.dates.experienced_date,
            "reply_updated_date": reply_updated,
            "author_review_count": consumer.number_of_reviews,
        }))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../tests/samples/trustpilot-nextdata-reviews.json");

    #[test]
    fn parses_queries() {
        let t =
            parse_query("https://www.trustpilot.com/review/www.bhphotovideo.com?page=2").unwrap();
        assert_eq!(
            t,
            Target {
                host: "www.trustpilot.com".into(),
                domain: "www.bhphotovideo.com".into()
            }
        );
        assert_eq!(
            parse_query("https://de.trustpilot.com/review/x.de")
                .unwrap()
                .host,
            "de.trustpilot.com"
        );
        assert_eq!(
            parse_query("bhphotovideo.com").unwrap().domain,
            "bhphotovideo.com"
        );
        assert!(parse_query("https://www.trustpilot.com/categories/x").is_err());
        assert!(parse_query("not a url").is_err());
    }

    #[test]
    fn maps_real_review_objects() {
        let all: Vec<RawReview> = serde_json::from_str(SAMPLE).unwrap();
        let first = review(&all[0], "www.trustpilot.com").unwrap();
        assert_eq!(first.id, "65718f1ba9549dd90f396b4a");
        assert_eq!(
            first.title.as_deref(),
            Some("I can find what I need very easily")
        );
        assert_eq!(first.rating, Some(5.0));
        assert_eq!(first.date.as_deref(), Some("2023-12-07T11:23:40.000Z"));
        assert_eq!(first.author_name.as_deref(), Some("Dean"));
        assert_eq!(first.author_profile_image_url, None);
        assert_eq!(first.author_title, None);
        assert_eq!(first.author_country.as_deref(), Some("US"));
        assert_eq!(first.language.as_deref(), Some("en"));
        assert_eq!(first.verified, Some(true));
        assert_eq!(first.updated_date, None);
        assert!(!first.anonymous);
        let extra: Value = serde_json::from_str(&first.extra_json).unwrap();
        assert_eq!(
            extra,
            json!({
                "review_source": "InvitationLinkApi",
                "experienced_date": "2023-12-06T00:00:00.000Z",
                "reply_updated_date": null,
                "author_review_count": 4,
            })
        );
        let replies = all
            .iter()
            .filter_map(|r| review(r, "www.trustpilot.com").unwrap().reply)
            .count();
        assert!(replies >= 1);
        for r in &all {
            review(r, "www.trustpilot.com").unwrap();
        }
    }

    #[test]
    fn an_edit_date_and_the_verifications() {
        let edited: RawReview = serde_json::from_value(json!({
            "id": "r1",
            "dates": {"publishedDate": "2023-12-07T11:23:40.000Z", "updatedDate": "2023-12-09T08:00:00.000Z"},
            "consumer": {"isVerified": true},
            "labels": {"verification": {"isVerified": false}},
        }))
        .unwrap();
        let r = review(&edited, "www.trustpilot.com").unwrap();
        assert_eq!(r.updated_date.as_deref(), Some("2023-12-09T08:00:00.000Z"));
        assert_eq!(r.verified, Some(true), "a verified author");
        assert_eq!(verified(&json!(false), &json!(false)), Some(false));
        assert_eq!(verified(&Value::Null, &Value::Null), None);
    }

    #[test]
    fn page_urls() {
        let t = parse_query("x.com").unwrap();
        assert_eq!(
            page_url(&t, "recency", None, 1),
            "https://www.trustpilot.com/review/x.com?languages=all&sort=recency"
        );
        assert_eq!(
            page_url(&t, "recency", Some("5"), 3),
            "https://www.trustpilot.com/review/x.com?languages=all&sort=recency&stars=5&page=3"
        );
    }
}
