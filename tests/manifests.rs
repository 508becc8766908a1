//! Golden files for manifest errors: each `tests/manifests/invalid/<case>.toml`
//! is refused with exactly the text in `<case>.err` (the file's path shown as
//! `{path}`), so a change in wording is a visible diff. `GLEANER_BLESS=1`
//! rewrites the `.err` files from the current messages.

use crate::common;

use gleaner::capabilities::http::policy::Policy;

/// What loading a manifest says, from parsing through the checks a load makes.
fn refusal(path: &std::path::Path) -> Option<String> {
    match gleaner::registry::read_manifest(path) {
        Err(e) => Some(e.to_string()),
        Ok(m) => Policy::new(&m.name, &m.network, &m.limits)
            .err()
            .map(|e| format!("manifest {}: {e}", path.display())),
    }
}

#[test]
fn invalid_manifests_are_refused_with_their_golden_message() {
    let dir = common::root().join("tests/manifests/invalid");
    let bless = std::env::var("GLEANER_BLESS").is_ok_and(|v| v == "1");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let got = refusal(case)
            .unwrap_or_else(|| panic!("{} was accepted", case.display()))
            .replace(&case.display().to_string(), "{path}");
        let golden = case.with_extension("err");
        if bless {
            std::fs::write(&golden, format!("{got}\n")).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        if want.trim_end() != got.trim_end() {
            failures.push(format!(
                "{}:\n  expected: {}\n  got:      {got}",
                case.display(),
                want.trim_end()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "manifest messages changed (GLEANER_BLESS=1 to accept):\n{}",
        failures.join("\n")
    );
}
