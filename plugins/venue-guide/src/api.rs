//! The Foursquare API: which version the configured credentials open, the
//! request URLs, and every way an answer can fail, mapped to a [`FetchError`]
//! that says what to do. Credentials never appear in a message.

use gleaner_sdk::botwall;
use gleaner_sdk::http::{encode_component, Response};
use gleaner_sdk::FetchError;
use serde_json::Value;

/// Every endpoint the plugin calls, in one place.
pub mod endpoint {
    /// v2: a venue's tips (`sort=recent|popular`, `limit<=500`, `offset`).
    pub const V2_VENUE_TIPS: &str = "https://api.foursquare.com/v2/venues/{id}/tips";
    /// v2: one tip, naming its venue.
    pub const V2_TIP: &str = "https://api.foursquare.com/v2/tips/{id}";
    /// v3 Places API: a place's tips (`sort=NEWEST|POPULAR`, `limit<=50`, `offset`).
    pub const V3_PLACE_TIPS: &str = "https://api.foursquare.com/v3/places/{id}/tips";
    /// The public venue page, given as the resolved URL.
    pub const VENUE_PAGE: &str = "https://foursquare.com/v/{id}";
}

/// The v2 version date used when the operator sets none.
pub const DEFAULT_VERSION_DATE: &str = "20180323";
/// Largest page each API serves.
pub const V2_MAX_LIMIT: u32 = 500;
/// Largest page of the v3 Places API.
pub const V3_MAX_LIMIT: u32 = 50;

/// The environment variable that sets a plugin setting.
pub fn env_name(key: &str) -> String {
    format!("GLEANER_PLUGIN_VENUE_GUIDE_{}", key.to_ascii_uppercase())
}

/// The API version and its credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// API v2, userless: client id and secret, plus the `v` version date.
    V2 {
        /// `client_id`.
        client_id: String,
        /// `client_secret`.
        client_secret: String,
        /// `v=YYYYMMDD`.
        version_date: String,
    },
    /// API v3 (Places API): a key sent in the `Authorization` header.
    V3 {
        /// `api_key`.
        api_key: String,
    },
}

impl Credentials {
    /// Picks the API from the settings `get` returns: v2 when both `client_id`
    /// and `client_secret` are set (v2 carries authors, avatars and the tip
    /// count), else v3 when `api_key` is set; otherwise a 502 naming the settings.
    pub fn from_settings(get: impl Fn(&str) -> Option<String>) -> Result<Credentials, FetchError> {
        let id = get("client_id");
        let secret = get("client_secret");
        let key = get("api_key");
        match (id, secret, key) {
            (Some(client_id), Some(client_secret), _) => {
                let version_date =
                    get("version_date").unwrap_or_else(|| DEFAULT_VERSION_DATE.to_owned());
                let valid = version_date.len() == 8
                    && version_date.bytes().all(|b| b.is_ascii_digit())
                    && version_date.as_str() >= "20110101";
                if !valid {
                    return Err(FetchError::Upstream(format!(
                        "the setting {} is {version_date:?}; it must be a date written YYYYMMDD (e.g. {DEFAULT_VERSION_DATE}), or left unset",
                        env_name("version_date")
                    )));
                }
                Ok(Credentials::V2 {
                    client_id,
                    client_secret,
                    version_date,
                })
            }
            (_, _, Some(api_key)) => Ok(Credentials::V3 { api_key }),
            (Some(_), None, None) => Err(FetchError::Blocked(format!(
                "Foursquare API v2 needs a client secret as well: {} is set but {} is not",
                env_name("client_id"),
                env_name("client_secret")
            ))),
            (None, Some(_), None) => Err(FetchError::Blocked(format!(
                "Foursquare API v2 needs a client id as well: {} is set but {} is not",
                env_name("client_secret"),
                env_name("client_id")
            ))),
            (None, None, None) => Err(FetchError::Blocked(format!(
                "Foursquare tips are read through the Foursquare API, which needs credentials: set {} and {} (API v2), or {} (Places API v3)",
                env_name("client_id"),
                env_name("client_secret"),
                env_name("api_key")
            ))),
        }
    }

