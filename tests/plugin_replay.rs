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
//! A review source with a guide (`docs/sources/<name>.md`) keeps the fill rate
//! of each record field over its answers in its manifest and guide
//! ([`coverage`]): written with `GLEANER_BLESS=1`, checked otherwise.
//! A processor keeps the same cases in `plugins/<name>/tests/cases.toml`
//! (there is no upstream to replay, unless a HAR file is beside it).
//! `GLEANER_TEST_PLUGIN=<name>` limits the run to one plugin.
//!
//! `follow = true` sends the previous case's continuation; `follow = "<name>"`
//! that of the named earlier case. `review_ids` lists the exact `review_id`s
//! of the answer in order; `cursor_excludes` lists texts the plugin cursor
//! inside the answer's continuation token must not hold (cookies, say).
//!
//! What the plugin sends upstream is asserted with `[[case.upstream]]` tables
//! (see [`upstream`]), in the order the requests must come, each selecting
//! requests by `method`, `url` (exact), `url_prefix`, `url_contains`, `query`
//! (parameter → value), `json` (JSON pointer into the body → value), `form`
//! (body field → value), `answered` (the recorded status) and `nth` (only the
//! n-th of those), and asserting their `count` (1 unless given; 0 for none)
//! and, on every one, `headers` (→ value), `headers_present`,
//! `headers_absent`, `cookies` (→ value) and `cookies_absent`;
//! `any_order = true` takes an entry out of the order. `upstream_count` is
//! the number of requests the case made in all. Such cases (and the cases
//! that follow one) run on a server of their own whose upstream hosts are a
//! local server answering from the same HAR files with its own replay order,
//! shared by those cases of the plugin (one with `settings` gets its own).

/// Calls `$m!` with every review source that has replay cases, as
/// `test_name => "source"` pairs, so each module that tests every source
/// (fetched twice, receipts) makes one test per source from one list;
/// [`twice::every_source_is_fetched_twice`] checks the list is complete.
macro_rules! review_sources {
    ($m:ident) => {
        $m! {
            attraction_booking => "attraction-booking",
            auto_research => "auto-research",
            code_hosting_project => "code-hosting-project",
            customer_feedback_hub => "customer-feedback-hub",
            design_market => "design-market",
            fitness_class => "fitness-class",
            home_services => "home-services",
            hostel_site => "hostel-site",
            podcast_directory => "podcast-directory",
            review_platform => "review-platform",
            testimonial_wall => "testimonial-wall",
            theme_market => "theme-market",
            venue_guide => "venue-guide",
            web_page => "web-page",
            wholesale_market => "wholesale-market",
        }
    };
}

mod checks;
pub mod coverage;
mod edits;
mod receipts;
mod recorded;
mod twice;
pub mod upstream;

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use checks::{check, check_cursor, check_paging};
use gleaner::manifest::{Continuation, Manifest};
use serde::Deserialize;
use serde_json::{json, Value};
use upstream::Upstream;

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
    /// Send the continuation of the previous case's answer (`true`), or of
    /// the named earlier case's, with this request.
    #[serde(default)]
    follow: Follow,
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
    /// The exact `review_id`s of the answer, in order.
    #[serde(default)]
    review_ids: Option<Vec<String>>,
    /// Texts the plugin cursor inside the answer's continuation token must not hold.
    #[serde(default)]
    cursor_excludes: Vec<String>,
    /// The number of upstream requests the case made, in all.
    #[serde(default)]
    upstream_count: Option<usize>,
    /// The upstream requests the case made, in order.
    #[serde(default)]
    upstream: Vec<upstream::Expect>,
}

impl Case {
    /// Whether the case asserts what the plugin sent upstream.
    fn watches(&self) -> bool {
        !self.upstream.is_empty() || self.upstream_count.is_some()
    }

    /// Whether the case can be sent on its own to a server of the plugin's
    /// settings and is answered 200 from the recordings alone: it follows
    /// no other case, has no settings of its own and watches nothing.
    fn answered_alone(&self) -> bool {
        matches!(self.follow, Follow::Previous(false))
            && self.settings.is_none()
            && self.status == 200
            && !self.watches()
    }
}

