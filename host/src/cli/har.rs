//! `gleaner har`: builds a HAR file from recorded response bodies, for plugin
//! replay tests. The index lists the exchanges a plugin makes; each response
//! body is a file beside it (a real response saved from the site) or inline
//! text. The HAR is written by the host's one HAR writer, the same that
//! `--record` uses, so recordings and built fixtures cannot drift apart.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use anyhow::Context;
use serde::Deserialize;

use crate::capabilities::http::har::{to_har_json, Exchange};

/// The index file: the exchanges, in the order a plugin makes them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Index {
    exchange: Vec<Entry>,
}

/// One request and its recorded answer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    /// Request method.
    #[serde(default = "get")]
    method: String,
    /// Request URL.
    url: String,
    /// Request body (for POST), as text.
    #[serde(default)]
    request_body: Option<String>,
    /// Response status.
    #[serde(default = "ok")]
    status: u16,
    /// Response `content-type`.
    #[serde(default)]
    content_type: Option<String>,
    /// Other response headers.
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// The response body, as a file relative to the index.
    #[serde(default)]
    body_file: Option<PathBuf>,
    /// The response body, inline.
    #[serde(default)]
    body: Option<String>,
}

fn get() -> String {
    "GET".into()
}

fn ok() -> u16 {
    200
}

/// Builds `out` from the index at `index`; returns how many exchanges it holds.
pub fn har(index: &Path, out: &Path) -> anyhow::Result<usize> {
    let text = std::fs::read_to_string(index)
        .with_context(|| format!("cannot read the HAR index {}", index.display()))?;
    let parsed: Index = toml::from_str(&text).with_context(|| {
        format!(
            "{} is not a HAR index: list [[exchange]] tables with url and body_file or body",
            index.display()
        )
    })?;
    let base = index.parent().unwrap_or(Path::new("."));
    // A fixed start time keeps rebuilt files byte-identical.
    let started = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let mut exchanges = Vec::new();
    for (i, entry) in parsed.exchange.into_iter().enumerate() {
        let response_body = match (&entry.body_file, &entry.body) {
            (Some(file), None) => std::fs::read(base.join(file)).with_context(|| {
                format!(
                    "exchange {i} ({}): cannot read body_file {}",
                    entry.url,
                    file.display()
                )
            })?,
            (None, Some(body)) => body.clone().into_bytes(),
            (None, None) => Vec::new(),
            (Some(_), Some(_)) => {
                anyhow::bail!(
                    "exchange {i} ({}): give body_file or body, not both",
                    entry.url
                )
            }
        };
        let mut response_headers: Vec<(String, String)> = entry
            .content_type
            .iter()
            .map(|c| ("content-type".to_owned(), c.clone()))
            .collect();
        response_headers.extend(entry.headers);
        exchanges.push((
            Exchange {
                method: entry.method.to_ascii_uppercase(),
                url: entry.url,
                request_headers: Vec::new(),
                request_body: entry.request_body.map(String::into_bytes),
                status: entry.status,
                response_headers,
                response_body,
            },
            started,
            1.0,
        ));
    }
    let count = exchanges.len();
    let json = serde_json::to_string_pretty(&to_har_json(&exchanges))?;
    std::fs::write(out, json + "\n").with_context(|| format!("cannot write {}", out.display()))?;
    Ok(count)
}
