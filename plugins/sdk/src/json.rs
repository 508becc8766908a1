//! Reading loose JSON values (API answers, JSON-LD, embedded page state).

use serde_json::Value;

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
