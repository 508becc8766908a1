//! The studio ("venue"): its alias resolved to the numeric venue id the review
//! API needs, with the name, average rating and rating count shown on its page.
//!
//! `GET https://api.classpass.com/v2/venues/{alias}` answers it. The mapping is
//! kept in the plugin cache for [`crate::endpoints::VENUE_TTL_SECONDS`], so
//! fetching the same studio again asks the API for reviews only; a fetch's
//! later pages carry the venue in their cursor.

use gleaner_sdk::number;
use gleaner_sdk::{cache, json, log, FetchError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::query::Target;
use crate::{api, endpoints};

/// What the venue endpoint gives, as far as the plugin uses it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Venue {
    /// The numeric venue id (`id`, in older answers `venue_id`).
    #[serde(rename = "i")]
    pub id: u64,
    /// The studio's alias, the last segment of its page's address.
    #[serde(rename = "a")]
    pub alias: String,
    /// Name (`name`, in older answers `venue_name`).
    #[serde(rename = "n", default)]
    pub name: Option<String>,
    /// Neighbourhood (`location_name`).
    #[serde(rename = "l", default)]
    pub location: Option<String>,
    /// Average rating of 5 (`display_rating_average`, a number or a string such as `"4.9"`).
    #[serde(rename = "r", default)]
    pub average: Option<f64>,
    /// Number of ratings (`display_rating_total`, a number or a string such as `"22,596"`).
    #[serde(rename = "t", default)]
    pub total: Option<u64>,
    /// Time zone (`timezone`), e.g. `America/Toronto`.
    #[serde(rename = "z", default)]
    pub timezone: Option<String>,
}

impl Venue {
    /// Reads the venue endpoint's answer (the venue object, or one wrapped in `venue`).
    pub fn parse(v: &Value, target: &Target) -> Result<Venue, FetchError> {
        let v = if v["venue"].is_object() {
            &v["venue"]
        } else {
            v
        };
        let id = [&v["id"], &v["venue_id"]]
            .into_iter()
            .find_map(|x| number::of_json(x).filter(|n| *n >= 1.0 && n.fract() == 0.0))
            .ok_or_else(|| {
                FetchError::Upstream(format!(
                    "the venue answer for studio {:?} has no numeric `id`: the ClassPass API changed and the plugin needs an update",
                    target.alias
                ))
            })? as u64;
        Ok(Venue {
            id,
            alias: json::string(&v["alias"]).unwrap_or_else(|| target.alias.clone()),
            name: json::string(&v["name"]).or_else(|| json::string(&v["venue_name"])),
            location: json::string(&v["location_name"]),
            average: number::of_json(&v["display_rating_average"])
                .filter(|x| (0.0..=endpoints::SCALE).contains(x)),
            total: number::of_json(&v["display_rating_total"])
                .filter(|x| *x >= 0.0 && x.fract() == 0.0)
                .map(|x| x as u64),
            timezone: json::string(&v["timezone"]),
        })
    }

    /// The studio page on classpass.com.
    pub fn url(&self) -> String {
        endpoints::studio_page(&self.alias)
    }
}

/// Where a venue came from, for `extra_information.source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Origin {
    /// Read from the venue endpoint in this fetch.
    #[serde(rename = "api")]
    Api,
    /// Read from the plugin cache (an earlier fetch of the same studio).
    #[serde(rename = "cache")]
    Cache,
}

/// The cache entry of an alias.
fn cache_key(alias: &str) -> String {
    format!("venue:{alias}")
}

/// The studio's venue: from the plugin cache, else from the venue endpoint
/// (then cached).
pub fn resolve(target: &Target) -> Result<(Venue, Origin), FetchError> {
    let key = cache_key(&target.alias);
    if let Some(venue) = cache::get(&key).and_then(|s| serde_json::from_str::<Venue>(&s).ok()) {
        return Ok((venue, Origin::Cache));
    }
    let answer = api::get_json(
        &endpoints::venue(&target.alias),
        &target.url(),
        "the studio's venue details",
        &format!("ClassPass has no studio {:?}", target.alias),
    )?;
    let venue = Venue::parse(&answer, target)?;
    match serde_json::to_string(&venue) {
        Ok(text) => cache::set(&key, &text, endpoints::VENUE_TTL_SECONDS),
        Err(e) => log::warn(&format!("venue {} not cached: {e}", venue.id)),
    }
    Ok((venue, Origin::Api))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn target() -> Target {
        Target {
            alias: "bloor-hot-yoga-toronto".into(),
        }
    }

    #[test]
    fn reads_the_venue_answer() {
        let v: Value =
            serde_json::from_str(include_str!("../tests/samples/venue_26727.json")).unwrap();
        let venue = Venue::parse(&v, &target()).unwrap();
        assert_eq!(venue.id, 26727);
        assert_eq!(venue.alias, "bloor-hot-yoga-toronto");
        assert_eq!(venue.name.as_deref(), Some("Bloor Hot Yoga"));
        assert_eq!(venue.average, Some(4.8));
        assert_eq!(venue.total, Some(1204));
        assert_eq!(venue.timezone.as_deref(), Some("America/Toronto"));
        assert_eq!(
            venue.url(),
            "https://classpass.com/studios/bloor-hot-yoga-toronto"
        );
    }

    #[test]
    fn reads_the_older_venue_keys_and_text_numbers() {
        let v = json!({"venue": {"venue_id": "36841", "venue_name": "High Ride Cycle",
            "location_name": "West Highland", "display_rating_total": "22,596",
            "display_rating_average": "4.9"}});
        let venue = Venue::parse(&v, &target()).unwrap();
        assert_eq!(venue.id, 36841);
        assert_eq!(venue.alias, "bloor-hot-yoga-toronto", "the query's alias");
        assert_eq!(venue.name.as_deref(), Some("High Ride Cycle"));
        assert_eq!(venue.location.as_deref(), Some("West Highland"));
        assert_eq!(venue.total, Some(22596));
        assert_eq!(venue.average, Some(4.9));
    }

    #[test]
    fn an_answer_without_an_id_is_a_changed_api() {
        for v in [
            json!({"name": "x"}),
            json!({"id": "abc"}),
            json!({"id": 0}),
            json!([]),
        ] {
            assert!(
                matches!(Venue::parse(&v, &target()), Err(FetchError::Upstream(m)) if m.contains("changed")),
                "{v}"
            );
        }
        let odd =
            Venue::parse(&json!({"id": 5, "display_rating_average": 9.5}), &target()).unwrap();
        assert_eq!(odd.average, None, "off the 5-star scale: left out");
    }

    #[test]
    fn the_cached_form_round_trips() {
        let venue = Venue::parse(&json!({"id": 7, "name": "N"}), &target()).unwrap();
        let text = serde_json::to_string(&venue).unwrap();
        assert_eq!(serde_json::from_str::<Venue>(&text).unwrap(), venue);
        assert_eq!(cache_key("a-b"), "venue:a-b");
    }
}