    /// `"v2"` or `"v3"`.
    pub fn api(&self) -> &'static str {
        match self {
            Credentials::V2 { .. } => "v2",
            Credentials::V3 { .. } => "v3",
        }
    }

    /// The tips per call: the `page_size` setting within the API's maximum.
    pub fn page_size(&self, setting: Option<String>) -> Result<u32, FetchError> {
        let max = match self {
            Credentials::V2 { .. } => V2_MAX_LIMIT,
            Credentials::V3 { .. } => V3_MAX_LIMIT,
        };
        match setting {
            None => Ok(max),
            Some(s) => match s.trim().parse::<u32>() {
                Ok(n) if (1..=V2_MAX_LIMIT).contains(&n) => Ok(n.min(max)),
                _ => Err(FetchError::Upstream(format!(
                    "the setting {} is {s:?}; it must be a number from 1 to {V2_MAX_LIMIT}, or left unset",
                    env_name("page_size")
                ))),
            },
        }
    }

    /// The `Authorization` header value (v3 only).
    pub fn authorization(&self) -> Option<&str> {
        match self {
            Credentials::V2 { .. } => None,
            Credentials::V3 { api_key } => Some(api_key),
        }
    }

    /// The v2 authentication and version query parameters.
    fn v2_auth(&self, version: &str) -> String {
        match self {
            Credentials::V2 {
                client_id,
                client_secret,
                ..
            } => format!(
                "v={version}&client_id={}&client_secret={}",
                encode_component(client_id),
                encode_component(client_secret)
            ),
            Credentials::V3 { .. } => String::new(),
        }
    }
}

/// v2 `venues/{id}/tips` for one page.
pub fn v2_tips_url(
    creds: &Credentials,
    version: &str,
    venue: &str,
    sort: &str,
    limit: u32,
    offset: u32,
) -> String {
    format!(
        "{}?sort={sort}&limit={limit}&offset={offset}&{}",
        endpoint::V2_VENUE_TIPS.replace("{id}", venue),
        creds.v2_auth(version)
    )
}

/// v2 `tips/{id}`.
pub fn v2_tip_url(creds: &Credentials, version: &str, tip: &str) -> String {
    format!(
        "{}?{}",
        endpoint::V2_TIP.replace("{id}", tip),
        creds.v2_auth(version)
    )
}

/// v3 `places/{id}/tips` for one page (`sort` is the request's `recent`/`popular`).
pub fn v3_tips_url(venue: &str, sort: &str, limit: u32, offset: u32) -> String {
    let sort = if sort == "popular" {
        "POPULAR"
    } else {
        "NEWEST"
    };
    format!(
        "{}?sort={sort}&limit={limit}&offset={offset}",
        endpoint::V3_PLACE_TIPS.replace("{id}", venue)
    )
}

/// The body of a v2 answer once its `meta` says it succeeded; `what` names
/// the object asked for ("venue 4b8c…", "tip 4b5e…").
pub fn v2_checked(response: &Response, what: &str) -> Result<Value, FetchError> {
    let Ok(body) = serde_json::from_slice::<Value>(&response.body) else {
        return Err(not_json(response, what));
    };
    let meta = &body["meta"];
    let Some(code) = meta["code"].as_u64() else {
        return Err(match response.status {
            200..=299 => FetchError::Upstream(format!(
                "the API answer for {what} has no `meta` block; the Foursquare API v2 format may have changed"
            )),
            status => status_error(status, what, "API v2"),
        });
    };
    let kind = meta["errorType"].as_str().unwrap_or_default();
    let detail = meta["errorDetail"]
        .as_str()
        .or(meta["errorMessage"].as_str())
        .unwrap_or("no detail given");
    if code == 200 {
        return Ok(body);
    }
    Err(v2_error(code, kind, detail, what))
}

/// The warning a successful v2 answer may carry (`errorType` `deprecated`).
pub fn v2_warning(body: &Value) -> Option<String> {
    let meta = &body["meta"];
    let kind = meta["errorType"].as_str()?;
    let detail = meta["errorDetail"].as_str().unwrap_or("no detail given");
    Some(format!("Foursquare API v2 warns ({kind}): {detail}"))
}

