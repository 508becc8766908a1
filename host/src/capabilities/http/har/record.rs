//! Recording: exchanges written as one HAR 1.2 file, kept up to date on disk.
//! Recordings are meant to become committed fixtures, so nothing secret goes
//! in: credentials are redacted by name (headers, query parameters, the URL's
//! user information), and every registered secret and the session's cookies
//! by value, wherever they appear, bodies included.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use serde_json::{json, Value};
use url::Url;

use std::sync::Arc;

use super::super::credentials;
use super::{Exchange, HarError};
use crate::secrets::{Scope, Scrubber, Secrets};

/// Collects exchanges and writes them as one HAR 1.2 file (creator name "gleaner").
#[derive(Debug)]
pub struct HarRecorder {
    path: PathBuf,
    entries: Mutex<Vec<(Exchange, SystemTime, f64)>>,
    secrets: Arc<Secrets>,
}

impl HarRecorder {
    /// Creates a recorder writing to `path`, keeping `secrets` out of it;
    /// nothing is written until the first exchange.
    pub fn new(path: PathBuf, secrets: Arc<Secrets>) -> HarRecorder {
        let entries = Mutex::new(Vec::new());
        HarRecorder {
            path,
            entries,
            secrets,
        }
    }

    /// Adds an exchange, its secrets (and those `session` knows) replaced, and
    /// rewrites the file atomically (temp file in the same directory, then
    /// rename), so a crash never leaves a half-written file. Thread-safe. If
    /// writing fails, the exchange is kept and written by the next successful call.
    pub fn record(
        &self,
        exchange: Exchange,
        started: SystemTime,
        elapsed_ms: f64,
        session: &Arc<Scrubber>,
    ) -> Result<(), HarError> {
        let mut scope = Scope::of(&self.secrets);
        scope.add(session.clone());
        let exchange = scrubbed(exchange, &scope);
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

/// The exchange with its secrets replaced: the URL's credential parameters
/// and user information by name, then every secret of `scope` by value.
fn scrubbed(ex: Exchange, scope: &Scope) -> Exchange {
    let text = |s: &str| scope.scrub(s).into_owned();
    let pairs = |list: Vec<(String, String)>| {
        list.into_iter()
            .map(|(n, v)| (text(&n), text(&v)))
            .collect()
    };
    let bytes = |b: &[u8]| scope.scrub_bytes(b).into_owned();
    // A cookie a site sets keeps its name and attributes, so a replay still
    // sets it; its value is the session's secret.
    let response_headers = ex
        .response_headers
        .into_iter()
        .map(|(n, v)| match n.eq_ignore_ascii_case("set-cookie") {
            true => (n, credentials::redact_set_cookie(&v)),
            false => (n, v),
        })
        .collect();
    Exchange {
        method: ex.method,
        url: text(&credentials::redact_url(&ex.url)),
        request_headers: pairs(ex.request_headers),
        request_body: ex.request_body.as_deref().map(bytes),
        status: ex.status,
        response_headers: pairs(response_headers),
        response_body: bytes(&ex.response_body),
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
        let v = if redact && credentials::is_credential(n) {
            credentials::REDACTED
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
/// document. Credentials in request headers and query parameters are replaced by
/// `[redacted]`; response headers are kept as they are (a recording redacts the
/// values of the cookies a site sets before it gets here).
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
    use super::super::tests::{ex, strings, tmpdir};
    use super::super::HarReplay;
    use super::*;
    use std::time::Duration;

    #[test]
    fn recorder_writes_redacted_round_trippable_har() {
        let dir = tmpdir("record");
        let path = dir.join("out/rec.har");
        let rec = HarRecorder::new(path.clone(), Arc::default());
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
        rec.record(first.clone(), started, 12.5, &Arc::default())
            .unwrap();
        let second = ex("GET", "https://h/text", "", "héllo");
        rec.record(second, started, f64::NAN, &Arc::default())
            .unwrap();

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
    fn secrets_leave_no_trace_and_the_recording_still_replays() {
        let dir = tmpdir("record-secrets");
        let path = dir.join("rec.har");
        let secrets = Arc::new(Secrets::default());
        let rec = HarRecorder::new(path.clone(), secrets.clone());
        let url = "https://api.h/v2/tips?client_id=c1&client_secret=zx81-sessionless-secret&v=1";
        let mut e = ex("GET", url, "", "");
        e.response_headers = strings(&[("Set-Cookie", "sid=cookie-0123456789; Path=/")]);
        e.response_body = b"{\"error\":\"client_secret zx81-sessionless-secret is not valid, sid cookie-0123456789\"}".to_vec();
        let session = Arc::new(Scrubber::for_values(["cookie-0123456789"]));
        secrets.register(
            crate::secrets::Kind::PluginSetting,
            ["zx81-sessionless-secret"],
        );
        rec.record(e, UNIX_EPOCH, 1.0, &session).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(!text.contains("zx81-sessionless-secret"), "{text}");
        assert!(!text.contains("cookie-0123456789"), "{text}");
        assert!(
            text.contains("sid=[redacted]; Path=/"),
            "the cookie keeps its name: {text}"
        );
        let replay = HarReplay::load(&path).unwrap();
        let back = replay
            .find("GET", url, None)
            .expect("the redacted recording replays");
        assert!(String::from_utf8_lossy(&back.response_body)
            .contains("client_secret [redacted] is not valid"));
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
