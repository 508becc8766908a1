//! A processor's declared response body: `[processor.output]` in its manifest.
//!
//! The declaration is plain data, like the request fields: the body is an
//! object whose fields have a type, may be null, may be absent, and may hold
//! nested fields (objects, or arrays of objects). The host does not check a
//! processor's answers against it; it describes them (the OpenAPI document is
//! built from it), so it must say what the processor really returns.
//!
//! ```toml
//! [processor.output]
//! description = "The review text in chunks"
//! fields = [
//!     { field = "review_chunck", type = "array", items = "string", description = "The chunks, in order" },
//! ]
//! ```

use serde::Deserialize;
use serde_json::{Map, Value};

/// The type of a declared output value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputType {
    /// A JSON string.
    String,
    /// A JSON whole number.
    Integer,
    /// Any JSON number.
    Number,
    /// A JSON boolean.
    Boolean,
    /// A JSON object (its `fields`, when declared).
    Object,
    /// A JSON array (of `items`).
    Array,
    /// Any JSON value.
    Any,
}

/// The body a processor answers with.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// What the body is.
    #[serde(default)]
    pub description: String,
    /// Its fields.
    #[serde(default)]
    pub fields: Vec<OutputField>,
}

/// One field of a processor's answer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputField {
    /// The JSON field name.
    pub field: String,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: OutputType,
    /// What it holds.
    #[serde(default)]
    pub description: String,
    /// Whether it may be JSON null.
    #[serde(default)]
    pub nullable: bool,
    /// Whether it may be absent (fields are always present otherwise).
    #[serde(default)]
    pub optional: bool,
    /// For strings: the only values it takes.
    #[serde(default)]
    pub values: Vec<String>,
    /// For arrays: the type of the items (`object` items take `fields`).
    #[serde(default)]
    pub items: Option<OutputType>,
    /// For objects, and arrays of objects: the fields of each object.
    #[serde(default)]
    pub fields: Vec<OutputField>,
    /// For numbers: the smallest value.
    #[serde(default)]
    pub min: Option<f64>,
    /// For numbers: the largest value.
    #[serde(default)]
    pub max: Option<f64>,
    /// For strings: the most characters (Unicode code points).
    #[serde(default)]
    pub max_length: Option<usize>,
}

impl OutputSpec {
    /// Checks the rules TOML types cannot express; the message names the field.
    pub fn check(&self) -> Result<(), String> {
        check_fields(&self.fields, "")
    }

    /// What `object` holds that the declaration does not say: keys it does
    /// not declare, declared keys missing, null where not nullable, values
    /// of another type or outside `values`; each named by its path.
    pub fn mismatches(&self, object: &Map<String, Value>) -> Vec<String> {
        let mut found = Vec::new();
        object_mismatches(&self.fields, object, "", &mut found);
        found
    }
}

fn object_mismatches(
    fields: &[OutputField],
    object: &Map<String, Value>,
    parent: &str,
    found: &mut Vec<String>,
) {
    for key in object.keys() {
        if !fields.iter().any(|f| &f.field == key) {
            found.push(format!("{parent}{key} is not declared"));
        }
    }
    for f in fields {
        let path = format!("{parent}{}", f.field);
        match object.get(&f.field) {
            None if f.optional => {}
            None => found.push(format!("{path} is missing (declare it optional)")),
            Some(v) => value_mismatches(f, f.ty, v, &path, found),
        }
    }
}

