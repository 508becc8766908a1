//! wholesale-market: Alibaba.com product reviews.
//!
//! A fetch's first page visits the product page ([`product`]): the host keeps
//! the cookies it sets in the fetch's session, and its `window.detailData`
//! gives the product's name, rating, review count and supplier. The reviews
//! come from the review API of Alibaba's mtop gateway
//! (`mtop.alibaba.icbu.review.media.review`, [`mtop`]), page by page,
//! [`endpoints::PAGE_SIZE`] a page, as signed calls whose token cookie the
//! gateway itself sets. The API offers no sort or filter, and its pages are
//! not in date order. Where it refuses the product alone, the call is
//! repeated with the supplier's company id, and the cursor keeps that choice.

mod clock;
mod mtop;
mod product;
mod query;
mod review;

use gleaner_sdk::types::Review;
use gleaner_sdk::{cursor, log, FetchError, Order, Page, PageRequest, SourceMeta};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

pub use product::Product;
pub use query::Target;

gleaner_sdk::export_source!(|req: PageRequest| fetch_page(&req));

/// Every URL and limit the plugin uses, in one place.
pub mod endpoints {
    /// The site; product pages live here.
    pub const SITE: &str = "https://www.alibaba.com";
    /// The mtop gateway.
    pub const MTOP: &str = "https://acs.h.alibaba.com";
    /// The review API.
    pub const REVIEWS_API: &str = "mtop.alibaba.icbu.review.media.review";
    /// The app key of Alibaba.com's web pages on the gateway.
    pub const APP_KEY: &str = "12574478";
    /// Reviews asked for per page (the page's own size; the API takes up to 50).
    pub const PAGE_SIZE: u32 = 10;

    /// The review API's `data` for one page (1-based), as compact JSON in the
    /// page script's key order (the signature covers the exact text).
    pub fn reviews_data(product_id: u64, page: u32, company_id: Option<u64>) -> String {
        let company = company_id.map_or_else(String::new, |c| format!(",\"companyId\":{c}"));
        format!("{{\"productId\":{product_id},\"currentPage\":{page},\"pageSize\":{PAGE_SIZE}{company}}}")
    }
}

/// The plugin's cursor. It ends up in a token the client can read, so it holds
/// no cookie (the host keeps the gateway's token cookie in the fetch's session).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Cursor {
    /// The page to read (1-based).
    #[serde(rename = "p")]
    pub page: u32,
    /// Reviews the API served before this page.
    #[serde(rename = "s", default)]
    pub served: u64,
    /// The site's time of its latest answer (Unix ms), for the next signature.
    #[serde(rename = "c", default)]
    pub clock: Option<u64>,
    /// Whether calls name the supplier's company id (after a refusal without it).
    #[serde(rename = "k", default, skip_serializing_if = "std::ops::Not::not")]
    pub with_company: bool,
    /// What the product page said.
    #[serde(rename = "m", default)]
    pub product: Product,
}

/// One page of the review API as the plugin read it.
struct Listing {
    reviews: Vec<Review>,
    /// The count the API gives with each page.
    total: Option<u64>,
    /// How many reviews the page held (mapped or not).
    served: u64,
    /// The name of the product, as the reviews give it.
    name: Option<String>,
    /// The product's canonical page, as the reviews give it.
    url: Option<String>,
}

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let target = query::parse(&req.query).map_err(FetchError::BadQuery)?;
    let mut cursor = match req.cursor_state::<Cursor>()? {
        Some(c) if c.page >= 1 => c,
        Some(_) => {
            return Err(FetchError::BadCursor(
                "the continuation names no page".into(),
            ))
        }
        None => {
            let (product, clock) = product::visit(&target)?;
            Cursor {
                page: 1,
                clock,
                product,
                ..Cursor::default()
            }
        }
    };
    let data = call(&target, &mut cursor)?;
    let listing = read(&data, &target, &cursor.product)?;
    page(&target, cursor, listing)
}

/// The review API's answer for the cursor's page; a refusal of the product
/// alone is retried once with the supplier's company id.
fn call(target: &Target, cursor: &mut Cursor) -> Result<Value, FetchError> {
    loop {
        let company = cursor.product.company_id.filter(|_| cursor.with_company);
        let data = endpoints::reviews_data(target.id, cursor.page, company);
        match mtop::call(endpoints::REVIEWS_API, &data, &target.url, &mut cursor.clock)? {
            mtop::Answer::Data(v) => return Ok(v),
            mtop::Answer::Params(ret) if !cursor.with_company && cursor.product.company_id.is_some() => {
                log::info(&format!(
                    "the review API refused the product alone ({ret}); asking again with the supplier's company id"
                ));
                cursor.with_company = true;
            }
            mtop::Answer::Params(ret) | mtop::Answer::Renew(ret) => {
                return Err(FetchError::Upstream(format!(
                    "Alibaba.com's review API refused the request for product {} ({ret}); the API may have changed and the plugin needs an update",
                    target.id
                )))
            }
        }
    }
}

