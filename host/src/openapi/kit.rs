//! Small builders shared by the schema modules, over utoipa's OpenAPI types.

use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, Ref, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;

/// A schema of JSON type `ty`, or of `ty` or null.
pub fn typed(ty: Type, nullable: bool) -> ObjectBuilder {
    let schema_type = if nullable {
        SchemaType::from_iter([ty, Type::Null])
    } else {
        SchemaType::new(ty)
    };
    ObjectBuilder::new().schema_type(schema_type)
}

/// A schema any JSON value matches.
pub fn any() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(SchemaType::AnyValue)
}

/// A string that is not empty nor only whitespace.
pub fn non_blank(nullable: bool) -> ObjectBuilder {
    typed(Type::String, nullable).pattern(Some(r"\S"))
}

/// A reference to `#/components/schemas/<name>`.
pub fn reference(name: &str) -> RefOr<Schema> {
    Ref::from_schema_name(name).into()
}

/// A reference to a component schema, or null.
pub fn nullable_reference(name: &str) -> RefOr<Schema> {
    AnyOfBuilder::new()
        .item(reference(name))
        .item(typed(Type::Null, false))
        .into()
}

/// An object schema with the given properties, all of them required.
pub fn record<'a>(properties: impl IntoIterator<Item = (&'a str, RefOr<Schema>)>) -> ObjectBuilder {
    let mut object = typed(Type::Object, false);
    for (name, schema) in properties {
        object = object.property(name, schema).required(name);
    }
    object
}

/// A schema with a description.
pub fn described(schema: ObjectBuilder, text: &str) -> RefOr<Schema> {
    schema.description(Some(text)).into()
}
