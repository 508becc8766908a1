//! The structured data of a page, in the three syntaxes schema.org is
//! written in, read into one form: each item a JSON object with its types
//! under `@type` (short names, `Review` for `https://schema.org/Review`) and
//! each property's value a string, a nested item, or an array of them when
//! the property is given more than once. JSON-LD is already that form;
//! [`microdata`] and [`rdfa`] build it from the DOM.

pub mod jsonld;
pub mod microdata;
pub mod rdfa;

use serde_json::{Map, Value};

/// The syntax an item was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// `<script type="application/ld+json">` blocks.
    JsonLd,
    /// `itemscope`, `itemtype`, `itemprop` attributes.
    Microdata,
    /// RDFa Lite: `vocab`, `typeof`, `property` attributes.
    Rdfa,
}

impl Syntax {
    /// The name answers use.
    pub fn name(self) -> &'static str {
        match self {
            Syntax::JsonLd => "json-ld",
            Syntax::Microdata => "microdata",
            Syntax::Rdfa => "rdfa",
        }
    }
}

/// The top-level items of a page, per syntax.
#[derive(Debug, Default)]
pub struct Markup {
    /// Items of every syntax, each with the syntax it came from.
    pub items: Vec<(Syntax, Value)>,
}

/// Reads every syntax of `html` (a page at `base_url`, parsed as `doc`).
pub fn read(html: &str, doc: &gleaner_sdk::html::Html, base_url: &str) -> Markup {
    let mut items: Vec<(Syntax, Value)> = jsonld::items(html)
        .into_iter()
        .map(|v| (Syntax::JsonLd, v))
        .collect();
    items.extend(
        microdata::items(doc, base_url)
            .into_iter()
            .map(|v| (Syntax::Microdata, v)),
    );
    items.extend(
        rdfa::items(doc, base_url)
            .into_iter()
            .map(|v| (Syntax::Rdfa, v)),
    );
    Markup { items }
}

/// A schema.org type or property name without its vocabulary
/// (`https://schema.org/Review`, `http://schema.org/Review`, `schema:Review`
/// and `Review` are all `Review`); none for another vocabulary's.
pub fn short_name(name: &str) -> Option<&str> {
    let name = name.trim();
    for prefix in [
        "https://schema.org/",
        "http://schema.org/",
        "https://www.schema.org/",
        "http://www.schema.org/",
        "schema:",
    ] {
        if let Some(rest) = name.strip_prefix(prefix) {
            return Some(rest.trim_matches('/'));
        }
    }
    (!name.contains(':') && !name.contains('/') && !name.is_empty()).then_some(name)
}

/// Adds `value` to `item`'s `property`: the value itself the first time, an
/// array of every value after.
pub fn push_property(item: &mut Map<String, Value>, property: &str, value: Value) {
    match item.get_mut(property) {
        None => {
            item.insert(property.to_owned(), value);
        }
        Some(Value::Array(values)) => values.push(value),
        Some(first) => {
            let first = first.take();
            item.insert(property.to_owned(), Value::Array(vec![first, value]));
        }
    }
}

/// An item of `types` (short names), with no properties yet.
pub fn new_item(types: Vec<String>) -> Map<String, Value> {
    let mut item = Map::new();
    match types.len() {
        0 => {}
        1 => {
            item.insert("@type".into(), Value::String(types[0].clone()));
        }
        _ => {
            item.insert(
                "@type".into(),
                Value::Array(types.into_iter().map(Value::String).collect()),
            );
        }
    }
    item
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_lose_their_vocabulary() {
        assert_eq!(short_name("https://schema.org/Review"), Some("Review"));
        assert_eq!(short_name("http://schema.org/Review/"), Some("Review"));
        assert_eq!(short_name("schema:UserReview"), Some("UserReview"));
        assert_eq!(short_name("Review"), Some("Review"));
        assert_eq!(short_name("http://purl.org/stuff/rev#Review"), None);
        assert_eq!(short_name("og:title"), None);
    }

    #[test]
    fn a_property_given_twice_is_an_array() {
        let mut item = new_item(vec!["Product".into()]);
        push_property(&mut item, "review", json!("a"));
        push_property(&mut item, "review", json!("b"));
        push_property(&mut item, "review", json!("c"));
        assert_eq!(
            Value::Object(item),
            json!({"@type": "Product", "review": ["a", "b", "c"]})
        );
    }
}
