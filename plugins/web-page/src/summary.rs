//! What the answer says about the page: its aggregate rating, the item it
//! is about, the reviews found per syntax, the aggregate's count against
//! the reviews listed, and whether the markup has what Google's review
//! snippets require ([`rich_result`]).

use serde_json::{json, Value};

use crate::mapping::item_summary;
use crate::schema::{self, Found, FoundAggregate};
use crate::values::{count, number};

/// The types Google shows review snippets for (its review snippet
/// documentation's list of `itemReviewed` types).
pub const SNIPPET_TYPES: &[&str] = &[
    "Book",
    "Course",
    "CreativeWorkSeason",
    "CreativeWorkSeries",
    "Episode",
    "Event",
    "Game",
    "HowTo",
    "LocalBusiness",
    "MediaObject",
    "Movie",
    "MusicPlaylist",
    "MusicRecording",
    "Organization",
    "Product",
    "Recipe",
    "SoftwareApplication",
];

/// Types that count as one of [`SNIPPET_TYPES`] (their schema.org subtypes
/// pages use most).
const SNIPPET_SUBTYPES: &[(&str, &str)] = &[
    ("Restaurant", "LocalBusiness"),
    ("Store", "LocalBusiness"),
    ("Hotel", "LocalBusiness"),
    ("LodgingBusiness", "LocalBusiness"),
    ("FoodEstablishment", "LocalBusiness"),
    ("ProfessionalService", "LocalBusiness"),
    ("HomeAndConstructionBusiness", "LocalBusiness"),
    ("HealthAndBeautyBusiness", "LocalBusiness"),
    ("AutomotiveBusiness", "LocalBusiness"),
    ("Corporation", "Organization"),
    ("OnlineStore", "Organization"),
    ("ProductGroup", "Product"),
    ("IndividualProduct", "Product"),
    ("ProductModel", "Product"),
    ("MobileApplication", "SoftwareApplication"),
    ("WebApplication", "SoftwareApplication"),
    ("VideoGame", "Game"),
    ("TVSeries", "CreativeWorkSeries"),
    ("BookSeries", "CreativeWorkSeries"),
    ("PodcastSeries", "CreativeWorkSeries"),
    ("TVSeason", "CreativeWorkSeason"),
    ("PodcastEpisode", "Episode"),
    ("TVEpisode", "Episode"),
    ("VideoObject", "MediaObject"),
    ("AudioObject", "MediaObject"),
    ("MusicAlbum", "MusicPlaylist"),
    ("Recipe", "Recipe"),
];

/// The aggregate rating the page gives: the first one found.
pub fn aggregate(found: &Found) -> Option<Value> {
    let agg = found.aggregates.first()?;
    let node = &agg.node;
    Some(json!({
        "rating_value": node.get("ratingValue").and_then(number),
        "best_rating": node.get("bestRating").and_then(number).unwrap_or(5.0),
        "worst_rating": node.get("worstRating").and_then(number).unwrap_or(1.0),
        "review_count": node.get("reviewCount").and_then(count),
        "rating_count": node.get("ratingCount").and_then(count),
    }))
}

/// The item the page is about: the aggregate's item, else the first
/// review's.
pub fn item_reviewed(found: &Found) -> Option<Value> {
    found
        .aggregates
        .iter()
        .filter_map(|a| a.item.as_ref())
        .chain(found.reviews.iter().filter_map(|r| r.item.as_ref()))
        .find_map(item_summary)
}

/// The aggregate's count (reviews, else ratings) against the reviews the
/// markup lists.
pub fn declared_vs_found(aggregate: Option<&Value>, listed: usize) -> Value {
    let declared =
        aggregate.and_then(|a| a["review_count"].as_u64().or(a["rating_count"].as_u64()));
    json!({
        "declared": declared,
        "found": listed,
        "missing": declared.map(|d| d.saturating_sub(listed as u64)),
    })
}

/// Whether an item is of a type Google shows review snippets for.
fn snippet_type(item: &Value) -> bool {
    schema::types(item)
        .iter()
        .any(|t| SNIPPET_TYPES.contains(t) || SNIPPET_SUBTYPES.iter().any(|(sub, _)| sub == t))
}

