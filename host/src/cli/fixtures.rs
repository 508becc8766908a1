//! A plugin's replay fixture as the command line reads it: the folder
//! `plugins/<name>/tests/` with its HAR recordings and `replay.toml`, whose
//! `[settings]` are the operator settings the recordings need (test
//! credentials, the page size they were recorded with) and whose cases are
//! requests known to be answered. The demo serves every plugin with its
//! fixture's settings, and `gleaner doctor` takes its default query from the
//! cases.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::Value;

/// One plugin's fixture.
#[derive(Debug, Clone, Default)]
pub struct Fixture {
    /// Operator settings the recordings need.
    pub settings: BTreeMap<String, String>,
    /// Requests the fixture pages through (`[continuation] request`), then
    /// those of the cases answered 200, in file order.
    pub requests: Vec<Value>,
}

impl Fixture {
    /// The fixture in `dir` (`plugins/<name>/tests`); none without a
    /// `replay.toml` there.
    pub fn load(dir: &Path) -> anyhow::Result<Option<Fixture>> {
        let path = dir.join("replay.toml");
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        let file: toml::Value = toml::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "{} is not valid TOML: {}",
                path.display(),
                crate::manifest::toml_error(&text, &e)
            )
        })?;
        let settings = file
            .get("settings")
            .and_then(toml::Value::as_table)
            .map(|table| {
                table
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default();
        let paging = match file.get("continuation") {
            Some(toml::Value::Array(list)) => list.clone(),
            Some(one) => vec![one.clone()],
            None => Vec::new(),
        };
        let answered = file
            .get("case")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter(|case| case.get("status").and_then(toml::Value::as_integer) == Some(200))
            // A case with settings of its own needs more than the fixture's.
            .filter(|case| case.get("settings").is_none())
            .cloned();
        let mut requests = Vec::new();
        for entry in paging.into_iter().chain(answered) {
            if let Some(request) = entry.get("request").and_then(toml::Value::as_str) {
                let parsed = serde_json::from_str(request)
                    .with_context(|| format!("a request in {} is not JSON", path.display()))?;
                requests.push(parsed);
            }
        }
        Ok(Some(Fixture { settings, requests }))
    }

    /// The query of the first request, the one a check of the source sends.
    pub fn query(&self) -> Option<String> {
        self.requests
            .first()
            .and_then(|r| r["query"].as_str())
            .map(str::to_owned)
    }
}

/// The folder of plugin `name`'s fixture under the plugins' sources.
pub fn dir_of(plugins_src: &Path, name: &str) -> PathBuf {
    plugins_src.join(name).join("tests")
}

/// The settings every plugin's fixture needs, by plugin name, for the plugins
/// under `plugins_src` that have a fixture.
pub fn all_settings(
    plugins_src: &Path,
) -> anyhow::Result<BTreeMap<String, BTreeMap<String, String>>> {
    let mut all = BTreeMap::new();
    let entries = std::fs::read_dir(plugins_src).with_context(|| {
        format!(
            "cannot read the plugins' sources in {}; run from the repository, or pass --plugins-src",
            plugins_src.display()
        )
    })?;
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(fixture) = Fixture::load(&dir_of(plugins_src, &name))? {
            if !fixture.settings.is_empty() {
                all.insert(name, fixture.settings);
            }
        }
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_and_requests_come_from_the_replay_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("replay.toml"),
            r#"
[settings]
page_size = "5"

[[case]]
name = "refused"
request = '{"query": "bad"}'
status = 400

[[case]]
name = "own settings"
request = '{"query": "needs more"}'
status = 200
settings = { api_key = "k" }

[[case]]
name = "one"
request = '{"query": "https://example.com/a"}'
status = 200

[continuation]
request = '{"query": "https://example.com/paged"}'
"#,
        )
        .unwrap();
        let fixture = Fixture::load(dir.path()).unwrap().unwrap();
        assert_eq!(fixture.settings["page_size"], "5");
        assert_eq!(
            fixture.query().as_deref(),
            Some("https://example.com/paged")
        );
        assert_eq!(fixture.requests.len(), 2);
        assert!(Fixture::load(&dir.path().join("none")).unwrap().is_none());
    }
}
