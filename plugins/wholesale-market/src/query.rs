//! The `query`: an Alibaba.com product in any form a user pastes.
//!
//! - the product-detail page, `https://www.alibaba.com/product-detail/<Slug>_<id>.html`,
//!   with or without scheme, tracking parameters, fragment or trailing slash;
//! - its language mirrors, `https://<language>.alibaba.com/product-detail/<Slug>-<id>.html`
//!   (spanish, german, french, japanese …), where the id follows a hyphen;
//! - the mobile page, `https://m.alibaba.com/product/<id>/<Slug>.html`;
//! - the review list a review links to, `https://fb.alibaba.com/wap/review/list?productId=<id>…`;
//! - the app link `enalibaba://detail?id=<id>`;
//! - or the bare numeric product id.

use gleaner_sdk::address::{Address, Site};

/// Alibaba.com (any host of alibaba.com) and what a valid query looks like.
const SITE: Site = Site {
    name: "an Alibaba.com address",
    hosts: &["*.alibaba.com"],
    forms: "use the URL of an Alibaba.com product page, such as \
https://www.alibaba.com/product-detail/TG117-High-Quality-Portable-Wireless-BT_1601302079515.html \
(a language mirror such as spanish.alibaba.com or the mobile m.alibaba.com/product/<id>/… works too), \
or the bare product id, such as 1601302079515",
};

/// Product ids are long numbers; shorter digit runs in a path are not ids.
const ID_DIGITS: std::ops::RangeInclusive<usize> = 6..=20;

/// A product to read.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// The product id.
    pub id: u64,
    /// The product page on www.alibaba.com: the slug the query gave, else none
    /// (`…/product-detail/_<id>.html`, which the site also serves).
    pub url: String,
}

/// A run of digits that can be a product id.
fn product_id(digits: &str) -> Option<u64> {
    let valid = ID_DIGITS.contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit());
    valid
        .then(|| digits.parse().ok())
        .flatten()
        .filter(|id| *id > 0)
}

/// `<Slug>_<id>.html` or `<Slug>-<id>.html` → (slug, id).
fn detail_file(segment: &str) -> Option<(String, u64)> {
    let stem = segment.strip_suffix(".html")?;
    let at = stem.rfind(['_', '-']).map_or(0, |i| i + 1);
    let id = product_id(&stem[at..])?;
    let slug = stem[..at].trim_end_matches(['_', '-']);
    Some((slug.to_owned(), id))
}

/// The id and slug in an alibaba.com URL's path or parameters.
fn from_address(address: &Address) -> Option<(String, u64)> {
    match address.segments().as_slice() {
        ["product-detail" | "p-detail", file, ..] => detail_file(file),
        ["product", id, rest @ ..] => {
            let slug = rest
                .first()
                .and_then(|f| f.strip_suffix(".html"))
                .unwrap_or_default();
            product_id(id).map(|id| (slug.to_owned(), id))
        }
        _ if address.host == "fb.alibaba.com" => address
            .param("productId")
            .and_then(|v| product_id(&v))
            .map(|id| (String::new(), id)),
        _ => None,
    }
}

/// Reads a query; the error says what a valid one looks like.
pub fn parse(query: &str) -> Result<Target, String> {
    let q = query.trim();
    if let Some(id) = product_id(q) {
        return Ok(target(String::new(), id));
    }
    if let Some(rest) = q.strip_prefix("enalibaba://detail?") {
        return url::form_urlencoded::parse(rest.as_bytes())
            .find(|(k, _)| k == "id")
            .and_then(|(_, v)| product_id(&v))
            .map(|id| target(String::new(), id))
            .ok_or_else(|| SITE.refuse(q, "is an app link without a product id"));
    }
    let address = SITE.read(q)?;
    if let Some((slug, id)) = from_address(&address) {
        return Ok(target(slug, id));
    }
    if address.host.ends_with(".en.alibaba.com") {
        return Err(SITE.refuse(
            q,
            "is a supplier's store, not a product: this endpoint reads the reviews of one product",
        ));
    }
    Err(SITE.refuse(
        q,
        "is not an Alibaba.com product page (its path has no product id)",
    ))
}

