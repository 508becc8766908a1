//! Cookies between the browser and the session's jar: the browser's cookies
//! (DevTools' `Cookie` objects) become `Set-Cookie` lines, the form the jar,
//! the recordings and their replay all read.

use serde_json::Value;
use url::Url;

use crate::capabilities::http::session::Session;

/// The `Set-Cookie` lines of DevTools `Cookie` objects.
pub fn lines(cookies: &Value) -> Vec<String> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let list = cookies.as_array().map(Vec::as_slice).unwrap_or_default();
    list.iter()
        .filter_map(|c| {
            let (name, value) = (c["name"].as_str()?, c["value"].as_str()?);
            let domain = c["domain"].as_str()?;
            let mut line = format!(
                "{name}={value}; Domain={domain}; Path={}",
                c["path"].as_str().unwrap_or("/")
            );
            if c["secure"] == true {
                line.push_str("; Secure");
            }
            if c["httpOnly"] == true {
                line.push_str("; HttpOnly");
            }
            let expires = c["expires"].as_f64().unwrap_or(-1.0);
            if c["session"] != true && expires > 0.0 {
                let left = (expires - now).max(0.0) as u64;
                line.push_str(&format!("; Max-Age={left}"));
            }
            Some(line)
        })
        .collect()
}

/// Stores DevTools `Cookie` objects in the session's jar.
pub fn store(session: &Session, cookies: &Value) {
    store_lines(session, &lines(cookies));
}

/// Stores `Set-Cookie` lines that each name their `Domain` in the session's jar.
pub fn store_lines(session: &Session, lines: &[String]) {
    for line in lines {
        let Some(url) = origin(line) else {
            continue;
        };
        session.store(&url, &[("set-cookie".to_owned(), line.clone())]);
    }
}

/// A URL a `Set-Cookie` line with a `Domain` attribute may be set from.
fn origin(line: &str) -> Option<Url> {
    let domain = line.split(';').skip(1).find_map(|attribute| {
        let (name, value) = attribute.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("domain")
            .then(|| value.trim().trim_start_matches('.').to_owned())
    })?;
    Url::parse(&format!("https://{domain}/")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn browser_cookies_reach_the_jar_with_their_scope() {
        let cookies = json!([
            {"name": "clearance", "value": "abc", "domain": ".shop.example", "path": "/",
             "secure": true, "httpOnly": true, "session": true, "expires": -1},
            {"name": "visitor", "value": "v1", "domain": "www.shop.example", "path": "/api",
             "secure": false, "httpOnly": false, "session": false, "expires": 4102444800.0_f64},
        ]);
        let session = Session::new();
        store(&session, &cookies);
        let api = Url::parse("https://www.shop.example/api/reviews").unwrap();
        assert_eq!(session.cookie(&api, "clearance").as_deref(), Some("abc"));
        assert_eq!(session.cookie(&api, "visitor").as_deref(), Some("v1"));
        let home = Url::parse("https://www.shop.example/").unwrap();
        assert_eq!(session.cookie(&home, "visitor"), None, "its path is /api");
        let other = Url::parse("https://elsewhere.example/").unwrap();
        assert_eq!(session.cookie(&other, "clearance"), None);
    }
}
