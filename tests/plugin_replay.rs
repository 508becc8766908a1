//! Declarative replay tests of plugins, the one way a source is tested: every
//! `plugins/<name>/tests/replay.toml` lists requests and what their answers must
//! hold; the plugin is served by the real server, with its upstream traffic
//! answered only from the HAR files beside the cases (so two plugins' fixtures
//! never collide). A `[continuation]` table adds the paging property: for every
//! `reviews_to_fetch` from 1 to the total, following the continuation yields the
//! full sequence with no gap and no duplicate (`[[continuation]]` for several
//! fetches, each optionally with its own `settings`). A top-level `[settings]` table
//! gives the plugin's operator settings (`[plugins.<name>]`); a case with its
//! own `settings` runs on a server of its own with exactly those.
//! Every answer is checked for duplicate ids and for review dates that go
//! against the order the source declared (`extra_information.order_contradicted`).
//! A processor keeps the same cases in `plugins/<name>/tests/cases.toml`
//! (there is no upstream to replay, unless a HAR file is beside it).
//! `GLEANER_TEST_PLUGIN=<name>` limits the run to one plugin.

use crate::common;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use gleaner::manifest::{Continuation, Manifest};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Cases {
    /// The plugin's operator settings for every case without its own.
    #[serde(default)]
    settings: BTreeMap<String, String>,
    #[serde(default)]
    case: Vec<Case>,
    #[serde(default)]
    continuation: Option<Pagings>,
}

/// One `[continuation]` table, or several as `[[continuation]]`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Pagings {
    One(Paging),
    Many(Vec<Paging>),
}

impl Pagings {
    fn all(&self) -> &[Paging] {
        match self {
            Pagings::One(p) => std::slice::from_ref(p),
            Pagings::Many(list) => list,
        }
    }
}

/// One request and what its answer must hold.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    /// The request body, as JSON text.
    request: String,
    /// Send the continuation of the previous case's answer with this request.
    #[serde(default)]
    follow: bool,
    /// Run on a server of its own with these operator settings instead.
    #[serde(default)]
    settings: Option<BTreeMap<String, String>>,
    status: u16,
    /// Expected number of `all_reviews`.
    #[serde(default)]
    count: Option<usize>,
    /// JSON pointer → expected value.
    #[serde(default)]
    fields: BTreeMap<String, toml::Value>,
    /// JSON pointer → a substring (or several) its string value must contain.
    #[serde(default)]
    contains: BTreeMap<String, Parts>,
    /// JSON pointer → a substring (or several) its string value must not contain.
    #[serde(default)]
    excludes: BTreeMap<String, Parts>,
    /// Response header → its expected value.
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// JSON pointer → the JSON type there (`string`, `number`, `boolean`, `object`, `array`, `null`).
    #[serde(default)]
    types: BTreeMap<String, String>,
    /// JSON pointer → the exact set of keys of the object there.
    #[serde(default)]
    keys: BTreeMap<String, Vec<String>>,
    /// Review field → the value every review has.
    #[serde(default)]
    every_review: BTreeMap<String, toml::Value>,
    /// Review field → a prefix every review's value starts with.
    #[serde(default)]
    every_review_prefix: BTreeMap<String, String>,
    /// A review field the reviews are sorted by; `-field` for descending.
    #[serde(default)]
    order: Option<String>,
}

/// One substring, or several.
#[derive(Deserialize)]
#[serde(untagged)]
enum Parts {
    One(String),
    Many(Vec<String>),
}

impl Parts {
    fn all(&self) -> &[String] {
        match self {
            Parts::One(p) => std::slice::from_ref(p),
            Parts::Many(list) => list,
        }
    }
}

/// The paging property.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Paging {
    /// The fetch, without `reviews_to_fetch`.
    request: String,
    /// Run on a server of its own with these operator settings.
    #[serde(default)]
    settings: Option<BTreeMap<String, String>>,
}

fn plugins_with_cases() -> Vec<(String, PathBuf)> {
    let only = std::env::var("GLEANER_TEST_PLUGIN").ok();
    let mut found = Vec::new();
    for entry in std::fs::read_dir(common::root().join("plugins"))
        .unwrap()
        .filter_map(Result::ok)
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let cases = ["replay.toml", "cases.toml"]
            .into_iter()
            .map(|file| entry.path().join("tests").join(file))
            .find(|path| path.exists());
        if let Some(cases) = cases.filter(|_| name != "templates") {
            if only.as_ref().is_none_or(|o| *o == name) {
                found.push((name, cases));
            }
        }
    }
    found.sort();
    found
}

