//! A local upstream on 127.0.0.1 that answers after a fixed delay, standing in
//! for a site: it serves recorded responses (a HAR replay, or Reddit's API from
//! forum-site's fixtures) and records when each request started and ended, so a
//! benchmark can tell whether a client's requests overlapped.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use gleaner::capabilities::http::har::HarReplay;
use serde_json::json;

/// A recorded answer: status, content type, body.
pub type Answer = (u16, String, Vec<u8>);

/// What answers a request: method, URL as the client meant it (its Host header
/// and path), body.
pub type Answers = Arc<dyn Fn(&str, &str, &[u8]) -> Option<Answer> + Send + Sync>;

/// One request as the upstream saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Method and path with query.
    pub request: String,
    /// When it arrived.
    pub start: Instant,
    /// When its answer was sent.
    pub end: Instant,
}

struct Shared {
    delay: Duration,
    answers: Answers,
    seen: Mutex<Vec<Seen>>,
}

/// A running upstream; it stops with the benchmark process.
#[derive(Clone)]
pub struct Upstream {
    /// Where it listens.
    pub addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Upstream {
    /// Starts an upstream answering from `answers` after `delay`.
    pub async fn start(delay: Duration, answers: Answers) -> anyhow::Result<Upstream> {
        let shared = Arc::new(Shared {
            delay,
            answers,
            seen: Mutex::new(Vec::new()),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let router = axum::Router::new()
            .fallback(answer)
            .with_state(shared.clone());
        tokio::spawn(async move { axum::serve(listener, router).await });
        Ok(Upstream { addr, shared })
    }

    /// Its base URL, `http://127.0.0.1:<port>`.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Forgets the requests seen so far.
    pub fn clear(&self) {
        self.shared
            .seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// The requests seen since the last [`Upstream::clear`], in arrival order.
    pub fn seen(&self) -> Vec<Seen> {
        let mut seen = self
            .shared
            .seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        seen.sort_by_key(|s| s.start);
        seen
    }
}

/// The most requests that were in flight at once among `seen`.
pub fn max_in_flight(seen: &[Seen]) -> usize {
    let mut events: Vec<(Instant, i32)> = seen
        .iter()
        .flat_map(|s| [(s.start, 1), (s.end, -1)])
        .collect();
    // Ends before starts at the same instant: touching is not overlapping.
    events.sort();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, step) in events {
        now += step;
        most = most.max(now);
    }
    most as usize
}

async fn answer(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let start = Instant::now();
    let (parts, body) = request.into_parts();
    let body: Bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let host = parts
        .headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost")
        .to_owned();
    let path = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "/".into());
    let url = format!("https://{host}{path}");
    let found = (shared.answers)(parts.method.as_str(), &url, &body);
    tokio::time::sleep(shared.delay.saturating_sub(start.elapsed())).await;
    let mut response = match found {
        Some((status, content_type, body)) => {
            let mut r = Response::new(Body::from(body));
            *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            if let Ok(v) = HeaderValue::from_str(&content_type) {
                r.headers_mut().insert("content-type", v);
            }
            r
        }
        None => {
            let mut r = Response::new(Body::from(format!("no recording of {url}")));
            *r.status_mut() = StatusCode::NOT_FOUND;
            r
        }
    };
    response
        .headers_mut()
        .insert("cache-control", HeaderValue::from_static("no-store"));
    shared
        .seen
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Seen {
            request: format!("{} {path}", parts.method),
            start,
            end: Instant::now(),
        });
    response
}

/// Answers from the recordings in a HAR file or directory.
pub fn har(path: &Path) -> anyhow::Result<Answers> {
    let replay = HarReplay::load(path)?;
    Ok(Arc::new(move |method: &str, url: &str, body: &[u8]| {
        let body = (!body.is_empty()).then_some(body);
        let e = replay.find(method, url, body)?;
        let content_type = e
            .response_headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| "text/html".into());
        Some((e.status, content_type, e.response_body))
    }))
}

/// Reddit's API as both forum-site and PRAW call it (the public `.json` paths
/// and the OAuth ones, and the token endpoint), answered with forum-site's
/// recorded post, community and author from `samples`.
pub fn reddit(samples: &Path) -> anyhow::Result<Answers> {
    let read = |f: &str| std::fs::read(samples.join(f));
    let post = read("post_with_comments_2022.json")?;
    let community = read("subreddit_about_2023.json")?;
    let author = read("user_about_2025.json")?;
    let token = json!({"access_token": "bench-token", "token_type": "bearer", "expires_in": 3600, "scope": "*"})
        .to_string()
        .into_bytes();
    Ok(Arc::new(move |_method: &str, url: &str, _body: &[u8]| {
        let path = url
            .split_once("://")
            .and_then(|(_, rest)| rest.split_once('/'))
            .map(|(_, path)| path)
            .unwrap_or_default();
        let path = path.split('?').next().unwrap_or_default();
        let path = path.trim_end_matches('/').trim_end_matches(".json");
        let json = |body: &Vec<u8>| Some((200, "application/json".to_owned(), body.clone()));
        if path == "api/v1/access_token" {
            json(&token)
        } else if path.starts_with("comments/") {
            json(&post)
        } else if path.starts_with("r/") && path.ends_with("/about") {
            json(&community)
        } else if path.starts_with("user/") && path.ends_with("/about") {
            json(&author)
        } else {
            None
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_requests_are_counted() {
        let t = Instant::now();
        let at = |ms: u64| t + Duration::from_millis(ms);
        let seen = |a: u64, b: u64| Seen {
            request: String::new(),
            start: at(a),
            end: at(b),
        };
        assert_eq!(max_in_flight(&[seen(0, 100), seen(100, 200)]), 1);
        assert_eq!(
            max_in_flight(&[seen(0, 100), seen(110, 210), seen(120, 220)]),
            2
        );
        assert_eq!(max_in_flight(&[]), 0);
    }
}
