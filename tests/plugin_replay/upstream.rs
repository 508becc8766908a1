//! What a plugin sends upstream, for the replay cases that assert it
//! (`[[case.upstream]]`, `upstream_count`).
//!
//! The host answers replayed requests itself and keeps none of them, so such
//! a case runs on a server whose upstream hosts (every host of the plugin's
//! HAR files and the exact hosts of its manifest's `network.allow`) are
//! overridden to a local [`Upstream`]: it answers from the same HAR files with
//! the host's own matching (`HarReplay`: method, URL, body; several matching
//! entries in recording order, the last one sticking) and keeps every request
//! as it arrived, headers and body included. The requests go through the
//! host's whole network path, its cookie jar, header profile, redirects and
//! its retry of a 429 or 503, as they would live; only the pacing is off. A
//! request that nothing recorded answers fails the case.
//!
//! [`check`] holds the requests one case made against its expectations
//! ([`Expect`]): each selects requests (method, URL, query, body fields, the
//! status they were answered with), says how many there are, and what every
//! one of them carries (headers, cookies). Entries come in order: the
//! requests of one come after those of the entry before it, unless it says
//! `any_order`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use gleaner::capabilities::http::har::{parse_bytes, Exchange, HarReplay};
use gleaner::capabilities::http::pacing::Pace;
use gleaner::config::Config;
use gleaner::manifest::Manifest;
use serde::Deserialize;
use serde_json::Value;

use crate::common;

/// One request the upstream got, and how it answered.
#[derive(Clone)]
pub struct Seen {
    pub method: String,
    /// The URL the plugin asked for (its scheme and host restored).
    pub url: String,
    /// Header names in lower case, in the order they came.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The recorded status it was answered with; `None` when nothing recorded matched.
    pub status: Option<u16>,
}

impl std::fmt::Debug for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seen")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("status", &self.status)
            .field("headers", &self.headers)
            .field("body", &String::from_utf8_lossy(&self.body))
            .finish()
    }
}

impl Seen {
    /// The value of header `name` (several joined with `, `).
    pub fn header(&self, name: &str) -> Option<String> {
        let values: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect();
        (!values.is_empty()).then(|| values.join(", "))
    }

    /// The value of cookie `name` in the `Cookie` header.
    pub fn cookie(&self, name: &str) -> Option<String> {
        let header = self.header("cookie")?;
        header
            .split(';')
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_owned())
    }

    /// The body as JSON, if it is.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    fn query(&self) -> Vec<(String, String)> {
        url::Url::parse(&self.url)
            .map(|u| u.query_pairs().into_owned().collect())
            .unwrap_or_default()
    }

    fn form(&self) -> Vec<(String, String)> {
        url::form_urlencoded::parse(&self.body)
            .into_owned()
            .collect()
    }

    /// One line for messages.
    fn line(&self, watched: &BTreeSet<String>) -> String {
        let status = self
            .status
            .map_or("no recorded answer".to_owned(), |s| s.to_string());
        let mut line = format!("{} {} → {status}", self.method, self.url);
        if !self.body.is_empty() {
            let body = String::from_utf8_lossy(&self.body);
            let short: String = body.chars().take(160).collect();
            line.push_str(&format!("\n      body {short}"));
        }
        for name in watched {
            if let Some(value) = self.header(name) {
                line.push_str(&format!("\n      {name}: {value}"));
            }
        }
        line
    }
}

/// The local upstream of one server: the plugin's recordings, and what it got.
pub struct Upstream {
    addr: std::net::SocketAddr,
    hosts: BTreeSet<String>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// Response headers a server sets itself (the recorded body is already decoded).
const HOP_HEADERS: &[&str] = &[
    "content-length",
    "transfer-encoding",
    "content-encoding",
    "connection",
];

impl Upstream {
    /// Starts an upstream answering from every `*.har` file below `dir`, with
    /// its own replay order, for the hosts those files and `manifest` name.
    pub async fn start(dir: &Path, manifest: &Manifest) -> Upstream {
        let exchanges = recordings(dir);
        // Each host, with the schemes it is asked by.
        let mut schemes: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let allowed = manifest.network.allow.iter().map(String::as_str);
        let named = exchanges.iter().map(|e| e.url.as_str()).chain(allowed);
        for url in named.filter_map(|u| url::Url::parse(u).ok()) {
            if url.host_str().is_none_or(|h| h.starts_with('*')) {
                continue;
            }
            let list = schemes.entry(authority(&url)).or_default();
            if !list.iter().any(|s| s == url.scheme()) {
                list.push(url.scheme().to_owned());
            }
        }
        let hosts = schemes.keys().cloned().collect();
        let replay = Arc::new(HarReplay::from_exchanges(exchanges));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (schemes, kept) = (Arc::new(schemes), seen.clone());
        let answer = move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let (replay, schemes, kept) = (replay.clone(), schemes.clone(), kept.clone());
            async move { answer(&replay, &schemes, &kept, method, uri, headers, body) }
        };
        let addr = common::upstream(axum::Router::new().fallback(answer)).await;
        Upstream { addr, hosts, seen }
    }

