//! The one rule for what a credential is. Redirect stripping, HAR redaction and
//! log redaction all ask [`is_credential`], so a header redacted in one place is
//! never forwarded or printed in another.

use url::Url;

/// What replaces a credential's value in recordings and logs.
pub use crate::secrets::REDACTED;

/// Whether a header or query-parameter name carries a credential:
/// `authorization`, `proxy-authorization`, `cookie`, `set-cookie`, and any name
/// containing `api-key`, `api_key`, `apikey`, `token`, `secret`, `session`,
/// `password` or `signature` (case-insensitive).
pub fn is_credential(name: &str) -> bool {
    const EXACT: [&str; 4] = [
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
    ];
    const PARTS: [&str; 8] = [
        "api-key",
        "api_key",
        "apikey",
        "token",
        "secret",
        "session",
        "password",
        "signature",
    ];
    let name = name.trim().to_ascii_lowercase();
    EXACT.contains(&name.as_str()) || PARTS.iter().any(|part| name.contains(part))
}

/// A URL for logs: the values of credential query parameters and any user
/// information replaced.
pub fn redact_url(url: &str) -> String {
    let Ok(mut parsed) = Url::parse(url) else {
        return url.to_owned();
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        let _ = parsed.set_username(REDACTED);
        let _ = parsed.set_password(None);
    }
    if let Some(query) = parsed.query().map(str::to_owned) {
        // Rebuilt from the raw pairs, so other parameters keep their encoding.
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| {
                let name = pair.split('=').next().unwrap_or_default();
                let decoded = url::form_urlencoded::parse(name.as_bytes())
                    .next()
                    .map(|(k, _)| k.into_owned())
                    .unwrap_or_default();
                if is_credential(&decoded) {
                    format!("{name}={REDACTED}")
                } else {
                    pair.to_owned()
                }
            })
            .collect();
        parsed.set_query(Some(&pairs.join("&")));
    }
    parsed.to_string()
}

/// Whether a URL carries a credential: user information, or a query parameter
/// that [`is_credential`] names.
fn carries_credential(url: &Url) -> bool {
    !url.username().is_empty()
        || url.password().is_some()
        || url.query_pairs().any(|(k, _)| is_credential(&k))
}

/// A message with every URL in it that carries a credential redacted as
/// [`redact_url`] does; other URLs and the rest of the text are kept exactly.
/// Errors that reach clients pass through it, so a plugin that puts a secret
/// in a query string (an API's `client_secret`) never has it quoted back.
pub fn redact_urls_in(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = ["https://", "http://"]
        .iter()
        .filter_map(|scheme| rest.find(scheme))
        .min()
    {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| c.is_whitespace() || "\"'<>(){}`".contains(c))
            .unwrap_or(tail.len());
        let token = tail[..end].trim_end_matches(['.', ',', ';', ':']);
        match Url::parse(token) {
            Ok(url) if carries_credential(&url) => out.push_str(&redact_url(token)),
            _ => out.push_str(token),
        }
        rest = &tail[token.len()..];
    }
    out.push_str(rest);
    out
}

/// A `Set-Cookie` value with the cookie's value redacted and its name and
/// attributes kept: `sid=[redacted]; Path=/; HttpOnly`.
pub fn redact_set_cookie(value: &str) -> String {
    let (pair, attributes) = match value.split_once(';') {
        Some((pair, rest)) => (pair, Some(rest)),
        None => (value, None),
    };
    let name = pair.split_once('=').map_or("", |(name, _)| name.trim());
    let mut out = format!("{name}={REDACTED}");
    if let Some(rest) = attributes {
        out.push(';');
        out.push_str(rest);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_cookie_keeps_its_name_and_attributes() {
        assert_eq!(
            redact_set_cookie("sid=abc123; Path=/; HttpOnly"),
            "sid=[redacted]; Path=/; HttpOnly"
        );
        assert_eq!(redact_set_cookie("lang=en"), "lang=[redacted]");
        assert_eq!(redact_set_cookie("garbage"), "=[redacted]");
    }

    #[test]
    fn recognises_every_credential_form() {
        for name in [
            "Authorization",
            "proxy-authorization",
            "cookie",
            "Set-Cookie",
            "x-api-key",
            "X-ApiKey",
            "x-apikey",
            "api_key",
            "x-csrf-token",
            "X-Auth-Token",
            "client_secret",
            "x-session-id",
            "sessionid",
        ] {
            assert!(is_credential(name), "{name}");
        }
        for name in [
            "accept",
            "user-agent",
            "content-type",
            "x-request-id",
            "page",
        ] {
            assert!(!is_credential(name), "{name}");
        }
    }

    #[test]
    fn messages_lose_the_credentials_of_the_urls_they_quote() {
        let text = "replay miss: no recorded response for GET https://api.example.com/v2/tips?client_id=c&client_secret=s3cr3t; \
                    see https://example.com/help. (https://u:pw@h.example/x)";
        let out = redact_urls_in(text);
        assert!(!out.contains("s3cr3t") && !out.contains(":pw@"), "{out}");
        assert!(
            out.contains("client_id=c&client_secret=[redacted]; see https://example.com/help. ("),
            "{out}"
        );
        assert_eq!(redact_urls_in("no url here"), "no url here");
        assert_eq!(
            redact_urls_in("https://x.com"),
            "https://x.com",
            "untouched when clean"
        );
    }

    #[test]
    fn urls_lose_credentials_for_logs() {
        let url = redact_url("https://u:p@api.example.com/x?page=2&apikey=abc&access_token=t");
        assert!(!url.contains("abc") && !url.contains(":p@") && !url.contains("=t"));
        assert!(url.contains("page=2"), "{url}");
    }
}
