//! Request validation, derived from plugin manifests. Every refusal names the
//! field and what it accepts.

use serde_json::{Map, Value};

use crate::manifest::{FieldSpec, FieldType, Kind, Manifest};
use crate::token::TokenKey;

mod source;

pub use source::{resumed, source_request, SourceRequest};

/// A validated forum-post request.
#[derive(Debug, Clone)]
pub struct PostRequest {
    /// The post or comment URL.
    pub query: String,
    /// Keep visual formatting (default true).
    pub is_text_formatted: bool,
}

/// Largest `reviews_to_fetch` accepted; larger fetches continue with the token.
pub const MAX_REVIEWS_TO_FETCH: u64 = 10_000;

/// Parses a JSON body into an object. A key given twice in one object is
/// refused: with "the last one wins" a client could not tell which value counted.
pub fn object(body: &[u8], required: &[&str]) -> Result<Map<String, Value>, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(format!(
            "the request body is empty; send a JSON object, e.g. {}",
            example(required)
        ));
    }
    match serde_json::from_slice::<unique::UniqueKeys>(body) {
        Ok(unique::UniqueKeys(Value::Object(map))) => Ok(map),
        Ok(_) => Err("the request body must be a JSON object".into()),
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            Err(format!("the request body is refused: {e}"))
        }
        Err(e) => Err(format!("the request body is not valid JSON: {e}")),
    }
}

/// An example body naming the required fields: `{"query": "..."}`.
fn example(required: &[&str]) -> String {
    let fields: Vec<String> = required
        .iter()
        .map(|f| format!("\"{f}\": \"...\""))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// JSON parsing that refuses duplicate keys at any depth.
mod unique {
    use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Value};

    /// A JSON value in which no object repeats a key.
    pub struct UniqueKeys(pub Value);

    impl<'de> Deserialize<'de> for UniqueKeys {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(UniqueVisitor).map(UniqueKeys)
        }
    }

    struct UniqueVisitor;

    impl<'de> Visitor<'de> for UniqueVisitor {
        type Value = Value;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_bool<E: Error>(self, v: bool) -> Result<Value, E> {
            Ok(Value::Bool(v))
        }
        fn visit_i64<E: Error>(self, v: i64) -> Result<Value, E> {
            Ok(v.into())
        }
        fn visit_u64<E: Error>(self, v: u64) -> Result<Value, E> {
            Ok(v.into())
        }
        fn visit_f64<E: Error>(self, v: f64) -> Result<Value, E> {
            Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
        }
        fn visit_str<E: Error>(self, v: &str) -> Result<Value, E> {
            Ok(Value::String(v.to_owned()))
        }
        fn visit_string<E: Error>(self, v: String) -> Result<Value, E> {
            Ok(Value::String(v))
        }
        fn visit_unit<E: Error>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
            let mut items = Vec::new();
            while let Some(UniqueKeys(v)) = seq.next_element()? {
                items.push(v);
            }
            Ok(Value::Array(items))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
            let mut object = Map::new();
            while let Some(key) = map.next_key::<String>()? {
                if object.contains_key(&key) {
                    return Err(A::Error::custom(format!(
                        "field `{key}` appears more than once; send each field once"
                    )));
                }
                let UniqueKeys(value) = map.next_value()?;
                object.insert(key, value);
            }
            Ok(Value::Object(object))
        }
    }
}

fn reject_unknown(map: &Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
    if let Some(unknown) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "unknown field `{unknown}`; this endpoint accepts: {}",
            allowed.join(", ")
        ));
    }
    Ok(())
}

/// Reads a required non-empty string.
fn required_string(map: &Map<String, Value>, field: &str) -> Result<String, String> {
    match map.get(field) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
        Some(Value::String(_)) => Err(format!("`{field}` is empty; give a non-empty string")),
        None | Some(Value::Null) => Err(format!("`{field}` is required (a string)")),
        Some(other) => Err(format!(
            "`{field}` must be a string, not {}",
            kind_of(other)
        )),
    }
}

fn optional_bool(map: &Map<String, Value>, field: &str, default: bool) -> Result<bool, String> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!(
            "`{field}` must be true or false, not {}",
            kind_of(other)
        )),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parses `YYYY-MM-DD`.
