//! One review of the review API (`productReviewVOList[]`) as a review record.
//!
//! - text: what the site shows (`reviewContent`); when that is the site's
//!   machine translation of the buyer's own words (`oriReviewContent`
//!   differs), those words are the translation's original text;
//! - rating: the review's "product quality" score (the axis the product
//!   page averages), else its only axis; every axis is a sub-rating;
//! - date: `reviewTime` (`YYYY/MM/DD`); the supplier's reply is dated
//!   `MM-DD-YYYY`, in the supplier's own words (`oriReplyContent`, with the
//!   site's translation in `extra.reply_translated_text`);
//! - author: the buyer's name as the site masks it (`S***z`), the buyer's
//!   country (`country`, alpha-2), `purchased` as the site's verification;
//! - `extra.review_level`: `product` for a review of the product (it names
//!   the product and the variant bought), `supplier` for a review of the
//!   store as a whole.

use gleaner_sdk::review::{self as builder, ReviewBuilder};
use gleaner_sdk::types::Review;
use gleaner_sdk::{date, json};
use serde_json::{json, Map, Value};

use crate::product::{whole, Product};
use crate::query::Target;

/// Alibaba rates on 1–5 stars, every axis alike.
pub const SCALE: f64 = 5.0;

/// The axis that is the review's rating.
const RATING_AXIS: &str = "productQuality";

/// An id written as a number or as text.
fn id(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        other => json::string(other),
    }
}

/// Every axis score of a review: `latitudeScore` is one object in the
/// recorded answers; a list of them is read alike.
fn axes(r: &Value) -> Vec<(String, f64)> {
    let items: Vec<&Value> = match (&r["latitudeScore"], &r["latitudeScoreList"]) {
        (Value::Object(_), _) => vec![&r["latitudeScore"]],
        (Value::Array(list), _) | (_, Value::Array(list)) => list.iter().collect(),
        _ => Vec::new(),
    };
    items
        .into_iter()
        .filter_map(|a| {
            let kind = ["type", "latitudeType", "latitudeName"]
                .iter()
                .find_map(|k| json::string(&a[*k]))?;
            let score =
                crate::product::number(&a["score"]).filter(|s| (1.0..=SCALE).contains(s))?;
            Some((kind, score))
        })
        .collect()
}

/// The review's rating: the product-quality axis, else its only axis.
fn rating(axes: &[(String, f64)]) -> Option<f64> {
    axes.iter()
        .find(|(k, _)| k == RATING_AXIS)
        .or(match axes {
            [only] => Some(only),
            _ => None,
        })
        .map(|(_, s)| *s)
}

/// `[{key, value}]` attributes as an object (`{"color": "Black"}`).
fn attributes(list: &Value) -> Value {
    let map: Map<String, Value> = list
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|a| Some((json::string(&a["key"])?, json!(json::string(&a["value"])))))
        .collect();
    Value::Object(map)
}

/// The text the buyer wrote and, when the site shows another (a translation), that one.
fn original_and_shown(r: &Value, original: &str, shown: &str) -> (Option<String>, Option<String>) {
    let ori = json::string(&r[original]);
    let shown = json::string(&r[shown]);
    match ori {
        Some(o) => {
            let other = shown.filter(|s| *s != o);
            (Some(o), other)
        }
        None => (shown, None),
    }
}

/// An absolute https URL from the site's `//host/…` or `https://…` forms.
fn absolute(v: &Value) -> Option<String> {
    let s = json::string(v)?;
    match s.strip_prefix("//") {
        Some(rest) => Some(format!("https://{rest}")),
        None => s.starts_with("https://").then_some(s),
    }
}

/// The review's media: images, and videos (their cover in `extra.video_covers`).
fn media(r: &Value) -> (Vec<gleaner_sdk::types::Media>, Vec<String>) {
    let mut items = Vec::new();
    let mut covers = Vec::new();
    for m in r["mediaList"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        match m["type"].as_str() {
            Some("video") => {
                if let Some(url) = absolute(&m["videoUrl"]).or_else(|| absolute(&m["url"])) {
                    items.push(builder::video(id(&m["videoId"]), url));
                    covers.extend(absolute(&m["coverUrl"]));
                }
            }
            _ => items.extend(absolute(&m["url"]).map(builder::image)),
        }
    }
    (items, covers)
}

