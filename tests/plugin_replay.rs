//! Declarative replay tests of plugins: every `plugins/<name>/tests/replay.toml`
//! lists requests and expected answers; the plugin is served by the real server,
//! with its upstream traffic answered from the HAR files beside the cases.
//! This is how a new plugin (see `make new-plugin`) is tested with no host change.
//! `GLEANER_TEST_PLUGIN=<name>` limits the run to one plugin.

use crate::common;

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Cases {
    case: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    /// The request body, as JSON text.
    request: String,
    status: u16,
    /// Expected number of `all_reviews`.
    #[serde(default)]
    count: Option<usize>,
    /// JSON pointer → expected value.
    #[serde(default)]
    fields: std::collections::BTreeMap<String, toml::Value>,
}

fn plugins_with_cases() -> Vec<(String, PathBuf)> {
    let only = std::env::var("GLEANER_TEST_PLUGIN").ok();
    let mut found = Vec::new();
    for entry in std::fs::read_dir(common::root().join("plugins"))
        .unwrap()
        .filter_map(Result::ok)
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let cases = entry.path().join("tests/replay.toml");
        if name != "templates" && cases.exists() && only.as_ref().is_none_or(|o| *o == name) {
            found.push((name, entry.path().join("tests")));
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

#[tokio::test]
async fn every_plugin_passes_its_replay_cases() {
    let plugins = plugins_with_cases();
    let mut failures = Vec::new();
    for (name, tests_dir) in &plugins {
        let text = std::fs::read_to_string(tests_dir.join("replay.toml")).unwrap();
        let cases: Cases =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{name}/tests/replay.toml: {e}"));
        let manifest: gleaner::manifest::Manifest =
            toml::from_str(&std::fs::read_to_string(tests_dir.join("../manifest.toml")).unwrap())
                .unwrap();
        let replay = has_har(tests_dir).then(|| tests_dir.clone());
        let s = common::start(&[name.as_str()], move |c| c.replay = replay).await;
        for case in &cases.case {
            let body: Value = serde_json::from_str(&case.request)
                .unwrap_or_else(|e| panic!("{name}: {}: request: {e}", case.name));
            let (status, answer) = s.post(&manifest.route, body).await;
            let mut problems = Vec::new();
            if status != case.status {
                problems.push(format!("status {status}, expected {}", case.status));
            }
            if let Some(count) = case.count {
                let got = answer["all_reviews"].as_array().map_or(0, Vec::len);
                if got != count {
                    problems.push(format!("{got} reviews, expected {count}"));
                }
            }
            for (pointer, expected) in &case.fields {
                let expected = serde_json::to_value(expected).unwrap();
                let got = answer.pointer(pointer).cloned().unwrap_or(Value::Null);
                if got != expected {
                    problems.push(format!("{pointer} is {got}, expected {expected}"));
                }
            }
            if problems.is_empty() {
                println!("ok    {name}: {}", case.name);
            } else {
                failures.push(format!(
                    "{name}: {}: {}\n  response: {answer}",
                    case.name,
                    problems.join("; ")
                ));
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