pub fn parse_date(s: &str) -> Result<time::Date, String> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(s.trim(), &format).map_err(|_| {
        format!("`sync_date` {s:?} is not a valid date; use YYYY-MM-DD, e.g. 2024-05-31")
    })
}

/// Validates one declared field; none when absent or null (if allowed).
pub fn field_value(map: &Map<String, Value>, spec: &FieldSpec) -> Result<Option<Value>, String> {
    let name = &spec.field;
    let value = match map.get(name.as_str()) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v),
    };
    let Some(value) = value else {
        if spec.required {
            return Err(format!("`{name}` is required ({})", expected(spec)));
        }
        return Ok(None);
    };
    let ok = match spec.ty {
        FieldType::String => value
            .as_str()
            .is_some_and(|s| !spec.non_empty || !s.trim().is_empty()),
        FieldType::Integer => value.as_i64().is_some_and(|v| spec.in_bounds(v)),
        FieldType::Number => value.as_f64().is_some_and(|v| spec.number_in_bounds(v)),
        FieldType::Boolean => value.is_boolean(),
        FieldType::Object => value.is_object(),
        FieldType::Array => value.is_array(),
        FieldType::Enum => {
            if let Some(site) = value.as_str().and_then(|s| spec.aliases.get(s)) {
                return Ok(Some(Value::String(site.clone())));
            }
            let text = match value {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            };
            text.is_some_and(|t| spec.values.contains(&t))
        }
    };
    if ok {
        return Ok(Some(value.clone()));
    }
    if spec.ty == FieldType::String && value.is_string() {
        return Err(format!("`{name}` is empty; give a non-empty string"));
    }
    if (spec.ty == FieldType::Integer && value.as_i64().is_some())
        || (spec.ty == FieldType::Number && value.is_number())
    {
        return Err(format!("`{name}` must be {}, not {value}", expected(spec)));
    }
    if spec.ty != FieldType::Enum {
        return Err(format!(
            "`{name}` must be {}, not {}",
            expected(spec),
            kind_of(value)
        ));
    }
    Err(format!(
        "`{name}` has an invalid value {value}; expected {}",
        expected(spec)
    ))
}

fn expected(spec: &FieldSpec) -> String {
    match spec.ty {
        FieldType::Integer | FieldType::Number if spec.min.is_some() || spec.max.is_some() => {
            let range = match (spec.min, spec.max) {
                (Some(min), Some(max)) => format!("from {min} to {max}"),
                (Some(min), None) => format!("of at least {min}"),
                (None, Some(max)) => format!("of at most {max}"),
                (None, None) => String::new(),
            };
            let null = if spec.nullable { ", or null" } else { "" };
            let kind = if spec.ty == FieldType::Integer {
                "an integer"
            } else {
                "a number"
            };
            format!("{kind} {range}{null}")
        }
        FieldType::Enum => {
            let mut values: Vec<String> = spec.values.iter().map(|v| format!("\"{v}\"")).collect();
            values.extend(spec.aliases.keys().map(|a| format!("\"{a}\"")));
            if spec.nullable {
                values.push("null".into());
            }
            format!("one of {}", values.join(", "))
        }
        other => other.describe().to_owned(),
    }
}

/// Validates a processor body against its declared fields; returns the object to pass on.
pub fn processor_input(fields: &[FieldSpec], body: &[u8]) -> Result<Map<String, Value>, String> {
    let required: Vec<&str> = fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.field.as_str())
        .collect();
    let map = object(body, &required)?;
    let allowed: Vec<&str> = fields.iter().map(|f| f.field.as_str()).collect();
    reject_unknown(&map, &allowed)?;
    for spec in fields {
        field_value(&map, spec)?;
    }
    Ok(map)
}

/// Checks the string fields that declare `max_length`: a longer value names
/// the field, its length and the limit.
pub fn field_lengths(fields: &[FieldSpec], map: &Map<String, Value>) -> Result<(), String> {
    for spec in fields {
        let (Some(max), Some(Value::String(text))) = (spec.max_length, map.get(&spec.field)) else {
            continue;
        };
        // Counting stops past the limit, so a huge value costs no more than a long one.
        let length = text.chars().take(max + 1).count();
        if length > max {
            return Err(format!(
                "`{}` is longer than this endpoint takes: at most {max} characters (max_length); \
                 send a shorter text, or split it and send the parts one by one",
                spec.field
            ));
        }
    }
    Ok(())
}