/// Reads the `data` of a successful answer.
fn read(data: &Value, target: &Target, product: &Product) -> Result<Listing, FetchError> {
    let layout = |what: &str| {
        FetchError::Upstream(format!(
            "Alibaba.com's review API answered without {what}: its layout changed and the plugin needs an update"
        ))
    };
    let t = &data["target"];
    if !t.is_object() {
        return Err(layout("`data.target`"));
    }
    let total = product::whole(&t["totalReviewCount"]);
    let items = match &t["productReviewVOList"] {
        Value::Array(list) => list.as_slice(),
        Value::Null if total == Some(0) => &[],
        _ => return Err(layout("its review list `productReviewVOList`")),
    };
    let reviews = items
        .iter()
        .filter_map(|r| {
            review::map(r, target, product)
                .map_err(|e| log::warn(&format!("a review was left out: {e}")))
                .ok()
        })
        .collect();
    let info = items
        .iter()
        .map(|r| &r["productInfo"])
        .find(|i| i.is_object());
    Ok(Listing {
        reviews,
        total,
        served: items.len() as u64,
        name: info.and_then(|i| gleaner_sdk::json::string(&i["title"])),
        url: info
            .and_then(|i| gleaner_sdk::json::string(&i["pcProductUrl"]))
            .and_then(|u| u.strip_prefix("//").map(|r| format!("https://{r}"))),
    })
}

/// The page: its reviews, the next cursor and the metadata.
fn page(target: &Target, cursor: Cursor, listing: Listing) -> Result<Page, FetchError> {
    let total = listing.total.or(cursor.product.total);
    let served = cursor.served + listing.served;
    let more = listing.served > 0
        && total.map_or(listing.served >= u64::from(endpoints::PAGE_SIZE), |t| {
            u64::from(cursor.page) * u64::from(endpoints::PAGE_SIZE) < t
        });
    let mut reserved = Map::new();
    if !more {
        match total {
            Some(t) if served < t => {
                let limit = format!(
                    "Alibaba.com's review API served {served} of the {t} reviews the product counts and no further"
                );
                reserved.insert("source_limit".into(), json!(limit));
            }
            _ if served == 0 => {
                let notice = "Alibaba.com lists no reviews for this product";
                reserved.insert("notice".into(), json!(notice));
            }
            _ => {}
        }
    }
    let next_cursor = more.then(|| {
        cursor::encode(&Cursor {
            page: cursor.page + 1,
            served,
            ..cursor.clone()
        })
    });
    let meta = meta(target, &cursor, &listing, total, reserved);
    Ok(Page {
        ahead: Vec::new(),
        reviews: listing.reviews,
        next_cursor,
        order: Order::Unordered,
        meta,
    })
}

/// The page's metadata: the product, its supplier and any reserved keys.
fn meta(
    target: &Target,
    cursor: &Cursor,
    listing: &Listing,
    total: Option<u64>,
    reserved: Map<String, Value>,
) -> SourceMeta {
    let product = &cursor.product;
    let mut extra = json!({
        "product_id": target.id,
        "company_id": product.company_id,
        "supplier": product.supplier,
        "supplier_rating": product.supplier_rating,
        "with_company_id": cursor.with_company,
        "page_size": endpoints::PAGE_SIZE,
        "rating_scale_max": review::SCALE,
    });
    if let Some(map) = extra.as_object_mut() {
        map.extend(reserved);
    }
    SourceMeta {
        resolved_url: Some(listing.url.clone().unwrap_or_else(|| target.url.clone())),
        name: product.name.clone().or_else(|| listing.name.clone()),
        average_rating: product.rating,
        total_reviews: total,
        extra_json: extra.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_review_call_s_data() {
        assert_eq!(
            endpoints::reviews_data(1601302079515, 1, None),
            r#"{"productId":1601302079515,"currentPage":1,"pageSize":10}"#
        );
        assert_eq!(
            endpoints::reviews_data(1601302079515, 3, Some(230860282)),
            r#"{"productId":1601302079515,"currentPage":3,"pageSize":10,"companyId":230860282}"#
        );
    }

    #[test]
    fn the_cursor_holds_no_cookie() {
        let c = Cursor {
            page: 2,
            served: 5,
            clock: Some(1_789_388_495_000),
            with_company: false,
            product: Product {
                company_id: Some(230860282),
                ..Product::default()
            },
        };
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(
            text,
            r#"{"p":2,"s":5,"c":1789388495000,"m":{"n":null,"r":null,"t":null,"c":230860282,"s":null,"sr":null}}"#
        );
        let back: Cursor = cursor::decode(&cursor::encode(&c)).unwrap();
        assert_eq!((back.page, back.served, back.with_company), (2, 5, false));
    }
}
