//! The record's rules a review can break that the host can repair: found on
//! every review a plugin returns, repaired in place, and handed back so the
//! caller fails the plugin (`strict_records`, as the tests run) or logs and
//! counts them (production).

use gleaner_contract::review::{self, Concept, Fields};
use serde_json::Value;

use super::{country, Review};

/// One rule a review broke.
#[derive(Debug, Clone, PartialEq)]
pub enum Lapse {
    /// A rule the SDK knows too ([`review::lapses`]).
    Contract(review::Lapse),
    /// The author's country, as the plugin gave it, is no country.
    Country(String),
    /// `author_title` is a bare country name.
    TitleIsCountry(String),
    /// `extra` holds what the source's `[source.extra]` does not declare.
    Extra(String),
}

impl Lapse {
    /// The rule's short name, for metrics and logs.
    pub fn rule(&self) -> &'static str {
        match self {
            Lapse::Contract(l) => l.rule(),
            Lapse::Country(_) => "country_not_iso",
            Lapse::TitleIsCountry(_) => "title_is_country",
            Lapse::Extra(_) => "extra_undeclared",
        }
    }
}

impl std::fmt::Display for Lapse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lapse::Contract(l) => l.fmt(f),
            Lapse::Country(given) => write!(
                f,
                "author country {given:?} is neither an ISO 3166-1 code nor a country's English name"
            ),
            Lapse::TitleIsCountry(title) => write!(
                f,
                "author title {title:?} is a bare country; give it as the author's country"
            ),
            Lapse::Extra(what) => write!(
                f,
                "extra.{what} by the source's [source.extra]; declare it there as it is"
            ),
        }
    }
}

/// What the host does with a review that broke the record's rules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Policy {
    /// Log and count each lapse; the record goes out repaired.
    #[default]
    Repair,
    /// Fail the request as a plugin fault (`strict_records`): how the tests
    /// and the replay cases run, so a plugin that breaks a rule fails them.
    Refuse,
}

impl Policy {
    /// Applies the policy to the `lapses` of review `id` from `plugin`.
    pub fn judge(
        self,
        plugin: &str,
        id: &str,
        lapses: &[Lapse],
    ) -> Result<(), crate::contract::ContractError> {
        if lapses.is_empty() {
            return Ok(());
        }
        if self == Policy::Refuse {
            let problem = lapses
                .iter()
                .map(Lapse::to_string)
                .collect::<Vec<_>>()
                .join("; ");
            return Err(crate::contract::ContractError {
                id: id.chars().take(80).collect(),
                problem,
            });
        }
        for lapse in lapses {
            tracing::warn!(plugin, review_id = id, rule = lapse.rule(), problem = %lapse, "a review broke a record rule; repaired");
            crate::telemetry::metrics::record_repaired(plugin, lapse.rule());
        }
        Ok(())
    }
}

/// Finds what `record` (built from `fields`, with the plugin's raw
/// `given_country`) breaks of the record's rules, and repairs it: the
/// country made alpha-2, a title that is a country moved there, concepts
/// kept in `extra` under a former name lifted into their fields where their
/// value says what the field means (else left in `extra`), aspect ratings
/// outside their scale and malformed language tags dropped.
pub fn repair(record: &mut Review, fields: &Fields<'_>, given_country: Option<&str>) -> Vec<Lapse> {
    let mut lapses = Vec::new();
    if let Some(given) = given_country.map(str::trim).filter(|g| !g.is_empty()) {
        match country::alpha2(given) {
            Some(code) => record.author_country = Some(code),
            None => lapses.push(Lapse::Country(given.to_owned())),
        }
    }
    if let Some(code) = record.author_title.as_deref().and_then(country::named) {
        let title = record.author_title.take().unwrap_or_default();
        lapses.push(Lapse::TitleIsCountry(title));
        record.author_country.get_or_insert(code);
    }
    for lapse in review::lapses(fields) {
        match &lapse {
            review::Lapse::Promoted(key, concept) => lift(record, key, *concept),
            review::Lapse::SubRating(name) => record
                .sub_ratings
                .retain(|s| &s.name != name || review::sub_rating_fits(s.rating, s.scale_max)),
            review::Lapse::Language("language") => record.language = None,
            review::Lapse::Language(_) => {
                if let Some(t) = record.translation.as_mut() {
                    t.original_language = None;
                }
            }
        }
        lapses.push(Lapse::Contract(lapse));
    }
    lapses
}

