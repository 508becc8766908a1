//! The web review API (`amp-api.podcasts.apple.com`): 20 reviews a page,
//! newest first, with the show's replies; `next` gives the next offset. It
//! needs the web token of the show page, cached and refreshed once on a 401.

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::types::Review;
use gleaner_sdk::{cache, FetchError};
use serde_json::{json, Map, Value};

use crate::show::{self, Show};
use crate::{fill, number, refused, site, Context, Fetched, Step};

const WHAT: &str = "Apple's web review API";

/// The API's address for a page starting at `offset`.
pub fn url(ctx: &Context, offset: u32) -> String {
    fill(
        site::AMP_REVIEWS,
        &[
            ("cc", &ctx.cc),
            ("id", &ctx.id),
            ("offset", &offset.to_string()),
        ],
    )
}

/// The first page, when the API answers; otherwise why not (the caller then
/// reads the public feed).
pub fn first_page(ctx: &Context, show: &Show) -> Result<Fetched, String> {
    let token = cache::get(site::TOKEN_CACHE_KEY)
        .or_else(|| {
            show.html
                .as_deref()
                .and_then(|h| show::token(h, &show.info.url))
        })
        .ok_or_else(|| match &show.unavailable {
            Some(why) => format!("the show page could not be read for the web token ({why})"),
            None => "the show page carries no web token".to_owned(),
        })?;
    let body = reviews(ctx, 0, token).map_err(|e| http::describe(&e))?;
    parse_page(&body, ctx, 0).map_err(|e| http::describe(&e))
}

/// A later page of a fetch that began with the API.
pub fn page(ctx: &Context, offset: u32) -> Result<Fetched, FetchError> {
    let token = match cache::get(site::TOKEN_CACHE_KEY) {
        Some(token) => token,
        None => fresh_token(ctx).ok_or_else(|| {
            FetchError::Blocked(format!(
                "{WHAT}: the web token expired and the show page no longer gives one; \
drop `pagination_data` to start over (the fetch then reads Apple's public review feed)"
            ))
        })?,
    };
    let body = reviews(ctx, offset, token)?;
    parse_page(&body, ctx, offset)
}

/// The API's answer at `offset`, refreshing the token once on a 401.
fn reviews(ctx: &Context, offset: u32, token: String) -> Result<Value, FetchError> {
    let url = url(ctx, offset);
    let mut resp = send(&url, ctx, &token)?;
    let mut used = token;
    if resp.status == 401 {
        gleaner_sdk::log::info("the web review API refused the web token (401); reading a new one");
        cache::delete(site::TOKEN_CACHE_KEY);
        match fresh_token(ctx).filter(|t| *t != used) {
            Some(fresh) => {
                resp = send(&url, ctx, &fresh)?;
                used = fresh;
            }
            None => {
                return Err(FetchError::Blocked(format!(
                    "{WHAT} refused the web token (HTTP 401) and the show page gives no other"
                )))
            }
        }
    }
    if !resp.is_success() {
        return Err(refused(WHAT, &resp));
    }
    let body: Value = serde_json::from_slice(&resp.body).map_err(|_| refused(WHAT, &resp))?;
    cache::set(site::TOKEN_CACHE_KEY, &used, site::TOKEN_TTL_SECONDS);
    Ok(body)
}

fn send(url: &str, ctx: &Context, token: &str) -> Result<Response, FetchError> {
    let bearer = format!("Bearer {token}");
    http::get(
        url,
        &[
            ("accept", "application/json"),
            ("authorization", &bearer),
            ("origin", site::WEB_ORIGIN),
            ("referer", &ctx.show.url),
        ],
    )
}

/// A token read again from the show page.
fn fresh_token(ctx: &Context) -> Option<String> {
    let url = show::show_url(&ctx.cc, &ctx.id);
    let resp = http::get_html(&url).ok().filter(Response::is_success)?;
    show::token(&resp.text(), &resp.final_url)
}

