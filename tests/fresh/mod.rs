//! What a fresh machine meets first: the native-tools detection, run on a
//! simulated fresh machine (`detect.sh` in a private mount namespace), where
//! llvm's folder holds only `libclang-cpp` and `apt-get` is a shim that
//! records what it was asked.

use std::process::Command;

/// The packages `make native-tools` asked apt-get for in `scenario`.
fn asked(scenario: &str) -> Vec<String> {
    let script = crate::common::root().join("tests/fresh/detect.sh");
    let out = Command::new("unshare")
        .args(["--mount", "--propagation", "private"])
        .arg(&script)
        .arg(scenario)
        .output()
        .expect("unshare runs (util-linux)");
    assert!(
        out.status.success(),
        "detect.sh {scenario} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

#[test]
#[ignore = "needs root, unshare and the native tools: make test-detect"]
fn native_tools_install_libclang_when_only_libclang_cpp_is_there() {
    assert_eq!(asked("bare"), ["cmake", "libclang-dev"]);
}

#[test]
#[ignore = "needs root, unshare and the native tools: make test-detect"]
fn native_tools_check_cmake_on_its_own() {
    assert_eq!(asked("no-cmake"), ["cmake"]);
}

#[test]
#[ignore = "needs root, unshare and the native tools: make test-detect"]
fn native_tools_install_nothing_on_a_complete_machine() {
    assert!(asked("complete").is_empty());
}
