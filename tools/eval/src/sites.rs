//! The website processors on third-party pages whose truth was written by others.
//!
//! **Readability** (Mozilla Readability's test pages, `test/test-pages/<case>/`:
//! `source.html` and `expected-metadata.json`). Each page is served twice: at an
//! article URL `https://<case>.readability.test/article/<case>` (no home page is
//! served, so the home page cannot stand in for the article) and as the home page
//! `https://<case>.home.readability.test/` (the title and description rules alone).
//! wol-meta-info is called with each URL. Agreement, fixed before any run:
//! - text is normalised by case folding, collapsing whitespace and folding
//!   typographic quotes, dashes and non-breaking spaces to ASCII;
//! - **title**: `site_title` equals the expected `title`, or is a cut of it at a
//!   word boundary (the processor's 60-character limit);
//! - **description**: `site_description` equals the expected `excerpt`, or is a
//!   cut of it at a word boundary (the 155-character limit);
//! - **site name** (cases whose `siteName` is not null): `brand_name` equals it.
//!
//! **besticon** (mat/besticon's recorded home pages, `besticon/testdata/*.vcr`,
//! and the icons its `TestFetchIcons` asserts for each, largest first). The
//! recordings are replayed as HAR exchanges and domain-to-asset is called with
//! the test's URL. Agreement: `favicon_url` is one of the expected icons of the
//! largest width (ties count), compared without the scheme (besticon's replayer
//! answers every request as `http`), or is null when none is expected. Only a
//! 200 answer can agree, in both benchmarks.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use gleaner::capabilities::http::har::Exchange;
use serde_json::{json, Value};

use crate::data::{Data, ThirdParty};
use crate::score;
use crate::server::{page, Server};

const READABILITY: ThirdParty = ThirdParty {
    dir: "readability",
    source: "Mozilla Readability's test pages (github.com/mozilla/readability, code Apache-2.0; \
             the pages are third-party content)",
    place: "git clone --depth 1 https://github.com/mozilla/readability\n\
            cp -r readability/test/test-pages \"$GLEANER_EVAL_DATA/readability\"",
};

const BESTICON: ThirdParty = ThirdParty {
    dir: "besticon",
    source: "mat/besticon's test recordings and TestFetchIcons expectations \
             (github.com/mat/besticon, MIT)",
    place: "git clone --depth 1 https://github.com/mat/besticon\n\
            cp -r besticon/besticon/testdata \"$GLEANER_EVAL_DATA/besticon\"\n\
            cp besticon/besticon/besticon_test.go \"$GLEANER_EVAL_DATA/besticon/\"\n\
            for f in \"$GLEANER_EVAL_DATA\"/besticon/*.vcr; do gzip -dc \"$f\" > \"$f.txt\"; done",
};

const WOL: &str = "/public/v1/wol-meta-info";
const ASSET: &str = "/features/domain-to-asset";

/// One Readability case: its name, page and expected metadata.
struct Article {
    name: String,
    host: String,
    html: Vec<u8>,
    expected: Value,
}

