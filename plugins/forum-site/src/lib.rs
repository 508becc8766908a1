//! forum-site: a Reddit post or comment as docs/SPEC.md's post record.
//!
//! With OAuth client credentials (`client_id`, `client_secret`) it reads
//! `oauth.reddit.com`; without them, the public `.json` endpoints of
//! `www.reddit.com`, which Reddit often refuses for logged-out clients.

pub mod mapping;

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::{cache, config, log, FetchError};
use serde_json::Value;

use mapping::Target;

gleaner_sdk::export_post!(|query: String| fetch(&query).map(|record| record.to_string()));

const DEFAULT_USER_AGENT: &str = "gleaner/0.1 (review collection service)";
const TOKEN_KEY: &str = "oauth-token";

/// How to reach Reddit's API: OAuth host with a bearer token, or the public JSON.
struct Api {
    base: &'static str,
    token: Option<String>,
    user_agent: String,
}

impl Api {
    fn connect() -> Result<Api, FetchError> {
        let user_agent = config::get("user_agent").unwrap_or_else(|| DEFAULT_USER_AGENT.to_owned());
        match (config::get("client_id"), config::get("client_secret")) {
            (Some(id), Some(secret)) => Ok(Api {
                base: "https://oauth.reddit.com",
                token: Some(token(&id, &secret, &user_agent)?),
                user_agent,
            }),
            _ => Ok(Api {
                base: "https://www.reddit.com",
                token: None,
                user_agent,
            }),
        }
    }

    /// The URL for an API path; the public endpoints need `.json` on the path.
    fn url(&self, path: &str) -> String {
        if self.token.is_some() {
            return format!("{}{path}", self.base);
        }
        let (p, q) = path.split_once('?').unwrap_or((path, ""));
        format!("{}{}.json?{q}", self.base, p.trim_end_matches('/'))
    }

    fn headers(&self) -> Vec<(&str, String)> {
        let mut h = vec![
            ("user-agent", self.user_agent.clone()),
            ("accept", "application/json".into()),
        ];
        if let Some(t) = &self.token {
            h.push(("authorization", format!("bearer {t}")));
        }
        h
    }
}

fn token(id: &str, secret: &str, user_agent: &str) -> Result<String, FetchError> {
    if let Some(t) = cache::get(TOKEN_KEY) {
        return Ok(t);
    }
    use base64::Engine;
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
    let response = http::send(
        "POST",
        "https://www.reddit.com/api/v1/access_token",
        &[
            ("authorization", &format!("Basic {basic}")),
            ("content-type", "application/x-www-form-urlencoded"),
            ("user-agent", user_agent),
        ],
        Some(b"grant_type=client_credentials".to_vec()),
    )?;
    if matches!(response.status, 400 | 401 | 403) {
        return Err(FetchError::Blocked(format!(
            "Reddit refused the OAuth client credentials (HTTP {}); check client_id and client_secret",
            response.status
        )));
    }
    let body: Value = response.checked("Reddit OAuth token")?.json()?;
    let token = body["access_token"]
        .as_str()
        .ok_or_else(|| FetchError::Upstream("Reddit's token answer has no access_token".into()))?
        .to_owned();
    let ttl = body["expires_in"]
        .as_u64()
        .unwrap_or(3600)
        .saturating_sub(60) as u32;
    cache::set(TOKEN_KEY, &token, ttl);
    Ok(token)
}

fn get(api: &Api, path: &str, what: &str) -> Result<Value, FetchError> {
    let url = api.url(path);
    let headers = api.headers();
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let response = http::get(&url, &borrowed)?;
    checked(response, api, what)?.json()
}

fn checked(response: Response, api: &Api, what: &str) -> Result<Response, FetchError> {
    if response.status == 403 && api.token.is_none() {
        return Err(FetchError::Blocked(
            "Reddit answered HTTP 403: it blocks logged-out API access. Configure OAuth client credentials \
             (GLEANER_PLUGIN_FORUM_SITE_CLIENT_ID and GLEANER_PLUGIN_FORUM_SITE_CLIENT_SECRET, or \
             [plugins.forum-site] in the config file) from a Reddit app of type \"script\""
                .into(),
        ));
    }
    response.checked(what)
}

fn fetch(query: &str) -> Result<Value, FetchError> {
    let target = mapping::parse_target(query).map_err(FetchError::BadQuery)?;
    let api = Api::connect()?;
    let (post_id, comment_id) = match target {
        Target::Post {
            post_id,
            comment_id,
            ..
        } => (post_id, comment_id),
        Target::Share { url } => resolve_share(&api, &url)?,
    };
    let listing = get(
        &api,
        &mapping::comments_path(&post_id, comment_id.as_deref()),
        "Reddit post",
    )?;
    let (subreddit, author) =
        mapping::names_for_about(&listing, comment_id.as_deref()).map_err(FetchError::Upstream)?;
    let paths: Vec<Option<String>> = vec![
        subreddit.as_deref().map(mapping::subreddit_about_path),
        author.as_deref().map(mapping::user_about_path),
    ];
    let urls: Vec<String> = paths.iter().flatten().map(|p| api.url(p)).collect();
    let headers = api.headers();
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let requests: Vec<(&str, &[(&str, &str)])> = urls
        .iter()
        .map(|u| (u.as_str(), borrowed.as_slice()))
        .collect();
    let mut answers = http::get_all(&requests).into_iter();
    let mut about = |wanted: bool, what: &str| -> Option<Value> {
        if !wanted {
            return None;
        }
        let answer = answers.next()?;
        match answer
            .and_then(|r| checked(r, &api, what))
            .and_then(|r| r.json::<Value>())
        {
            Ok(v) => Some(v),
            Err(e) => {
                log::warn(&format!(
                    "{what} unavailable, its fields will be null: {e:?}"
                ));
                None
            }
        }
    };
    let subreddit_about = about(paths[0].is_some(), "subreddit about");
    let user_about = about(paths[1].is_some(), "user about");
    mapping::post_record(
        query,
        &listing,
        comment_id.as_deref(),
        subreddit_about.as_ref(),
        user_about.as_ref(),
    )
    .map_err(FetchError::Upstream)
}

/// Follows a share link's redirect to the canonical permalink.
fn resolve_share(api: &Api, url: &str) -> Result<(String, Option<String>), FetchError> {
    let response = http::get(url, &[("user-agent", &api.user_agent)])?;
    let canonical = response
        .final_url
        .split('?')
        .next()
        .unwrap_or_default()
        .to_owned();
    match mapping::parse_target(&canonical) {
        Ok(Target::Post {
            post_id,
            comment_id,
            ..
        }) => Ok((post_id, comment_id)),
        _ => Err(FetchError::Upstream(format!(
            "the share link did not lead to a post (it ended at {canonical}, HTTP {})",
            response.status
        ))),
    }
}