/// Maps a v2 `meta` error (code, `errorType`, `errorDetail`) to what to do.
pub fn v2_error(code: u64, kind: &str, detail: &str, what: &str) -> FetchError {
    let id = env_name("client_id");
    let secret = env_name("client_secret");
    let said = format!("(meta.code {code}, {kind}: {detail})");
    let lower = detail.to_ascii_lowercase();
    match (code, kind) {
        (_, "invalid_auth") | (401, _) => FetchError::Blocked(format!(
            "Foursquare refused the API v2 credentials {said}; check {id} and {secret}"
        )),
        (_, "rate_limit_exceeded") => FetchError::Blocked(format!(
            "Foursquare's hourly API rate limit is used up {said}; wait and retry later, lower the request rate, or use credentials with a higher limit"
        )),
        (_, "quota_exceeded") | (429, _) => FetchError::Blocked(format!(
            "Foursquare's daily API call quota is used up {said}; retry tomorrow or use credentials on a plan with a larger quota"
        )),
        (_, "not_authorized") | (403, _) => FetchError::Blocked(format!(
            "Foursquare does not let these credentials read {what} {said}; check the app's API access for {id}"
        )),
        (_, "param_error") | (400, _) if lower.contains("credential") || lower.contains("oauth") => {
            FetchError::Blocked(format!(
                "Foursquare wants other credentials {said}; set {id} and {secret}"
            ))
        }
        (_, "param_error") | (400, _) if lower.contains("version") || lower.contains("'v'") || lower.contains(" v ") => {
            FetchError::Upstream(format!(
                "Foursquare refused the API version date {said}; set {} to a date it accepts (YYYYMMDD)",
                env_name("version_date")
            ))
        }
        (_, "param_error") | (400, _) => FetchError::NotFound(format!(
            "Foursquare has no {what} {said}; check the venue id in the query"
        )),
        (_, "endpoint_error") | (404, _) => FetchError::NotFound(format!(
            "Foursquare has no {what} {said}"
        )),
        (409, _) => FetchError::Upstream(format!(
            "Foursquare could not complete the request for {what} as asked {said}"
        )),
        (_, "server_error") | (500..=599, _) => FetchError::Upstream(format!(
            "Foursquare's API had a server error for {what} {said}; retry later"
        )),
        _ => FetchError::Upstream(format!("Foursquare's API refused {what} {said}")),
    }
}

/// The body of a v3 answer once its status says it succeeded.
pub fn v3_checked(response: &Response, what: &str) -> Result<Value, FetchError> {
    let Ok(body) = serde_json::from_slice::<Value>(&response.body) else {
        return Err(not_json(response, what));
    };
    if response.is_success() {
        return Ok(body);
    }
    let message = body["message"].as_str().unwrap_or("no message given");
    let said = format!("(HTTP {}: {message})", response.status);
    Err(match response.status {
        401 | 403 => FetchError::Blocked(format!(
            "Foursquare refused the Places API key {said}; check {}",
            env_name("api_key")
        )),
        429 => FetchError::Blocked(format!(
            "Foursquare's Places API rate limit or quota is used up {said}; retry later or use a key on a larger plan"
        )),
        400 | 404 => FetchError::NotFound(format!(
            "Foursquare has no {what} {said}; check the venue id in the query"
        )),
        status => status_error(status, what, &format!("Places API v3 {said}")),
    })
}

/// An answer that is not JSON: a bot challenge or block page, or a changed API.
pub fn not_json(response: &Response, what: &str) -> FetchError {
    let seen = botwall::seen(response);
    let walled = botwall::detect(response).is_some();
    match response.status {
        404 | 410 => FetchError::NotFound(format!(
            "Foursquare has no {what} (HTTP {}, {seen})",
            response.status
        )),
        status if walled || matches!(status, 401 | 403 | 429 | 503) => FetchError::Blocked(format!(
            "Foursquare answered HTTP {status} with {seen} instead of API JSON for {what}; the API refused this client: retry later with slower pacing, route through another network or proxy, and check the configured credentials"
        )),
        status => FetchError::Upstream(format!(
            "Foursquare answered HTTP {status} with {seen} instead of API JSON for {what}; the API format may have changed"
        )),
    }
}

