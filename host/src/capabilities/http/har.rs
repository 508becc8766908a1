//! HAR 1.2 replay and record for the outbound HTTP requests plugins make through the host.
//!
//! [`HarReplay`] loads recorded exchanges (from a `.har` file or a directory of them, e.g.
//! browser devtools exports) and answers requests from them without touching the network.
//! [`HarRecorder`] collects live exchanges and keeps one HAR file up to date on disk,
//! with credentials in request headers redacted.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use serde_json::{json, Value};
use url::{form_urlencoded, Url};

/// One recorded or replayed exchange, decoupled from HAR's JSON layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    /// HTTP method, e.g. `GET`.
    pub method: String,
    /// Absolute request URL.
    pub url: String,
    /// Request headers in order.
    pub request_headers: Vec<(String, String)>,
    /// Request body, `None` when the request had none.
    pub request_body: Option<Vec<u8>>,
    /// Response status code.
    pub status: u16,
    /// Response headers in order.
    pub response_headers: Vec<(String, String)>,
    /// Decoded response body.
    pub response_body: Vec<u8>,
}

/// Errors loading or writing HAR files.
#[derive(Debug, thiserror::Error)]
pub enum HarError {
    /// A HAR file or directory could not be read.
    #[error("cannot read HAR path {}: {source}; check that the path exists and is readable", path.display())]
    Io {
        /// The file or directory being read.
        path: PathBuf,
        /// The underlying I/O error.
        source: io::Error,
    },
    /// A file was read but is not a usable HAR 1.2 document.
    #[error("{} is not a usable HAR 1.2 file: {message}; re-export it (e.g. devtools \"Save all as HAR with content\") or record it again", path.display())]
    Parse {
        /// The offending file.
        path: PathBuf,
        /// What was wrong, including the entry index or JSON line/column.
        message: String,
    },
    /// A directory was given for replay but holds no `*.har` files.
    #[error("no *.har files found under directory {}; put recordings there or point to a single .har file", path.display())]
    NoHarFiles {
        /// The directory searched.
        path: PathBuf,
    },
    /// The recording could not be written.
    #[error("cannot write HAR file {}: {source}; check that its directory is writable and the disk is not full", path.display())]
    Write {
        /// The HAR file being written.
        path: PathBuf,
        /// The underlying I/O error.
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl Fn(io::Error) -> HarError + '_ {
    move |source| HarError::Io {
        path: path.into(),
        source,
    }
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// `[{name, value}]` as pairs; anything missing or malformed reads as empty.
fn pairs(list: &Value) -> Vec<(String, String)> {
    let list = list.as_array().map(Vec::as_slice).unwrap_or_default();
    list.iter()
        .map(|p| (text(&p["name"]).into(), text(&p["value"]).into()))
        .collect()
}

/// Decodes `obj.text` (absent means empty), which is base64 when `obj.encoding` says so.
fn decode(obj: &Value, what: &str) -> Result<Vec<u8>, String> {
    let encoding = obj["encoding"].as_str().or(obj["_encoding"].as_str());
    if !encoding.is_some_and(|e| e.eq_ignore_ascii_case("base64")) {
        return Ok(text(&obj["text"]).as_bytes().to_vec());
    }
    let compact: String = text(&obj["text"]).split_ascii_whitespace().collect();
    B64.decode(compact)
        .map_err(|e| format!("{what}.text is marked base64 but does not decode ({e})"))
}

/// Converts one `log.entries[]` element, ignoring fields this module does not use.
fn to_exchange(entry: &Value) -> Result<Exchange, String> {
    let (req, resp) = (&entry["request"], &entry["response"]);
    let post = &req["postData"];
    let string = |v: &Value, what: &str| match v.as_str() {
        Some(s) => Ok(s.to_owned()),
        None => Err(format!("{what} is missing or not a string")),
    };
    let status = resp["status"].as_u64().and_then(|s| u16::try_from(s).ok());
    let params = pairs(&post["params"]);
    let request_body = if text(&post["text"]).is_empty() && !params.is_empty() {
        let mut form = form_urlencoded::Serializer::new(String::new());
        form.extend_pairs(params).finish().into_bytes()
    } else {
        decode(post, "request.postData")?
    };
    Ok(Exchange {
        method: string(&req["method"], "request.method")?,
        url: string(&req["url"], "request.url")?,
        request_headers: pairs(&req["headers"]),
        request_body: Some(request_body).filter(|b| !b.is_empty()),
        status: status.ok_or("response.status is missing or not an HTTP status code")?,
        response_headers: pairs(&resp["headers"]),
        response_body: decode(&resp["content"], "response.content")?,
    })
}

fn parse_file(path: &Path) -> Result<Vec<Exchange>, HarError> {
    let bytes = fs::read(path).map_err(io_err(path))?;
    parse_bytes(path, &bytes)
}

/// Parses the text of a HAR file; `path` names it in errors.
pub fn parse_bytes(path: &Path, bytes: &[u8]) -> Result<Vec<Exchange>, HarError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let parse_err = |message| HarError::Parse {
        path: path.into(),
        message,
    };
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| parse_err(format!("invalid JSON: {e}")))?;
    let Some(entries) = doc["log"]["entries"].as_array() else {
        return Err(parse_err("log.entries is missing or not an array".into()));
    };
    let convert = |(i, e)| to_exchange(e).map_err(|m| parse_err(format!("log.entries[{i}].{m}")));
    entries.iter().enumerate().map(convert).collect()
}

