//! The official Envato API, used only when the operator configured a personal
//! token (`api_token`): the item's name, marketplace, URL, rating, rating count
//! and sales, `GET https://api.envato.com/v3/market/catalog/item?id=<id>` with
//! the token as Bearer. It carries no review text, so the reviews always come
//! from the page. A refused token or an API failure is not fatal: the page's
//! own metadata is used and the answer carries a notice.

use gleaner_sdk::json::string;
use gleaner_sdk::{botwall, http, FetchError};
use serde_json::Value;

use crate::{endpoints, query};

/// The environment variable operators set the token with.
pub const TOKEN_ENV: &str = "GLEANER_PLUGIN_THEME_MARKET_API_TOKEN";

/// Item metadata from the API.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ItemInfo {
    /// Item name.
    pub name: Option<String>,
    /// The marketplace host (`codecanyon.net`).
    pub site: Option<String>,
    /// The item page URL.
    pub url: Option<String>,
    /// Average rating (1–5).
    pub rating: Option<f64>,
    /// Number of ratings.
    pub rating_count: Option<u64>,
    /// Number of sales.
    pub number_of_sales: Option<u64>,
    /// The item author's username.
    pub author: Option<String>,
}

/// What the API said about an item.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// The item's metadata.
    Found(ItemInfo),
    /// No metadata; the notice says why and what to do.
    Unavailable(String),
}

impl ItemInfo {
    /// Reads a `catalog/item` answer. `rating` is a number with `rating_count`
    /// beside it, or an object `{rating, count}`; both shapes are read.
    pub fn from_json(v: &Value) -> ItemInfo {
        ItemInfo {
            name: string(&v["name"]),
            site: string(&v["site"]).map(|s| s.to_ascii_lowercase()),
            url: string(&v["url"]),
            rating: v["rating"]
                .as_f64()
                .or_else(|| v["rating"]["rating"].as_f64()),
            rating_count: v["rating_count"]
                .as_u64()
                .or_else(|| v["rating"]["count"].as_u64()),
            number_of_sales: v["number_of_sales"].as_u64(),
            author: string(&v["author_username"]),
        }
    }

    /// The item's marketplace host and slug, from `url` (or `site` with the
    /// placeholder slug), when they name a marketplace item with this id.
    pub fn place(&self, id: &str) -> Option<(String, String)> {
        let from_url = self
            .url
            .as_deref()
            .and_then(|u| query::parse(u).ok())
            .filter(|t| t.id == id)
            .and_then(|t| {
                Some((
                    t.host?,
                    t.slug.unwrap_or_else(|| endpoints::PLACEHOLDER_SLUG.into()),
                ))
            });
        from_url.or_else(|| {
            let site = self.site.as_deref()?;
            query::MARKETS
                .contains(&site)
                .then(|| (site.to_owned(), endpoints::PLACEHOLDER_SLUG.to_owned()))
        })
    }
}

/// Asks the API about item `id` with `token`. Only "no such item" is an
/// error; anything else that keeps the metadata away is a notice.
pub fn lookup(id: &str, token: &str) -> Result<Lookup, FetchError> {
    let url = endpoints::api_item(id);
    let auth = format!("Bearer {token}");
    let headers = [
        ("accept", "application/json"),
        ("authorization", auth.as_str()),
    ];
    let response = match http::get(&url, &headers) {
        Ok(response) => response,
        Err(e) => {
            let why = format!("could not be read ({})", http::describe(&e));
            return Ok(Lookup::Unavailable(fallback(&why)));
        }
    };
    if let Some(wall) = botwall::detect(&response) {
        let why = format!("answered with {}", wall.phrase());
        return Ok(Lookup::Unavailable(fallback(&why)));
    }
    Ok(match response.status {
        200..=299 => match response.json::<Value>() {
            Ok(v) if v.is_object() => Lookup::Found(ItemInfo::from_json(&v)),
            _ => Lookup::Unavailable(fallback("did not answer with the item's JSON")),
        },
        404 | 410 => {
            return Err(FetchError::NotFound(format!(
                "Envato has no item {id}: the Envato API answered HTTP {} for {url}; check the item id or URL",
                response.status
            )))
        }
        401 | 403 => Lookup::Unavailable(format!(
            "the Envato API refused the configured api_token (HTTP {}), so the item's name, rating \
             and count were read from the page; set a valid Envato personal token in {TOKEN_ENV}, \
             or remove it",
            response.status
        )),
        status => Lookup::Unavailable(fallback(&format!("answered HTTP {status}"))),
    })
}

fn fallback(what: &str) -> String {
    format!("the Envato API {what}, so the item's name, rating and count were read from the page")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_both_rating_shapes() {
        let object = json!({"id": 21000000, "name": " Example ", "site": "CodeCanyon.net",
            "url": "https://codecanyon.net/item/example/21000000",
            "rating": {"rating": 4.02, "count": 12}, "number_of_sales": 1530, "author_username": "qboxus"});
        let info = ItemInfo::from_json(&object);
        assert_eq!(info.name.as_deref(), Some("Example"));
        assert_eq!(info.rating, Some(4.02));
        assert_eq!(info.rating_count, Some(12));
        assert_eq!(info.number_of_sales, Some(1530));
        assert_eq!(info.author.as_deref(), Some("qboxus"));
        assert_eq!(
            info.place("21000000"),
            Some(("codecanyon.net".into(), "example".into()))
        );
        let flat = json!({"rating": 4.5, "rating_count": 99, "site": "themeforest.net"});
        let info = ItemInfo::from_json(&flat);
        assert_eq!((info.rating, info.rating_count), (Some(4.5), Some(99)));
        assert_eq!(
            info.place("1"),
            Some(("themeforest.net".into(), "x".into()))
        );
        assert_eq!(
            ItemInfo::from_json(&json!({"site": "example.com"})).place("1"),
            None
        );
        let other_item =
            json!({"url": "https://codecanyon.net/item/example/5", "site": "codecanyon.net"});
        assert_eq!(
            ItemInfo::from_json(&other_item).place("6"),
            Some(("codecanyon.net".into(), "x".into()))
        );
    }
}