fn articles(dir: Option<PathBuf>) -> Vec<Article> {
    let Some(dir) = dir else {
        return Vec::new();
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .filter_map(|name| {
            let case = dir.join(&name);
            let html = std::fs::read(case.join("source.html")).ok()?;
            let meta = std::fs::read(case.join("expected-metadata.json")).ok()?;
            let expected = serde_json::from_slice(&meta).ok()?;
            let host: String = name
                .to_ascii_lowercase()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect();
            Some(Article {
                name,
                host,
                html,
                expected,
            })
        })
        .collect()
}

fn article_url(a: &Article) -> String {
    format!("https://{}.readability.test/article/{}", a.host, a.host)
}

fn home_url(a: &Article) -> String {
    format!("https://{}.home.readability.test/", a.host)
}

/// One besticon case: the URL asked for and the expected icons (URL, width).
struct IconCase {
    url: String,
    icons: Vec<(String, u32)>,
}

/// Reads `TestFetchIcons` from besticon's Go tests: `{"url", []testFetchIcon{`
/// opens a case, `{"icon", width, "format"},` lists an icon; comments are skipped.
fn icon_cases(go: &str) -> Vec<IconCase> {
    let body = go
        .split("func TestFetchIcons")
        .nth(1)
        .and_then(|b| b.split("for _, test := range tests").next())
        .unwrap_or_default();
    let mut cases: Vec<IconCase> = Vec::new();
    for line in body.lines().map(str::trim) {
        if line.starts_with("//") || !line.starts_with("{\"") {
            continue;
        }
        let fields: Vec<&str> = line.split('"').collect();
        let Some(url) = fields.get(1) else { continue };
        if line.contains("[]testFetchIcon{") {
            cases.push(IconCase {
                url: (*url).to_owned(),
                icons: Vec::new(),
            });
        } else if let (Some(case), Some(width)) = (cases.last_mut(), fields.get(2)) {
            let width = width.trim_matches([',', ' ']).parse().unwrap_or(0);
            case.icons.push(((*url).to_owned(), width));
        }
    }
    cases
}

/// The recorded exchanges of one `.vcr` file (decompressed): request head,
/// response head and body, separated by besticon's record separator. The
/// recording keeps no scheme: a request another response redirected to takes
/// the redirect's scheme, the first takes the test URL's, and every URL is
/// also answered under the other scheme when nothing else was recorded there.
fn vcr_exchanges(text: &[u8], first_scheme: &str) -> Vec<Exchange> {
    let sep = b"*************vcr*************\n";
    let mut records = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = find(rest, sep).unwrap_or(rest.len());
        records.push(&rest[..end]);
        rest = rest.get(end + sep.len()..).unwrap_or_default();
    }
    struct Record {
        path: String,
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    }
    let parsed: Vec<Record> = records
        .into_iter()
        .filter_map(|r| {
            let req_end = find(r, b"\r\n\r\n")?;
            let request = String::from_utf8_lossy(&r[..req_end]);
            let r = &r[req_end + 4..];
            let res_end = find(r, b"\r\n\r\n")?;
            let response = String::from_utf8_lossy(&r[..res_end]);
            let body = r[res_end + 4..].to_vec();
            let target = request.lines().next()?.split(' ').nth(1)?.to_owned();
            let host = request
                .lines()
                .find_map(|l| l.strip_prefix("Host: "))?
                .trim()
                .trim_end_matches(":443")
                .trim_end_matches(":80")
                .to_owned();
            let status = response.lines().next()?.split(' ').nth(1)?.parse().ok()?;
            let headers = response
                .lines()
                .skip(1)
                .filter_map(|l| l.split_once(':'))
                .filter(|(k, _)| {
                    k.eq_ignore_ascii_case("content-type") || k.eq_ignore_ascii_case("location")
                })
                .map(|(k, v)| (k.to_ascii_lowercase(), v.trim().to_owned()))
                .collect();
            Some(Record {
                path: format!("{host}{target}"),
                status,
                headers,
                body,
            })
        })
        .collect();
    let locations: HashMap<String, String> = parsed
        .iter()
        .flat_map(|r| r.headers.iter().filter(|(k, _)| k == "location"))
        .filter_map(|(_, v)| {
            let (scheme, rest) = v.split_once("://")?;
            Some((rest.to_owned(), scheme.to_owned()))
        })
        .collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut add = |url: String, r: &Record| {
        if seen.insert(url.clone()) {
            let mut e = page(&url, r.status, "", r.body.clone());
            e.response_headers = r.headers.clone();
            out.push(e);
        }
    };
    for (i, r) in parsed.iter().enumerate() {
        let scheme = if i == 0 {
            Some(first_scheme)
        } else {
            locations.get(&r.path).map(String::as_str)
        };
        if let Some(scheme) = scheme {
            add(format!("{scheme}://{}", r.path), r);
        }
    }
    for r in &parsed {
        for scheme in ["http", "https"] {
            add(format!("{scheme}://{}", r.path), r);
        }
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The besticon cases with their recordings, read from `dir`.
fn besticon(dir: &Path) -> Vec<(IconCase, Vec<Exchange>)> {
    let go = std::fs::read_to_string(dir.join("besticon_test.go")).unwrap_or_default();
    icon_cases(&go)
        .into_iter()
        .filter_map(|case| {
            let (scheme, rest) = case.url.split_once("://")?;
            let host = rest.split('/').next()?;
            let file = dir.join(format!("{}.vcr.txt", host.replace(':', "_")));
            let text = std::fs::read(&file).ok()?;
            let exchanges = vcr_exchanges(&text, scheme);
            Some((case, exchanges))
        })
        .collect()
}

/// The upstream pages the benchmark's requests read.
pub fn exchanges(data: &Data) -> anyhow::Result<Vec<Exchange>> {
    let mut out = Vec::new();
    for a in articles(data.present(&READABILITY)) {
        let html = "text/html; charset=utf-8";
        out.push(page(&article_url(&a), 200, html, a.html.clone()));
        out.push(page(&home_url(&a), 200, html, a.html));
    }
    if let Some(dir) = data.present(&BESTICON) {
        for (_, exchanges) in besticon(&dir) {
            out.extend(exchanges);
        }
    }
    Ok(out)
}

/// A URL without its scheme: besticon's replayer answers every request as
/// `http`, so the scheme of its expected icons is not part of the truth.
fn without_scheme(url: &str) -> &str {
    url.split_once("://").map_or(url, |(_, rest)| rest)
}

/// Case folding, whitespace collapsing and typographic punctuation folded to ASCII.
pub(crate) fn normalise(s: &str) -> String {
    let folded: String = s
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{2032}' => '\'',
            '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{00ab}' | '\u{00bb}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{00a0}' | '\u{2009}' | '\u{202f}' => ' ',
            c => c,
        })
        .flat_map(char::to_lowercase)
        .collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `got` equals `want`, or is a cut of it at a word boundary.
fn agrees(got: &str, want: &str) -> bool {
    let (got, want) = (normalise(got), normalise(want));
    if got.is_empty() {
        return want.is_empty();
    }
    got == want
        || want
            .strip_prefix(&got)
            .is_some_and(|rest| rest.starts_with(' ') || rest.starts_with([',', '.', ';', ':']))
}

async fn readability(server: &Server, data: &Data) -> anyhow::Result<()> {
    let cases = articles(data.third_party(&READABILITY));
    if cases.is_empty() {
        return Ok(());
    }
    for (set, url_of) in [
        (
            "readability, article URL",
            article_url as fn(&Article) -> String,
        ),
        ("readability, as home page", home_url),
    ] {
        let (mut title, mut description, mut site, mut named, mut answered) = (0, 0, 0, 0, 0);
        let mut misses = Vec::new();
        for a in &cases {
            let (status, body) = server
                .post(
                    WOL,
                    &json!({"email": "eval@example.com", "website": url_of(a)}),
                )
                .await?;
            let d = &body["data"];
            let text = |k: &str| d[k].as_str().unwrap_or_default().to_owned();
            let want = |k: &str| a.expected[k].as_str().unwrap_or_default().to_owned();
            answered += usize::from(status == 200);
            let ok = status == 200;
            if ok && agrees(&text("site_title"), &want("title")) {
                title += 1;
            } else if misses.len() < 8 && status == 200 {
                misses.push(format!(
                    "{}: title {:?}, expected {:?}",
                    a.name,
                    text("site_title"),
                    want("title")
                ));
            }
            description += usize::from(ok && agrees(&text("site_description"), &want("excerpt")));
            if a.expected["siteName"].is_string() {
                named += 1;
                site += usize::from(
                    ok && normalise(&text("brand_name")) == normalise(&want("siteName")),
                );
            }
        }
        let n = cases.len();
        score::rate(set, "answered 200", answered, n);
        score::rate(set, "title agrees", title, n);
        score::rate(set, "description agrees", description, n);
        score::rate(set, "site name agrees", site, named);
        for m in misses {
            score::note(format!("{set}: {m}"));
        }
    }
    Ok(())
}

async fn icons(server: &Server, data: &Data) -> anyhow::Result<()> {
    let Some(dir) = data.third_party(&BESTICON) else {
        return Ok(());
    };
    let cases = besticon(&dir);
    let (mut hits, mut answered) = (0, 0);
    let mut misses = Vec::new();
    for (case, _) in &cases {
        let (status, body) = server.post(ASSET, &json!({"query": case.url})).await?;
        answered += usize::from(status == 200);
        let got = body["favicon_url"].as_str();
        let best = case.icons.iter().map(|(_, w)| *w).max();
        let ok = match (got, best) {
            (None, None) => status == 200,
            (Some(g), Some(b)) => case
                .icons
                .iter()
                .any(|(u, w)| *w == b && without_scheme(u) == without_scheme(g)),
            _ => false,
        };
        hits += usize::from(ok);
        if !ok {
            let want = case.icons.first().map_or("none", |(u, _)| u.as_str());
            misses.push(format!("{}: favicon {got:?}, expected {want}", case.url));
        }
    }
    let n = cases.len();
    score::rate("besticon home pages", "answered 200", answered, n);
    score::rate("besticon home pages", "favicon agrees", hits, n);
    for m in misses {
        score::note(m);
    }
    Ok(())
}

/// Runs the benchmark and records its scores.
pub async fn run(server: &Server, data: &Data) -> anyhow::Result<()> {
    score::section(
        "Website processors",
        "wol-meta-info on Mozilla Readability's test pages (title, excerpt and site name \
         from expected-metadata.json) and domain-to-asset on mat/besticon's recorded home \
         pages (the largest icon TestFetchIcons expects). Agreement is defined in \
         tools/eval/src/sites.rs.",
    );
    readability(server, data).await?;
    icons(server, data).await?;
    Ok(())
}
