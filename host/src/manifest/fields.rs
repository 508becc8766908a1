//! Request fields: the type and constraints of each field a route takes,
//! and the shared sort names.

use serde::Deserialize;

/// The declared type of a request field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    /// A JSON string.
    String,
    /// A JSON whole number.
    Integer,
    /// A JSON number, whole or not (a rating of 4.5).
    Number,
    /// A JSON boolean.
    Boolean,
    /// A JSON object.
    Object,
    /// A JSON array.
    Array,
    /// One of `values` (strings, or numbers written as strings that also accept numbers).
    Enum,
}

impl FieldType {
    /// A short name for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            FieldType::String => "a string",
            FieldType::Integer => "an integer",
            FieldType::Number => "a number",
            FieldType::Boolean => "a boolean",
            FieldType::Object => "an object",
            FieldType::Array => "an array",
            FieldType::Enum => "one of the allowed values",
        }
    }
}

/// One request field: its name, type and constraints.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    /// The JSON field name, e.g. `sort_type`.
    pub field: String,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: FieldType,
    /// Allowed values, for enums.
    #[serde(default)]
    pub values: Vec<String>,
    /// Whether JSON null is accepted.
    #[serde(default)]
    pub nullable: bool,
    /// Whether the field must be present.
    #[serde(default)]
    pub required: bool,
    /// For strings: whether an empty or whitespace-only value is rejected.
    #[serde(default)]
    pub non_empty: bool,
    /// The value an omitted field means (one of `values` for enums). Requests
    /// and continuation tokens are compared with defaults filled in.
    #[serde(default)]
    pub default: Option<String>,
    /// For strings: the most characters (Unicode code points) accepted; a
    /// longer value is refused at once with 400, before the plugin runs.
    #[serde(default)]
    pub max_length: Option<usize>,
    /// For integers and numbers: the smallest value accepted.
    #[serde(default)]
    pub min: Option<i64>,
    /// For integers and numbers: the largest value accepted.
    #[serde(default)]
    pub max: Option<i64>,
    /// What the field means and which values it takes, shown in the OpenAPI
    /// document (validation is by the other keys).
    #[serde(default)]
    pub description: Option<String>,
    /// For enums: other names a request may use, each standing for one of
    /// `values`. A source's sort maps the shared names ([`SHARED_SORTS`])
    /// it can serve onto its site's own values.
    #[serde(default)]
    pub aliases: std::collections::BTreeMap<String, String>,
}

/// The sort names every source takes where its site can sort so.
pub const SHARED_SORTS: &[&str] = &[
    "newest",
    "oldest",
    "highest_rating",
    "lowest_rating",
    "most_relevant",
];

impl FieldSpec {
    /// Whether an integer lies within `min` and `max`.
    pub fn in_bounds(&self, v: i64) -> bool {
        self.min.is_none_or(|min| v >= min) && self.max.is_none_or(|max| v <= max)
    }

    /// Whether a number lies within `min` and `max`.
    pub fn number_in_bounds(&self, v: f64) -> bool {
        v.is_finite()
            && self.min.is_none_or(|min| v >= min as f64)
            && self.max.is_none_or(|max| v <= max as f64)
    }

    /// The default as the JSON value an omitted field means: a string for
    /// strings and enums, the parsed value for booleans and integers; none when
    /// there is no default or it does not fit the type.
    pub fn default_value(&self) -> Option<serde_json::Value> {
        let text = self.default.as_deref()?;
        match self.ty {
            FieldType::String | FieldType::Enum => Some(serde_json::Value::String(text.to_owned())),
            FieldType::Boolean => text
                .trim()
                .parse::<bool>()
                .ok()
                .map(serde_json::Value::Bool),
            FieldType::Integer => text.trim().parse::<i64>().ok().map(serde_json::Value::from),
            FieldType::Number => text
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(serde_json::Value::Number),
            FieldType::Object | FieldType::Array => {
                serde_json::from_str(text)
                    .ok()
                    .filter(|v: &serde_json::Value| {
                        v.is_object() == (self.ty == FieldType::Object)
                            && (v.is_object() || v.is_array())
                    })
            }
        }
    }
}
