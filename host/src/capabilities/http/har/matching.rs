//! How a request finds its recorded exchange: the URL's parts and the body
//! in the forms it may be compared in. A recorded `[redacted]` (where the
//! recorder replaced a secret) stands for any text, so a recording with its
//! secrets scrubbed still replays the requests that carried them.

use serde_json::Value;
use url::{form_urlencoded, Url};

use crate::secrets::REDACTED;

/// The parts of a URL that must match: scheme, host, port, path and sorted query pairs.
#[derive(Debug, PartialEq)]
pub(super) struct UrlKey(String, String, Option<u16>, String, Vec<(String, String)>);

pub(super) fn url_key(raw: &str) -> Option<UrlKey> {
    let url = Url::parse(raw).ok()?;
    let mut query: Vec<_> = url.query_pairs().into_owned().collect();
    query.sort();
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    let (scheme, port, path) = (url.scheme(), url.port_or_known_default(), url.path());
    Some(UrlKey(
        scheme.to_ascii_lowercase(),
        host,
        port,
        path.to_owned(),
        query,
    ))
}

/// A request body in each form it may be compared in.
#[derive(Debug)]
pub(super) struct BodyKey {
    raw: Vec<u8>,
    json: Option<Value>,
    form: Option<Vec<(String, String)>>,
}

pub(super) fn body_key(body: Option<&[u8]>) -> BodyKey {
    const FORM_CHARS: &[u8] = b"-._~%+=&;*!'(),:/@?$[]";
    let raw = body.unwrap_or_default().to_vec();
    let json = serde_json::from_slice(&raw).ok();
    let form_char = |c: &u8| c.is_ascii_alphanumeric() || FORM_CHARS.contains(c);
    let form_like = raw.contains(&b'=') && raw.iter().all(form_char);
    let form = form_like.then(|| {
        let mut params: Vec<_> = form_urlencoded::parse(&raw).into_owned().collect();
        params.sort();
        params
    });
    BodyKey { raw, json, form }
}

/// Whether a request (`want`) matches a recorded URL: scheme, host and port
/// exactly, the path and the query values as text a recorded `[redacted]`
/// may stand in, the query as a multiset.
pub(super) fn urls_match(want: &UrlKey, recorded: &UrlKey) -> bool {
    want.0 == recorded.0
        && want.1 == recorded.1
        && want.2 == recorded.2
        && text_matches(&recorded.3, &want.3)
        && pairs_match(&want.4, &recorded.4)
}

/// Whether a request body (`want`) matches a recorded one: as JSON values if
/// both parse as JSON, as parameter multisets if both look form-urlencoded,
/// else as text.
pub(super) fn bodies_match(want: &BodyKey, recorded: &BodyKey) -> bool {
    match (&want.json, &recorded.json, &want.form, &recorded.form) {
        (Some(x), Some(y), _, _) => json_matches(y, x),
        (_, _, Some(x), Some(y)) => pairs_match(x, y),
        _ if want.raw == recorded.raw => true,
        _ => match (
            std::str::from_utf8(&recorded.raw),
            std::str::from_utf8(&want.raw),
        ) {
            (Ok(r), Ok(w)) => r.contains(REDACTED) && text_matches(r, w),
            _ => false,
        },
    }
}

