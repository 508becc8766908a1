//! The Hostelworld API's answers: property details, review listings, reviews.
//! Ratings stay on the site's 0–100 scale.

use std::collections::BTreeMap;

use gleaner_sdk::json::string;
use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::types::Review;
use gleaner_sdk::{date, rating, FetchError, SourceMeta};
use serde_json::{json, Value};

use crate::{endpoints, Target};

/// The top of Hostelworld's rating scale.
pub const SCALE: f64 = 100.0;

/// Property rating keys (`rating{…}` of the details) → the names used in `extra`.
const PROPERTY_RATINGS: [(&str, &str); 8] = [
    ("overall", "overall"),
    ("valueForMoney", "value_for_money"),
    ("security", "security"),
    ("location", "location"),
    ("staff", "staff"),
    ("atmosphere", "atmosphere"),
    ("cleanliness", "cleanliness"),
    ("facilities", "facilities"),
];

/// A review's sub-score keys (`rating{…}` of a review; they differ from the property's).
const REVIEW_SUB_RATINGS: [&str; 7] = [
    "value",
    "safety",
    "location",
    "staff",
    "atmosphere",
    "cleanliness",
    "facilities",
];

/// What the property details give, kept in the cursor so later pages need not
/// fetch them again.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Property {
    /// Numeric id.
    pub id: String,
    /// Name, e.g. `ClinkNOORD`.
    pub name: String,
    /// City name.
    pub city: Option<String>,
    /// Country name.
    pub country: Option<String>,
    /// `HOSTEL`, `HOTEL`, …
    pub kind: Option<String>,
    /// The property page: reviews link to it.
    pub url: Option<String>,
    /// Total ratings the site shows (`totalRatings`).
    pub total: Option<u64>,
    /// The rating breakdown, 0–100, keyed as in [`PROPERTY_RATINGS`].
    pub ratings: BTreeMap<String, f64>,
}