/// Moves `extra[key]` into the field of `concept` when its value is what
/// that field holds and the field is unset or says the same; otherwise
/// leaves it in `extra`, so nothing the site said is lost.
fn lift(record: &mut Review, key: &str, concept: Concept) {
    let Value::Object(extra) = &mut record.extra else {
        return;
    };
    let Some(value) = extra.get(key) else {
        return;
    };
    let lifted = match (concept, value) {
        (Concept::Verified, Value::Bool(b)) => record.verified.get_or_insert(*b) == b,
        (Concept::Recommends, Value::Bool(b)) => record.recommends.get_or_insert(*b) == b,
        (Concept::Anonymous, Value::Bool(b)) => {
            record.anonymous |= *b;
            true
        }
        (Concept::Country, Value::String(s)) => match country::alpha2(s) {
            Some(code) => *record.author_country.get_or_insert(code.clone()) == code,
            None => false,
        },
        (Concept::Edited, Value::String(s)) => match gleaner_contract::date::normalize(s) {
            Ok(d) => *record.updated_date.get_or_insert(d.utc.clone()) == d.utc,
            Err(_) => false,
        },
        (Concept::Language, Value::String(s)) if review::is_language_tag(s) => {
            record.language.get_or_insert_with(|| s.clone()) == s
        }
        _ => false,
    };
    if lifted {
        extra.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::types as wit;

    fn plugin_review() -> wit::Review {
        wit::Review {
            text: Some(wit::Text::Plain(
                "The staff were friendly and the room was spotless.".into(),
            )),
            rating: Some(90.0),
            rating_scale_max: Some(100.0),
            date: Some("2023-12".into()),
            extra_json: String::new(),
            ..crate::contract::tests::review()
        }
    }

    fn build(r: &wit::Review) -> (Review, Vec<Lapse>) {
        Review::from_wit(r, "hostel-site", true, None).unwrap()
    }

    #[test]
    fn a_reply_without_text_is_no_reply() {
        let mut r = plugin_review();
        r.reply = Some(wit::Reply {
            text: wit::Text::Html("<p> </p>".into()),
            date: Some("2024-01-02".into()),
            author: Some("The owner".into()),
        });
        assert!(build(&r).0.review_reply.is_none());
        r.reply.as_mut().unwrap().text = wit::Text::Plain("Thank you!".into());
        assert_eq!(build(&r).0.review_reply.unwrap().text, "Thank you!");
    }

    #[test]
    fn a_good_review_breaks_nothing_and_is_normalised() {
        let mut r = plugin_review();
        r.author_country = Some("DEU".into());
        r.language = Some("en".into());
        let (record, lapses) = build(&r);
        assert!(lapses.is_empty(), "{lapses:?}");
        assert_eq!(record.review_date.as_deref(), Some("2023-12-01T00:00:00Z"));
        assert_eq!(record.review_date_precision, Some("month"));
        assert_eq!(record.rating_out_of_5, Some(4.5));
        assert_eq!(record.author_country.as_deref(), Some("DE"));
        assert_eq!(record.language_source, Some("site"));
    }

    #[test]
    fn each_rule_is_found_and_repaired() {
        let mut r = plugin_review();
        r.author_country = Some("Atlantis".into());
        r.author_title = Some("Germany".into());
        r.sub_ratings = vec![
            wit::SubRating {
                name: "staff".into(),
                rating: 90.0,
                scale_max: 100.0,
            },
            wit::SubRating {
                name: "location".into(),
                rating: 11.0,
                scale_max: 10.0,
            },
        ];
        r.language = Some("english".into());
        r.extra_json = r#"{"verified_purchase": true, "is_edited": true, "badge": "top",
            "edited_at": "2024-01-02T03:04:05Z", "buyer_country_code": "FR"}"#
            .into();
        let (record, lapses) = build(&r);
        let rules: Vec<&str> = lapses.iter().map(Lapse::rule).collect();
        assert_eq!(
            rules,
            [
                "country_not_iso",
                "title_is_country",
                "promoted_in_extra",
                "promoted_in_extra",
                "promoted_in_extra",
                "promoted_in_extra",
                "sub_rating_scale",
                "language_tag"
            ]
        );
        assert_eq!(record.author_title, None);
        assert_eq!(record.author_country.as_deref(), Some("DE"));
        assert_eq!(record.verified, Some(true));
        assert_eq!(record.updated_date.as_deref(), Some("2024-01-02T03:04:05Z"));
        assert_eq!(record.sub_ratings.len(), 1);
        // The malformed label is dropped, and the text's language detected.
        assert_eq!(record.language.as_deref(), Some("en"));
        assert_eq!(record.language_source, Some("detected"));
        // What no field can hold, or what contradicts a field, stays in extra.
        assert_eq!(
            record.extra,
            serde_json::json!({"badge": "top", "is_edited": true, "buyer_country_code": "FR"})
        );
    }

    #[test]
    fn extra_is_checked_against_its_declaration() {
        let declared: crate::manifest::OutputSpec = toml::from_str(
            r#"fields = [
                { field = "badge", type = "string", values = ["top", "new"] },
                { field = "count", type = "integer", optional = true },
                { field = "tags", type = "array", items = "string" },
            ]"#,
        )
        .unwrap();
        let mut r = plugin_review();
        r.extra_json = r#"{"badge": "top", "tags": ["a"]}"#.into();
        let (_, lapses) = Review::from_wit(&r, "s", true, Some(&declared)).unwrap();
        assert!(lapses.is_empty(), "{lapses:?}");
        r.extra_json = r#"{"badge": "gold", "tags": [1], "count": 2.5, "colour": "red"}"#.into();
        let (record, lapses) = Review::from_wit(&r, "s", true, Some(&declared)).unwrap();
        let found: Vec<String> = lapses.iter().map(ToString::to_string).collect();
        assert_eq!(found.len(), 4, "{found:?}");
        assert!(
            found[0].contains("extra.colour is not declared"),
            "{found:?}"
        );
        assert!(found.iter().any(|f| f.contains("extra.badge is \"gold\"")));
        assert!(found.iter().any(|f| f.contains("extra.count is 2.5")));
        assert!(found.iter().any(|f| f.contains("extra.tags[0] is 1")));
        // Nothing is dropped: the answer keeps what the site said.
        assert_eq!(record.extra["colour"], "red");
    }
}
