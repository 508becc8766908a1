//! `gleaner plugin new NAME`: a standalone plugin crate, made from the same
//! templates as `make new-plugin`, that builds on its own (its own cargo
//! workspace) against the SDK, by path to a Gleaner checkout or by version.

use std::path::{Path, PathBuf};

use anyhow::Context;

/// The kind of plugin a template makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TemplateKind {
    /// A review source (`kind = "source"`).
    Source,
    /// A processor (`kind = "processor"`).
    Processor,
}

/// One template file: its path in the new crate and its text, `__NAME__`
/// standing for the plugin's name.
type TemplateFile = (&'static str, &'static str);

const SOURCE: [TemplateFile; 4] = [
    (
        "manifest.toml",
        include_str!("../../../plugins/templates/source/manifest.toml"),
    ),
    (
        "src/lib.rs",
        include_str!("../../../plugins/templates/source/src/lib.rs"),
    ),
    (
        "tests/replay.toml",
        include_str!("../../../plugins/templates/source/tests/replay.toml"),
    ),
    (
        "tests/replay.har",
        include_str!("../../../plugins/templates/source/tests/replay.har"),
    ),
];
const SOURCE_CARGO: &str = include_str!("../../../plugins/templates/source/Cargo.toml");

const PROCESSOR: [TemplateFile; 3] = [
    (
        "manifest.toml",
        include_str!("../../../plugins/templates/processor/manifest.toml"),
    ),
    (
        "src/lib.rs",
        include_str!("../../../plugins/templates/processor/src/lib.rs"),
    ),
    (
        "tests/replay.toml",
        include_str!("../../../plugins/templates/processor/tests/replay.toml"),
    ),
];
const PROCESSOR_CARGO: &str = include_str!("../../../plugins/templates/processor/Cargo.toml");

/// The workspace manifest the templates inherit their package settings and
/// dependency versions from.
const WORKSPACE: &str = include_str!("../../../Cargo.toml");

/// Where the new crate finds the SDK.
#[derive(Debug, Clone)]
pub enum SdkSource {
    /// The `plugins/sdk` folder of a Gleaner checkout; the other crates the
    /// templates use are taken from the same checkout.
    Path(PathBuf),
    /// A version of `gleaner-sdk` (and its sibling crates) in a registry cargo reaches.
    Version(String),
}

impl std::fmt::Display for SdkSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SdkSource::Path(path) => write!(f, "path {}", path.display()),
            SdkSource::Version(version) => write!(f, "version {version}"),
        }
    }
}