    /// Points the server's requests to `plugin`'s hosts here, without pacing
    /// and without the host's own replay.
    pub fn configure(&self, plugin: &str, c: &mut Config) {
        c.replay = None;
        for host in &self.hosts {
            c.upstream_override
                .insert(format!("{plugin}:{host}"), format!("http://{}", self.addr));
            let name = host.split(':').next().unwrap_or(host);
            c.pacing.insert(name.to_owned(), Pace::default());
        }
    }

    /// How many requests it has got so far.
    pub fn len(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    /// The requests it got, from the `from`th on.
    pub fn since(&self, from: usize) -> Vec<Seen> {
        self.seen.lock().unwrap()[from..].to_vec()
    }
}

/// `host` or `host:port` as a request's `Host` header names it.
fn authority(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host,
    }
}

/// The exchanges of every `*.har` file below `dir`, in path order (as the host loads them).
fn recordings(dir: &Path) -> Vec<Exchange> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, files);
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("har"))
            {
                files.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    files
        .iter()
        .flat_map(|file| parse_bytes(file, &std::fs::read(file).unwrap()).unwrap())
        .collect()
}

/// Answers one request from the recordings and keeps it.
fn answer(
    replay: &HarReplay,
    schemes: &BTreeMap<String, Vec<String>>,
    kept: &Mutex<Vec<Seen>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let host = headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let body = body.to_vec();
    let tried = schemes.get(&host).map(Vec::as_slice).unwrap_or_default();
    let found = tried.iter().find_map(|scheme| {
        let url = format!("{scheme}://{host}{path}");
        let sent = (!body.is_empty()).then_some(body.as_slice());
        let hit = replay.find(method.as_str(), &url, sent);
        hit.map(|exchange| (url, exchange))
    });
    let url = found.as_ref().map_or_else(
        || {
            format!(
                "{}://{host}{path}",
                tried.first().map_or("https", String::as_str)
            )
        },
        |(url, _)| url.clone(),
    );
    kept.lock().unwrap().push(Seen {
        method: method.to_string(),
        url,
        headers: headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
        status: found.as_ref().map(|(_, e)| e.status),
    });
    let mut response = Response::builder();
    let Some((_, exchange)) = found else {
        let text = "no recorded answer for this request in the plugin's HAR files";
        return response.status(404).body(text.into()).unwrap();
    };
    response = response.status(exchange.status);
    for (name, value) in &exchange.response_headers {
        if !HOP_HEADERS.iter().any(|h| name.eq_ignore_ascii_case(h)) {
            response = response.header(name.as_str(), value.as_str());
        }
    }
    response.body(exchange.response_body.into()).unwrap()
}

/// One expectation of a case about the requests it made upstream: which
/// requests it is about, how many there are, and what each of them carries.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The request method (`GET`, `POST`, …).
    #[serde(default)]
    method: Option<String>,
    /// The exact URL.
    #[serde(default)]
    url: Option<String>,
    /// What the URL starts with.
    #[serde(default)]
    url_prefix: Option<String>,
    /// A part of the URL.
    #[serde(default)]
    url_contains: Option<String>,
    /// Query parameter → its value.
    #[serde(default)]
    query: BTreeMap<String, String>,
    /// JSON pointer into the request body → its value.
    #[serde(default)]
    json: BTreeMap<String, toml::Value>,
    /// Form field of the (urlencoded) request body → its value.
    #[serde(default)]
    form: BTreeMap<String, String>,
    /// The status the recording answered it with.
    #[serde(default)]
    answered: Option<u16>,
    /// Only the n-th (from 1) of the requests the keys above select.
    #[serde(default)]
    nth: Option<usize>,
    /// How many requests these are (1 when not given; 0: none was made).
    #[serde(default = "one")]
    count: usize,
    /// Not in order with the other entries.
    #[serde(default)]
    any_order: bool,
    /// Header → the value each of them sends.
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// Headers each of them sends, with any value.
    #[serde(default)]
    headers_present: Vec<String>,
    /// Headers none of them sends.
    #[serde(default)]
    headers_absent: Vec<String>,
    /// Cookie → the value each of them sends in its `Cookie` header.
    #[serde(default)]
    cookies: BTreeMap<String, String>,
    /// Cookies none of them sends.
    #[serde(default)]
    cookies_absent: Vec<String>,
}

fn one() -> usize {
    1
}

impl Expect {
    fn selects(&self, r: &Seen) -> bool {
        let query = r.query();
        let form = r.form();
        let json = r.json().unwrap_or(Value::Null);
        self.method
            .as_ref()
            .is_none_or(|m| m.eq_ignore_ascii_case(&r.method))
            && self.url.as_ref().is_none_or(|u| same_url(u, &r.url))
            && self
                .url_prefix
                .as_ref()
                .is_none_or(|p| r.url.starts_with(p.as_str()))
            && self
                .url_contains
                .as_ref()
                .is_none_or(|p| r.url.contains(p.as_str()))
            && self
                .query
                .iter()
                .all(|(n, v)| query.iter().any(|(qn, qv)| qn == n && qv == v))
            && self
                .form
                .iter()
                .all(|(n, v)| form.iter().any(|(fn_, fv)| fn_ == n && fv == v))
            && self.json.iter().all(|(pointer, expected)| {
                json.pointer(pointer) == Some(&serde_json::to_value(expected).unwrap())
            })
            && self.answered.is_none_or(|s| r.status == Some(s))
    }