/// Whether the markup has what Google's review snippets require, with the
/// properties missing named: a review needs an author with a name, a
/// `reviewRating` with a `ratingValue`, and an item reviewed (given or
/// holding it) of a supported type with a name; an aggregate rating needs a
/// `ratingValue`, a `ratingCount` or `reviewCount`, and such an item.
pub fn rich_result(found: &Found) -> Value {
    let mut missing: Vec<String> = Vec::new();
    if found.reviews.is_empty() && found.aggregates.is_empty() {
        missing.push("a Review or AggregateRating".into());
    }
    for (i, review) in found.reviews.iter().enumerate().take(10) {
        let node = &review.node;
        let at = format!("review {}", i + 1);
        if node.get("author").and_then(crate::values::name).is_none() {
            missing.push(format!("{at}: author.name"));
        }
        let rating = crate::values::first(node.get("reviewRating").unwrap_or(&Value::Null));
        let value = match rating {
            Some(Value::Object(map)) => map.get("ratingValue").and_then(number),
            Some(other) => number(other),
            None => None,
        };
        if value.is_none() {
            missing.push(format!("{at}: reviewRating.ratingValue"));
        }
        item_problems(review.item.as_ref(), &at, &mut missing);
    }
    for (i, agg) in found.aggregates.iter().enumerate().take(3) {
        aggregate_problems(agg, i, &mut missing);
    }
    json!({
        "eligible": missing.is_empty(),
        "missing": missing,
        "rules": "Google review snippets: a Review needs author.name, reviewRating.ratingValue and an itemReviewed of a supported type with a name; an AggregateRating needs ratingValue, ratingCount or reviewCount, and such an item",
    })
}

fn aggregate_problems(agg: &FoundAggregate, i: usize, missing: &mut Vec<String>) {
    let at = format!("aggregateRating {}", i + 1);
    if agg.node.get("ratingValue").and_then(number).is_none() {
        missing.push(format!("{at}: ratingValue"));
    }
    let counted = agg.node.get("ratingCount").and_then(count).is_some()
        || agg.node.get("reviewCount").and_then(count).is_some();
    if !counted {
        missing.push(format!("{at}: ratingCount or reviewCount"));
    }
    item_problems(agg.item.as_ref(), &at, missing);
}

fn item_problems(item: Option<&Value>, at: &str, missing: &mut Vec<String>) {
    match item {
        None => missing.push(format!("{at}: itemReviewed")),
        Some(item) => {
            if !snippet_type(item) {
                missing.push(format!(
                    "{at}: itemReviewed of a supported type ({}; the page has {})",
                    SNIPPET_TYPES.join(", "),
                    match schema::types(item).as_slice() {
                        [] => "none".to_owned(),
                        types => types.join(", "),
                    }
                ));
            }
            if item.get("name").and_then(crate::values::text).is_none() {
                missing.push(format!("{at}: itemReviewed.name"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markup::Syntax;
    use crate::schema::FoundReview;

    fn review(node: Value, item: Option<Value>) -> FoundReview {
        FoundReview {
            node,
            item,
            syntax: Syntax::JsonLd,
        }
    }

    #[test]
    fn a_complete_product_is_eligible() {
        let product = json!({"@type": "Product", "name": "Kettle"});
        let found = Found {
            reviews: vec![review(
                json!({"author": {"name": "Ann"}, "reviewRating": {"ratingValue": 5}}),
                Some(product.clone()),
            )],
            aggregates: vec![FoundAggregate {
                node: json!({"ratingValue": 4.5, "reviewCount": 10}),
                item: Some(product),
                syntax: Syntax::JsonLd,
            }],
        };
        let verdict = rich_result(&found);
        assert_eq!(verdict["eligible"], true, "{verdict}");
        assert_eq!(
            declared_vs_found(aggregate(&found).as_ref(), 1),
            json!({"declared": 10, "found": 1, "missing": 9})
        );
    }

    #[test]
    fn what_is_missing_is_named() {
        let found = Found {
            reviews: vec![review(
                json!({"reviewBody": "ok"}),
                Some(json!({"@type": "WebPage"})),
            )],
            aggregates: vec![FoundAggregate {
                node: json!({"ratingValue": 4.5}),
                item: None,
                syntax: Syntax::Microdata,
            }],
        };
        let verdict = rich_result(&found);
        assert_eq!(verdict["eligible"], false);
        let missing: Vec<&str> = verdict["missing"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(missing[0], "review 1: author.name");
        assert_eq!(missing[1], "review 1: reviewRating.ratingValue");
        assert!(missing[2].starts_with("review 1: itemReviewed of a supported type"));
        assert!(missing[2].ends_with("the page has WebPage)"));
        assert_eq!(missing[3], "review 1: itemReviewed.name");
        assert_eq!(missing[4], "aggregateRating 1: ratingCount or reviewCount");
        assert_eq!(missing[5], "aggregateRating 1: itemReviewed");
        let empty = rich_result(&Found::default());
        assert_eq!(empty["missing"], json!(["a Review or AggregateRating"]));
    }
}
