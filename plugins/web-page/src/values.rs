//! Reading schema.org values as pages write them: a property may be a
//! string, a number, an object (`{"@value": …}`, a `Person`, an
//! `ImageObject`) or an array of any of these; text may carry HTML entities.

use serde_json::Value;

/// The first value of `v` (the value itself unless it is an array); none
/// for null or an empty array.
pub fn first(v: &Value) -> Option<&Value> {
    match v {
        Value::Null => None,
        Value::Array(values) => values.iter().find(|v| !v.is_null()),
        other => Some(other),
    }
}

/// Text: a string (entities decoded, trimmed), a number written out, or an
/// object's `@value`; none when empty.
pub fn text(v: &Value) -> Option<String> {
    let out = match first(v)? {
        Value::String(s) => gleaner_sdk::entities::decode(s),
        Value::Number(n) => n.to_string(),
        Value::Object(map) => return map.get("@value").and_then(text),
        _ => return None,
    };
    let out = out.trim();
    (!out.is_empty()).then(|| out.to_owned())
}

/// A number: a JSON number, or the number a string starts with (`"4,5"`,
/// `"4.5 stars"`, `" 5 "`).
pub fn number(v: &Value) -> Option<f64> {
    match first(v)? {
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()),
        Value::String(s) => leading_number(s),
        Value::Object(map) => map.get("@value").and_then(number),
        _ => None,
    }
}

fn leading_number(s: &str) -> Option<f64> {
    let t = s.trim();
    let end = t
        .char_indices()
        .find(|(i, c)| {
            !(c.is_ascii_digit() || ((*c == '.' || *c == ',') && *i > 0) || (*c == '-' && *i == 0))
        })
        .map_or(t.len(), |(i, _)| i);
    let digits = t[..end].trim_end_matches(['.', ',']).replace(',', ".");
    digits.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// A count: a whole number at least 0 (`"1,204"` is 1204).
pub fn count(v: &Value) -> Option<u64> {
    match first(v)? {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => {
            let digits: String = s
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.' || *c == ' ')
                .filter(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        }
        Value::Object(map) => map.get("@value").and_then(count),
        _ => None,
    }
}

/// The name of a person, organisation or thing: the text itself, or an
/// object's `name` (else `givenName familyName`, else `alternateName`).
pub fn name(v: &Value) -> Option<String> {
    match first(v)? {
        Value::Object(map) => map
            .get("name")
            .and_then(text)
            .or_else(|| {
                let given = map.get("givenName").and_then(text);
                let family = map.get("familyName").and_then(text);
                match (given, family) {
                    (Some(g), Some(f)) => Some(format!("{g} {f}")),
                    (g, f) => g.or(f),
                }
            })
            .or_else(|| map.get("alternateName").and_then(text)),
        other => text(other),
    }
}

/// A URL: the text itself, or an object's `url` (else `contentUrl`, else
/// its `@id` when that is an absolute URL); only http(s).
pub fn url(v: &Value) -> Option<String> {
    let raw = match first(v)? {
        Value::Object(map) => map
            .get("url")
            .and_then(text)
            .or_else(|| map.get("contentUrl").and_then(text))
            .or_else(|| map.get("@id").and_then(text)),
        other => text(other),
    }?;
    (raw.starts_with("https://") || raw.starts_with("http://")).then_some(raw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_as_pages_write_them() {
        assert_eq!(number(&json!(4.5)), Some(4.5));
        assert_eq!(number(&json!("4,5")), Some(4.5));
        assert_eq!(number(&json!(" 5 stars")), Some(5.0));
        assert_eq!(number(&json!(["3", "4"])), Some(3.0));
        assert_eq!(number(&json!({"@value": "2"})), Some(2.0));
        assert_eq!(number(&json!("five")), None);
        assert_eq!(number(&json!("-1")), Some(-1.0));
        assert_eq!(count(&json!("1,204 reviews")), Some(1204));
        assert_eq!(count(&json!(12)), Some(12));
    }

    #[test]
    fn names_texts_and_urls() {
        assert_eq!(name(&json!("Ann")), Some("Ann".into()));
        assert_eq!(
            name(&json!({"@type": "Person", "name": " Bo "})),
            Some("Bo".into())
        );
        assert_eq!(
            name(&json!([{"givenName": "Cy", "familyName": "Dee"}])),
            Some("Cy Dee".into())
        );
        assert_eq!(
            text(&json!("It&#39;s &amp; fine")),
            Some("It's & fine".into())
        );
        assert_eq!(text(&json!("  ")), None);
        assert_eq!(
            url(&json!({"@type": "ImageObject", "url": "https://cdn.example/a.jpg"})),
            Some("https://cdn.example/a.jpg".into())
        );
        assert_eq!(url(&json!("javascript:alert(1)")), None);
    }
}
