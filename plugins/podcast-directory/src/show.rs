//! The show page: the show's name and rating (JSON-LD), and the web token the
//! web review API needs (a config meta tag on older pages, the JS bundle on newer ones).

use gleaner_sdk::embedded::json_ld;
use gleaner_sdk::html::{select, Html};
use gleaner_sdk::webpage::url::resolve;
use gleaner_sdk::{http, FetchError};
use percent_encoding::percent_decode_str;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{fill, number, refused, site};

/// What the show page says about the show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Info {
    /// The show page's address (after redirects).
    pub url: String,
    /// The show's name.
    pub name: Option<String>,
    /// Average rating (of 5).
    pub average: Option<f64>,
    /// Number of reviews, as the page counts them.
    pub total: Option<u64>,
    /// Number of ratings, where the page gives it apart.
    pub rating_count: Option<u64>,
}

impl Info {
    /// Nothing known but the canonical address.
    pub fn unknown(cc: &str, id: &str) -> Info {
        Info {
            url: show_url(cc, id),
            name: None,
            average: None,
            total: None,
            rating_count: None,
        }
    }
}

/// The show page as read on a fetch's first page.
pub struct Show {
    /// Its details.
    pub info: Info,
    /// The page, when it could be read.
    pub html: Option<String>,
    /// Why it could not be read.
    pub unavailable: Option<String>,
}

/// The show page's canonical address.
pub fn show_url(cc: &str, id: &str) -> String {
    fill(site::SHOW_PAGE, &[("cc", cc), ("id", id)])
}

/// Reads the show page. A 404 means the show is not in that storefront; any
/// other failure leaves the details unknown (the public feed still works).
pub fn fetch(cc: &str, id: &str) -> Result<Show, FetchError> {
    let url = show_url(cc, id);
    let failed = |why: String| Show {
        info: Info::unknown(cc, id),
        html: None,
        unavailable: Some(why),
    };
    let resp = match http::get_html(&url) {
        Ok(resp) => resp,
        Err(e) => return Ok(failed(http::describe(&e))),
    };
    if resp.is_success() {
        let html = resp.text().into_owned();
        let info = info_from(&html, resp.final_url.clone());
        return Ok(Show {
            info,
            html: Some(html),
            unavailable: None,
        });
    }
    match refused("the show page", &resp) {
        FetchError::NotFound(_) => Err(FetchError::NotFound(format!(
            "Apple Podcasts has no show id{id} in the \"{cc}\" storefront ({url} answered HTTP {}); \
check the id, or name the storefront where the show is listed with `country`",
            resp.status
        ))),
        other => Ok(failed(http::describe(&other))),
    }
}

/// The show's details from its page's JSON-LD (`PodcastSeries` with
/// `aggregateRating`), the name falling back to `og:title`.
pub fn info_from(html: &str, url: String) -> Info {
    let ld = json_ld(html);
    let show = ld.iter().find(|v| {
        let ty = &v["@type"];
        site::SHOW_TYPES
            .iter()
            .any(|t| ty == t || ty.as_array().is_some_and(|a| a.iter().any(|x| x == t)))
    });
    let name = show
        .and_then(|s| s["name"].as_str())
        .map(str::to_owned)
        .or_else(|| meta_content(html, site::OG_TITLE))
        .filter(|n| !n.trim().is_empty());
    let rating = show.map(|s| &s["aggregateRating"]).unwrap_or(&Value::Null);
    let count = |key: &str| number(&rating[key]).filter(|n| *n >= 0.0).map(|n| n as u64);
    Info {
        url,
        name,
        average: number(&rating["ratingValue"]),
        total: count("reviewCount"),
        rating_count: count("ratingCount"),
    }
}

fn meta_content(html: &str, css: &str) -> Option<String> {
    let doc = Html::parse_document(html);
    select(&doc, css)
        .ok()?
        .first()?
        .value()
        .attr("content")
        .map(str::to_owned)
}