/// A count the API writes as a number or a numeric string.
fn count(v: &Value) -> Option<u64> {
    v.as_u64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

/// A rating on the 0–100 scale, or none.
fn score(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        .filter(|x| (0.0..=SCALE).contains(x))
}

impl Property {
    /// Reads `GET …/properties/{id}/?application=web`.
    pub fn from_details(v: &Value, target: &Target) -> Result<Property, FetchError> {
        let name = string(&v["name"]).ok_or_else(|| {
            FetchError::Upstream(format!(
                "the property details of {} have no name: the Hostelworld API changed and the plugin needs an update",
                target.id
            ))
        })?;
        let city = string(&v["city"]["name"]);
        let ratings = PROPERTY_RATINGS
            .iter()
            .filter_map(|(site, ours)| score(&v["rating"][site]).map(|x| ((*ours).to_owned(), x)))
            .collect();
        let url = match &city {
            Some(c) => Some(endpoints::property_page(&target.id, &name, c)),
            None => target.url.clone(),
        };
        Ok(Property {
            id: target.id.clone(),
            city,
            country: string(&v["city"]["country"]),
            kind: string(&v["type"]),
            url,
            total: count(&v["totalRatings"]),
            ratings,
            name,
        })
    }
}

/// One page of `GET …/properties/{id}/reviews/`.
#[derive(Debug, Clone)]
pub struct Listing {
    /// The raw review objects.
    pub reviews: Vec<Value>,
    /// `pagination.numberOfPages`.
    pub pages: Option<u64>,
    /// `pagination.next`, when it names a page.
    pub next: bool,
    /// `pagination.totalNumberOfItems`: reviews in this listing (window, language).
    pub items: Option<u64>,
    /// `reviewStatistics`, or null.
    pub statistics: Value,
}

impl Listing {
    /// Reads a listing; no `reviews` list means the API changed.
    pub fn parse(v: &Value) -> Result<Listing, FetchError> {
        let reviews = v["reviews"].as_array().ok_or_else(|| {
            FetchError::Upstream(
                "the review listing has no `reviews` list: the Hostelworld API changed and the plugin needs an update"
                    .into(),
            )
        })?;
        let pagination = &v["pagination"];
        Ok(Listing {
            reviews: reviews.clone(),
            pages: count(&pagination["numberOfPages"]),
            next: string(&pagination["next"]).is_some(),
            items: count(&pagination["totalNumberOfItems"]),
            statistics: v["reviewStatistics"].clone(),
        })
    }

    /// Whether a page follows page `page`: by `numberOfPages`, else by `next`.
    pub fn has_page_after(&self, page: u32) -> bool {
        match self.pages {
            Some(pages) => u64::from(page) < pages,
            None => self.next,
        }
    }
}

/// The avatar URL from `user.image{prefix,suffix}`; prefixes come without a scheme.
fn image_url(image: &Value) -> Option<String> {
    let prefix = string(&image["prefix"])?;
    let url = format!("{prefix}{}", image["suffix"].as_str().unwrap_or_default());
    Some(
        if url.starts_with("https://") || url.starts_with("http://") {
            url
        } else {
            format!("https://{}", url.trim_start_matches('/'))
        },
    )
}

/// Maps one `reviews[]` object. A review shown machine-translated keeps its
/// `languageCode`, the language it was written in, as the translation's
/// original language; its text is in the site language, which the API does
/// not label.
pub fn review(r: &Value, property: &Property) -> Result<Review, String> {
    let id = string(&r["id"])
        .or_else(|| r["id"].as_u64().map(|n| n.to_string()))
        .ok_or("a Hostelworld review has no id")?;
    let user = &r["user"];
    let group = &r["groupInformation"];
    let nationality = &user["nationality"];
    let language = string(&r["languageCode"]);
    let mut builder = ReviewBuilder::new(id)
        .text_plain(r["notes"].as_str().map(str::to_owned))
        .rating(score(&r["rating"]["overall"]), SCALE)
        .date(string(&r["date"]).and_then(|d| date::parse(&d, None)))
        .author_name(string(&user["nickname"]))
        .author_image(image_url(&user["image"]))
        .author_country(string(&nationality["code"]).or_else(|| string(&nationality["name"])))
        .review_url(property.url.clone())
        .reply(string(&r["ownerComment"]), None, None)
        .recommends(r["recommended"].as_bool());
    builder = if r["isMachineTranslated"].as_bool() == Some(true) {
        builder.translation(true, None, language)
    } else {
        builder.language(language)
    };
    for key in REVIEW_SUB_RATINGS {
        if let Some(x) = score(&r["rating"][key]) {
            builder = builder.sub_rating(key, x, SCALE);
        }
    }
    builder
        .extra(json!({
            "age_group": group["age"],
            "group_type": group["groupTypeCode"],
            "trip_types": group["tripTypeCodes"],
            "gender": string(&user["gender"]["value"]).or_else(|| string(&user["gender"]["id"])),
            "author_review_count": count(&user["numberOfReviews"]),
            "author_id": user["id"],
            "liked": r["liked"],
            "disliked": r["disliked"],
        }))
        .build()
}

/// What a first page without reviews says: the API's empty list is how it
/// states that the property has none in the review window (and language).
pub fn notice(all_languages: bool) -> String {
    let language = if all_languages {
        ""
    } else {
        " in the site language (English; filter_type true lists every language)"
    };
    format!(
        "Hostelworld lists no reviews for this property from the last {} months{language}",
        endpoints::MONTH_COUNT
    )
}

/// The page's metadata: the property (from the first page) and this listing;
/// a notice when the first page lists no reviews.
pub fn meta(
    property: &Property,
    listing: &Listing,
    all_languages: bool,
    first_page: bool,
) -> SourceMeta {
    let overall = property.ratings.get("overall").copied();
    let mut extra = json!({
        "property_id": property.id,
        "city": property.city,
        "country": property.country,
        "property_type": property.kind,
        "rating_scale_max": SCALE,
        "average_rating_stars": overall.and_then(|x| rating::rescale(x, SCALE, 5.0)),
        "rating_breakdown": property.ratings,
        "reviews_listed": listing.items,
        "review_window_months": endpoints::MONTH_COUNT,
        "all_languages": all_languages,
        "review_statistics": listing.statistics,
    });
    if first_page && listing.reviews.is_empty() {
        extra["notice"] = json!(notice(all_languages));
    }
    SourceMeta {
        resolved_url: property.url.clone(),
        name: Some(property.name.clone()),
        average_rating: overall,
        total_reviews: property.total,
        extra_json: extra.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROPERTY: &str = include_str!("../tests/samples/apigee_property_93919.json");
    const PAGE_1: &str = include_str!("../tests/samples/reviews_93919_newest_p1.json");
    const ALL_LANGUAGES: &str =
        include_str!("../tests/samples/reviews_93919_all_languages_p1.json");

    fn target() -> Target {
        Target {
            id: "93919".into(),
            url: None,
        }
    }

    fn property() -> Property {
        let v: Value = serde_json::from_str(PROPERTY).unwrap();
        Property::from_details(&v, &target()).unwrap()
    }

    #[test]
    fn reads_the_real_property_details() {
        let p = property();
        assert_eq!(p.name, "ClinkNOORD");
        assert_eq!(p.city.as_deref(), Some("Amsterdam"));
        assert_eq!(p.country.as_deref(), Some("Netherlands"));
        assert_eq!(p.kind.as_deref(), Some("HOSTEL"));
        assert_eq!(p.total, Some(15484));
        assert_eq!(p.ratings["overall"], 84.0);
        assert_eq!(p.ratings["value_for_money"], 80.0);
        assert_eq!(p.ratings["security"], 89.0);
        assert_eq!(p.ratings.len(), 8);
        assert_eq!(
            p.url.as_deref(),
            Some("https://www.hostelworld.com/hosteldetails.php/ClinkNOORD/Amsterdam/93919")
        );
    }

    #[test]
    fn maps_the_real_embedded_review() {
        let v: Value = serde_json::from_str(PROPERTY).unwrap();
        let r = review(&v["reviews"][0], &property()).unwrap();
        assert_eq!(r.id, "16518260");
        assert_eq!(r.rating, Some(60.0));
        assert_eq!(r.rating_scale_max, Some(100.0));
        assert_eq!(r.date.as_deref(), Some("2026-06-05"));
        assert_eq!(r.author_name.as_deref(), Some("kellyg7894349"));
        assert_eq!(r.author_country.as_deref(), Some("ENG"));
        assert_eq!(r.author_title, None);
        assert_eq!(r.author_profile_image_url, None);
        assert!(r.reply.is_none());
        assert_eq!(r.language, None);
        assert_eq!(r.recommends, None);
        assert!(r.sub_ratings.is_empty() && r.translation.is_none());
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["age_group"], "25-30");
        assert_eq!(extra["group_type"], "MALE");
        assert_eq!(extra["trip_types"], json!(["WEEKENDAWAY"]));
        assert_eq!(extra["author_review_count"], 6);
        assert_eq!(extra["gender"], Value::Null);
        assert_eq!(extra.get("nationality"), None);
    }

    #[test]
    fn maps_a_full_listing_review() {
        let page: Value = serde_json::from_str(PAGE_1).unwrap();
        let listing = Listing::parse(&page).unwrap();
        assert_eq!(listing.pages, Some(3));
        assert!(listing.has_page_after(2) && !listing.has_page_after(3));
        let r = review(&listing.reviews[0], &property()).unwrap();
        assert_eq!(r.id, "16524410");
        assert_eq!(
            r.author_profile_image_url.as_deref(),
            Some("https://a.hwstatic.com/image/upload/users/48213377.jpg")
        );
        assert_eq!(r.language.as_deref(), Some("en"));
        assert_eq!(r.author_country.as_deref(), Some("AUS"));
        assert_eq!(r.recommends, Some(true));
        assert!(r.translation.is_none());
        assert!(r.reply.is_some());
        assert_eq!(r.sub_ratings.len(), 7);
        let safety = &r.sub_ratings[1];
        assert_eq!(
            (safety.name.as_str(), safety.rating, safety.scale_max),
            ("safety", 100.0, 100.0)
        );
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["gender"], "Female");
        assert_eq!(extra.get("recommended"), None);
    }

    #[test]
    fn translated_reviews_keep_their_original_language_and_flag() {
        let page: Value = serde_json::from_str(ALL_LANGUAGES).unwrap();
        let listing = Listing::parse(&page).unwrap();
        let translated: Vec<Review> = listing
            .reviews
            .iter()
            .map(|r| review(r, &property()).unwrap())
            .filter(|r| r.translation.is_some())
            .collect();
        assert_eq!(translated.len(), 2);
        assert!(translated.iter().all(|r| r.language.is_none()));
        let t = translated[0].translation.as_ref().unwrap();
        assert!(t.is_machine_translated);
        assert_eq!(t.original_language.as_deref(), Some("de"));
        assert_eq!(t.original_text, None);
    }

    #[test]
    fn a_changed_layout_is_an_error_not_an_empty_page() {
        assert!(matches!(
            Listing::parse(&json!({"data": []})),
            Err(FetchError::Upstream(m)) if m.contains("changed")
        ));
        assert!(matches!(
            Property::from_details(&json!({"id": "1"}), &target()),
            Err(FetchError::Upstream(m)) if m.contains("changed")
        ));
        assert!(review(&json!({"notes": "x"}), &property()).is_err());
    }

    #[test]
    fn odd_values_are_left_out_not_invented() {
        let r = review(
            &json!({"id": 5, "rating": {"overall": 130}, "user": {"image": {"prefix": "//cdn.example/a", "suffix": ".png"}}}),
            &property(),
        )
        .unwrap();
        assert_eq!(r.id, "5");
        assert_eq!(r.rating, None);
        assert_eq!(
            r.author_profile_image_url.as_deref(),
            Some("https://cdn.example/a.png")
        );
        let listing =
            Listing::parse(&json!({"reviews": [], "pagination": {"next": "/x?page=2"}})).unwrap();
        assert!(listing.has_page_after(1));
        let meta = meta(&property(), &listing, true, false);
        assert_eq!(meta.average_rating, Some(84.0));
        assert_eq!(meta.total_reviews, Some(15484));
        let extra: Value = serde_json::from_str(&meta.extra_json).unwrap();
        assert_eq!(extra["average_rating_stars"], 4.2);
        assert_eq!(extra["all_languages"], true);
        assert_eq!(extra.get("notice"), None, "a later page says nothing");
        let first = super::meta(&property(), &listing, false, true);
        let extra: Value = serde_json::from_str(&first.extra_json).unwrap();
        assert!(extra["notice"]
            .as_str()
            .is_some_and(|n| n.contains("no reviews") && n.contains("site language")));
    }
}