/// Maps one review; `product` names the supplier who replies.
pub fn map(r: &Value, target: &Target, product: &Product) -> Result<Review, String> {
    let review_id = id(&r["reviewId"]).ok_or("a review has no reviewId")?;
    let user = &r["simpleReviewUserVO"];
    let axes = axes(r);
    let (original, translated) = original_and_shown(r, "oriReviewContent", "reviewContent");
    let (reply, reply_translated) = original_and_shown(r, "oriReplyContent", "replyContent");
    let name = json::string(&user["anonymousName"]);
    let (items, covers) = media(r);
    let info = &r["productInfo"];
    let is_product = info.is_object() || whole(&r["productId"]).is_some_and(|p| p > 0);
    let bought: Vec<Value> = r["productList"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|p| json!({"quantity": whole(&p["quantity"]), "attributes": attributes(&p["attributes"])}))
        .collect();
    let extra = json!({
        "review_level": if is_product { "product" } else { "supplier" },
        "buyer_level": json::string(&user["buyerLevel"]),
        "reply_translated_text": reply_translated,
        "date_text": json::string(&r["reviewTimeFormat"]),
        "product_id": whole(&r["productId"]).or_else(|| whole(&info["id"])),
        "variant": attributes(&info["attributes"]),
        "order_items": bought,
        "video_covers": covers,
    });
    let review_url = absolute(&r["action"]).unwrap_or_else(|| target.url.clone());
    let builder = items
        .into_iter()
        .fold(ReviewBuilder::new(review_id), ReviewBuilder::media);
    let builder = match translated {
        Some(shown) => builder
            .text_plain(Some(shown))
            .translation(true, original, None),
        None => builder.text_plain(original),
    };
    axes.iter()
        .fold(builder, |b, (kind, score)| {
            b.sub_rating(kind, *score, SCALE)
        })
        .rating(rating(&axes), SCALE)
        .date(
            json::string(&r["reviewTime"])
                .and_then(|d| date::parse(&d, None))
                .or_else(|| {
                    json::string(&r["reviewTimeFormat"]).and_then(|d| date::parse(&d, None))
                }),
        )
        .author_name(name.clone())
        .anonymous(name.is_some_and(|n| n.contains('*')))
        .author_country(
            json::string(&user["country"]).or_else(|| json::string(&user["fullNameCountry"])),
        )
        .verified(user["purchased"].as_bool())
        .review_url(Some(review_url))
        .reply(
            reply,
            json::string(&r["replyTime"]).and_then(|d| date::parse(&d, None)),
            product.supplier.clone(),
        )
        .helpful_votes(r["rateCnt"].as_i64())
        .extra(extra)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_the_site_s_forms() {
        assert_eq!(
            date::parse("2026/07/01", None).as_deref(),
            Some("2026-07-01")
        );
        assert_eq!(
            date::parse("08-03-2026", None).as_deref(),
            Some("2026-08-03")
        );
        assert_eq!(
            date::parse("2026-07-01", None).as_deref(),
            Some("2026-07-01")
        );
        assert_eq!(
            date::parse("July 1, 2026", None).as_deref(),
            Some("2026-07-01")
        );
        assert_eq!(date::parse("2026/13/01", None), None);
        assert_eq!(date::parse("soon", None), None);
    }

    #[test]
    fn axes_and_the_rating() {
        let one = json!({"latitudeScore": {"latitudeName": "productQuality", "score": 5, "type": "productQuality"}});
        let a = axes(&one);
        assert_eq!(rating(&a), Some(5.0));
        assert_eq!(a, [("productQuality".to_owned(), 5.0)]);
        let store = json!({"latitudeScore": [
            {"type": "supplierServices", "score": 4},
            {"latitudeType": "shippingTime", "score": "3"},
            {"type": "packaging", "score": 5},
            {"type": "productQuality", "score": 0}
        ]});
        let a = axes(&store);
        assert_eq!(
            rating(&a),
            None,
            "no product-quality score and several axes"
        );
        assert_eq!(
            a,
            [
                ("supplierServices".to_owned(), 4.0),
                ("shippingTime".to_owned(), 3.0),
                ("packaging".to_owned(), 5.0)
            ],
            "a score of 0 is no score"
        );
        let only = json!({"latitudeScoreList": [{"type": "supplierServices", "score": 4}]});
        assert_eq!(rating(&axes(&only)), Some(4.0));
        assert_eq!(rating(&axes(&json!({}))), None);
    }

    #[test]
    fn a_store_review_without_product_is_supplier_level() {
        let target = crate::query::parse("1601302079515").unwrap();
        let r = json!({
            "reviewId": "77", "reviewContent": "Fast answers", "reviewTime": "2025/01/02",
            "latitudeScore": [{"type": "supplierServices", "score": 5}, {"type": "shippingTime", "score": 4}],
            "simpleReviewUserVO": {"anonymousName": "A***b", "country": "DE", "fullNameCountry": "Germany"},
            "mediaList": [{"type": "video", "videoId": 9, "videoUrl": "//play.example/9.mp4", "coverUrl": "https://img.example/9.jpg"}]
        });
        let review = map(&r, &target, &Product::default()).unwrap();
        let extra: Value = serde_json::from_str(&review.extra_json).unwrap();
        assert_eq!(extra["review_level"], "supplier");
        let service = &review.sub_ratings[0];
        assert_eq!(
            (service.name.as_str(), service.rating, service.scale_max),
            ("supplierServices", 5.0, 5.0)
        );
        assert_eq!(review.sub_ratings.len(), 2);
        assert_eq!(extra["video_covers"], json!(["https://img.example/9.jpg"]));
        assert_eq!(review.rating, None);
        assert_eq!(review.author_country.as_deref(), Some("DE"));
        assert!(review.anonymous, "the site masks the name");
        assert_eq!(review.verified, None, "no `purchased`");
        assert!(review.translation.is_none());
        assert_eq!(review.date.as_deref(), Some("2025-01-02"));
        assert_eq!(review.media[0].url, "https://play.example/9.mp4");
        assert_eq!(review.media[0].id.as_deref(), Some("9"));
        assert_eq!(review.review_url.as_deref(), Some(target.url.as_str()));
        assert!(map(&json!({}), &target, &Product::default()).is_err());
    }

    #[test]
    fn a_machine_translation_shows_with_the_buyer_s_words_as_original() {
        let target = crate::query::parse("1601302079515").unwrap();
        let r = json!({
            "reviewId": 78, "reviewContent": "Very good", "oriReviewContent": "Muito bom",
            "simpleReviewUserVO": {"anonymousName": "P***a", "country": "BR", "purchased": false}
        });
        let review = map(&r, &target, &Product::default()).unwrap();
        assert!(matches!(&review.text, Some(gleaner_sdk::Text::Plain(t)) if t == "Very good"));
        let translation = review.translation.unwrap();
        assert!(translation.is_machine_translated);
        assert_eq!(translation.original_text.as_deref(), Some("Muito bom"));
        assert_eq!(translation.original_language, None);
        assert_eq!(review.verified, Some(false));
        let extra: Value = serde_json::from_str(&review.extra_json).unwrap();
        assert_eq!(extra.get("translated_text"), None);
    }
}
