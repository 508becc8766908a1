//! The one rule for what a credential is. Redirect stripping, HAR redaction and
//! log redaction all ask [`is_credential`], so a header redacted in one place is
//! never forwarded or printed in another.

use url::Url;

/// What replaces a credential's value in recordings and logs.
pub const REDACTED: &str = "[redacted]";

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
    if parsed.query().is_some() {
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(k, v)| {
                let v = if is_credential(&k) {
                    REDACTED.to_owned()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    parsed.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn urls_lose_credentials_for_logs() {
        let url = redact_url("https://u:p@api.example.com/x?page=2&apikey=abc&access_token=t");
        assert!(!url.contains("abc") && !url.contains(":p@") && !url.contains("=t"));
        assert!(url.contains("page=2"), "{url}");
    }
}
