//! RDFa Lite with the schema.org vocabulary: `vocab` names the vocabulary
//! for the elements below it, `typeof` starts an item (its `resource` is
//! the item's `@id`), and `property` gives the nearest item above a value:
//! the item the element starts, else its `content`, else its `href`, `src`
//! or `resource` URL, else `time@datetime`, else its text. Names may also
//! carry the `schema:` prefix, a prefix the page declares for schema.org
//! (`prefix`, or `xmlns:` as RDFa 1.1 allows), or the full vocabulary URL;
//! anything in another vocabulary is left out.

use gleaner_sdk::html::{ElementRef, Html};
use gleaner_sdk::webpage::resolve;
use serde_json::{Map, Value};

use super::{new_item, push_property, short_name};

/// How deep elements are walked before deeper ones are left out.
const MAX_DEPTH: usize = 256;

/// The page's top-level RDFa items.
pub fn items(doc: &Html, base: &str) -> Vec<Value> {
    let mut top = Vec::new();
    walk(
        doc.root_element(),
        &Scope::default(),
        None,
        &mut top,
        base,
        0,
    );
    top
}

/// What is in scope at an element: whether the nearest `vocab` is
/// schema.org's, and the prefixes that stand for schema.org (declared by
/// `prefix="v: http://schema.org/"` or `xmlns:v="http://schema.org/"`;
/// `schema:` always does).
#[derive(Debug, Clone, Default)]
struct Scope {
    schema_vocab: bool,
    schema_prefixes: Vec<String>,
}

fn is_schema_iri(iri: &str) -> bool {
    let iri = iri.trim().trim_end_matches(['/', '#']);
    matches!(
        iri,
        "http://schema.org"
            | "https://schema.org"
            | "http://www.schema.org"
            | "https://www.schema.org"
    )
}

impl Scope {
    /// The scope below `el`.
    fn below(&self, el: ElementRef<'_>) -> Scope {
        let attrs = el.value();
        let mut scope = self.clone();
        if let Some(vocab) = attrs.attr("vocab") {
            scope.schema_vocab = is_schema_iri(vocab);
        }
        if let Some(prefixes) = attrs.attr("prefix") {
            let words: Vec<&str> = prefixes.split_whitespace().collect();
            for pair in words.chunks(2) {
                if let [name, iri] = pair {
                    let name = name.trim_end_matches(':');
                    scope.schema_prefixes.retain(|p| p != name);
                    if is_schema_iri(iri) {
                        scope.schema_prefixes.push(name.to_owned());
                    }
                }
            }
        }
        for (name, iri) in attrs.attrs() {
            if let Some(prefix) = name.strip_prefix("xmlns:") {
                scope.schema_prefixes.retain(|p| p != prefix);
                if is_schema_iri(iri) {
                    scope.schema_prefixes.push(prefix.to_owned());
                }
            }
        }
        scope
    }

    /// A name's short form, or none outside schema.org.
    fn name<'a>(&self, name: &'a str) -> Option<&'a str> {
        match name.split_once(':') {
            Some((prefix, local))
                if self.schema_prefixes.iter().any(|p| p == prefix) && !local.starts_with("//") =>
            {
                Some(local)
            }
            Some(_) => short_name(name),
            None => self.schema_vocab.then_some(name),
        }
    }
}

fn walk(
    el: ElementRef<'_>,
    scope: &Scope,
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
        let inner = scope.below(child);
        let properties: Vec<&str> = attrs
            .attr("property")
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|p| inner.name(p))
            .collect();
        if let Some(typeof_) = attrs.attr("typeof") {
            let types: Vec<String> = typeof_
                .split_whitespace()
                .filter_map(|t| inner.name(t))
                .map(str::to_owned)
                .collect();
            let mut item = new_item(types);
            if let Some(id) = attrs.attr("resource") {
                item.insert("@id".into(), Value::String(id.trim().to_owned()));
            }
            walk(child, &inner, Some(&mut item), top, base, depth + 1);
            let schema_item = item.contains_key("@type") || !item.is_empty();
            match current.as_deref_mut() {
                Some(parent) if !properties.is_empty() => {
                    for name in &properties {
                        push_property(parent, name, Value::Object(item.clone()));
                    }
                }
                _ if schema_item && (inner.schema_vocab || item.contains_key("@type")) => {
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
        walk(child, &inner, current.as_deref_mut(), top, base, depth + 1);
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
<div typeof="schema:Review"><span property="schema:reviewBody">prefixed</span></div>
<div xmlns:v="http://schema.org/" typeof="v:Review"><span property="v:author">Ulla</span></div>
<div prefix="s: https://schema.org/" typeof="s:Review"><span property="s:name">Declared</span></div>"##,
        );
        assert_eq!(items.len(), 4, "{items:?}");
        assert_eq!(items[2]["author"], "Ulla");
        assert_eq!(items[3]["name"], "Declared");
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
