//! The server's modules form no import circle: each top-level module of
//! `host/src` may use those below it, never one that uses it back. The crates
//! under `crates/` are kept apart by the compiler; this keeps the modules of
//! the one server crate the same way. Tests and comments are left out. And
//! no file of the server is longer than one sitting's reading (600 lines).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level module a file under `host/src` belongs to.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let first = file.strip_prefix(src).ok()?.components().next()?;
    let name = first.as_os_str().to_str()?;
    let name = name.strip_suffix(".rs").unwrap_or(name);
    (name != "lib" && name != "main").then(|| name.to_owned())
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// What a file's code (before its test module, without comments) names as
/// `crate::<module>`.
fn uses(text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let mut named = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or_default();
        for (at, _) in line.match_indices("crate::") {
            let rest = &line[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                .collect();
            if !name.is_empty() && !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                named.insert(name);
            }
        }
    }
    named
}

/// The modules of `graph` on some circle, each circle as found.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Depth-first search; a back edge to a module on the path closes a circle.
    fn visit(
        at: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        found: &mut Vec<Vec<String>>,
    ) {
        if let Some(start) = path.iter().position(|m| m == at) {
            found.push(path[start..].to_vec());
            return;
        }
        if !done.insert(at.to_owned()) {
            return;
        }
        path.push(at.to_owned());
        for next in graph.get(at).into_iter().flatten() {
            visit(next, graph, path, done, found);
        }
        path.pop();
    }
    let mut found = Vec::new();
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        visit(module, graph, &mut Vec::new(), &mut done, &mut found);
    }
    found
}

#[test]
fn the_servers_modules_form_no_import_circle() {
    let src = crate::common::root().join("host/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let entry = graph.entry(module.clone()).or_default();
        entry.extend(uses(&text).into_iter().filter(|m| *m != module));
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for used in graph.values_mut() {
        used.retain(|m| modules.contains(m));
    }
    assert!(graph.len() > 15, "the modules were found: {graph:?}");
    assert!(graph["api"].contains("driver"), "uses are read: {graph:?}");
    let found = circles(&graph);
    assert!(
        found.is_empty(),
        "import circles among the server's modules (each module uses the next, the last the \
         first): {found:?}; move what the lower module needs down to it, or into a crate"
    );
}

#[test]
fn a_circle_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(m, uses)| (m.to_owned(), uses.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(circles(&graph), [["a", "b", "c"]]);
    assert_eq!(
        uses("use crate::config::Config; // crate::api\nfoo_crate::x"),
        BTreeSet::from(["config".to_owned()])
    );
}

/// The longest a server source file may be: one sitting's reading.
const MAX_LINES: usize = 600;

#[test]
fn every_server_file_reads_in_one_sitting() {
    let src = crate::common::root().join("host/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "server files over {MAX_LINES} lines: {long:?}; split each by the concepts it holds"
    );
}
