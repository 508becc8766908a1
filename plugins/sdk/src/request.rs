//! What the host hands a plugin, read in one place: a processor's JSON input
//! decoded into a typed struct, and a source's page request with its filter,
//! sort and cursor. The host has already validated every field against the
//! manifest, so a plugin never checks them again.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{cursor, FetchError, PageRequest};

/// Decodes a processor's input into `T`. The error names the field, ready for
/// a `process-error::invalid-input` (which the host answers with 400).
pub fn input<T: DeserializeOwned>(json: &str) -> Result<T, String> {
    crate::json::typed(json).map_err(|e| {
        if e.path == "." {
            format!("the input is not what this processor takes: {}", e.message)
        } else {
            format!("`{}`: {}", e.path, e.message)
        }
    })
}

/// The input of a processor that works on one review's text.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ReviewTextInput {
    /// The caller's id of the review, echoed back.
    pub review_id: Option<String>,
    /// The review text (the host has checked it is a non-empty string).
    pub review_text: String,
}

/// The input of a processor that takes one `query` string (a transcript, a domain).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct QueryInput {
    /// The query (the host has checked it is a non-empty string).
    pub query: String,
}

impl PageRequest {
    /// The filter, decoded as `T`; none when the request has none.
    pub fn filter<T: DeserializeOwned>(&self) -> Result<Option<T>, FetchError> {
        match self.filter_json.as_deref() {
            None => Ok(None),
            Some(json) => serde_json::from_str(json).map(Some).map_err(|e| {
                FetchError::BadQuery(format!("the filter is not what this source takes: {e}"))
            }),
        }
    }

    /// The filter as text: a string as it is, a number or boolean written out.
    pub fn filter_text(&self) -> Option<String> {
        match self.filter::<Value>().ok()?? {
            Value::String(s) => Some(s),
            Value::Null => None,
            other => Some(other.to_string()),
        }
    }

    /// The sort, or `default` when the request names none.
    pub fn sort_or<'a>(&'a self, default: &'a str) -> &'a str {
        self.sort.as_deref().unwrap_or(default)
    }

    /// The plugin's cursor state; none on the first page.
    pub fn cursor_state<T: DeserializeOwned>(&self) -> Result<Option<T>, FetchError> {
        self.cursor.as_deref().map(cursor::decode).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Input {
        review_text: String,
        widget_type: Option<String>,
    }

    fn request(filter: Option<&str>) -> PageRequest {
        PageRequest {
            query: "q".into(),
            sort: None,
            filter_json: filter.map(str::to_owned),
            cursor: Some(cursor::encode(&7u32)),
        }
    }

    #[test]
    fn input_errors_name_the_field() {
        let e = input::<Input>(r#"{"review_text": 5}"#).unwrap_err();
        assert!(e.starts_with("`review_text`:"), "{e}");
        let e = input::<Input>("\"text\"").unwrap_err();
        assert!(e.contains("not what this processor takes"), "{e}");
        assert!(input::<Input>(r#"{"review_text": "x"}"#).is_ok());
    }

    #[test]
    fn page_requests_read_their_options() {
        assert_eq!(request(Some("5")).filter_text().as_deref(), Some("5"));
        assert_eq!(request(Some("\"3\"")).filter_text().as_deref(), Some("3"));
        assert_eq!(request(Some("null")).filter_text(), None);
        assert_eq!(request(None).filter::<bool>().unwrap(), None);
        assert_eq!(request(Some("true")).filter::<bool>().unwrap(), Some(true));
        assert_eq!(request(None).sort_or("newest"), "newest");
        assert_eq!(request(None).cursor_state::<u32>().unwrap(), Some(7));
    }
}
