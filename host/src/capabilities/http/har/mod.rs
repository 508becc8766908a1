//! HAR 1.2 replay and record for the outbound HTTP requests plugins make through the host.
//!
//! [`HarReplay`] loads recorded exchanges (from a `.har` file or a directory of them, e.g.
//! browser devtools exports) and answers requests from them without touching the network.
//! [`HarRecorder`] collects live exchanges and keeps one HAR file up to date on disk,
//! with every secret the host holds redacted.

mod matching;
mod record;

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use serde_json::Value;
use url::form_urlencoded;

use matching::{bodies_match, body_key, url_key, urls_match, BodyKey, UrlKey};
pub use record::{to_har_json, HarRecorder};

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
            (Some(a), Some(b)) => urls_match(a, b),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    pub(super) fn strings(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    pub(super) fn ex(method: &str, url: &str, body: &str, resp: &str) -> Exchange {
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

    pub(super) fn tmpdir(tag: &str) -> PathBuf {
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
}
