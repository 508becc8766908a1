//! Reading JSON: typed, with the path of what does not fit; and loose values
//! (API answers, JSON-LD, embedded page state).

use serde::de::DeserializeOwned;
use serde_json::Value;

/// Where and why JSON text does not fit a type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The path of the value that does not fit (`props.reviews[3].consumer`),
    /// `.` for the whole text.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

/// The JSON value at the start of `text` read into `T` (text after it is not
/// read). It is read without tracking where it is, which costs on every
/// value; only when it does not fit is it read again to find the path.
pub fn typed<T: DeserializeOwned>(text: &str) -> Result<T, Mismatch> {
    if let Ok(value) = T::deserialize(&mut serde_json::Deserializer::from_str(text)) {
        return Ok(value);
    }
    serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(text)).map_err(|e| {
        Mismatch {
            path: e.path().to_string(),
            message: e.inner().to_string(),
        }
    })
}

/// The trimmed string at `v`, when it is a string with something in it;
/// `None` for any other value (numbers are not turned into text).
pub fn string(v: &Value) -> Option<String> {
    v.as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Like [`string`], for a field the site sends HTML-escaped (`&amp;`,
/// `&#039;`): its entities decoded once ([`crate::entities::decode`]).
pub fn escaped(v: &Value) -> Option<String> {
    string(v)
        .map(|s| crate::entities::decode(&s))
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

/// The JSON values of `text` as pages write them, forgiving the errors real
/// pages carry: a block wrapped in `<!-- -->` or CDATA markers, raw control
/// characters (line breaks, tabs) inside strings, trailing commas, a block
/// HTML-escaped as a whole (`&quot;`), and several values one after another.
/// Every value read before the first that cannot be is kept; none when the
/// first cannot be.
pub fn lenient(text: &str) -> Vec<Value> {
    let text = unwrapped(text);
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return vec![value];
    }
    let repaired = repair(text);
    let mut values = all_values(&repaired);
    if values.is_empty() && (text.contains("&quot;") || text.contains("&#34;")) {
        values = all_values(&repair(&crate::entities::decode(text)));
    }
    values
}

/// `text` without the comment or CDATA markers a script block may carry.
fn unwrapped(text: &str) -> &str {
    let mut t = text.trim();
    for (open, close) in [
        ("<!--", "-->"),
        ("//<![CDATA[", "//]]>"),
        ("<![CDATA[", "]]>"),
    ] {
        if let Some(rest) = t.strip_prefix(open) {
            t = rest.trim();
            t = t.strip_suffix(close).unwrap_or(t).trim();
        }
    }
    t
}

/// Every value of `text` in a row, up to the first that does not read.
fn all_values(text: &str) -> Vec<Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .map_while(Result::ok)
        .collect()
}

/// `text` with control characters inside strings escaped and commas before
/// a closing bracket dropped.
fn repair(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let (mut in_string, mut escaped) = (false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => {
                    escaped = false;
                    out.push(c);
                }
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            ',' => {
                let next = text[i + 1..].trim_start().chars().next();
                if !matches!(next, Some('}' | ']')) {
                    out.push(c);
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lenient_reads_what_pages_write() {
        let one = |t: &str| lenient(t).into_iter().next();
        assert_eq!(one(r#"{"a": 1}"#), Some(json!({"a": 1})));
        assert_eq!(
            one("{\"a\": \"two\nlines\tand tab\"}"),
            Some(json!({"a": "two\nlines\tand tab"}))
        );
        assert_eq!(
            one(r#"{"a": [1, 2,], "b": {"c": 3, }, }"#),
            Some(json!({"a": [1, 2], "b": {"c": 3}}))
        );
        assert_eq!(one(r#"{"a": "x, }"}"#), Some(json!({"a": "x, }"})));
        assert_eq!(one("<!-- {\"a\": 1} -->"), Some(json!({"a": 1})));
        assert_eq!(one("//<![CDATA[\n{\"a\": 1}\n//]]>"), Some(json!({"a": 1})));
        assert_eq!(
            one("{&quot;a&quot;: &quot;b&quot;}"),
            Some(json!({"a": "b"}))
        );
        assert_eq!(lenient(r#"{"a": 1}{"b": 2} {"c": 3}"#).len(), 3);
        assert!(lenient("{not json").is_empty());
        assert!(lenient("").is_empty());
    }

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Page {
        reviews: Vec<Review>,
    }

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Review {
        stars: u8,
    }

    #[test]
    fn typed_reads_what_fits_and_names_the_path_of_what_does_not() {
        assert_eq!(
            typed::<Page>(r#"{"reviews": [{"stars": 5}], "other": 1} ;"#),
            Ok(Page {
                reviews: vec![Review { stars: 5 }]
            })
        );
        let mismatch = typed::<Page>(r#"{"reviews": [{"stars": 5}, {"stars": "x"}]}"#).unwrap_err();
        assert_eq!(mismatch.path, "reviews[1].stars");
        assert!(mismatch.message.contains("invalid type"), "{mismatch:?}");
        assert_eq!(typed::<Page>("not json").unwrap_err().path, ".");
    }

    #[test]
    fn reads_trimmed_non_empty_strings_only() {
        assert_eq!(string(&json!("  Anna K. ")).as_deref(), Some("Anna K."));
        assert_eq!(string(&json!(" \n ")), None);
        assert_eq!(string(&json!("")), None);
        assert_eq!(string(&json!(5)), None);
        assert_eq!(string(&Value::Null), None);
        let v = json!({"author": {"name": "kit"}});
        assert_eq!(string(&v["author"]["name"]).as_deref(), Some("kit"));
        assert_eq!(string(&v["missing"]["name"]), None);
    }

    #[test]
    fn escaped_strings_are_decoded_once() {
        assert_eq!(
            escaped(&json!(" up &amp; down, wouldn&#039;t &amp;lt;3 ")).as_deref(),
            Some("up & down, wouldn't &lt;3")
        );
        assert_eq!(escaped(&json!("&#32;")), None);
        assert_eq!(escaped(&json!(5)), None);
    }
}