impl SdkSource {
    /// The SDK of the checkout this binary was built from, when it is still there.
    pub fn built_from() -> Option<SdkSource> {
        let sdk = normalized(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins/sdk"));
        sdk.join("Cargo.toml")
            .is_file()
            .then_some(SdkSource::Path(sdk))
    }
}

/// Creates the crate of plugin `name` in `dir` (which must not exist, or be
/// empty); returns the files written.
pub fn new_plugin(
    name: &str,
    kind: TemplateKind,
    dir: &Path,
    sdk: &SdkSource,
) -> anyhow::Result<Vec<PathBuf>> {
    let name_ok = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    anyhow::ensure!(
        name_ok,
        "plugin name {name:?}: use lower-case letters, digits and '-', starting with a letter (e.g. my-source)"
    );
    let empty = std::fs::read_dir(dir).map_or(true, |mut d| d.next().is_none());
    anyhow::ensure!(
        empty,
        "{} already exists and is not empty; choose another --dir",
        dir.display()
    );
    let (files, cargo): (&[TemplateFile], &str) = match kind {
        TemplateKind::Source => (&SOURCE, SOURCE_CARGO),
        TemplateKind::Processor => (&PROCESSOR, PROCESSOR_CARGO),
    };
    let cargo = standalone_manifest(&cargo.replace("__NAME__", name), sdk)?;
    let mut written = Vec::new();
    let mut write = |path: &str, text: &str| -> anyhow::Result<()> {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
        Ok(())
    };
    write("Cargo.toml", &cargo)?;
    for (path, text) in files {
        write(path, &text.replace("__NAME__", name))?;
    }
    write(".gitignore", "/target\n")?;
    Ok(written)
}

/// The template's `Cargo.toml` made standalone: workspace-inherited values
/// written out, path dependencies pointed at the SDK's checkout (or given
/// the SDK's version), and a `[workspace]` of its own.
fn standalone_manifest(template: &str, sdk: &SdkSource) -> anyhow::Result<String> {
    let workspace: toml::Table = toml::from_str(WORKSPACE).context("the workspace Cargo.toml")?;
    let inherited = |section: &str| -> toml::Table {
        workspace
            .get("workspace")
            .and_then(|w| w.get(section))
            .and_then(|s| s.as_table())
            .cloned()
            .unwrap_or_default()
    };
    let (package_values, dependency_values) = (inherited("package"), inherited("dependencies"));
    let mut crate_toml: toml::Table =
        toml::from_str(template).context("the template Cargo.toml")?;
    if let Some(package) = crate_toml.get_mut("package").and_then(|p| p.as_table_mut()) {
        for (key, value) in package.iter_mut() {
            if is_inherited(value) {
                if let Some(v) = package_values.get(key) {
                    *value = v.clone();
                }
            }
        }
    }
    if let Some(deps) = crate_toml
        .get_mut("dependencies")
        .and_then(|d| d.as_table_mut())
    {
        for (name, value) in deps.iter_mut() {
            if is_inherited(value) {
                let v = dependency_values
                    .get(name)
                    .with_context(|| format!("the workspace has no dependency {name}"))?;
                *value = merged(v, value);
            } else if let Some(path) = value.get("path").and_then(|p| p.as_str()) {
                *value = located(name, path, sdk)?;
            }
        }
    }
    let mut text = String::from(
        "# A Gleaner plugin, built on its own: `gleaner plugin build .` builds and\n\
         # stages it.\n",
    );
    for section in ["package", "lib", "dependencies"] {
        let Some(table) = crate_toml.get(section).and_then(|t| t.as_table()) else {
            continue;
        };
        text.push_str(&format!("\n[{section}]\n"));
        for (key, value) in table {
            text.push_str(&format!("{key} = {value}\n"));
        }
    }
    text.push_str("\n# A workspace of its own, apart from any enclosing one.\n[workspace]\n");
    Ok(text)
}

/// Whether a value is `{ workspace = true }` (with or without more keys).
fn is_inherited(value: &toml::Value) -> bool {
    value.get("workspace").and_then(|w| w.as_bool()) == Some(true)
}

/// The workspace's dependency `base` with the keys the crate adds (`features`).
fn merged(base: &toml::Value, crate_value: &toml::Value) -> toml::Value {
    let mut table = match base {
        toml::Value::String(version) => {
            toml::Table::from_iter([("version".to_owned(), toml::Value::String(version.clone()))])
        }
        other => other.as_table().cloned().unwrap_or_default(),
    };
    if let Some(extra) = crate_value.as_table() {
        for (k, v) in extra {
            if k != "workspace" {
                table.insert(k.clone(), v.clone());
            }
        }
    }
    match (table.len(), table.get("version")) {
        (1, Some(version)) => version.clone(),
        _ => toml::Value::Table(table),
    }
}

/// A template's path dependency (relative to `plugins/<name>/` of the
/// checkout) as the new crate reaches it.
fn located(name: &str, path: &str, sdk: &SdkSource) -> anyhow::Result<toml::Value> {
    match sdk {
        SdkSource::Version(version) => Ok(toml::Value::String(version.clone())),
        SdkSource::Path(sdk_dir) => {
            // plugins/sdk -> the checkout; the template sits at plugins/<name>.
            let sdk_dir = std::path::absolute(sdk_dir).unwrap_or_else(|_| sdk_dir.clone());
            let checkout = sdk_dir.parent().and_then(Path::parent).with_context(|| {
                format!(
                    "--sdk {}: give the plugins/sdk folder of a Gleaner checkout",
                    sdk_dir.display()
                )
            })?;
            anyhow::ensure!(
                sdk_dir.join("Cargo.toml").is_file(),
                "--sdk {}: no Cargo.toml there; give the plugins/sdk folder of a Gleaner checkout",
                sdk_dir.display()
            );
            let target = normalized(&checkout.join("plugins/template").join(path));
            anyhow::ensure!(
                target.join("Cargo.toml").is_file(),
                "the checkout at {} has no {name} crate at {}; is --sdk the plugins/sdk folder of a Gleaner checkout?",
                checkout.display(),
                target.display()
            );
            let table = toml::Table::from_iter([(
                "path".to_owned(),
                toml::Value::String(target.display().to_string()),
            )]);
            Ok(toml::Value::Table(table))
        }
    }
}

/// `path` with its `.` and `..` components resolved lexically.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_standalone_manifest_inherits_nothing_and_has_its_own_workspace() {
        let sdk = SdkSource::built_from().expect("tests run in a checkout");
        let text = standalone_manifest(&SOURCE_CARGO.replace("__NAME__", "x"), &sdk).unwrap();
        assert!(!text.contains("workspace = true"), "{text}");
        let parsed: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(parsed["package"]["name"].as_str(), Some("plugin-x"));
        assert_eq!(parsed["package"]["edition"].as_str(), Some("2021"));
        assert!(parsed["workspace"].as_table().unwrap().is_empty());
        let deps = &parsed["dependencies"];
        let sdk_path = deps["gleaner-sdk"]["path"].as_str().unwrap();
        assert!(
            Path::new(sdk_path).join("Cargo.toml").is_file(),
            "{sdk_path}"
        );
        assert_eq!(deps["serde"]["features"][0].as_str(), Some("derive"));

        let text = standalone_manifest(
            &PROCESSOR_CARGO.replace("__NAME__", "y"),
            &SdkSource::Version("0.1.0".into()),
        )
        .unwrap();
        let parsed: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(
            parsed["dependencies"]["gleaner-sdk"].as_str(),
            Some("0.1.0")
        );
        assert_eq!(
            parsed["dependencies"]["gleaner-text"].as_str(),
            Some("0.1.0")
        );
    }

    #[test]
    fn names_and_folders_in_use_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let sdk = SdkSource::Version("0.1.0".into());
        let e = new_plugin("My_Source", TemplateKind::Source, dir.path(), &sdk).unwrap_err();
        assert!(e.to_string().contains("lower-case letters"), "{e}");
        std::fs::write(dir.path().join("x"), "").unwrap();
        let e = new_plugin("ok", TemplateKind::Source, dir.path(), &sdk).unwrap_err();
        assert!(e.to_string().contains("choose another --dir"), "{e}");
    }
}
