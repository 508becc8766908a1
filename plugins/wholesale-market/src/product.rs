//! The product page, visited once at the start of a fetch, as a browser
//! would before the page's review calls: the host keeps the cookies it sets
//! for the fetch's session, and its `window.detailData` names the product,
//! its review summary and its supplier (whose company id the review API may
//! want, and whose name signs the replies).
//!
//! A visit that fails or is refused is no error: the reviews come from the
//! review API, which is tried anyway. Only a product the site does not have
//! ends the fetch (404).

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::{botwall, embedded, json, log, FetchError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{clock, mtop, query::Target};

/// What the product page says about the product and its supplier.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Product {
    /// The product's title.
    #[serde(rename = "n", default)]
    pub name: Option<String>,
    /// Its average review rating, 1–5.
    #[serde(rename = "r", default)]
    pub rating: Option<f64>,
    /// Its review count.
    #[serde(rename = "t", default)]
    pub total: Option<u64>,
    /// The supplier's company id.
    #[serde(rename = "c", default)]
    pub company_id: Option<u64>,
    /// The supplier's company name.
    #[serde(rename = "s", default)]
    pub supplier: Option<String>,
    /// The supplier's store rating, 1–5.
    #[serde(rename = "sr", default)]
    pub supplier_rating: Option<f64>,
}

/// A number, or a number written as text (`"4.8"`).
pub fn number(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

/// A whole number, or one written as text.
pub fn whole(v: &Value) -> Option<u64> {
    v.as_u64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

impl Product {
    /// Reads `window.detailData`; none when the page has no product (the site's
    /// "Product Not Available" page keeps the blob but drops the product id).
    pub fn from_detail_data(data: &Value) -> Option<Product> {
        let global = &data["globalData"];
        whole(&global["product"]["productId"])?;
        let review = &global["review"]["productReview"];
        let seller = &global["seller"];
        Some(Product {
            name: json::string(&global["product"]["subject"]),
            rating: number(&review["averageStar"]).filter(|r| *r > 0.0),
            total: whole(&review["totalReviewCount"]),
            company_id: whole(&seller["companyId"]),
            supplier: json::string(&seller["companyName"]),
            supplier_rating: number(&seller["supplierRatingReviews"]["averageStar"])
                .filter(|r| *r > 0.0),
        })
    }
}

/// Visits the product page. Returns what it says of the product (nothing when
/// the visit failed or was refused) and the site's time of the answer.
pub fn visit(target: &Target) -> Result<(Product, Option<u64>), FetchError> {
    let response = match http::prime(&target.url) {
        Ok(r) => r,
        Err(e) => {
            log::warn(&format!(
                "the product page {} could not be visited ({e:?}); going on without it",
                target.url
            ));
            return Ok((Product::default(), None));
        }
    };
    let time = clock::of(&response);
    read(&response, target).map(|product| (product, time))
}

/// Reads the product page's answer.
pub fn read(response: &Response, target: &Target) -> Result<Product, FetchError> {
    let walled = botwall::detect(response).is_some() || mtop::punished(&response.body);
    let missing = || {
        FetchError::NotFound(format!(
            "Alibaba.com has no product {} (its page {} answered {}); check the URL or id",
            target.id,
            response.final_url,
            if response.is_success() {
                "\"Product Not Available\"".to_owned()
            } else {
                format!("HTTP {}", response.status)
            }
        ))
    };
    if !walled && (matches!(response.status, 404 | 410) || is_error_page(&response.final_url)) {
        return Err(missing());
    }
    if walled || !response.is_success() {
        log::info(&format!(
            "the product page answered {}; going on with the review API alone",
            botwall::seen(response)
        ));
        return Ok(Product::default());
    }
    let html = response.text();
    if html.contains("<title>Product Not Available</title>") {
        return Err(missing());
    }
    match embedded::assigned_json(&html, "window.detailData") {
        Some(data) => Product::from_detail_data(&data).ok_or_else(missing),
        None => {
            log::warn("the product page carries no window.detailData; going on without the product's summary");
            Ok(Product::default())
        }
    }
}

/// Whether the site redirected to its error host (how it answers some unknown products).
fn is_error_page(url: &str) -> bool {
    url.starts_with("https://error.alibaba.com") || url.starts_with("http://error.alibaba.com")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page(status: u16, url: &str, body: &str) -> Response {
        gleaner_sdk::testing::response(status, url, body).with_wall(None)
    }

    fn target() -> Target {
        crate::query::parse("1601302079515").unwrap()
    }

    #[test]
    fn reads_the_detail_data() {
        let data = json!({"globalData": {
            "product": {"productId": 1601302079515u64, "subject": " TG117 Speaker "},
            "review": {"productReview": {"averageStar": 4.8, "latitudeType": "productQuality", "totalReviewCount": 26}},
            "seller": {"companyId": 230860282, "companyName": "Shenzhen Ept Electronic Technology Co., Ltd.",
                       "supplierRatingReviews": {"averageStar": "4.8"}}
        }});
        let p = Product::from_detail_data(&data).unwrap();
        assert_eq!(p.name.as_deref(), Some("TG117 Speaker"));
        assert_eq!((p.rating, p.total), (Some(4.8), Some(26)));
        assert_eq!(p.company_id, Some(230860282));
        assert_eq!(p.supplier_rating, Some(4.8));
        assert_eq!(Product::from_detail_data(&json!({"globalData": {}})), None);
    }

    #[test]
    fn a_missing_product_is_404() {
        let t = target();
        let e = read(&page(404, &t.url, ""), &t).unwrap_err();
        assert!(
            matches!(e, FetchError::NotFound(ref m) if m.contains("HTTP 404")),
            "{e:?}"
        );
        let gone = page(
            200,
            &t.url,
            "<html><title>Product Not Available</title></html>",
        );
        assert!(matches!(read(&gone, &t), Err(FetchError::NotFound(_))));
        let error = page(
            200,
            "https://error.alibaba.com/error404.htm",
            "<html></html>",
        );
        assert!(matches!(read(&error, &t), Err(FetchError::NotFound(_))));
        // A refused visit logs through the host and goes on; the replay cases
        // cover it (a 503 page, a punish page).
    }
}