/// Whether `actual` is `recorded` with each `[redacted]` standing for any text.
fn text_matches(recorded: &str, actual: &str) -> bool {
    if !recorded.contains(REDACTED) {
        return recorded == actual;
    }
    let parts: Vec<&str> = recorded.split(REDACTED).collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    if !rest.ends_with(last) {
        return false;
    }
    rest = &rest[..rest.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}

/// Name-value pairs as multisets, recorded values matching as [`text_matches`].
fn pairs_match(want: &[(String, String)], recorded: &[(String, String)]) -> bool {
    if want.len() != recorded.len() {
        return false;
    }
    let mut unused: Vec<&(String, String)> = want.iter().collect();
    // Exact values first, so a wildcard never takes the value another needs.
    let (exact, wild): (Vec<_>, Vec<_>) = recorded.iter().partition(|(_, v)| !v.contains(REDACTED));
    for (name, value) in exact.into_iter().chain(wild) {
        let Some(at) = unused
            .iter()
            .position(|(n, v)| n == name && text_matches(value, v))
        else {
            return false;
        };
        unused.swap_remove(at);
    }
    true
}

/// JSON equality, recorded strings matching as [`text_matches`].
fn json_matches(recorded: &Value, actual: &Value) -> bool {
    match (recorded, actual) {
        (Value::String(r), Value::String(a)) => text_matches(r, a),
        (Value::Array(r), Value::Array(a)) => {
            r.len() == a.len() && r.iter().zip(a).all(|(r, a)| json_matches(r, a))
        }
        (Value::Object(r), Value::Object(a)) => {
            r.len() == a.len()
                && r.iter()
                    .all(|(k, rv)| a.get(k).is_some_and(|av| json_matches(rv, av)))
        }
        (r, a) => r == a,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::ex;
    use super::super::HarReplay;
    use super::*;

    #[test]
    fn a_redacted_value_stands_for_any_text() {
        assert!(text_matches("/v1/[redacted]/reviews", "/v1/k-123/reviews"));
        assert!(!text_matches("/v1/[redacted]/reviews", "/v2/k-123/reviews"));
        assert!(text_matches("a=[redacted]&b=[redacted]", "a=1&b=2"));
        let r = HarReplay::from_exchanges(vec![
            ex(
                "GET",
                "https://h/t?client_id=c&client_secret=[redacted]&v=1",
                "",
                "url",
            ),
            ex(
                "POST",
                "https://h/token",
                "grant=x&client_secret=%5Bredacted%5D",
                "form",
            ),
            ex(
                "POST",
                "https://h/json",
                r#"{"key":"[redacted]","n":1}"#,
                "json",
            ),
            ex("POST", "https://h/raw", "secret [redacted] here", "raw"),
        ]);
        let found = |method, url, body: &str| {
            let body = Some(body.as_bytes()).filter(|b| !b.is_empty());
            r.find(method, url, body).map(|e| e.response_body)
        };
        let url = "https://h/t?v=1&client_secret=s3cr3t-value&client_id=c";
        assert_eq!(found("GET", url, ""), Some(b"url".to_vec()));
        let url = "https://h/t?v=1&client_secret=s3cr3t-value&client_id=other";
        assert_eq!(found("GET", url, ""), None, "other values still count");
        let form = found("POST", "https://h/token", "client_secret=abc&grant=x");
        assert_eq!(form, Some(b"form".to_vec()));
        let json = found("POST", "https://h/json", r#"{"n":1,"key":"k"}"#);
        assert_eq!(json, Some(b"json".to_vec()));
        let raw = found("POST", "https://h/raw", "secret xyz here");
        assert_eq!(raw, Some(b"raw".to_vec()));
        assert_eq!(found("POST", "https://h/raw", "secret xyz there"), None);
    }

    #[test]
    fn matching_rules() {
        let r = HarReplay::from_exchanges(vec![
            ex("GET", "http://example.com:80/a/b?x=1&x=2&y=%41", "", "url"),
            ex("POST", "https://h/json", r#"{"a":1,"b":[1,2]}"#, "json"),
            ex("POST", "https://h/form", "a=1&b=two+words", "form"),
            ex("PUT", "https://h/raw", "plain text", "raw"),
        ]);
        let u = "http://example.com/a/b?x=1&x=2&y=A";
        let cases = [
            ("GET", "HTTP://EXAMPLE.com/a/b?y=A&x=2&x=1", "", Some("url")),
            ("get", u, "", Some("url")),
            ("GET", "http://example.com/a/b?x=1&y=A", "", None), // query is a multiset
            ("GET", "http://example.com/A/b?x=1&x=2&y=A", "", None),
            ("GET", "https://example.com/a/b?x=1&x=2&y=A", "", None),
            ("GET", "http://example.com:8080/a/b?x=1&x=2&y=A", "", None),
            ("POST", u, "", None),
            ("GET", u, "z", None),
            (
                "POST",
                "https://h/json",
                r#"{ "b": [1, 2], "a": 1 }"#,
                Some("json"),
            ),
            ("POST", "https://h/json", r#"{"a":1,"b":[2,1]}"#, None),
            ("POST", "https://h/form", "b=two%20words&a=1", Some("form")),
            ("POST", "https://h/form", "a=1", None),
            ("POST", "https://h/form", "", None),
            ("PUT", "https://h/raw", "plain text", Some("raw")),
            ("PUT", "https://h/raw", "plain  text", None),
        ];
        for (method, url, body, want) in cases {
            let body = Some(body.as_bytes()).filter(|b| !b.is_empty());
            let got = r.find(method, url, body).map(|e| e.response_body);
            assert_eq!(
                got,
                want.map(|w| w.as_bytes().to_vec()),
                "{method} {url} {body:?}"
            );
        }
        assert!(
            r.find("GET", u, Some(b"")).is_some(),
            "empty body equals no body"
        );
    }
}