fn status_error(status: u16, what: &str, api: &str) -> FetchError {
    match status {
        401 | 403 | 429 => FetchError::Blocked(format!(
            "Foursquare {api} answered HTTP {status} for {what}; check the credentials and retry later"
        )),
        404 | 410 => FetchError::NotFound(format!(
            "Foursquare {api} has no {what} (HTTP {status})"
        )),
        _ => FetchError::Upstream(format!(
            "Foursquare {api} answered HTTP {status} for {what}; retry later"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    fn message(e: FetchError) -> String {
        match e {
            FetchError::BadQuery(m)
            | FetchError::BadCursor(m)
            | FetchError::NotFound(m)
            | FetchError::Blocked(m)
            | FetchError::Upstream(m)
            | FetchError::Timeout(m) => m,
        }
    }

    #[test]
    fn credentials_pick_the_api() {
        let both = Credentials::from_settings(settings(&[
            ("client_id", "a"),
            ("client_secret", "b"),
            ("api_key", "k"),
        ]))
        .unwrap();
        assert_eq!(both.api(), "v2");
        assert_eq!(
            both,
            Credentials::V2 {
                client_id: "a".into(),
                client_secret: "b".into(),
                version_date: DEFAULT_VERSION_DATE.into()
            }
        );
        let v3 =
            Credentials::from_settings(settings(&[("api_key", "k"), ("client_id", "a")])).unwrap();
        assert_eq!(v3.api(), "v3");
        let none = Credentials::from_settings(settings(&[])).unwrap_err();
        assert!(matches!(none, FetchError::Blocked(_)));
        let m = message(none);
        for name in [
            "GLEANER_PLUGIN_VENUE_GUIDE_CLIENT_ID",
            "GLEANER_PLUGIN_VENUE_GUIDE_CLIENT_SECRET",
            "GLEANER_PLUGIN_VENUE_GUIDE_API_KEY",
        ] {
            assert!(m.contains(name), "{m}");
        }
        let half =
            message(Credentials::from_settings(settings(&[("client_id", "a")])).unwrap_err());
        assert!(
            half.contains("GLEANER_PLUGIN_VENUE_GUIDE_CLIENT_SECRET is not"),
            "{half}"
        );
        let bad_date = Credentials::from_settings(settings(&[
            ("client_id", "a"),
            ("client_secret", "b"),
            ("version_date", "2018-03-23"),
        ]))
        .unwrap_err();
        assert!(message(bad_date).contains("GLEANER_PLUGIN_VENUE_GUIDE_VERSION_DATE"));
    }

    #[test]
    fn page_sizes() {
        let v2 =
            Credentials::from_settings(settings(&[("client_id", "a"), ("client_secret", "b")]))
                .unwrap();
        let v3 = Credentials::V3 {
            api_key: "k".into(),
        };
        assert_eq!(v2.page_size(None).unwrap(), 500);
        assert_eq!(v3.page_size(None).unwrap(), 50);
        assert_eq!(v2.page_size(Some("4".into())).unwrap(), 4);
        assert_eq!(v3.page_size(Some("200".into())).unwrap(), 50);
        assert!(v2.page_size(Some("0".into())).is_err());
        assert!(v2.page_size(Some("many".into())).is_err());
    }

    #[test]
    fn the_v3_key_goes_in_the_authorization_header() {
        let v3 = Credentials::V3 {
            api_key: "fsq3key".into(),
        };
        assert_eq!(v3.authorization(), Some("fsq3key"));
    }

    #[test]
    fn urls() {
        let v2 = Credentials::V2 {
            client_id: "id&1".into(),
            client_secret: "s".into(),
            version_date: "20180323".into(),
        };
        assert_eq!(
            v2_tips_url(&v2, "20180323", "abc", "recent", 500, 0),
            "https://api.foursquare.com/v2/venues/abc/tips?sort=recent&limit=500&offset=0&v=20180323&client_id=id%261&client_secret=s"
        );
        assert_eq!(
            v2_tip_url(&v2, "20180323", "t1"),
            "https://api.foursquare.com/v2/tips/t1?v=20180323&client_id=id%261&client_secret=s"
        );
        assert_eq!(
            v3_tips_url("abc", "popular", 50, 100),
            "https://api.foursquare.com/v3/places/abc/tips?sort=POPULAR&limit=50&offset=100"
        );
        assert!(v3_tips_url("abc", "recent", 50, 0).contains("sort=NEWEST"));
    }

    #[test]
    fn v2_errors_say_what_to_do() {
        let what = "venue x";
        assert!(matches!(
            v2_error(400, "param_error", "Value x is invalid for venue id", what),
            FetchError::NotFound(_)
        ));
        assert!(matches!(
            v2_error(404, "endpoint_error", "no", what),
            FetchError::NotFound(_)
        ));
        let auth = v2_error(401, "invalid_auth", "bad", what);
        assert!(message(auth).contains("GLEANER_PLUGIN_VENUE_GUIDE_CLIENT_SECRET"));
        let missing = v2_error(400, "param_error", "Missing access credentials.", what);
        assert!(matches!(missing, FetchError::Blocked(_)));
        let rate = v2_error(403, "rate_limit_exceeded", "Quota exceeded", what);
        assert!(matches!(&rate, FetchError::Blocked(m) if m.contains("rate limit")));
        let quota = v2_error(429, "quota_exceeded", "Quota exceeded", what);
        assert!(matches!(&quota, FetchError::Blocked(m) if m.contains("daily")));
        assert!(matches!(
            v2_error(403, "not_authorized", "no", what),
            FetchError::Blocked(_)
        ));
        assert!(matches!(
            v2_error(409, "other", "conflict", what),
            FetchError::Upstream(_)
        ));
        let server = v2_error(500, "server_error", "oops", what);
        assert!(matches!(&server, FetchError::Upstream(m) if m.contains("retry later")));
        let version = v2_error(400, "param_error", "Must provide a valid version", what);
        assert!(matches!(&version, FetchError::Upstream(m) if m.contains("VERSION_DATE")));
    }

    fn response(status: u16, content_type: &str, body: &str) -> Response {
        gleaner_sdk::testing::response(status, "https://api.foursquare.com/v2/venues/x/tips", body)
            .with_headers(&[("content-type", content_type)])
    }

    #[test]
    fn checks_v2_answers() {
        let ok = r#"{"meta":{"code":200,"errorType":"deprecated","errorDetail":"old"},"response":{"tips":{"count":0,"items":[]}}}"#;
        let json = "application/json";
        let body = v2_checked(&response(200, json, ok), "venue x").unwrap();
        assert_eq!(
            v2_warning(&body).as_deref(),
            Some("Foursquare API v2 warns (deprecated): old")
        );
        let rate = r#"{"meta":{"code":403,"errorType":"rate_limit_exceeded","errorDetail":"Quota exceeded"},"response":{}}"#;
        assert!(matches!(
            v2_checked(&response(403, json, rate), "venue x"),
            Err(FetchError::Blocked(_))
        ));
        let no_meta = v2_checked(&response(200, json, "{}"), "venue x").unwrap_err();
        assert!(message(no_meta).contains("no `meta` block"));
        let html = "<html><title>Access Denied</title>Reference #18.1</html>";
        let blocked = v2_checked(&response(403, "text/html", html), "venue x").unwrap_err();
        assert!(matches!(&blocked, FetchError::Blocked(m) if m.contains("Akamai")));
        let gone = v2_checked(&response(404, "text/html", "<p>no</p>"), "venue x").unwrap_err();
        assert!(matches!(gone, FetchError::NotFound(_)));
        let odd = v2_checked(&response(200, "text/plain", "hello"), "venue x").unwrap_err();
        assert!(matches!(&odd, FetchError::Upstream(m) if m.contains("format may have changed")));
    }

    #[test]
    fn checks_v3_answers() {
        let json = "application/json";
        assert!(v3_checked(&response(200, json, "[]"), "place x").is_ok());
        let missing = v3_checked(
            &response(404, json, r#"{"message":"Not found"}"#),
            "place x",
        );
        assert!(matches!(missing, Err(FetchError::NotFound(_))));
        let limit = v3_checked(&response(429, json, r#"{"message":"Too many"}"#), "place x");
        assert!(matches!(limit, Err(FetchError::Blocked(_))));
        let server = v3_checked(&response(500, json, r#"{"message":"oops"}"#), "place x");
        assert!(matches!(server, Err(FetchError::Upstream(_))));
    }

    #[test]
    fn names_what_answered_instead_of_json() {
        let page = |status: u16, body: &str| {
            gleaner_sdk::testing::response(
                status,
                "https://api.foursquare.com/v2/venues/x/tips",
                body,
            )
        };
        let cf = "<html><head><title>Just a moment...</title></head><body>cf_chl_opt</body></html>";
        let e = not_json(&page(403, cf), "tips");
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("Cloudflare") && m.contains("proxy")),
            "{e:?}"
        );
        let e = not_json(&page(500, "oops"), "tips");
        assert!(
            matches!(&e, FetchError::Upstream(m) if m.contains("format may have changed")),
            "{e:?}"
        );
        assert!(matches!(
            not_json(&page(404, ""), "tips"),
            FetchError::NotFound(_)
        ));
    }
}