/// The exchanges of a `.har` file, or of every `*.har` file below a directory in path order.
fn exchanges_at(path: &Path) -> Result<Vec<Exchange>, HarError> {
    let mut files = vec![path.to_path_buf()];
    if fs::metadata(path).map_err(io_err(path))?.is_dir() {
        files.clear();
        collect_har_files(path, &mut files)?;
        if files.is_empty() {
            return Err(HarError::NoHarFiles { path: path.into() });
        }
        files.sort();
    }
    let mut exchanges = Vec::new();
    for file in &files {
        exchanges.extend(parse_file(file)?);
    }
    Ok(exchanges)
}

fn is_har(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("har"))
}

fn collect_har_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), HarError> {
    for entry in fs::read_dir(dir).map_err(io_err(dir))? {
        let entry = entry.map_err(io_err(dir))?;
        let path = entry.path();
        // Directory symlinks are not followed, so links cannot create cycles.
        if entry.file_type().map_err(io_err(&path))?.is_dir() {
            collect_har_files(&path, out)?;
        } else if is_har(&path) && path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// The parts of a URL that must match: scheme, host, port, path and sorted query pairs.
#[derive(Debug, PartialEq)]
struct UrlKey(String, String, Option<u16>, String, Vec<(String, String)>);

fn url_key(raw: &str) -> Option<UrlKey> {
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
struct BodyKey {
    raw: Vec<u8>,
    json: Option<Value>,
    form: Option<Vec<(String, String)>>,
}

fn body_key(body: Option<&[u8]>) -> BodyKey {
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

fn bodies_match(a: &BodyKey, b: &BodyKey) -> bool {
    match (&a.json, &b.json, &a.form, &b.form) {
        (Some(x), Some(y), _, _) => x == y,
        (_, _, Some(x), Some(y)) => x == y,
        _ => a.raw == b.raw,
    }
}

/// An immutable set of recorded exchanges loaded from a HAR file or from every `*.har` file
/// in a directory (recursively, sorted by path for determinism).
#[derive(Debug)]
pub struct HarReplay {
    /// Each exchange with its precomputed URL and body keys.
    entries: Vec<(Exchange, Option<UrlKey>, BodyKey)>,
    /// How often each set of matching entry indices has been served.
    served: Mutex<HashMap<Vec<usize>, usize>>,
}

impl HarReplay {
    /// Loads a `.har` file, or every `*.har` file below a directory in path order.
    pub fn load(path: &Path) -> Result<HarReplay, HarError> {
        Ok(Self::from_exchanges(exchanges_at(path)?))
    }

    /// Loads every path of a list separated like `PATH` (`:` on Unix), each a
    /// `.har` file or a directory of them, in list order.
    pub fn load_list(list: &Path) -> Result<HarReplay, HarError> {
        let mut exchanges = Vec::new();
        for path in std::env::split_paths(list.as_os_str()) {
            exchanges.extend(exchanges_at(&path)?);
        }
        Ok(Self::from_exchanges(exchanges))
    }

    /// Builds a replay set directly from exchanges, in the given order.
    pub fn from_exchanges(exchanges: Vec<Exchange>) -> HarReplay {
        let keyed = |e: Exchange| {
            let (url, body) = (url_key(&e.url), body_key(e.request_body.as_deref()));
            (e, url, body)
        };
        let entries = exchanges.into_iter().map(keyed).collect();
        let served = Mutex::new(HashMap::new());
        HarReplay { entries, served }
    }

    /// Finds the recorded response for a request.
    ///
    /// Matching: method case-insensitive; URL scheme, host (case-insensitive), port (default
    /// ports normalised) and path exact; query parameters as a multiset regardless of order
    /// (percent-decoded, `+` as space). Bodies must match too: as JSON values if both parse
    /// as JSON, as parameter multisets if both look form-urlencoded, else byte for byte; a
    /// missing body equals an empty one. When several entries match, successive calls return
    /// them in recording order, then keep returning the last one (e.g. a recorded retry).
    pub fn find(&self, method: &str, url: &str, body: Option<&[u8]>) -> Option<Exchange> {
        let (want_url, want_body) = (url_key(url), body_key(body));
        let url_matches = |e: &Exchange, key: &Option<UrlKey>| match (&want_url, key) {
            (Some(a), Some(b)) => a == b,
            (None, None) => e.url == url,
            _ => false,
        };
        let hits: Vec<usize> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, (e, u, _))| e.method.eq_ignore_ascii_case(method) && url_matches(e, u))
            .filter(|(_, (_, _, b))| bodies_match(&want_body, b))
            .map(|(i, _)| i)
            .collect();
        let last = hits.len().checked_sub(1)?;
        let mut served = self.served.lock().unwrap_or_else(PoisonError::into_inner);
        let count = served.entry(hits.clone()).or_insert(0);
        let pick = hits[(*count).min(last)];
        *count = count.saturating_add(1);
        Some(self.entries[pick].0.clone())
    }

    /// Number of recorded exchanges.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no exchanges were recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Collects exchanges and writes them as one HAR 1.2 file (creator name "gleaner").
#[derive(Debug)]
pub struct HarRecorder {
    path: PathBuf,
    entries: Mutex<Vec<(Exchange, SystemTime, f64)>>,
}

impl HarRecorder {
    /// Creates a recorder writing to `path`; nothing is written until the first exchange.
    pub fn new(path: PathBuf) -> HarRecorder {
        let entries = Mutex::new(Vec::new());
        HarRecorder { path, entries }
    }

    /// Adds an exchange and rewrites the file atomically (temp file in the same directory,
    /// then rename), so a crash never leaves a half-written file. Thread-safe. If writing
    /// fails, the exchange is kept and written by the next successful call.
    pub fn record(
        &self,
        exchange: Exchange,
        started: SystemTime,
        elapsed_ms: f64,
    ) -> Result<(), HarError> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.push((exchange, started, elapsed_ms));
        let data = serde_json::to_vec_pretty(&to_har_json(&entries)).map_err(io::Error::other);
        let path = &self.path;
        let result = data.and_then(|data| write_atomically(path, &data));
        result.map_err(|source| HarError::Write {
            path: path.clone(),
            source,
        })
    }
}

fn write_atomically(path: &Path, data: &[u8]) -> io::Result<()> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or(io::ErrorKind::InvalidInput)?;
    let name = name.to_string_lossy();
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}-{seq}.tmp", std::process::id()));
    let result = fs::File::create(&tmp).and_then(|mut file| {
        file.write_all(data)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// `[{name, value}]`, with credential-bearing values replaced when `redact` is set.
fn pairs_json(list: &[(String, String)], redact: bool) -> Value {
    let pair = |(n, v): &(String, String)| {
        let v = if redact && super::credentials::is_credential(n) {
            super::credentials::REDACTED
        } else {
            v.as_str()
        };
        json!({ "name": n, "value": v })
    };
    list.iter().map(pair).collect()
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> &'a str {
    let found = headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name));
    found.map_or("", |(_, v)| v.as_str())
}

/// `{"text": ...}` for UTF-8 bodies, else base64 text plus `"encoding": "base64"`.
fn text_json(body: &[u8], mime: &str) -> Value {
    match std::str::from_utf8(body) {
        Ok(text) => json!({ "mimeType": mime, "text": text }),
        Err(_) => json!({ "mimeType": mime, "text": B64.encode(body), "encoding": "base64" }),
    }
}

fn entry_json(ex: &Exchange, started: SystemTime, ms: f64) -> Value {
    let ms = if ms.is_finite() && ms > 0.0 { ms } else { 0.0 };
    let query: Vec<(String, String)> = Url::parse(&ex.url)
        .map(|u| u.query_pairs().into_owned().collect())
        .unwrap_or_default();
    let req_body = ex.request_body.as_deref().unwrap_or_default();
    let mut request = json!({
        "method": ex.method, "url": ex.url, "httpVersion": "HTTP/1.1", "cookies": [],
        "headers": pairs_json(&ex.request_headers, true), "queryString": pairs_json(&query, false),
        "headersSize": -1, "bodySize": req_body.len(),
    });
    if !req_body.is_empty() {
        request["postData"] = text_json(req_body, header(&ex.request_headers, "content-type"));
    }
    let (headers, body) = (&ex.response_headers, &ex.response_body);
    let mut content = text_json(body, header(headers, "content-type"));
    content["size"] = body.len().into();
    json!({
        "startedDateTime": iso8601(started), "time": ms, "request": request,
        "response": {
            "status": ex.status, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": pairs_json(headers, false), "content": content,
            "redirectURL": header(headers, "location"), "headersSize": -1, "bodySize": body.len(),
        },
        "cache": {}, "timings": { "send": 0, "wait": ms, "receive": 0 },
    })
}

/// Renders exchanges (with start time and duration in milliseconds) as a HAR 1.2 JSON
/// document. Credentials in request headers are replaced by `[redacted]`.
pub fn to_har_json(exchanges: &[(Exchange, SystemTime, f64)]) -> Value {
    let entries: Vec<Value> = exchanges
        .iter()
        .map(|(e, t, ms)| entry_json(e, *t, *ms))
        .collect();
    let creator = json!({ "name": "gleaner", "version": env!("CARGO_PKG_VERSION") });
    json!({ "log": { "version": "1.2", "creator": creator, "entries": entries } })
}

/// Formats a time as ISO 8601 UTC with milliseconds, e.g. `2024-05-01T12:00:00.000Z`.
fn iso8601(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let (secs, ms) = (d.as_secs(), d.subsec_millis());
    // Civil-from-days (Howard Hinnant), for days since 1970-01-01.
    let z = i64::try_from(secs / 86_400).unwrap_or(0) + 719_468;
    let (era, doe) = (z.div_euclid(146_097), z.rem_euclid(146_097));
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s) = (secs % 86_400 / 3600, secs % 3600 / 60, secs % 60);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn strings(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    fn ex(method: &str, url: &str, body: &str, resp: &str) -> Exchange {
        Exchange {
            method: method.into(),
            url: url.into(),
            request_headers: vec![],
            request_body: Some(body.as_bytes().to_vec()).filter(|b| !b.is_empty()),
            status: 200,
            response_headers: vec![],
            response_body: resp.as_bytes().to_vec(),
        }
    }

    fn tmpdir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("har-test-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    const DEVTOOLS: &str = r#"{"log":{"version":"1.2","creator":{"name":"WebInspector"},"pages":[],
    "entries":[{"_initiator":{"type":"script"},"pageref":"page_1","cache":{},"timings":{"wait":2},
      "request":{"method":"GET","url":"https://API.example.com:443/v1/items?b=2&a=hello%20world",
        "httpVersion":"h2","headers":[{"name":"accept","value":"*/*"}],"cookies":[]},
      "response":{"status":200,"headers":[{"name":"content-type","value":"text/plain"}],
        "content":{"size":5,"mimeType":"text/plain","text":"aGVsbG8=","encoding":"base64"}}},
    {"request":{"method":"POST","url":"https://api.example.com/form","headers":null,"postData":{
        "mimeType":"application/x-www-form-urlencoded","params":[{"name":"x","value":"1 2"},{"name":"y","value":"3"}]}},
      "response":{"status":201,"headers":[],"content":{"size":0,"mimeType":"x-unknown"}}}]}}"#;

    #[test]
    fn parses_devtools_export() {
        let dir = tmpdir("devtools");
        fs::write(dir.join("capture.har"), DEVTOOLS).unwrap();
        let replay = HarReplay::load(&dir.join("capture.har")).unwrap();
        assert_eq!(replay.len(), 2);
        let url = "https://api.example.com/v1/items?a=hello+world&b=2";
        let hit = replay.find("get", url, None).unwrap();
        assert_eq!(hit.response_body, b"hello");
        assert_eq!(
            hit.response_headers,
            strings(&[("content-type", "text/plain")])
        );
        let url = "https://api.example.com/form";
        let post = replay.find("POST", url, Some(b"y=3&x=1+2")).unwrap();
        assert_eq!((post.status, post.response_body.len()), (201, 0));
        assert_eq!(post.request_body.as_deref(), Some(&b"x=1+2&y=3"[..]));
        fs::remove_dir_all(dir).unwrap();
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

    #[test]
    fn repeated_entries_replay_in_order_then_stick() {
        let r = HarReplay::from_exchanges(vec![
            ex("GET", "https://h/retry", "", "first"),
            ex("GET", "https://h/other", "", "other"),
            ex("GET", "https://h/retry", "", "second"),
        ]);
        let next = |url| String::from_utf8(r.find("GET", url, None).unwrap().response_body);
        let got: Vec<_> = (0..4).map(|_| next("https://h/retry").unwrap()).collect();
        assert_eq!(got, ["first", "second", "second", "second"]);
        assert_eq!(next("https://h/other").unwrap(), "other");
    }

    #[test]
    fn loads_directory_recursively_in_path_order() {
        let dir = tmpdir("dir");
        fs::create_dir_all(dir.join("b")).unwrap();
        let one = |url: &str| to_har_json(&[(ex("GET", url, "", url), UNIX_EPOCH, 1.0)]);
        fs::write(dir.join("b/z.har"), one("https://h/2").to_string()).unwrap();
        fs::write(dir.join("a.HAR"), one("https://h/1").to_string()).unwrap();
        fs::write(dir.join("notes.txt"), "ignored").unwrap();
        let r = HarReplay::load(&dir).unwrap();
        let urls: Vec<_> = r.entries.iter().map(|e| e.0.url.as_str()).collect();
        assert_eq!(urls, ["https://h/1", "https://h/2"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn errors_explain_the_problem() {
        let dir = tmpdir("errors");
        let err = |path: &Path| HarReplay::load(path).err().unwrap();
        assert!(matches!(err(&dir), HarError::NoHarFiles { .. }));
        assert!(matches!(err(&dir.join("nope.har")), HarError::Io { .. }));
        let bad_b64 = r#"{"log":{"entries":[{"request":{"method":"GET","url":"https://h/"},
            "response":{"status":200,"content":{"text":"@@","encoding":"base64"}}}]}}"#;
        let cases = [
            ("{", "invalid JSON"),
            (r#"{"log": {}}"#, "log.entries is missing"),
            (
                r#"{"log": {"entries": [{"request": {}}]}}"#,
                "entries[0].request.method",
            ),
            (bad_b64, "entries[0].response.content.text is marked base64"),
        ];
        for (json, want) in cases {
            fs::write(dir.join("bad.har"), json).unwrap();
            let msg = err(&dir).to_string();
            assert!(msg.contains("bad.har") && msg.contains(want), "{msg}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn recorder_writes_redacted_round_trippable_har() {
        let dir = tmpdir("record");
        let path = dir.join("out/rec.har");
        let rec = HarRecorder::new(path.clone());
        let mut first = ex("POST", "https://h/up?q=a+b", "", "");
        first.request_body = Some(vec![0xff, 0x00, 0x10]);
        first.request_headers = strings(&[
            ("Authorization", "Bearer s3cret"),
            ("X-Api-Key", "k3y"),
            ("x-auth-token", "t0k"),
            ("Cookie", "c=1"),
            ("Content-Type", "application/x-bin"),
            ("x-apikey", "ap1"),
            ("X-Session-Id", "s3ss"),
        ]);
        first.response_headers = strings(&[("Location", "https://h/next")]);
        first.response_body = vec![0xde, 0xad, 0xbe, 0xef];
        let started = UNIX_EPOCH + Duration::from_millis(1_714_564_800_123);
        rec.record(first.clone(), started, 12.5).unwrap();
        let second = ex("GET", "https://h/text", "", "héllo");
        rec.record(second, started, f64::NAN).unwrap();

        let text = fs::read_to_string(&path).unwrap();
        assert!(["s3cret", "k3y", "t0k", "c=1", "ap1", "s3ss"]
            .iter()
            .all(|s| !text.contains(s)));
        let doc: Value = serde_json::from_str(&text).unwrap();
        let (e0, e1) = ("/log/entries/0", "/log/entries/1");
        let expected = [
            ("/log/version".to_string(), json!("1.2")),
            ("/log/creator/name".into(), json!("gleaner")),
            (
                format!("{e0}/startedDateTime"),
                json!("2024-05-01T12:00:00.123Z"),
            ),
            (
                format!("{e0}/request/queryString"),
                json!([{ "name": "q", "value": "a b" }]),
            ),
            (format!("{e0}/request/headers/0/value"), json!("[redacted]")),
            (
                format!("{e0}/request/postData/mimeType"),
                json!("application/x-bin"),
            ),
            (format!("{e0}/request/postData/encoding"), json!("base64")),
            (format!("{e0}/response/content/encoding"), json!("base64")),
            (
                format!("{e0}/response/redirectURL"),
                json!("https://h/next"),
            ),
            (format!("{e1}/time"), json!(0.0)),
            (format!("{e1}/response/content/text"), json!("héllo")),
        ];
        for (pointer, want) in expected {
            assert_eq!(doc.pointer(&pointer), Some(&want), "{pointer}");
        }
        let files = fs::read_dir(dir.join("out")).unwrap().count();
        assert_eq!(files, 1, "no temp files remain");

        let replay = HarReplay::load(&path).unwrap();
        let url = "https://h/up?q=a%20b";
        let back = replay.find("POST", url, Some(&[0xff, 0, 0x10])).unwrap();
        assert_eq!(back.response_body, first.response_body);
        assert_eq!(back.request_headers[4], first.request_headers[4]);
        let text = replay.find("GET", "https://h/text", None).unwrap();
        assert_eq!(text.response_body, "héllo".as_bytes());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn iso8601_dates() {
        let at = |s: u64| iso8601(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00.000Z");
        assert_eq!(at(1_709_251_199), "2024-02-29T23:59:59.000Z");
        assert_eq!(at(4_102_444_800), "2100-01-01T00:00:00.000Z");
    }
}