fn target(slug: String, id: u64) -> Target {
    Target {
        id,
        url: format!("{}/product-detail/{slug}_{id}.html", crate::endpoints::SITE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANONICAL: &str = "https://www.alibaba.com/product-detail/TG117-High-Quality-Portable-Wireless-BT_1601302079515.html";
    const BARE: &str = "https://www.alibaba.com/product-detail/_1601302079515.html";

    fn target(q: &str) -> Target {
        parse(q).unwrap_or_else(|e| panic!("{q}: {e}"))
    }

    #[test]
    fn reads_every_url_form_a_user_pastes() {
        for q in [
            CANONICAL,
            "https://www.alibaba.com/product-detail/TG117-High-Quality-Portable-Wireless-BT_1601302079515.html?spm=a2700.galleryofferlist.normal_offer.d_title.1a2b3c&s=p",
            "https://www.alibaba.com/product-detail/TG117-High-Quality-Portable-Wireless-BT_1601302079515.html#reviews",
            "https://www.alibaba.com/product-detail/TG117-High-Quality-Portable-Wireless-BT_1601302079515.html/",
            "http://www.alibaba.com/product-detail/TG117-High-Quality-Portable-Wireless-BT_1601302079515.html",
            "//www.alibaba.com/product-detail/TG117-High-Quality-Portable-Wireless-BT_1601302079515.html",
            "www.alibaba.com/product-detail/TG117-High-Quality-Portable-Wireless-BT_1601302079515.html",
            "  HTTPS://WWW.ALIBABA.COM/product-detail/TG117-High-Quality-Portable-Wireless-BT_1601302079515.html ",
            "https://spanish.alibaba.com/product-detail/TG117-High-Quality-Portable-Wireless-BT-1601302079515.html",
            "https://german.alibaba.com/product-detail/TG117-High-Quality-Portable-Wireless-BT-1601302079515.html?spm=x",
            "//japanese.alibaba.com/product-detail/TG117-High-Quality-Portable-Wireless-BT-1601302079515.html",
            "https://m.alibaba.com/product/1601302079515/TG117-High-Quality-Portable-Wireless-BT.html",
        ] {
            let t = target(q);
            assert_eq!(t.id, 1601302079515, "{q}");
            assert_eq!(t.url, CANONICAL, "{q}");
        }
    }

    #[test]
    fn ids_without_a_slug_read_the_bare_page() {
        for q in [
            "1601302079515",
            " 1601302079515 ",
            "https://www.alibaba.com/product-detail/_1601302079515.html",
            "https://www.alibaba.com/product-detail/1601302079515.html",
            "https://m.alibaba.com/product/1601302079515",
            "https://fb.alibaba.com/wap/review/list?productId=1601302079515&sellerAliId=2019775406&companyId=230860282&categoryId=&reviewIds=6000079561684&language=en",
            "enalibaba://detail?id=1601302079515",
        ] {
            let t = target(q);
            assert_eq!((t.id, t.url.as_str()), (1601302079515, BARE), "{q}");
        }
    }

    #[test]
    fn refuses_other_sites_and_pages_saying_what_is_valid() {
        for q in [
            "https://www.aliexpress.com/item/1005006.html",
            "https://www.alibaba.com.evil.example/product-detail/x_1601302079515.html",
            "https://notalibaba.com/product-detail/x_1601302079515.html",
            "https://www.alibaba.com/trade/search?SearchText=speaker",
            "https://www.alibaba.com/showroom/bluetooth-speaker.html",
            "https://www.alibaba.com/product-detail/x_12.html",
            "https://eptusbchina.en.alibaba.com/company_profile/feedback.html",
            "ftp://www.alibaba.com/product-detail/x_1601302079515.html",
            "enalibaba://detail?id=abc",
            "12345",
            "",
            "bluetooth speaker",
        ] {
            let e = parse(q).unwrap_err();
            assert!(
                e.contains("product-detail/TG117") && e.contains("bare product id"),
                "{q}: {e}"
            );
        }
        assert!(parse("https://www.aliexpress.com/item/1.html")
            .unwrap_err()
            .contains("not an Alibaba.com address"));
        assert!(parse("https://eptusbchina.en.alibaba.com/")
            .unwrap_err()
            .contains("supplier's store"));
        assert!(parse("https://www.alibaba.com/showroom/x.html")
            .unwrap_err()
            .contains("not an Alibaba.com product page"));
    }

    #[test]
    fn the_manifest_agrees_with_the_site() {
        SITE.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
