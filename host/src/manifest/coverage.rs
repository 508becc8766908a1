//! A source's fill rates: `[coverage]` in its manifest, the share of reviews
//! that fill each field of the record, measured over the distinct reviews of
//! the plugin's replay cases and written there by the replay tests
//! (`GLEANER_BLESS=1`), which otherwise check the table against what they
//! measure. Never typed by hand. `GET /sources` and `gleaner coverage` show it.
//!
//! ```toml
//! [coverage]
//! reviews = 57
//! review_title = 0.0
//! review_text = 1.0
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The record's fields every review has (`review_id`, `source`,
/// `anonymous`) or that come with another (`rating_scale_max`,
/// `rating_out_of_5`, `review_date_precision`, `language_source`, `extra`):
/// no fill rate.
const NOT_MEASURED: &[&str] = &[
    "review_id",
    "source",
    "anonymous",
    "rating_scale_max",
    "rating_out_of_5",
    "review_date_precision",
    "language_source",
    "extra",
];

/// The record's fields a source may leave empty, whose fill rates are kept.
pub fn fields() -> impl Iterator<Item = &'static str> {
    gleaner_contract::review::FIELDS
        .iter()
        .copied()
        .filter(|f| !NOT_MEASURED.contains(f))
}

/// The fill rates of a source's record fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// The distinct reviews measured.
    pub reviews: u64,
    /// Per field of [`fields`], the share of those reviews that fill it (0–1).
    #[serde(flatten)]
    pub fields: BTreeMap<String, f64>,
}

impl Coverage {
    /// Checks the table: a count, every rate between 0 and 1, known fields only.
    pub fn check(&self) -> Result<(), String> {
        for (field, rate) in &self.fields {
            if !fields().any(|f| f == field) {
                return Err(format!(
                    "[coverage] names {field:?}, which is no field of the review record with a fill rate; \
                     the fields are {}",
                    fields().collect::<Vec<_>>().join(", ")
                ));
            }
            if !(0.0..=1.0).contains(rate) {
                return Err(format!(
                    "[coverage] gives {field} the rate {rate}; a rate is a share from 0 to 1"
                ));
            }
        }
        Ok(())
    }
}
