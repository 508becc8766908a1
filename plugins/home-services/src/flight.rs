//! The page's React Server Components flight data.
//!
//! A Next.js App Router page ships its data as `self.__next_f.push([1,"…"])`
//! script chunks; their strings, joined in page order, are one stream of rows
//! `<hex id>:<row>`. A row is JSON up to the end of its line (after an optional
//! upper-case tag such as `I` or `HL`), or a text row `<id>:T<hex byte
//! length>,<text>` whose text may hold line breaks; a JSON string `"$<id>"`
//! elsewhere refers to such a text row (React outlines long strings so).
//! Strings follow React's escapes: `"$undefined"` is an unset value, a
//! leading `$$` an escaped `$`.
//!
//! The SDK's `embedded::flight_values` reads JSON rows line by line; this
//! module also keeps the text rows, which review texts may be.

use std::collections::HashMap;

use serde_json::Value;

/// The rows of a page's flight stream.
#[derive(Debug, Default)]
pub struct Flight {
    /// JSON rows, in stream order.
    pub values: Vec<Value>,
    /// Text rows by id.
    texts: HashMap<String, String>,
}

impl Flight {
    /// Reads the flight stream of an HTML page (empty when it has none).
    pub fn from_html(html: &str) -> Flight {
        Flight::from_stream(&gleaner_sdk::embedded::flight_chunks(html).concat())
    }

    /// Reads a joined flight stream.
    pub fn from_stream(stream: &str) -> Flight {
        let mut flight = Flight::default();
        let mut rest = stream;
        while !rest.is_empty() {
            rest = flight.read_row(rest);
        }
        flight
    }

    /// Reads one row at the start of `s`; returns what follows it.
    fn read_row<'a>(&mut self, s: &'a str) -> &'a str {
        let line_end = s.find('\n').map_or(s.len(), |i| i + 1);
        let Some((id, row)) = s[..line_end].split_once(':') else {
            return &s[line_end..];
        };
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_hexdigit()) {
            return &s[line_end..];
        }
        let row_start = id.len() + 1;
        if let Some(text_row) = row.strip_prefix('T') {
            if let Some((hex, _)) = text_row.split_once(',') {
                if let Ok(len) = usize::from_str_radix(hex, 16) {
                    // After `<id>:`, the tag `T`, the hex length and the comma.
                    let start = (row_start + 1 + hex.len() + 1).min(s.len());
                    let end = (start + len).min(s.len());
                    if let Some(text) = s.get(start..end) {
                        self.texts.insert(id.to_owned(), text.to_owned());
                        return &s[end..];
                    }
                }
            }
            return &s[line_end..];
        }
        let json = row.trim_start_matches(|c: char| c.is_ascii_uppercase());
        let mut values = serde_json::Deserializer::from_str(json).into_iter::<Value>();
        if let Some(Ok(value)) = values.next() {
            self.values.push(value);
        }
        &s[line_end..]
    }

    /// The props of the first component whose `data-testid` is `test_id`.
    pub fn component(&self, test_id: &str) -> Option<&Value> {
        self.values.iter().find_map(|v| find_test_id(v, test_id))
    }

    /// A string prop, with React's escapes undone: `None` for `"$undefined"`,
    /// an empty string or a non-string; a `"$<id>"` reference replaced by its
    /// text row; a leading `$$` read as `$`.
    pub fn string(&self, value: &Value) -> Option<String> {
        let s = value.as_str()?;
        let resolved = match s.strip_prefix('$') {
            None => s.to_owned(),
            Some(rest) if rest.starts_with('$') => rest.to_owned(),
            Some(id) => self.texts.get(id)?.clone(),
        };
        Some(resolved).filter(|t| !t.trim().is_empty())
    }

    /// A number prop (`None` for `"$undefined"` and other non-numbers).
    pub fn number(value: &Value) -> Option<f64> {
        value.as_f64()
    }
}

fn find_test_id<'a>(value: &'a Value, test_id: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => {
            if map.get("data-testid").and_then(Value::as_str) == Some(test_id) {
                return Some(value);
            }
            map.values().find_map(|v| find_test_id(v, test_id))
        }
        Value::Array(items) => items.iter().find_map(|v| find_test_id(v, test_id)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_json_rows_tags_and_text_rows() {
        let stream = "0:[\"$\",\"$L1\",null,{}]\n1:I[\"chunk\",[]]\n5:T17,two lines\nof text: 1:{}\n\
                      2d:[\"$\",\"$L40\",null,{\"text\":\"$5\",\"cost\":\"$$40\",\"none\":\"$undefined\",\"data-testid\":\"reviewsList\"}]\n";
        let f = Flight::from_stream(stream);
        assert_eq!(f.values.len(), 3);
        let props = f.component("reviewsList").unwrap();
        assert_eq!(
            f.string(&props["text"]).unwrap(),
            "two lines\nof text: 1:{}"
        );
        assert_eq!(f.string(&props["cost"]).unwrap(), "$40");
        assert_eq!(f.string(&props["none"]), None);
        assert_eq!(f.string(&json!("$ff")), None, "a reference to no text row");
        assert_eq!(f.string(&json!("")), None);
        assert_eq!(Flight::number(&json!("$undefined")), None);
        assert_eq!(Flight::number(&json!(4.5)), Some(4.5));
        assert!(f.component("missing").is_none());
    }

    #[test]
    fn reassembles_chunks_split_mid_row() {
        let html = r#"<script>self.__next_f.push([1,"2d:[\"$\",\"$L40\",null,{\"a\":"])</script>
<script>self.__next_f.push([1,"1,\"data-testid\":\"reviewsList\"}]\n"])</script>"#;
        let f = Flight::from_html(html);
        assert_eq!(f.component("reviewsList").unwrap()["a"], 1);
        assert!(Flight::from_html("<html></html>").values.is_empty());
    }
}