    /// What it selects, for messages.
    fn describe(&self, index: usize) -> String {
        let mut parts = vec![format!("upstream #{}", index + 1)];
        parts.extend(self.method.clone());
        parts.extend(self.url.clone());
        parts.extend(self.url_prefix.as_ref().map(|p| format!("{p}…")));
        parts.extend(self.url_contains.as_ref().map(|p| format!("…{p}…")));
        parts.extend(self.query.iter().map(|(n, v)| format!("?{n}={v}")));
        parts.extend(self.form.iter().map(|(n, v)| format!("form {n}={v}")));
        parts.extend(self.json.iter().map(|(p, v)| format!("{p} = {v}")));
        parts.extend(self.answered.map(|s| format!("answered {s}")));
        parts.extend(self.nth.map(|n| format!("(the {n}. of them)")));
        parts.join(" ")
    }

    /// What is wrong with one request it selects.
    fn problems_of(&self, r: &Seen) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, expected) in &self.headers {
            let got = r.header(name);
            if got.as_deref() != Some(expected.as_str()) {
                problems.push(format!("header {name} is {got:?}, expected {expected:?}"));
            }
        }
        for name in &self.headers_present {
            if r.header(name).is_none() {
                problems.push(format!("header {name} is missing"));
            }
        }
        for name in &self.headers_absent {
            if let Some(got) = r.header(name) {
                problems.push(format!("header {name} is {got:?}, expected none"));
            }
        }
        for (name, expected) in &self.cookies {
            let got = r.cookie(name);
            if got.as_deref() != Some(expected.as_str()) {
                problems.push(format!(
                    "cookie {name} is {got:?}, expected {expected:?} (cookie: {:?})",
                    r.header("cookie")
                ));
            }
        }
        for name in &self.cookies_absent {
            if let Some(got) = r.cookie(name) {
                problems.push(format!("cookie {name} is {got:?}, expected none"));
            }
        }
        problems
    }
}

/// Whether two URLs are the same once parsed (so `%20` and ` ` agree).
fn same_url(a: &str, b: &str) -> bool {
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Everything wrong with the requests one case made (`seen`, in the order
/// they arrived) against its expectations and, when given, their total.
pub fn check(expects: &[Expect], total: Option<usize>, seen: &[Seen]) -> Vec<String> {
    let mut problems = Vec::new();
    for r in seen.iter().filter(|r| r.status.is_none()) {
        problems.push(format!("{} {} has no recorded answer", r.method, r.url));
    }
    if let Some(total) = total {
        if seen.len() != total {
            problems.push(format!(
                "{} upstream requests, expected {total}",
                seen.len()
            ));
        }
    }
    // The last ordered entry that selected something: its description and last request.
    let mut before: Option<(String, usize)> = None;
    for (i, expect) in expects.iter().enumerate() {
        let what = expect.describe(i);
        let mut picked: Vec<usize> = (0..seen.len())
            .filter(|&n| expect.selects(&seen[n]))
            .collect();
        if let Some(nth) = expect.nth {
            picked = picked
                .into_iter()
                .skip(nth.saturating_sub(1))
                .take(1)
                .collect();
        }
        if picked.len() != expect.count {
            problems.push(format!(
                "{what}: {} requests, expected {}",
                picked.len(),
                expect.count
            ));
        }
        for &n in &picked {
            for p in expect.problems_of(&seen[n]) {
                problems.push(format!("{what}: request {}: {p}", n + 1));
            }
        }
        if expect.any_order || picked.is_empty() {
            continue;
        }
        if let Some((earlier, last)) = &before {
            if picked[0] <= *last {
                problems.push(format!(
                    "{what}: request {} came before request {} of {earlier}",
                    picked[0] + 1,
                    last + 1
                ));
            }
        }
        before = Some((what, *picked.last().unwrap()));
    }
    if !problems.is_empty() {
        let watched: BTreeSet<String> = expects
            .iter()
            .flat_map(|e| {
                let cookies = (!e.cookies.is_empty() || !e.cookies_absent.is_empty())
                    .then(|| "cookie".to_owned());
                e.headers
                    .keys()
                    .chain(&e.headers_present)
                    .chain(&e.headers_absent)
                    .map(|n| n.to_ascii_lowercase())
                    .chain(cookies)
                    .collect::<Vec<_>>()
            })
            .collect();
        let lines: Vec<String> = seen
            .iter()
            .enumerate()
            .map(|(n, r)| format!("    {}. {}", n + 1, r.line(&watched)))
            .collect();
        problems.push(format!("the requests made:\n{}", lines.join("\n")));
    }
    problems
}
