//! RDFa Lite with the schema.org vocabulary: `vocab` names the vocabulary
//! for the elements below it, `typeof` starts an item (its `resource` is
//! the item's `@id`), and `property` gives the nearest item above a value:
//! the item the element starts, else its `content`, else its `href`, `src`
//! or `resource` URL, else `time@datetime`, else its text. Names may also
//! carry the `schema:` prefix or the full vocabulary URL; anything in
//! another vocabulary is left out.

use gleaner_sdk::html::{ElementRef, Html};
use gleaner_sdk::webpage::resolve;
use serde_json::{Map, Value};

use super::{new_item, push_property, short_name};

/// How deep elements are walked before deeper ones are left out.
const MAX_DEPTH: usize = 256;

/// The page's top-level RDFa items.
pub fn items(doc: &Html, base: &str) -> Vec<Value> {
    let mut top = Vec::new();
    walk(doc.root_element(), false, None, &mut top, base, 0);
    top
}

/// A name in scope of `schema_vocab` (whether the nearest `vocab` is
/// schema.org's): its short form, or none outside schema.org.
fn schema_name(name: &str, schema_vocab: bool) -> Option<&str> {
    let prefixed = name.contains(':');
    match (prefixed, schema_vocab) {
        (true, _) => short_name(name),
        (false, true) => Some(name),
        (false, false) => None,
    }
}

fn walk(
    el: ElementRef<'_>,
    schema_vocab: bool,
    mut current: Option<&mut Map<String, Value>>,
    top: &mut Vec<Value>,
    base: &str,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    for child in el.children().filter_map(ElementRef::wrap) {
        let attrs = child.value();
        let vocab = match attrs.attr("vocab") {
            Some(v) => v.contains("schema.org"),
            None => schema_vocab,
        };
        let properties: Vec<&str> = attrs
            .attr("property")
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|p| schema_name(p, vocab))
            .collect();
        if let Some(typeof_) = attrs.attr("typeof") {
            let types: Vec<String> = typeof_
                .split_whitespace()
                .filter_map(|t| schema_name(t, vocab))
                .map(str::to_owned)
                .collect();
            let mut item = new_item(types);
            if let Some(id) = attrs.attr("resource") {
                item.insert("@id".into(), Value::String(id.trim().to_owned()));
            }
            walk(child, vocab, Some(&mut item), top, base, depth + 1);
            let schema_item = item.contains_key("@type") || !item.is_empty();
            match current.as_deref_mut() {
                Some(parent) if !properties.is_empty() => {
                    for name in &properties {
                        push_property(parent, name, Value::Object(item.clone()));
                    }
                }
                _ if schema_item && (vocab || item.contains_key("@type")) => {
                    top.push(Value::Object(item))
                }
                _ => {}
            }
            continue;
        }
        if let Some(item) = current.as_deref_mut() {
            if !properties.is_empty() {
                let value = literal(child, base);
                for name in &properties {
                    push_property(item, name, Value::String(value.clone()));
                }
            }
        }
        walk(child, vocab, current.as_deref_mut(), top, base, depth + 1);
    }
}

/// The value of a `property` element that starts no item.
fn literal(el: ElementRef<'_>, base: &str) -> String {
    let attrs = el.value();
    if let Some(content) = attrs.attr("content") {
        return content.trim().to_owned();
    }
    for name in ["href", "src", "resource"] {
        if let Some(raw) = attrs.attr(name) {
            let raw = raw.trim();
            return resolve(base, raw).unwrap_or_else(|| raw.to_owned());
        }
    }
    if let Some(datetime) = attrs.attr("datetime") {
        return datetime.trim().to_owned();
    }
    el.text().collect::<String>().trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(html: &str) -> Vec<Value> {
        items(&Html::parse_document(html), "https://shop.example/p/1")
    }

    #[test]
    fn items_and_properties_under_the_schema_vocabulary() {
        let items = read(
            r##"<div vocab="https://schema.org/" typeof="Product" resource="#kettle">
  <span property="name">Kettle</span>
  <div property="review" typeof="Review">
    <span property="author" typeof="Person"><span property="name">Cy</span></span>
    <meta property="datePublished" content="2024-02-02">
    <div property="reviewRating" typeof="Rating"><span property="ratingValue">3</span></div>
    <a property="url" href="/r/9">link</a>
    <p property="reviewBody">Fine.</p>
  </div>
</div>
<div vocab="http://purl.org/other/" typeof="Review"><span property="name">not schema</span></div>
<div typeof="schema:Review"><span property="schema:reviewBody">prefixed</span></div>"##,
        );
        assert_eq!(items.len(), 2, "{items:?}");
        let p = &items[0];
        assert_eq!(p["@id"], "#kettle");
        assert_eq!(p["name"], "Kettle");
        let r = &p["review"];
        assert_eq!(r["@type"], "Review");
        assert_eq!(r["author"]["name"], "Cy");
        assert_eq!(r["datePublished"], "2024-02-02");
        assert_eq!(r["reviewRating"]["ratingValue"], "3");
        assert_eq!(r["url"], "https://shop.example/r/9");
        assert_eq!(r["reviewBody"], "Fine.");
        assert_eq!(items[1]["reviewBody"], "prefixed");
    }
}