fn value_mismatches(
    f: &OutputField,
    ty: OutputType,
    v: &Value,
    path: &str,
    found: &mut Vec<String>,
) {
    let fits = match (ty, v) {
        (OutputType::Any, _) => true,
        (_, Value::Null) => f.nullable,
        (OutputType::String, Value::String(s)) => f.values.is_empty() || f.values.contains(s),
        (OutputType::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
        (OutputType::Number, Value::Number(_)) => true,
        (OutputType::Boolean, Value::Bool(_)) => true,
        (OutputType::Object, Value::Object(o)) => {
            if !f.fields.is_empty() {
                object_mismatches(&f.fields, o, &format!("{path}."), found);
            }
            true
        }
        (OutputType::Array, Value::Array(items)) => {
            let item_type = f.items.unwrap_or(OutputType::Any);
            for (i, item) in items.iter().enumerate() {
                let item_path = format!("{path}[{i}]");
                match (item_type, item) {
                    (OutputType::Object, Value::Object(o)) if !f.fields.is_empty() => {
                        object_mismatches(&f.fields, o, &format!("{item_path}."), found)
                    }
                    _ => {
                        let as_item = OutputField {
                            nullable: false,
                            values: Vec::new(),
                            fields: Vec::new(),
                            ..f.clone()
                        };
                        value_mismatches(&as_item, item_type, item, &item_path, found)
                    }
                }
            }
            true
        }
        _ => false,
    };
    if !fits {
        found.push(format!("{path} is {v}, not what is declared"));
    }
}

fn check_fields(fields: &[OutputField], parent: &str) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for f in fields {
        let path = format!("{parent}{}", f.field);
        let fail = |rule: &str| Err(format!("output field {path:?} {rule}"));
        if f.field.trim().is_empty() {
            return fail("has an empty name; give every output field a name");
        }
        if !seen.insert(f.field.as_str()) {
            return fail("is declared twice; declare each output field once");
        }
        let numeric = matches!(f.ty, OutputType::Integer | OutputType::Number);
        if !f.values.is_empty() && f.ty != OutputType::String {
            return fail("has `values`, which only string fields take");
        }
        if (f.min.is_some() || f.max.is_some()) && !numeric {
            return fail("has `min` or `max`, which only integer and number fields take");
        }
        if f.max_length.is_some() && f.ty != OutputType::String {
            return fail("has `max_length`, which only string fields take");
        }
        if f.items.is_some() != (f.ty == OutputType::Array) {
            return fail("must have `items` exactly when its type is \"array\"");
        }
        let holds_objects = f.ty == OutputType::Object || f.items == Some(OutputType::Object);
        if !f.fields.is_empty() && !holds_objects {
            return fail("has `fields`, which only objects and arrays of objects take");
        }
        check_fields(&f.fields, &format!("{path}."))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Result<(), String> {
        toml::from_str::<OutputSpec>(text)
            .map_err(|e| e.to_string())?
            .check()
    }

    #[test]
    fn accepts_nested_declarations() {
        spec(
            r#"fields = [
                { field = "a", type = "array", items = "string" },
                { field = "b", type = "object", nullable = true, fields = [
                    { field = "c", type = "number", min = 0.0, max = 1.0 },
                    { field = "d", type = "array", items = "object", fields = [{ field = "e", type = "any" }] },
                ] },
                { field = "f", type = "string", values = ["x", "y"], max_length = 3, optional = true },
            ]"#,
        )
        .unwrap();
    }

    #[test]
    fn refuses_what_a_type_does_not_take() {
        for (text, needle) in [
            (r#"fields = [{ field = "a", type = "array" }]"#, "`items`"),
            (
                r#"fields = [{ field = "a", type = "string", items = "string" }]"#,
                "`items`",
            ),
            (
                r#"fields = [{ field = "a", type = "integer", values = ["1"] }]"#,
                "`values`",
            ),
            (
                r#"fields = [{ field = "a", type = "string", min = 1.0 }]"#,
                "`min`",
            ),
            (
                r#"fields = [{ field = "a", type = "number", max_length = 2 }]"#,
                "`max_length`",
            ),
            (
                r#"fields = [{ field = "a", type = "string", fields = [{ field = "b", type = "any" }] }]"#,
                "`fields`",
            ),
            (
                r#"fields = [{ field = "a", type = "any" }, { field = "a", type = "any" }]"#,
                "twice",
            ),
            (
                r#"fields = [{ field = "o", type = "object", fields = [{ field = " ", type = "any" }] }]"#,
                "empty name",
            ),
            (
                r#"fields = [{ field = "a", type = "date" }]"#,
                "unknown variant",
            ),
        ] {
            let e = spec(text).unwrap_err();
            assert!(e.contains(needle), "{text}: {e}");
        }
        let e = spec(r#"fields = [{ field = "o", type = "object", fields = [{ field = "p", type = "string", min = 1.0 }] }]"#)
            .unwrap_err();
        assert!(e.contains("\"o.p\""), "{e}");
    }
}