/// Validates a forum-post body.
pub fn post_request(body: &[u8]) -> Result<PostRequest, String> {
    let map = object(body, &["query"])?;
    reject_unknown(&map, &["query", "is_text_formatted"])?;
    Ok(PostRequest {
        query: required_string(&map, "query")?,
        is_text_formatted: optional_bool(&map, "is_text_formatted", true)?,
    })
}

/// Checks a manifest's `[example]` as the route would check the request, so
/// the example the OpenAPI document shows is one the server accepts.
pub fn manifest_example(manifest: &Manifest, example: &Map<String, Value>) -> Result<(), String> {
    let body = serde_json::to_vec(example).map_err(|e| e.to_string())?;
    match (manifest.kind, &manifest.source, &manifest.processor) {
        (Kind::Source, Some(options), _) => {
            // A throwaway key: an example carries no continuation token to check.
            let key = TokenKey::from_secret(&[0; 32]).map_err(|e| e.to_string())?;
            source_request(&key, &manifest.route, options, &body).map(drop)
        }
        (Kind::PostSource, ..) => post_request(&body).map(drop),
        (Kind::Processor, _, Some(options)) => processor_input(&options.fields, &body)
            .and_then(|map| field_lengths(&options.fields, &map)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::SourceOptions;
    use crate::token::{self, Resume};

    fn options() -> SourceOptions {
        toml::from_str(
            r#"continuation = "pagination_token"
sort = { field = "sort_type", type = "enum", values = ["-date", "date"], aliases = { newest = "-date", oldest = "date" } }
filter = { field = "filter_type", type = "boolean", nullable = true }"#,
        )
        .unwrap()
    }

    #[test]
    fn pagination_data_is_the_token_object_and_nothing_more() {
        let options: SourceOptions = toml::from_str(r#"continuation = "pagination_data""#).unwrap();
        for body in [
            &br#"{"query":"x","pagination_data":{}}"#[..],
            br#"{"query":"x","pagination_data":null}"#,
        ] {
            assert!(source_request(&key(), "/r", &options, body)
                .unwrap()
                .resume
                .is_none());
        }
        let err = source_request(
            &key(),
            "/r",
            &options,
            br#"{"query":"x","pagination_data":{"token":"t","page":2}}"#,
        )
        .unwrap_err();
        assert!(err.contains("other than `token`"), "{err}");
        let err = source_request(
            &key(),
            "/r",
            &options,
            br#"{"query":"x","pagination_data":{"page":2}}"#,
        )
        .unwrap_err();
        assert!(err.contains("with its `token`"), "{err}");
    }

    #[test]
    fn text_formatted_defaults_to_the_manifest_value() {
        let body = br#"{"query":"x"}"#;
        let r = source_request(&key(), "/r", &options(), body).unwrap();
        assert!(r.is_text_formatted);
        let mut plain = options();
        plain.text_formatted_default = false;
        let r = source_request(&key(), "/r", &plain, body).unwrap();
        assert!(!r.is_text_formatted);
        let r = source_request(
            &key(),
            "/r",
            &plain,
            br#"{"query":"x","is_text_formatted":true}"#,
        )
        .unwrap();
        assert!(r.is_text_formatted);
    }

    fn key() -> TokenKey {
        TokenKey::from_secret(&[1u8; 32]).unwrap()
    }

    fn err(body: &str) -> String {
        source_request(&key(), "/x/reviews", &options(), body.as_bytes()).unwrap_err()
    }

    #[test]
    fn integers_keep_to_their_bounds() {
        let options: SourceOptions = toml::from_str(
            r#"continuation = "pagination_token"
filter = { field = "filter_type", type = "integer", min = 1, max = 5, nullable = true }"#,
        )
        .unwrap();
        let ask = |body: &str| source_request(&key(), "/x/reviews", &options, body.as_bytes());
        assert_eq!(
            ask(r#"{"query":"q","filter_type":5}"#).unwrap().filter,
            Some(5.into())
        );
        assert_eq!(
            ask(r#"{"query":"q","filter_type":null}"#).unwrap().filter,
            None
        );
        let e = ask(r#"{"query":"q","filter_type":6}"#).unwrap_err();
        assert_eq!(
            e,
            "`filter_type` must be an integer from 1 to 5, or null, not 6"
        );
        let e = ask(r#"{"query":"q","filter_type":"5"}"#).unwrap_err();
        assert!(
            e.contains("must be an integer from 1 to 5, or null, not a string"),
            "{e}"
        );
    }

    #[test]
    fn a_typed_default_equals_the_value_it_stands_for() {
        let options: SourceOptions = toml::from_str(
            r#"continuation = "pagination_token"
filter = { field = "filter_type", type = "boolean", default = "false" }"#,
        )
        .unwrap();
        let first = source_request(&key(), "/x/reviews", &options, br#"{"query":"q"}"#).unwrap();
        assert_eq!(first.filter, Some(Value::Bool(false)));
        let resume = Resume {
            cursor: None,
            skip: 1,
            last: None,
            sort: None,
            filter: first.filter,
            sync_date: None,
            session: None,
        };
        let token = token::encode(&key(), "/x/reviews", "q", &resume);
        let same = format!(r#"{{"query":"q","filter_type":false,"pagination_token":"{token}"}}"#);
        assert!(source_request(&key(), "/x/reviews", &options, same.as_bytes()).is_ok());
        let other = format!(r#"{{"query":"q","filter_type":true,"pagination_token":"{token}"}}"#);
        let e = source_request(&key(), "/x/reviews", &options, other.as_bytes()).unwrap_err();
        assert!(e.contains("was issued for `filter_type` false"), "{e}");
    }

    #[test]
    fn a_request_resumed_at_its_token_is_the_request_sent_with_it() {
        let options = options();
        let first = br#"{"query":"q","sort_type":"newest","reviews_to_fetch":9}"#;
        let first = source_request(&key(), "/x/reviews", &options, first).unwrap();
        let resume = Resume {
            cursor: Some("page=2".into()),
            skip: 3,
            last: None,
            sort: first.sort.clone(),
            filter: Some(Value::Bool(true)),
            sync_date: None,
            session: None,
        };
        let token = token::encode(&key(), "/x/reviews", "q", &resume);
        let sent = format!(
            r#"{{"query":"q","sort_type":"newest","reviews_to_fetch":9,"pagination_token":"{token}"}}"#
        );
        let sent = source_request(&key(), "/x/reviews", &options, sent.as_bytes()).unwrap();
        let again = resumed(&key(), "/x/reviews", &options, &first, &token).unwrap();
        assert_eq!(format!("{again:?}"), format!("{sent:?}"));
        assert_eq!(
            again.resume.as_ref().unwrap().cursor.as_deref(),
            Some("page=2")
        );
        assert_eq!(again.filter, Some(Value::Bool(true)), "the token's filter");
        let e = resumed(&key(), "/x/reviews", &options, &first, "forged").unwrap_err();
        assert!(e.starts_with("`pagination_token`"), "{e}");
        let other = token::encode(&key(), "/x/reviews", "another query", &resume);
        assert!(resumed(&key(), "/x/reviews", &options, &first, &other).is_err());
    }

    #[test]
    fn accepts_a_full_request() {
        let body = r#"{"query":" https://x ","reviews_to_fetch":5,"sort_type":"-date","filter_type":true,"sync_date":"2024-02-29","is_text_formatted":false}"#;
        let r = source_request(&key(), "/x/reviews", &options(), body.as_bytes()).unwrap();
        assert_eq!(r.query, "https://x");
        assert_eq!(r.reviews_to_fetch, Some(5));
        assert_eq!(r.sort.as_deref(), Some("-date"));
        assert_eq!(r.filter, Some(Value::Bool(true)));
        assert_eq!(r.sync_date.unwrap().to_string(), "2024-02-29");
        assert!(!r.is_text_formatted);
    }

    #[test]
    fn a_shared_sort_name_stands_for_the_sites_value() {
        let body = r#"{"query":"q","sort_type":"newest"}"#;
        let r = source_request(&key(), "/x/reviews", &options(), body.as_bytes()).unwrap();
        assert_eq!(r.sort.as_deref(), Some("-date"));
        let body = r#"{"query":"q","sort_type":"oldest"}"#;
        let r = source_request(&key(), "/x/reviews", &options(), body.as_bytes()).unwrap();
        assert_eq!(r.sort.as_deref(), Some("date"));
    }

    #[test]
    fn refusals_name_the_field_and_allowed_values() {
        assert!(err(r#"{"query":"q","sort_type":"up"}"#)
            .contains(r#"`sort_type` has an invalid value "up"; expected one of "-date", "date", "newest", "oldest""#));
        assert!(
            err(r#"{"query":"q","sort_type":"highest_rating"}"#).contains(r#""newest", "oldest""#)
        );
        assert!(err(r#"{"query":"q","reviews_to_fetch":0}"#)
            .contains("`reviews_to_fetch` must be a positive integer"));
        assert!(err(r#"{"query":"q","reviews_to_fetch":-3}"#).contains("reviews_to_fetch"));
        assert!(err(r#"{"query":"q","reviews_to_fetch":"5"}"#).contains("not a string"));
        assert!(err(r#"{"query":"q","sync_date":"2024-13-01"}"#).contains("YYYY-MM-DD"));
        assert!(err(r#"{"query":"q","sync_date":"31/01/2024"}"#).contains("sync_date"));
        assert!(err(r#"{"query":"q","filter_type":"yes"}"#)
            .contains("`filter_type` must be a boolean, not a string"));
        assert!(err(r#"{"query":"q","sort":"date"}"#).contains("unknown field `sort`"));
        assert!(err(r#"{"query":""}"#).contains("`query` is empty"));
        assert!(err(r#"{"query":"q","reviews_to_fetch":10001}"#).contains("at most 10000"));
        assert!(err(r#"{"query":"a","query":"b"}"#).contains("`query` appears more than once"));
        assert!(err(r#"{"query":"q","filter_type":{"a":1,"a":2}}"#).contains("more than once"));
        assert!(err(r#"{"query":"q""#).contains("not valid JSON"));
        assert!(err(r#"{}"#).contains("`query` is required"));
        assert!(err(r#"[1]"#).contains("JSON object"));
        assert!(err(r#"{"query":"q","pagination_token":"zzz"}"#)
            .contains("`pagination_token` is corrupted"));
    }

    #[test]
    fn tokens_carry_the_original_options() {
        let resume = Resume {
            cursor: Some("2".into()),
            skip: 3,
            last: None,
            sort: Some("date".into()),
            filter: None,
            sync_date: None,
            session: None,
        };
        let token = token::encode(&key(), "/x/reviews", "q", &resume);
        let body = format!(r#"{{"query":"q","pagination_token":"{token}"}}"#);
        let r = source_request(&key(), "/x/reviews", &options(), body.as_bytes()).unwrap();
        assert_eq!(r.sort.as_deref(), Some("date"));
        assert_eq!(r.resume.unwrap().skip, 3);
        let body = format!(r#"{{"query":"q","sort_type":"-date","pagination_token":"{token}"}}"#);
        assert!(
            source_request(&key(), "/x/reviews", &options(), body.as_bytes())
                .unwrap_err()
                .contains("was issued for `sort_type`")
        );
        assert!(source_request(
            &key(),
            "/y/reviews",
            &options(),
            format!(r#"{{"query":"q","pagination_token":"{token}"}}"#).as_bytes()
        )
        .is_err());
    }

    #[test]
    fn token_options_are_validated_again() {
        let mut resume = Resume {
            cursor: None,
            skip: 0,
            last: None,
            sort: Some("sideways".into()),
            filter: None,
            sync_date: None,
            session: None,
        };
        let body = |r: &Resume| {
            let token = token::encode(&key(), "/x/reviews", "q", r);
            format!(r#"{{"query":"q","pagination_token":"{token}"}}"#)
        };
        assert!(err(&body(&resume)).contains("no longer accepts"));
        resume.sort = None;
        resume.filter = Some(Value::String("yes".into()));
        assert!(err(&body(&resume)).contains("`filter_type` must be a boolean"));
    }
}
