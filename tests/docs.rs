//! The documentation against itself and the code: every link between the
//! guides leads to a file and a heading that exist, the README stays a door
//! (a few screens), the configuration guide lists every setting the server
//! reads, and nothing it does not, and each source's guide names every host
//! its manifest says the source reads.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common;

/// The guides: the README, the plugin author's guide and everything in `docs/`.
fn guides() -> Vec<PathBuf> {
    let root = common::root();
    let mut files = vec![root.join("README.md"), root.join("PLUGINS.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The text of a Markdown file outside its fenced code blocks.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The anchors of a Markdown file's headings, as GitHub makes them.
fn anchors(text: &str) -> BTreeSet<String> {
    prose(text)
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| l.trim_start_matches('#'))
        .filter(|l| l.starts_with(' '))
        .map(|heading| {
            heading
                .trim()
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
                .map(|c| if c == ' ' { '-' } else { c })
                .collect()
        })
        .collect()
}

/// The targets of the inline links of `text`: `[label](target)`.
fn links(text: &str) -> Vec<String> {
    let text = prose(text);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("](") {
        let tail = &rest[at + 2..];
        let end = tail.find(')').unwrap_or(tail.len());
        out.push(tail[..end].to_owned());
        rest = &tail[end..];
    }
    out
}

#[test]
fn every_link_between_the_guides_leads_somewhere() {
    let mut broken = Vec::new();
    let files = guides();
    assert!(files.len() >= 20, "{} guides", files.len());
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") || link.contains(' ') {
                continue;
            }
            let (path, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = match path {
                "" => file.clone(),
                p => file.parent().unwrap_or(Path::new(".")).join(p),
            };
            if !target.exists() {
                broken.push(format!("{}: {link} (no such file)", file.display()));
                continue;
            }
            let markdown = target.extension().is_some_and(|e| e == "md");
            if !fragment.is_empty() && markdown {
                let headings = anchors(&std::fs::read_to_string(&target).unwrap());
                if !headings.contains(fragment) {
                    broken.push(format!("{}: {link} (no such heading)", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_door() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 260,
        "the README has {lines} lines; move detail into its guide under docs/"
    );
    for guide in [
        "docs/api.md",
        "docs/configuration.md",
        "docs/architecture.md",
        "PLUGINS.md",
    ] {
        assert!(
            readme.contains(&format!("({guide})")),
            "the README links {guide}"
        );
    }
}

#[test]
fn the_configuration_guide_lists_every_setting_the_server_reads() {
    let guide = std::fs::read_to_string(common::root().join("docs/configuration.md")).unwrap();
    let listed = common::variable_names(&guide);
    let read = common::names_the_server_reads();
    let missing: Vec<_> = read.difference(&listed).collect();
    assert!(
        missing.is_empty(),
        "docs/configuration.md does not list {missing:?}"
    );
    // `GLEANER_PLUGIN_<NAME>_<KEY>` stands for every plugin's settings.
    let unknown: Vec<_> = listed
        .difference(&read)
        .filter(|name| *name != "GLEANER_PLUGIN")
        .collect();
    assert!(
        unknown.is_empty(),
        "docs/configuration.md lists {unknown:?}, which the server does not read"
    );
}

/// The site hosts a text names (`m.cars.com`, `sourceforge.io`), lower-cased,
/// without `www.` or a wildcard.
fn hosts_named(text: &str) -> BTreeSet<String> {
    const TLDS: &[&str] = &["com", "net", "io", "to", "org"];
    text.to_ascii_lowercase()
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        .map(|t| t.trim_matches('.'))
        .filter(|t| t.contains('.'))
        .filter(|t| t.rsplit('.').next().is_some_and(|tld| TLDS.contains(&tld)))
        .map(|t| t.strip_prefix("www.").unwrap_or(t).to_owned())
        .collect()
}

#[test]
fn every_source_guide_names_the_hosts_its_manifest_accepts() {
    let root = common::root();
    let mut checked = 0;
    let mut gaps = Vec::new();
    for entry in std::fs::read_dir(root.join("docs/sources")).unwrap() {
        let guide_path = entry.unwrap().path();
        let name = guide_path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let manifest_path = root.join("plugins").join(&name).join("manifest.toml");
        let Ok(manifest) = std::fs::read_to_string(&manifest_path) else {
            continue;
        };
        let manifest: toml::Value = toml::from_str(&manifest).unwrap();
        let Some(description) = manifest
            .get("source")
            .and_then(|source| source.get("query_description"))
            .and_then(toml::Value::as_str)
        else {
            continue;
        };
        let guide = std::fs::read_to_string(&guide_path)
            .unwrap()
            .to_ascii_lowercase();
        let missing: Vec<String> = hosts_named(description)
            .into_iter()
            .filter(|host| !guide.contains(host.as_str()))
            .collect();
        if !missing.is_empty() {
            gaps.push(format!(
                "docs/sources/{name}.md does not name {missing:?}, which the query_description \
                 of plugins/{name}/manifest.toml accepts"
            ));
        }
        checked += 1;
    }
    assert!(
        gaps.is_empty(),
        "say in each guide which addresses the source reads:\n{}",
        gaps.join("\n")
    );
    assert!(checked >= 14, "only {checked} source guides were checked");
}