fn has_har(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .any(|e| e.path().extension().is_some_and(|x| x == "har"))
        })
        .unwrap_or(false)
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The continuation of an answer, in the form the endpoint takes it back.
fn continuation(manifest: &Manifest, answer: &Value) -> Option<(&'static str, Value)> {
    let source = manifest.source.as_ref()?;
    match source.continuation {
        Continuation::PaginationToken => answer["next_page"]
            .as_str()
            .map(|t| ("pagination_token", json!(t))),
        Continuation::PaginationData => answer["pagination_data"]
            .as_object()
            .map(|o| ("pagination_data", Value::Object(o.clone()))),
        Continuation::None => None,
    }
}

fn review_ids(answer: &Value) -> Vec<String> {
    answer["all_reviews"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| r["review_id"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Everything wrong with `answer` for `case`.
fn check(
    case: &Case,
    status: u16,
    headers: &reqwest::header::HeaderMap,
    answer: &Value,
) -> Vec<String> {
    let mut problems = Vec::new();
    if status != case.status {
        problems.push(format!("status {status}, expected {}", case.status));
    }
    for (name, expected) in &case.headers {
        let got = headers.get(name.as_str()).and_then(|v| v.to_str().ok());
        if got != Some(expected.as_str()) {
            problems.push(format!("header {name} is {got:?}, expected {expected:?}"));
        }
    }
    let reviews = answer["all_reviews"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if let Some(count) = case.count {
        if reviews.len() != count {
            problems.push(format!("{} reviews, expected {count}", reviews.len()));
        }
    }
    let ids = review_ids(answer);
    if ids.iter().collect::<HashSet<_>>().len() != ids.len() {
        problems.push("a review_id appears twice".into());
    }
    // The order a source declares holds on every recorded page it reads.
    let contradicted = &answer["extra_information"]["order_contradicted"];
    if contradicted.is_string() {
        problems.push(format!(
            "the source declared {contradicted} but its review dates went against it"
        ));
    }
    let at = |pointer: &str| answer.pointer(pointer).cloned().unwrap_or(Value::Null);
    for (pointer, expected) in &case.fields {
        let expected = serde_json::to_value(expected).unwrap();
        if at(pointer) != expected {
            problems.push(format!("{pointer} is {}, expected {expected}", at(pointer)));
        }
    }
    for (pointer, part) in case
        .contains
        .iter()
        .flat_map(|(p, parts)| parts.all().iter().map(move |x| (p, x)))
    {
        if !at(pointer)
            .as_str()
            .is_some_and(|s| s.contains(part.as_str()))
        {
            problems.push(format!(
                "{pointer} is {}, expected to contain {part:?}",
                at(pointer)
            ));
        }
    }
    for (pointer, part) in case
        .excludes
        .iter()
        .flat_map(|(p, parts)| parts.all().iter().map(move |x| (p, x)))
    {
        if at(pointer)
            .as_str()
            .is_none_or(|s| s.contains(part.as_str()))
        {
            problems.push(format!(
                "{pointer} is {}, expected a string without {part:?}",
                at(pointer)
            ));
        }
    }
    for (pointer, kind) in &case.types {
        if kind_of(&at(pointer)) != kind {
            problems.push(format!("{pointer} is {}, expected a {kind}", at(pointer)));
        }
    }
    for (pointer, expected) in &case.keys {
        let mut got: Vec<String> = at(pointer)
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        let mut want = expected.clone();
        got.sort();
        want.sort();
        if got != want {
            problems.push(format!("{pointer} has keys {got:?}, expected {want:?}"));
        }
    }
    for (field, expected) in &case.every_review {
        let expected = serde_json::to_value(expected).unwrap();
        if let Some(r) = reviews.iter().find(|r| r[field.as_str()] != expected) {
            problems.push(format!(
                "a review has {field} = {}, expected {expected}",
                r[field.as_str()]
            ));
        }
    }
    for (field, prefix) in &case.every_review_prefix {
        let bad = reviews.iter().find(|r| {
            !r[field.as_str()]
                .as_str()
                .is_some_and(|v| v.starts_with(prefix.as_str()))
        });
        if let Some(r) = bad {
            problems.push(format!(
                "a review has {field} = {}, expected a prefix {prefix:?}",
                r[field.as_str()]
            ));
        }
    }
    if let Some(order) = &case.order {
        let (field, descending) = match order.strip_prefix('-') {
            Some(f) => (f, true),
            None => (order.as_str(), false),
        };
        let values: Vec<String> = reviews.iter().map(|r| r[field].to_string()).collect();
        let mut sorted = values.clone();
        sorted.sort();
        if descending {
            sorted.reverse();
        }
        if values != sorted {
            problems.push(format!("reviews are not sorted by {order}"));
        }
    }
    problems
}

/// Follows the continuation for every `reviews_to_fetch` from 1 to the total.
async fn check_paging(
    s: &common::Server,
    manifest: &Manifest,
    paging: &Paging,
) -> Result<usize, String> {
    let base: Value = serde_json::from_str(&paging.request).map_err(|e| format!("request: {e}"))?;
    let (status, full) = s.post(&manifest.route, base.clone()).await;
    if status != 200 {
        return Err(format!("the full fetch answered {status}: {full}"));
    }
    let everything = review_ids(&full);
    let total = everything.len();
    for step in 1..=total + 1 {
        let mut collected = Vec::new();
        let mut next: Option<(&str, Value)> = None;
        for round in 0..=total + 1 {
            let mut request = base.clone();
            request["reviews_to_fetch"] = json!(step);
            if let Some((field, value)) = &next {
                request[*field] = value.clone();
            }
            let (status, answer) = s.post(&manifest.route, request).await;
            if status != 200 {
                return Err(format!(
                    "step {step}, round {round}: status {status}: {answer}"
                ));
            }
            let got = review_ids(&answer);
            let expected = step.min(total - collected.len());
            if got.len() != expected {
                return Err(format!(
                    "step {step}, round {round}: {} reviews, expected {expected}",
                    got.len()
                ));
            }
            collected.extend(got);
            next = continuation(manifest, &answer);
            if next.is_none() {
                break;
            }
        }
        if collected != everything {
            return Err(format!(
                "step {step}: the sequence differs from the full fetch"
            ));
        }
    }
    Ok(total)
}

/// A server with only `name`, its replay and its operator settings.
async fn serve(
    name: &str,
    replay: &Option<PathBuf>,
    settings: &BTreeMap<String, String>,
) -> common::Server {
    let (replay, settings) = (replay.clone(), settings.clone());
    common::start(&[name], move |c| {
        c.replay = replay;
        c.plugins.insert(name.to_owned(), settings);
    })
    .await
}

#[tokio::test]
async fn every_plugin_passes_its_replay_cases() {
    let plugins = plugins_with_cases();
    let mut failures = Vec::new();
    for (name, file) in &plugins {
        let tests_dir = &file.parent().unwrap().to_owned();
        let text = std::fs::read_to_string(file).unwrap();
        let cases: Cases =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let manifest: Manifest =
            toml::from_str(&std::fs::read_to_string(tests_dir.join("../manifest.toml")).unwrap())
                .unwrap();
        let replay = has_har(tests_dir).then(|| tests_dir.clone());
        let s = serve(name, &replay, &cases.settings).await;
        let mut previous = Value::Null;
        for case in &cases.case {
            let own;
            let s = match &case.settings {
                Some(settings) => {
                    own = serve(name, &replay, settings).await;
                    &own
                }
                None => &s,
            };
            let mut body: Value = serde_json::from_str(&case.request)
                .unwrap_or_else(|e| panic!("{name}: {}: request: {e}", case.name));
            if case.follow {
                match continuation(&manifest, &previous) {
                    Some((field, value)) => body[field] = value,
                    None => panic!(
                        "{name}: {}: the previous case has no continuation",
                        case.name
                    ),
                }
            }
            let (status, headers, answer) = s.post_with_headers(&manifest.route, body).await;
            let problems = check(case, status, &headers, &answer);
            if problems.is_empty() {
                println!("ok    {name}: {}", case.name);
            } else {
                failures.push(format!(
                    "{name}: {}: {}\n  response: {answer}",
                    case.name,
                    problems.join("; ")
                ));
            }
            previous = answer;
        }
        for paging in cases.continuation.iter().flat_map(Pagings::all) {
            let own;
            let s = match &paging.settings {
                Some(settings) => {
                    own = serve(name, &replay, settings).await;
                    &own
                }
                None => &s,
            };
            match check_paging(s, &manifest, paging).await {
                Ok(total) => println!(
                    "ok    {name}: continuation gives the same {total} reviews for every reviews_to_fetch from 1 to {}",
                    total + 1
                ),
                Err(e) => failures.push(format!("{name}: continuation: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "replay cases failed:\n{}",
        failures.join("\n")
    );
    println!("{} plugins with replay cases", plugins.len());
}
