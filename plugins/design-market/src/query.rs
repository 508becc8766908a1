//! The `query`: a Creative Market product page URL in any form a user pastes.
//!
//! A product page is `https://creativemarket.com/{shop}/{product id}-{Product-Name}`.
//! Accepted around it: `http://` or no scheme, the `www.` and `m.` hosts and
//! language hosts (`de.creativemarket.com`) or a language path prefix
//! (`/de/{shop}/…`), any query string (tracking parameters such as `utm_*` or
//! the affiliate `u=`), a fragment, a trailing slash, and the id without its
//! name slug (`/{shop}/{product id}`). The page requested is always the
//! canonical `https://creativemarket.com/{shop}/{id}[-{slug}]`.

use gleaner_sdk::address::Site;

/// The site's canonical origin.
pub const ORIGIN: &str = "https://creativemarket.com";

/// Creative Market's hosts (a product page is on those [`is_site_host`]
/// names), and what a valid query looks like.
const SITE: Site = Site {
    name: "a Creative Market address",
    hosts: &["*.creativemarket.com"],
    forms: "use a Creative Market product page URL such as \
https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family, that is \
https://creativemarket.com/<shop>/<product id>-<product name>",
};

/// First path segments that are site sections, never shops.
const SECTIONS: &[&str] = &[
    "about",
    "account",
    "api",
    "blog",
    "cart",
    "checkout",
    "collections",
    "free-goods",
    "help",
    "legal",
    "licenses",
    "search",
    "sell",
    "users",
];

/// A product to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Product {
    /// The shop's slug, as written in the URL (e.g. `NorthwindType`).
    pub shop: String,
    /// The numeric product id, e.g. `4821337`.
    pub id: String,
    /// The canonical path, `/{shop}/{id}[-{slug}]`.
    pub path: String,
}

impl Product {
    /// The canonical product page URL.
    pub fn url(&self) -> String {
        format!("{ORIGIN}{}", self.path)
    }

    /// The shop's page.
    pub fn shop_url(&self) -> String {
        format!("{ORIGIN}/{}", self.shop)
    }

    /// Whether a URL path is this product's page (the id, with or without a slug).
    pub fn owns_path(&self, path: &str) -> bool {
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        match segments.as_slice() {
            [_, item] => product_id(item) == Some(self.id.as_str()),
            _ => false,
        }
    }
}

/// Whether `host` is Creative Market's (its canonical, www, mobile or a language host).
pub fn is_site_host(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    match host.strip_suffix(".creativemarket.com") {
        None => host == "creativemarket.com",
        Some(sub) => sub == "www" || sub == "m" || is_language(sub),
    }
}

/// `de`, `pt-br`, `zh_CN`: a language code as localized hosts and paths use them.
fn is_language(s: &str) -> bool {
    let (lang, region) = s.split_once(['-', '_']).unwrap_or((s, ""));
    lang.len() == 2
        && lang.bytes().all(|b| b.is_ascii_alphabetic())
        && (region.is_empty()
            || (region.len() == 2 && region.bytes().all(|b| b.is_ascii_alphabetic())))
}

/// The product id at the start of a path segment: `4821337-Alder-Serif-Family` → `4821337`.
fn product_id(segment: &str) -> Option<&str> {
    let digits = segment.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &segment[digits..];
    ((1..=12).contains(&digits) && (rest.is_empty() || rest.starts_with('-')))
        .then(|| &segment[..digits])
}

fn is_shop(segment: &str) -> bool {
    !segment.is_empty()
        && segment.len() <= 64
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && !SECTIONS.contains(&segment.to_ascii_lowercase().as_str())
}

