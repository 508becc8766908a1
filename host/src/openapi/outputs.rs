//! A processor's response schema, from its manifest's `[processor.output]`.

use serde_json::Value;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;

use super::kit::{any, typed};
use crate::manifest::{OutputField, OutputSpec, OutputType};

/// The 200 body of a processor: its declared output, or any JSON value when
/// the manifest declares none.
pub fn processor_response(output: Option<&OutputSpec>) -> RefOr<Schema> {
    match output {
        None => any()
            .description(Some(
                "The processor's JSON answer (its manifest does not declare the shape)",
            ))
            .into(),
        Some(spec) => {
            let object = object_of(&spec.fields, false);
            let text = spec.description.trim();
            if text.is_empty() {
                object.into()
            } else {
                object.description(Some(text)).into()
            }
        }
    }
}

/// A declared object (a source's `extra`): its fields, and no other.
pub fn declared_object(spec: &OutputSpec) -> RefOr<Schema> {
    let object = object_of(&spec.fields, false).additional_properties(Some(
        utoipa::openapi::schema::AdditionalProperties::<Schema>::FreeForm(false),
    ));
    let text = spec.description.trim();
    if text.is_empty() {
        object.into()
    } else {
        object.description(Some(text)).into()
    }
}

fn object_of(fields: &[OutputField], nullable: bool) -> ObjectBuilder {
    let mut object = typed(Type::Object, nullable);
    for f in fields {
        object = object.property(&f.field, value(f));
        if !f.optional {
            object = object.required(&f.field);
        }
    }
    object
}

fn value(f: &OutputField) -> RefOr<Schema> {
    let description = Some(f.description.trim()).filter(|d| !d.is_empty());
    if f.ty == OutputType::Array {
        let items: RefOr<Schema> = match f.items {
            Some(OutputType::Object) => object_of(&f.fields, false).into(),
            Some(ty) => scalar(ty, false).into(),
            None => any().into(),
        };
        let schema_type = if f.nullable {
            SchemaType::from_iter([Type::Array, Type::Null])
        } else {
            SchemaType::new(Type::Array)
        };
        return ArrayBuilder::new()
            .schema_type(schema_type)
            .items(items)
            .description(description)
            .into();
    }
    let mut schema = match f.ty {
        OutputType::Object if !f.fields.is_empty() => object_of(&f.fields, f.nullable),
        ty => scalar(ty, f.nullable),
    };
    if !f.values.is_empty() {
        let mut values: Vec<Value> = f.values.iter().cloned().map(Value::String).collect();
        if f.nullable {
            values.push(Value::Null);
        }
        schema = schema.enum_values(Some(values));
    }
    schema
        .minimum(f.min)
        .maximum(f.max)
        .max_length(f.max_length)
        .description(description)
        .into()
}

fn scalar(ty: OutputType, nullable: bool) -> ObjectBuilder {
    let ty = match ty {
        OutputType::String => Type::String,
        OutputType::Integer => Type::Integer,
        OutputType::Number => Type::Number,
        OutputType::Boolean => Type::Boolean,
        OutputType::Object => Type::Object,
        OutputType::Array => Type::Array,
        OutputType::Any => return any(),
    };
    typed(ty, nullable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_become_schemas() {
        let spec: OutputSpec = toml::from_str(
            r#"description = "d"
fields = [
    { field = "a", type = "array", items = "string" },
    { field = "b", type = "object", nullable = true, fields = [{ field = "c", type = "number", min = 0.0, max = 1.0 }] },
    { field = "e", type = "string", values = ["x"], nullable = true, optional = true, max_length = 4 },
]"#,
        )
        .unwrap();
        let s = serde_json::to_value(processor_response(Some(&spec))).unwrap();
        assert_eq!(s["description"], "d");
        assert_eq!(s["required"], serde_json::json!(["a", "b"]));
        assert_eq!(s["properties"]["a"]["items"]["type"], "string");
        assert_eq!(
            s["properties"]["b"]["type"],
            serde_json::json!(["object", "null"])
        );
        assert_eq!(s["properties"]["b"]["properties"]["c"]["maximum"], 1);
        assert_eq!(s["properties"]["e"]["enum"], serde_json::json!(["x", null]));
        assert_eq!(s["properties"]["e"]["maxLength"], 4);
        let any = serde_json::to_value(processor_response(None)).unwrap();
        assert!(any.get("type").is_none(), "{any}");
    }
}
