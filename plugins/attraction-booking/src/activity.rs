//! What the activity page says about the activity: its name, average rating
//! and review count, from the schema.org JSON-LD the page carries (where it
//! carries one; all three stay unknown otherwise).

use gleaner_sdk::embedded;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// JSON-LD types that describe a bookable activity.
const ACTIVITY_TYPES: &[&str] = &["Product", "TouristTrip", "TouristAttraction", "Event"];

/// The activity as its page describes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Activity {
    /// The activity's title.
    pub name: Option<String>,
    /// Its average rating, 1–5.
    pub rating: Option<f64>,
    /// Its number of reviews.
    pub total: Option<u64>,
}

fn number(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| {
        v.as_str()
            .and_then(|s| s.trim().replace(',', ".").parse().ok())
    })
}

fn count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_str()
            .and_then(|s| s.trim().replace([',', '.'], "").parse().ok())
    })
}

fn is_activity(node: &Value) -> bool {
    let types = match &node["@type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    types.iter().any(|t| ACTIVITY_TYPES.contains(t))
}

impl Activity {
    /// Reads the first JSON-LD node that is an activity or carries an
    /// `aggregateRating`.
    pub fn from_page(html: &str) -> Activity {
        let nodes = embedded::json_ld(html);
        let Some(node) = nodes
            .iter()
            .find(|n| n["aggregateRating"].is_object())
            .or_else(|| nodes.iter().find(|n| is_activity(n)))
        else {
            return Activity::default();
        };
        let aggregate = &node["aggregateRating"];
        Activity {
            name: node["name"]
                .as_str()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
            rating: number(&aggregate["ratingValue"]).filter(|r| (0.0..=5.0).contains(r)),
            total: count(&aggregate["reviewCount"]).or_else(|| count(&aggregate["ratingCount"])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_activity_from_its_json_ld() {
        let page = include_str!("../tests/samples/activity_page_t23776.html");
        let a = Activity::from_page(page);
        assert_eq!(
            a.name.as_deref(),
            Some("Berlin: Tempelhof Airport 2-Hour History Tour")
        );
        assert_eq!(a.rating, Some(4.6));
        assert_eq!(a.total, Some(579));
    }

    #[test]
    fn odd_or_missing_values_stay_unknown() {
        let page = r#"<script type="application/ld+json">{"@graph":[{"@type":"BreadcrumbList"},
            {"@type":["Product"],"name":" Tour ","aggregateRating":{"ratingValue":"4,5","ratingCount":"1.234"}}]}</script>"#;
        let a = Activity::from_page(page);
        assert_eq!(a.name.as_deref(), Some("Tour"));
        assert_eq!(a.rating, Some(4.5));
        assert_eq!(a.total, Some(1234));
        let a = Activity::from_page(
            r#"<script type="application/ld+json">{"@type":"Product","name":"X","aggregateRating":{"ratingValue":9}}</script>"#,
        );
        assert_eq!((a.rating, a.total), (None, None));
        assert_eq!(
            Activity::from_page("<html><title>GetYourGuide</title></html>"),
            Activity::default()
        );
    }
}
