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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
