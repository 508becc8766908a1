//! JSON-LD blocks: every `<script type="application/ld+json">` of the page,
//! read leniently (the errors real pages carry are forgiven by
//! [`gleaner_sdk::json::lenient`]), top-level arrays and `@graph` lists
//! flattened, and every type and property name made short
//! (`schema:reviewBody` and `http://schema.org/reviewBody` are
//! `reviewBody`). `@id` references stay as they are: [`crate::schema`]
//! resolves them.

use serde_json::{Map, Value};

use super::short_name;

/// The page's JSON-LD items.
pub fn items(html: &str) -> Vec<Value> {
    gleaner_sdk::embedded::json_ld(html)
        .into_iter()
        .map(|v| normalized(v, 0))
        .collect()
}

/// How deep a block is read; deeper values are dropped.
const MAX_DEPTH: usize = 64;

fn normalized(value: Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    match value {
        Value::Array(values) => Value::Array(
            values
                .into_iter()
                .map(|v| normalized(v, depth + 1))
                .collect(),
        ),
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, v) in map {
                if key == "@type" {
                    out.insert(key, types(v));
                    continue;
                }
                let key = match key.starts_with('@') {
                    true => key,
                    false => short_name(&key).map(str::to_owned).unwrap_or(key),
                };
                out.insert(key, normalized(v, depth + 1));
            }
            Value::Object(out)
        }
        other => other,
    }
}

fn types(value: Value) -> Value {
    let short = |v: Value| match v {
        Value::String(s) => Value::String(short_name(&s).unwrap_or(&s).to_owned()),
        other => other,
    };
    match value {
        Value::Array(values) => Value::Array(values.into_iter().map(short).collect()),
        other => short(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_are_flattened_and_names_made_short() {
        let html = r##"<html><head>
<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
  {"@type": "Product", "@id": "#p", "name": "Kettle"},
  {"@type": "schema:Review", "schema:reviewBody": "Boils fast", "itemReviewed": {"@id": "#p"},}
]}</script>
<script type="application/LD+JSON">[{"@type": ["http://schema.org/Recipe"], "name": "Soup"}]</script>
</head></html>"##;
        let items = items(html);
        assert_eq!(items.len(), 3);
        assert_eq!(items[1]["@type"], "Review");
        assert_eq!(items[1]["reviewBody"], "Boils fast");
        assert_eq!(items[1]["itemReviewed"], json!({"@id": "#p"}));
        assert_eq!(items[2]["@type"], json!(["Recipe"]));
    }
}