/// Reads a query into the product it names, or says what a valid query looks like.
pub fn parse(query: &str) -> Result<Product, String> {
    let q = query.trim();
    let address = SITE.read(q)?;
    if !is_site_host(&address.host) {
        return Err(SITE.refuse(q, "is not a Creative Market product page"));
    }
    let mut segments = address.segments();
    if segments.len() == 3 && is_language(segments[0]) {
        segments.remove(0);
    }
    match segments.as_slice() {
        [shop, item] if is_shop(shop) && product_id(item).is_some() => Ok(Product {
            shop: (*shop).to_owned(),
            id: product_id(item).unwrap_or_default().to_owned(),
            path: format!("/{shop}/{item}"),
        }),
        _ => Err(SITE.refuse(
            q,
            "is not a Creative Market product page (its path is not /<shop>/<product id>-<name>)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANONICAL: &str = "https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family";

    #[test]
    fn reads_every_url_form() {
        for q in [
            CANONICAL,
            " https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family/ ",
            "http://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family",
            "creativemarket.com/NorthwindType/4821337-Alder-Serif-Family",
            "//creativemarket.com/NorthwindType/4821337-Alder-Serif-Family",
            "https://www.creativemarket.com/NorthwindType/4821337-Alder-Serif-Family?u=NorthwindType",
            "https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family?utm_source=pinterest&utm_medium=social#reviews",
            "https://m.creativemarket.com/NorthwindType/4821337-Alder-Serif-Family",
            "https://de.creativemarket.com/NorthwindType/4821337-Alder-Serif-Family",
            "https://creativemarket.com/pt-br/NorthwindType/4821337-Alder-Serif-Family",
            "HTTPS://CREATIVEMARKET.COM/NorthwindType/4821337-Alder-Serif-Family",
            "https://creativemarket.com./NorthwindType/4821337-Alder-Serif-Family",
        ] {
            let p = parse(q).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert_eq!(p.url(), CANONICAL, "{q}");
            assert_eq!(p.id, "4821337");
            assert_eq!(p.shop, "NorthwindType");
        }
        let bare = parse("https://creativemarket.com/NorthwindType/4821337").unwrap();
        assert_eq!(
            bare.url(),
            "https://creativemarket.com/NorthwindType/4821337"
        );
        assert_eq!(bare.shop_url(), "https://creativemarket.com/NorthwindType");
    }

    #[test]
    fn refuses_other_sites_and_pages_saying_what_is_valid() {
        for q in [
            "https://www.etsy.com/listing/4821337/alder-serif",
            "https://creativemarket.com.evil.example/NorthwindType/4821337-Alder",
            "https://notcreativemarket.com/NorthwindType/4821337-Alder",
            "https://creativemarket.com/NorthwindType",
            "https://creativemarket.com/fonts/serif",
            "https://creativemarket.com/users/annalee",
            "https://creativemarket.com/blog/2019/05-trends",
            "https://creativemarket.com/search?q=serif",
            "https://creativemarket.com/NorthwindType/4821337x",
            "https://creativemarket.com/NorthwindType/4821337-Alder/reviews",
            "https://support.creativemarket.com/hc/en-us/articles/360020269273-Product-Reviews",
            "https://images.creativemarket.com/0.1.0/ps/4821337/x.jpg",
            "4821337",
            "",
            "not a url at all",
        ] {
            let e = parse(q).unwrap_err();
            assert!(
                e.contains("https://creativemarket.com/<shop>/<product id>-<product name>"),
                "{q}: {e}"
            );
        }
    }

    #[test]
    fn knows_its_own_pages() {
        let p = parse(CANONICAL).unwrap();
        assert!(p.owns_path("/NorthwindType/4821337-Alder-Serif-Family"));
        assert!(p.owns_path("/NorthwindType/4821337"));
        assert!(!p.owns_path("/NorthwindType"));
        assert!(!p.owns_path("/NorthwindType/4821338-Other"));
        assert!(is_site_host("WWW.creativemarket.com"));
        assert!(!is_site_host("images.creativemarket.com"));
    }

    #[test]
    fn the_manifest_agrees_with_the_site() {
        SITE.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