/// Maps one answer: `data[]` reviews and the `next` offset.
pub fn parse_page(body: &Value, ctx: &Context, offset: u32) -> Result<Fetched, FetchError> {
    let data = body["data"].as_array().ok_or_else(|| {
        FetchError::Upstream(format!(
            "{WHAT} answered without a `data` list of reviews; its format may have changed"
        ))
    })?;
    let reviews = data
        .iter()
        .map(|r| review(r, &ctx.cc).map_err(FetchError::Upstream))
        .collect::<Result<Vec<_>, _>>()?;
    let next = body["next"]
        .as_str()
        .filter(|_| !data.is_empty())
        .map(|n| next_offset(n).unwrap_or(offset + data.len() as u32))
        .filter(|n| *n > offset)
        .map(|offset| Step::AmpApi { offset });
    let mut extra = Map::new();
    extra.insert("recipe".into(), json!("amp-api"));
    extra.insert("offset".into(), json!(offset));
    Ok(Fetched {
        reviews,
        next,
        // The answer gives the next offset only, and no total: a cursor chain.
        ahead: Vec::new(),
        extra,
        name_hint: None,
    })
}

/// The `offset` parameter of a `next` path such as `/v1/...?l=en-US&offset=20`.
pub fn next_offset(next: &str) -> Option<u32> {
    let query = next.split_once('?')?.1;
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("offset="))
        .and_then(|v| v.parse().ok())
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

/// Maps one `data[]` review. `isEdited` comes without the date of the edit,
/// so it is left out.
pub fn review(r: &Value, cc: &str) -> Result<Review, String> {
    let id = match &r["id"] {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return Err(format!("{WHAT} returned a review without an id")),
    };
    let a = &r["attributes"];
    let reply = &a["developerResponse"];
    ReviewBuilder::new(id)
        .title(text(&a["title"]))
        .text_plain(text(&a["review"]))
        .rating(number(&a["rating"]), 5.0)
        .date(text(&a["date"]).filter(|d| gleaner_sdk::date::looks_iso(d)))
        .author_name(text(&a["userName"]))
        .reply(
            text(&reply["body"]),
            text(&reply["modified"]).filter(|d| gleaner_sdk::date::looks_iso(d)),
            None,
        )
        .extra(json!({
            "recipe": "amp-api",
            "storefront": cc,
            "reply_id": reply["id"],
        }))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::show::Info;
    use crate::Sort;

    const PAGE_1: &str = include_str!("../tests/samples/amp-1473872585-us-offset-0.json");
    const LAST: &str = include_str!("../tests/samples/amp-1473872585-us-offset-40.json");

    fn ctx() -> Context {
        Context {
            id: "1473872585".into(),
            cc: "us".into(),
            sort: Sort::MostRecent,
            show: Info::unknown("us", "1473872585"),
            web_api_unavailable: None,
        }
    }

    #[test]
    fn pages_and_offsets() {
        let body: Value = serde_json::from_str(PAGE_1).unwrap();
        let page = parse_page(&body, &ctx(), 0).unwrap();
        assert_eq!(page.reviews.len(), 20);
        assert_eq!(page.next, Some(Step::AmpApi { offset: 20 }));
        let first = &page.reviews[0];
        assert_eq!(first.rating, Some(5.0));
        assert!(first.date.as_deref().unwrap().ends_with('Z'));
        let last: Value = serde_json::from_str(LAST).unwrap();
        assert_eq!(parse_page(&last, &ctx(), 40).unwrap().next, None);
        assert_eq!(
            url(&ctx(), 20),
            "https://amp-api.podcasts.apple.com/v1/catalog/us/podcasts/1473872585/reviews?l=en-US&offset=20&limit=20"
        );
    }

    #[test]
    fn replies_map() {
        let body: Value = serde_json::from_str(PAGE_1).unwrap();
        let replied = body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| review(r, "us").unwrap())
            .find(|r| r.reply.is_some())
            .unwrap();
        let reply = replied.reply.unwrap();
        assert!(reply.date.is_some());
        assert!(reply.author.is_none());
    }

    #[test]
    fn next_offsets() {
        assert_eq!(
            next_offset("/v1/catalog/us/podcasts/1/reviews?l=en-US&offset=20"),
            Some(20)
        );
        assert_eq!(next_offset("/v1/x?offset=40&limit=20"), Some(40));
        assert_eq!(next_offset("/v1/x"), None);
        let odd = json!({"data": [{"id": "9", "attributes": {"rating": 4}}], "next": "/v1/x"});
        assert_eq!(
            parse_page(&odd, &ctx(), 20).unwrap().next,
            Some(Step::AmpApi { offset: 21 })
        );
        assert!(parse_page(&json!({"errors": []}), &ctx(), 0).is_err());
    }
}