/// A plugin's manifest.
fn manifest_of(name: &str) -> Manifest {
    let path = common::root().join(format!("plugins/{name}/manifest.toml"));
    toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A source's replay cases, the directory of its recordings, and its manifest.
fn replay_of(name: &str) -> (Cases, PathBuf, Manifest) {
    let file = common::root().join(format!("plugins/{name}/tests/replay.toml"));
    let cases: Cases = toml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let dir = file.parent().unwrap().to_owned();
    (cases, dir, manifest_of(name))
}

/// Which earlier answer's continuation a case sends.
#[derive(Deserialize)]
#[serde(untagged)]
enum Follow {
    /// The previous case's, or none.
    Previous(bool),
    /// The named case's.
    Case(String),
}

impl Default for Follow {
    fn default() -> Self {
        Follow::Previous(false)
    }
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

/// The plugins with replay cases, or only the one `GLEANER_TEST_PLUGIN`
/// names (`make test-plugin NAME=…`).
fn plugins_with_cases() -> Vec<(String, PathBuf)> {
    let only = std::env::var("GLEANER_TEST_PLUGIN").ok();
    every_plugin_with_cases()
        .into_iter()
        .filter(|(name, _)| only.as_ref().is_none_or(|o| o == name))
        .collect()
}

/// Every plugin with replay cases, whatever `GLEANER_TEST_PLUGIN` names: for
/// the checks that the set of plugins is whole.
fn every_plugin_with_cases() -> Vec<(String, PathBuf)> {
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
            found.push((name, cases));
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

/// A server of one plugin, and its local upstream when it watches what the plugin sends.
struct Served {
    server: common::Server,
    upstream: Option<Upstream>,
}

/// A server with only `name`, its replay and its operator settings.
async fn serve(
    name: &str,
    replay: &Option<PathBuf>,
    settings: &BTreeMap<String, String>,
) -> Served {
    let (replay, settings) = (replay.clone(), settings.clone());
    let server = common::start(&[name], move |c| {
        c.replay = replay;
        c.plugins.insert(name.to_owned(), settings);
    })
    .await;
    Served {
        server,
        upstream: None,
    }
}

/// A server with only `name` and its operator settings, whose upstream is a
/// local one answering from the HAR files in `dir` and keeping every request.
async fn serve_watched(
    name: &str,
    dir: &Path,
    manifest: &Manifest,
    settings: &BTreeMap<String, String>,
) -> Served {
    let upstream = Upstream::start(dir, manifest).await;
    let server = common::start(&[name], |c| {
        upstream.configure(name, c);
        c.plugins.insert(name.to_owned(), settings.clone());
    })
    .await;
    Served {
        server,
        upstream: Some(upstream),
    }
}

/// Sends one case's request to `served` (with the continuation of
/// `followed`, when it follows one) and returns the answer and what is wrong.
async fn run_case(
    name: &str,
    served: &Served,
    manifest: &Manifest,
    case: &Case,
    followed: Option<&Value>,
) -> (Value, Vec<String>) {
    let mut body: Value = serde_json::from_str(&case.request)
        .unwrap_or_else(|e| panic!("{name}: {}: request: {e}", case.name));
    if let Some(earlier) = followed {
        match continuation(manifest, earlier) {
            Some((field, value)) => body[field] = value,
            None => panic!(
                "{name}: {}: the case it follows has no continuation",
                case.name
            ),
        }
    }
    let query = body["query"].as_str().unwrap_or_default().to_owned();
    let from = served.upstream.as_ref().map(Upstream::len);
    let (status, headers, answer) = served.server.post_with_headers(&manifest.route, body).await;
    let mut problems = check(case, status, &headers, &answer);
    problems.extend(check_cursor(case, manifest, &query, &answer));
    if let (Some(upstream), Some(from)) = (&served.upstream, from) {
        let seen = upstream.since(from);
        problems.extend(upstream::check(&case.upstream, case.upstream_count, &seen));
    }
    (answer, problems)
}

#[tokio::test]
async fn every_plugin_passes_its_replay_cases() {
    let plugins = plugins_with_cases();
    let mut failures = Vec::new();
    for (name, file) in &plugins {
        failures.extend(run_cases(name, file, true).await);
    }
    assert!(
        failures.is_empty(),
        "replay cases failed:\n{}",
        failures.join("\n")
    );
    println!("{} plugins with replay cases", plugins.len());
}

/// The held-out cases: each source's `held-out/` holds pages of another
/// entity than its replay samples, written before the plugin first read them,
/// with the values the record rules require of them. They run like replay
/// cases (strict record rules included) but never count toward fill rates.
#[tokio::test]
async fn every_source_passes_its_held_out_cases() {
    let mut failures = Vec::new();
    let mut sets = 0;
    for (name, _) in plugins_with_cases() {
        let held_out = common::root()
            .join("plugins")
            .join(&name)
            .join("held-out/replay.toml");
        if !held_out.is_file() {
            continue;
        }
        sets += 1;
        failures.extend(run_cases(&name, &held_out, false).await);
    }
    assert!(
        failures.is_empty(),
        "held-out cases failed:\n{}",
        failures.join("\n")
    );
    println!("{sets} sources with held-out cases");
}

/// Runs the cases in `file` (a `replay.toml` or `cases.toml`) against a
/// server of `name` answering from the HAR files beside it, and returns what
/// went wrong. With `fill_rates`, a review source's fill rates are checked
/// against its manifest and guide as well.
async fn run_cases(name: &str, file: &Path, fill_rates: bool) -> Vec<String> {
    let mut failures = Vec::new();
    let tests_dir = &file.parent().unwrap().to_owned();
    let text = std::fs::read_to_string(file).unwrap();
    let cases: Cases = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let manifest_file = common::root()
        .join("plugins")
        .join(name)
        .join("manifest.toml");
    let manifest: Manifest =
        toml::from_str(&std::fs::read_to_string(manifest_file).unwrap()).unwrap();
    let replay = has_har(tests_dir).then(|| tests_dir.clone());
    let main = serve(name, &replay, &cases.settings).await;
    // The server of the cases that assert their upstream requests, once one does.
    let mut watched: Option<Served> = None;
    // Each case's name and answer, and whether a watched server gave it.
    let mut answers: Vec<(&str, Value, bool)> = Vec::new();
    let mut fill = coverage::Fill::default();
    for case in &cases.case {
        let followed = match &case.follow {
            Follow::Previous(false) => None,
            Follow::Previous(true) => answers.last(),
            Follow::Case(earlier) => answers.iter().rev().find(|a| a.0 == earlier),
        };
        if !matches!(case.follow, Follow::Previous(false)) && followed.is_none() {
            panic!("{name}: {}: there is no earlier case to follow", case.name);
        }
        let followed = followed.map(|(_, answer, watched)| (answer.clone(), *watched));
        let watch = case.watches() || followed.as_ref().is_some_and(|f| f.1);
        if watch && case.settings.is_none() && watched.is_none() {
            watched = Some(serve_watched(name, tests_dir, &manifest, &cases.settings).await);
        }
        let own;
        let served = match (&case.settings, watch) {
            (Some(settings), false) => {
                own = serve(name, &replay, settings).await;
                &own
            }
            (Some(settings), true) => {
                own = serve_watched(name, tests_dir, &manifest, settings).await;
                &own
            }
            (None, false) => &main,
            (None, true) => watched.as_ref().unwrap(),
        };
        let followed = followed.as_ref().map(|f| &f.0);
        let (answer, problems) = run_case(name, served, &manifest, case, followed).await;
        fill.add(&answer);
        if problems.is_empty() {
            println!("ok    {name}: {}", case.name);
        } else {
            failures.push(format!(
                "{name}: {}: {}\n  response: {answer}",
                case.name,
                problems.join("; ")
            ));
        }
        answers.push((&case.name, answer, watch));
    }
    // A review source with a guide keeps its fill rates in its manifest and guide.
    let guide = common::root().join(format!("docs/sources/{name}.md"));
    if fill_rates && manifest.kind == gleaner::manifest::Kind::Source && guide.is_file() {
        let plugin_dir = common::root().join("plugins").join(name);
        failures.extend(
            coverage::check(&plugin_dir, &guide, &fill.coverage())
                .into_iter()
                .map(|p| format!("{name}: {p}")),
        );
    }
    for paging in cases.continuation.iter().flat_map(Pagings::all) {
        let own;
        let served = match &paging.settings {
            Some(settings) => {
                own = serve(name, &replay, settings).await;
                &own
            }
            None => &main,
        };
        match check_paging(&served.server, &manifest, paging).await {
            Ok(total) => println!(
                "ok    {name}: continuation gives the same {total} reviews for every reviews_to_fetch from 1 to {}",
                total + 1
            ),
            Err(e) => failures.push(format!("{name}: continuation: {e}")),
        }
    }
    failures
}
