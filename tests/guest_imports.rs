//! Staging leaves no plugin the console, environment and exit imports Rust's
//! standard library gives it (`make plugins` runs gleaner-trim), so a
//! processor that needs no clock or random numbers instantiates as one core
//! module. That those plugins still work is every other test here; that a
//! plugin which prints traps cleanly is in `containment`.

use wasmparser::{Parser, Payload};

use crate::common;

/// The component's imported interfaces and how many core modules it holds.
fn shape(wasm: &[u8]) -> (Vec<String>, usize) {
    let (mut depth, mut imports, mut modules) = (0usize, Vec::new(), 0);
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.unwrap() {
            Payload::Version { .. } => depth += 1,
            Payload::End(_) => depth -= 1,
            Payload::ModuleSection { .. } if depth == 1 => modules += 1,
            Payload::ComponentImportSection(section) if depth == 1 => {
                for import in section {
                    imports.push(import.unwrap().name.name.to_owned());
                }
            }
            _ => {}
        }
    }
    (imports, modules)
}

#[test]
fn staged_plugins_import_no_console_environment_or_exit() {
    let mut checked = 0;
    for dir in ["target/plugins", "target/test-plugins"] {
        let dir = common::root().join(dir);
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|_| panic!("{} is missing: make plugins stages it", dir.display()));
        for path in entries.map(|e| e.unwrap().path()) {
            if path.extension().is_none_or(|x| x != "wasm") {
                continue;
            }
            let (imports, _) = shape(&std::fs::read(&path).unwrap());
            let console: Vec<_> = imports
                .iter()
                .filter(|i| i.starts_with("wasi:cli/") || i.starts_with("wasi:io/streams"))
                .collect();
            assert!(
                console.is_empty(),
                "{} still imports {console:?}: stage it with make plugins (gleaner-trim)",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} plugins were checked");
}

#[test]
fn a_processor_without_clocks_is_one_core_module() {
    let path = common::root().join("target/plugins/review-chunk.wasm");
    let (imports, modules) = shape(&std::fs::read(&path).unwrap());
    assert_eq!(
        modules, 1,
        "review-chunk holds {modules} core modules; imports: {imports:?}"
    );
}
