//! Request body schemas, derived from a manifest's field declarations exactly
//! as `crate::validate` enforces them: unknown fields are refused, `null`
//! counts as absent (so every optional field also takes null), required
//! strings must not be blank, enums take their listed strings (and, for a
//! value written as a number, that number), integers keep to their bounds.

use serde_json::{Number, Value};
use utoipa::openapi::schema::{AdditionalProperties, AnyOfBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;

use super::kit::{described, non_blank, typed};
use crate::manifest::{Continuation, FieldSpec, FieldType, SourceOptions};
use crate::validate::MAX_REVIEWS_TO_FETCH;

/// A closed object: fields other than the declared ones are refused.
fn closed_object() -> ObjectBuilder {
    typed(Type::Object, false)
        .additional_properties(Some(AdditionalProperties::<Schema>::FreeForm(false)))
}

fn add(object: ObjectBuilder, name: &str, schema: RefOr<Schema>, required: bool) -> ObjectBuilder {
    let object = object.property(name, schema);
    if required {
        object.required(name)
    } else {
        object
    }
}

/// The review-fetch request of a source with these options.
pub fn source_request(options: &SourceOptions) -> RefOr<Schema> {
    let mut object = closed_object().description(Some(
        "A review fetch. Unknown fields, and a field given twice, are refused with 400; null counts as absent.",
    ));
    let query = options
        .query_description
        .as_deref()
        .unwrap_or("The page URL or identifier of what to fetch the reviews of");
    object = add(object, "query", described(non_blank(false), query), true);
    object = add(
        object,
        "reviews_to_fetch",
        described(
            typed(Type::Integer, true).minimum(Some(1)).maximum(Some(MAX_REVIEWS_TO_FETCH)),
            "Exactly that many reviews, or all there are if fewer; omitted: all, or as many as fit in the time budget. Fetch more by following the continuation.",
        ),
        false,
    );
    object = add(
        object,
        "is_text_formatted",
        described(
            typed(Type::Boolean, true).default(Some(Value::Bool(options.text_formatted_default))),
            "true keeps paragraphs, line breaks and list items; false gives single-line plain text",
        ),
        false,
    );
    object = add(
        object,
        "receipts",
        described(
            typed(Type::Boolean, true).default(Some(Value::Bool(false))),
            "true gives every review a signed `receipt`: the upstream answer it was read from, the plugin, and an Ed25519 signature (GET /receipts/public-key)",
        ),
        false,
    );
    object = add(
        object,
        "insights",
        described(
            typed(Type::Boolean, true).default(Some(Value::Bool(false))),
            "true gives every review its `sentiment`, `rating_mismatch` and `keywords` from the review-insights processor (POST /features/review-insights), computed offline, and `duplicate_of`, the earlier review of the same fetch or job it nearly repeats; 400 when this server has no such plugin",
        ),
        false,
    );
    object = add(
        object,
        "sync_date",
        described(
            typed(Type::String, true).format(Some(utoipa::openapi::schema::SchemaFormat::KnownFormat(
                utoipa::openapi::schema::KnownFormat::Date,
            ))),
            "YYYY-MM-DD: only reviews posted that day (UTC, or the source's local day where `extra_information.dates_are` says so)",
        ),
        false,
    );
    object = add(
        object,
        "sync_cursor",
        described(
            typed(Type::String, true),
            "A previous answer's `sync_cursor`, with the same `query`: only reviews newer than the ones it names; a newest-first source stops at the first it names. One from another endpoint, query or server secret gets 400.",
        ),
        false,
    );
    for (spec, role) in [
        (&options.sort, "The sort order"),
        (&options.filter, "The filter"),
    ] {
        if let Some(spec) = spec {
            object = add(object, &spec.field, field(spec, role), spec.required);
        }
    }
    match options.continuation {
        Continuation::PaginationToken => {
            object = add(
                object,
                "pagination_token",
                described(
                    typed(Type::String, true),
                    "The previous response's `next_page`, with the same `query`: continues where it stopped, with no gap and no duplicate. A token that is altered, from another endpoint or query, or contradicts the request's sort, filter or sync_date gets 400.",
                ),
                false,
            );
        }
        Continuation::PaginationData => {
            object = add(object, "pagination_data", pagination_data(), false);
        }
        Continuation::None => {}
    }
    object.into()
}

/// `pagination_data`: null, `{}` (no continuation), or the previous response's object.
fn pagination_data() -> RefOr<Schema> {
    AnyOfBuilder::new()
        .item(typed(Type::Null, false))
        .item(typed(Type::Object, false).max_properties(Some(0)))
        .item(
            typed(Type::Object, false)
                .property("token", typed(Type::String, false))
                .required("token")
                .additional_properties(Some(AdditionalProperties::<Schema>::FreeForm(false))),
        )
        .description(Some(
            "The previous response's `pagination_data` object, with the same `query`: continues where it stopped, with no gap and no duplicate. A token that is altered, from another endpoint or query, or contradicts the request's sort, filter or sync_date gets 400.",
        ))
        .into()
}

/// The forum-post request.
pub fn post_request() -> RefOr<Schema> {
    let object = closed_object().description(Some(
        "A forum post or comment. Unknown fields, and a field given twice, are refused with 400; null counts as absent.",
    ));
    let object = add(
        object,
        "query",
        described(non_blank(false), "The post's or comment's URL"),
        true,
    );
    add(
        object,
        "is_text_formatted",
        described(
            typed(Type::Boolean, true).default(Some(Value::Bool(true))),
            "true keeps paragraphs, line breaks and list items; false gives single-line plain text",
        ),
        false,
    )
    .into()
}

/// A processor's request: exactly its declared fields.
pub fn processor_request(fields: &[FieldSpec]) -> RefOr<Schema> {
    let mut object = closed_object().description(Some(
        "Unknown fields, and a field given twice, are refused with 400; null counts as absent.",
    ));
    for spec in fields {
        object = add(object, &spec.field, field(spec, ""), spec.required);
    }
    object.into()
}

/// One declared field. An optional field also takes null (validation treats
/// null as absent); a required one does not.
pub fn field(spec: &FieldSpec, role: &str) -> RefOr<Schema> {
    let nullable = !spec.required;
    let default = spec.default_value();
    let mut notes: Vec<String> = Vec::new();
    match spec.description.as_deref() {
        Some(description) => notes.push(description.trim_end_matches('.').to_owned()),
        None if !role.is_empty() => notes.push(role.to_owned()),
        None => {}
    }
    if spec.ty == FieldType::Enum {
        notes.push(format!("one of {}", spec.values.join(", ")));
        if !spec.aliases.is_empty() {
            let shared: Vec<String> = spec
                .aliases
                .iter()
                .map(|(alias, value)| format!("{alias} (= {value})"))
                .collect();
            notes.push(format!("or {}", shared.join(", ")));
        }
    }
    if let Some(default) = &default {
        notes.push(format!("omitted means {default}"));
    }
    if let Some(max) = spec.max_length {
        notes.push(format!("at most {max} characters (longer: 400)"));
    }
    // The author's words stay as written; generated notes start a sentence.
    let description = (!notes.is_empty()).then(|| match spec.description {
        Some(_) => notes.join("; "),
        None => capitalised(&notes.join("; ")),
    });
    let schema = match spec.ty {
        FieldType::String if spec.non_empty => non_blank(nullable).max_length(spec.max_length),
        FieldType::String => typed(Type::String, nullable).max_length(spec.max_length),
        FieldType::Integer => typed(Type::Integer, nullable)
            .minimum(spec.min)
            .maximum(spec.max),
        FieldType::Number => typed(Type::Number, nullable)
            .minimum(spec.min)
            .maximum(spec.max),
        FieldType::Boolean => typed(Type::Boolean, nullable),
        FieldType::Object => typed(Type::Object, nullable),
        FieldType::Array => typed(Type::Array, nullable),
        FieldType::Enum => return enumeration(spec, nullable, description, default),
    };
    schema.description(description).default(default).into()
}

/// An enum: its values as strings, and a value written as a number also as
/// that number (validation accepts `5` for `"5"`), and null when optional.
/// Each `enum` keeps to one JSON type, with the numbers in an `anyOf` branch
/// of their own, because client generators refuse enums of mixed types.
fn enumeration(
    spec: &FieldSpec,
    nullable: bool,
    description: Option<String>,
    default: Option<Value>,
) -> RefOr<Schema> {
    let mut strings: Vec<Value> = spec
        .values
        .iter()
        .chain(spec.aliases.keys())
        .cloned()
        .map(Value::String)
        .collect();
    let numbers: Vec<Number> = spec
        .values
        .iter()
        .filter_map(|v| {
            serde_json::from_str::<Number>(v)
                .ok()
                .filter(|n| n.to_string() == *v)
        })
        .collect();
    if numbers.is_empty() {
        if nullable {
            strings.push(Value::Null);
        }
        return typed(Type::String, nullable)
            .enum_values(Some(strings))
            .description(description)
            .default(default)
            .into();
    }
    let number_type = if numbers.iter().all(|n| n.is_i64() || n.is_u64()) {
        Type::Integer
    } else {
        Type::Number
    };
    let numbers: Vec<Value> = numbers.into_iter().map(Value::Number).collect();
    let mut any = AnyOfBuilder::new()
        .item(typed(Type::String, false).enum_values(Some(strings)))
        .item(typed(number_type, false).enum_values(Some(numbers)));
    if nullable {
        any = any.item(typed(Type::Null, false));
    }
    any.description(description).default(default).into()
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> FieldSpec {
        toml::from_str(text).unwrap()
    }

    fn json(schema: RefOr<Schema>) -> Value {
        serde_json::to_value(schema).unwrap()
    }

    #[test]
    fn enums_take_their_strings_numbers_written_as_strings_and_null_when_optional() {
        let s = json(field(
            &spec(
                r#"field = "f"
type = "enum"
values = ["1", "x", "1.50"]"#,
            ),
            "",
        ));
        assert_eq!(
            s["anyOf"],
            serde_json::json!([
                {"type": "string", "enum": ["1", "x", "1.50"]},
                {"type": "integer", "enum": [1]},
                {"type": "null"},
            ])
        );
        assert!(s["description"]
            .as_str()
            .unwrap()
            .contains("One of 1, x, 1.50"));
        let s = json(field(
            &spec(
                r#"field = "f"
type = "enum"
values = ["a", "b"]"#,
            ),
            "",
        ));
        assert_eq!(s["enum"], serde_json::json!(["a", "b", null]));
        assert_eq!(s["type"], serde_json::json!(["string", "null"]));
        let s = json(field(
            &spec(
                r#"field = "f"
type = "enum"
values = ["a"]
required = true"#,
            ),
            "",
        ));
        assert_eq!(s["enum"], serde_json::json!(["a"]));
        assert_eq!(s["type"], "string");
    }

    #[test]
    fn bounds_defaults_and_blank_strings_are_described() {
        let s = json(field(
            &spec(
                r#"field = "n"
type = "integer"
min = 1
max = 5
default = "3""#,
            ),
            "",
        ));
        assert_eq!(s["minimum"], 1);
        assert_eq!(s["maximum"], 5);
        assert_eq!(s["default"], 3);
        assert_eq!(s["type"], serde_json::json!(["integer", "null"]));
        let s = json(field(
            &spec(
                r#"field = "q"
type = "string"
required = true
non_empty = true"#,
            ),
            "",
        ));
        assert_eq!(s["type"], "string");
        assert_eq!(s["pattern"], r"\S");
    }

    #[test]
    fn a_declared_description_leads_and_the_query_is_described_per_source() {
        let s = json(field(
            &spec(
                r#"field = "sort_type"
type = "enum"
values = ["newest", "helpful"]
default = "newest"
description = "Newest first, or most helpful first.""#,
            ),
            "The sort order",
        ));
        assert_eq!(
            s["description"],
            r#"Newest first, or most helpful first; one of newest, helpful; omitted means "newest""#
        );
        let options: SourceOptions = toml::from_str(
            r#"continuation = "none"
query_description = "A shop URL, https://shop.example/<id>""#,
        )
        .unwrap();
        let s = json(source_request(&options));
        assert_eq!(
            s["properties"]["query"]["description"],
            "A shop URL, https://shop.example/<id>"
        );
        let options: SourceOptions = toml::from_str(r#"continuation = "none""#).unwrap();
        let s = json(source_request(&options));
        assert_eq!(
            s["properties"]["query"]["description"],
            "The page URL or identifier of what to fetch the reviews of"
        );
    }
}