/// The web token of a show page: the config meta tag, else the JS bundle
/// (fetched from the page's `<script src="/assets/index~<hash>.js">`).
pub fn token(html: &str, page_url: &str) -> Option<String> {
    if let Some(t) = meta_token(html) {
        return Some(t);
    }
    let src = bundle_src(html)?;
    let bundle_url = resolve(page_url, &src)?;
    let resp = http::get(&bundle_url, &[("accept", "*/*")]).ok()?;
    resp.is_success().then(|| jwt_in(&resp.text())).flatten()
}

/// The token inside the URL-encoded JSON of the config meta tag.
pub fn meta_token(html: &str) -> Option<String> {
    let encoded = meta_content(html, site::TOKEN_META)?;
    let decoded = percent_decode_str(&encoded)
        .decode_utf8_lossy()
        .into_owned();
    match serde_json::from_str::<Value>(&decoded) {
        Ok(config) => find_token(&config),
        Err(_) => jwt_in(&decoded),
    }
    .filter(|t| !t.is_empty())
}

/// The first `token` string in a JSON value (`MEDIA_API.token` on Apple's pages).
fn find_token(v: &Value) -> Option<String> {
    match v {
        Value::Object(map) => map
            .get("token")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| map.values().find_map(find_token)),
        Value::Array(items) => items.iter().find_map(find_token),
        _ => None,
    }
}

/// The address of the page's main JS bundle.
pub fn bundle_src(html: &str) -> Option<String> {
    let doc = Html::parse_document(html);
    select(&doc, site::BUNDLE_SCRIPT)
        .ok()?
        .into_iter()
        .filter_map(|s| s.value().attr("src"))
        .find(|src| {
            let path = src.split(['?', '#']).next().unwrap_or_default();
            path.contains(site::BUNDLE_PATH) && path.ends_with(".js")
        })
        .map(str::to_owned)
}

/// The first JSON Web Token (`eyJ….….…`) in a text.
pub fn jwt_in(text: &str) -> Option<String> {
    let is_token_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let mut from = 0;
    while let Some(pos) = text[from..].find("eyJ") {
        let start = from + pos;
        let len = text[start..]
            .find(|c: char| !is_token_char(c))
            .unwrap_or(text.len() - start);
        let candidate = &text[start..start + len];
        let parts: Vec<&str> = candidate.split('.').collect();
        if parts.len() == 3 && parts.iter().all(|p| p.len() >= 8) {
            return Some(candidate.to_owned());
        }
        from = start + 3;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const META_PAGE: &str = include_str!("../tests/samples/show-page-meta-token.html");
    const BUNDLE_PAGE: &str = include_str!("../tests/samples/show-page-bundle.html");
    const BUNDLE: &str = include_str!("../tests/samples/index-bundle.js");

    #[test]
    fn the_meta_tag_token() {
        let t = meta_token(META_PAGE).unwrap();
        assert!(t.starts_with("eyJ") && t.split('.').count() == 3, "{t}");
        assert_eq!(meta_token(BUNDLE_PAGE), None);
    }

    #[test]
    fn the_bundle_token() {
        assert_eq!(
            bundle_src(BUNDLE_PAGE).as_deref(),
            Some("/assets/index~5f2d8c1a9b.js")
        );
        let t = jwt_in(BUNDLE).unwrap();
        assert!(t.starts_with("eyJ") && t.split('.').count() == 3, "{t}");
        assert_eq!(jwt_in("eyJhbGciOi only one part"), None);
        assert_eq!(jwt_in("no token here"), None);
    }

    #[test]
    fn details_from_json_ld() {
        let info = info_from(
            META_PAGE,
            "https://podcasts.apple.com/us/podcast/x/id1".into(),
        );
        assert_eq!(info.name.as_deref(), Some("Night Shift Radio"));
        assert_eq!(info.average, Some(4.6));
        assert_eq!(info.total, Some(1280));
        let none = info_from(
            "<html><head><meta property=\"og:title\" content=\"Shown\"></head></html>",
            "u".into(),
        );
        assert_eq!(none.name.as_deref(), Some("Shown"));
        assert_eq!(none.average, None);
    }
}
