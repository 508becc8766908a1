//! `gleaner plugin build PATH`: builds a plugin crate for `wasm32-wasip2`,
//! checks the component against its manifest, precompiles it for this host,
//! and stages the manifest, the component and the artifact in a plugin
//! directory. A server watching that directory swaps the plugin in.
//!
//! The files are checked in a staging folder inside the plugin directory (the
//! server reads only the directory's own `*.toml`) and renamed into place, the
//! manifest last, so a watching server never reads a half-written plugin.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context;

use crate::config::Config;
use crate::manifest::Manifest;
use crate::runtime::artifact;

/// The target plugins are built for.
const WASM_TARGET: &str = "wasm32-wasip2";

/// The workspace's cargo configuration. Its `[target.wasm32-wasip2]`
/// rustflags (SIMD, the initial heap, the 128 KiB stack) are what every plugin
/// is linked with, in this repository or outside it.
const CARGO_CONFIG: &str = include_str!("../../../.cargo/config.toml");

/// The rustflags plugins are built with, as `.cargo/config.toml` gives them.
fn plugin_rustflags() -> anyhow::Result<Vec<String>> {
    let config: toml::Value =
        toml::from_str(CARGO_CONFIG).context("the built-in .cargo/config.toml is not TOML")?;
    let flags = config
        .get("target")
        .and_then(|t| t.get(WASM_TARGET))
        .and_then(|t| t.get("rustflags"))
        .and_then(toml::Value::as_array)
        .with_context(|| {
            format!("the built-in .cargo/config.toml has no [target.{WASM_TARGET}] rustflags")
        })?;
    flags
        .iter()
        .map(|f| {
            f.as_str()
                .map(str::to_owned)
                .context("a rustflag in the built-in .cargo/config.toml is not a string")
        })
        .collect()
}

/// What was staged.
pub struct Staged {
    /// The plugin's manifest as read from its crate.
    pub manifest: Manifest,
    /// The manifest in the plugin directory.
    pub manifest_path: PathBuf,
    /// The component in the plugin directory.
    pub component: PathBuf,
}

/// Builds the plugin crate at `crate_dir` and stages it in `config.plugin_dir`;
/// `target_dir` is cargo's (its default when none).
pub async fn build(
    config: &Config,
    secrets: &std::sync::Arc<crate::secrets::Secrets>,
    crate_dir: &Path,
    target_dir: Option<&Path>,
) -> anyhow::Result<Staged> {
    let cargo_toml = crate_dir.join("Cargo.toml");
    let manifest_src = crate_dir.join("manifest.toml");
    anyhow::ensure!(
        cargo_toml.is_file() && manifest_src.is_file(),
        "{} is not a plugin crate: it needs Cargo.toml and manifest.toml (`gleaner plugin new NAME --dir PATH` makes one)",
        crate_dir.display()
    );
    let manifest = Manifest::load(&manifest_src)?;
    require_wasm_target()?;
    let wasm = cargo_build(&cargo_toml, target_dir)?;

    let plugin_dir = &config.plugin_dir;
    std::fs::create_dir_all(plugin_dir).with_context(|| {
        format!(
            "cannot create the plugin directory {}",
            plugin_dir.display()
        )
    })?;
    let staging = plugin_dir.join(format!(".build-{}", manifest.name));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)
        .with_context(|| format!("cannot create {}", staging.display()))?;
    let staged = stage_checked(config, secrets, &manifest, &manifest_src, &wasm, &staging).await;
    let result = match staged {
        Ok(files) => put_in_place(&files, plugin_dir).map(|moved| {
            // Artifacts of earlier builds of this component go.
            let component = plugin_dir.join(manifest.component_file());
            for old in artifact::staged_for(&component) {
                if !moved.contains(&old.path) {
                    let _ = std::fs::remove_file(&old.path);
                }
            }
        }),
        Err(e) => Err(e),
    };
    let _ = std::fs::remove_dir_all(&staging);
    result?;
    Ok(Staged {
        manifest_path: plugin_dir.join(format!("{}.toml", manifest.name)),
        component: plugin_dir.join(manifest.component_file()),
        manifest,
    })
}

/// Refuses to build when the `wasm32-wasip2` target's standard library is
/// not installed, saying how to add it.
fn require_wasm_target() -> anyhow::Result<()> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .with_context(|| {
            format!("cannot run {rustc}: install Rust with rustup (https://rustup.rs)")
        })?;
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let installed = Path::new(&sysroot)
        .join("lib/rustlib")
        .join(WASM_TARGET)
        .is_dir();
    anyhow::ensure!(
        installed,
        "the {WASM_TARGET} target is not installed for {sysroot}: run `rustup target add {WASM_TARGET}`"
    );
    Ok(())
}

/// Runs cargo (its progress on stderr); the `.wasm` of the crate's cdylib.
///
/// The plugin is compiled with the workspace's plugin rustflags, passed as
/// `CARGO_ENCODED_RUSTFLAGS` (which replaces `RUSTFLAGS` and any cargo
/// configuration's): a plugin built anywhere links the same stack and heap as
/// the plugins in this repository, and, with `--target-dir` shared, reuses
/// the dependencies they compiled.
fn cargo_build(cargo_toml: &Path, target_dir: Option<&Path>) -> anyhow::Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(&cargo);
    command
        .env(
            "CARGO_ENCODED_RUSTFLAGS",
            plugin_rustflags()?.join("\u{1f}"),
        )
        .args(["build", "--release", "--target", WASM_TARGET])
        .arg("--manifest-path")
        .arg(cargo_toml)
        .args(["--message-format", "json-render-diagnostics"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if let Some(dir) = target_dir {
        command.arg("--target-dir").arg(dir);
    }
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot run {cargo}: install Rust with rustup"))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut wasm = None;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.context("reading cargo's output")?;
        if let Some(path) = cdylib_wasm(&line) {
            wasm = Some(path);
        }
    }
    let status = child.wait().context("waiting for cargo")?;
    anyhow::ensure!(
        status.success(),
        "cargo could not build {}; its errors are above",
        cargo_toml.display()
    );
    wasm.with_context(|| {
        format!(
            "cargo built no WebAssembly library from {}: a plugin crate has `[lib] crate-type = [\"cdylib\"]`",
            cargo_toml.display()
        )
    })
}

/// The `.wasm` file of a cdylib that one line of cargo's JSON messages reports.
fn cdylib_wasm(line: &str) -> Option<PathBuf> {
    let message: serde_json::Value = serde_json::from_str(line).ok()?;
    if message["reason"] != "compiler-artifact" {
        return None;
    }
    let kinds = message["target"]["kind"].as_array()?;
    if !kinds.iter().any(|k| k == "cdylib") {
        return None;
    }
    message["filenames"]
        .as_array()?
        .iter()
        .filter_map(|f| f.as_str())
        .find(|f| f.ends_with(".wasm"))
        .map(PathBuf::from)
}

/// Copies the manifest and component into `staging`, precompiles the
/// component there and checks both as the server would load them; the staged
/// files, the manifest last.
async fn stage_checked(
    config: &Config,
    secrets: &std::sync::Arc<crate::secrets::Secrets>,
    manifest: &Manifest,
    manifest_src: &Path,
    wasm: &Path,
    staging: &Path,
) -> anyhow::Result<Vec<PathBuf>> {
    let staged_manifest = staging.join(format!("{}.toml", manifest.name));
    let staged_component = staging.join(manifest.component_file());
    copy(manifest_src, &staged_manifest)?;
    copy(wasm, &staged_component)?;
    // Precompiled first, so the check loads the artifact instead of compiling again.
    let failed = super::precompile::precompile_components(
        std::slice::from_ref(&staged_component),
        false,
        0,
    )?;
    let problems = match failed {
        0 => super::check(config, secrets, &staged_manifest).await?,
        n => n,
    };
    anyhow::ensure!(
        problems == 0,
        "the plugin was not staged: fix the problems above (nothing in {} changed)",
        config.plugin_dir.display()
    );
    let mut files: Vec<PathBuf> = artifact::staged_for(&staged_component)
        .into_iter()
        .map(|a| a.path)
        .collect();
    files.push(staged_component);
    files.push(staged_manifest);
    Ok(files)
}

/// Renames each staged file into `dir`, in order; where they went.
fn put_in_place(files: &[PathBuf], dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut moved = Vec::new();
    for file in files {
        let target = dir.join(file.file_name().expect("a staged file has a name"));
        std::fs::rename(file, &target)
            .with_context(|| format!("cannot move {} to {}", file.display(), target.display()))?;
        moved.push(target);
    }
    Ok(moved)
}

fn copy(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::copy(from, to)
        .map(|_| ())
        .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cdylib_wasm_is_found_in_cargos_messages() {
        let lib = r#"{"reason":"compiler-artifact","target":{"kind":["cdylib"],"name":"plugin_x"},"filenames":["/t/wasm32-wasip2/release/plugin_x.wasm"]}"#;
        assert_eq!(
            cdylib_wasm(lib),
            Some(PathBuf::from("/t/wasm32-wasip2/release/plugin_x.wasm"))
        );
        let dep = r#"{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"serde"},"filenames":["/t/libserde.rlib"]}"#;
        assert_eq!(cdylib_wasm(dep), None);
        assert_eq!(cdylib_wasm("not json"), None);
        let done = r#"{"reason":"build-finished","success":true}"#;
        assert_eq!(cdylib_wasm(done), None);
    }

    #[test]
    fn plugins_are_built_with_the_workspaces_stack_and_heap() {
        let flags = plugin_rustflags().unwrap();
        for wanted in [
            "target-feature=+simd128",
            "link-arg=--initial-heap=524288",
            "link-arg=-zstack-size=131072",
        ] {
            assert!(flags.iter().any(|f| f == wanted), "{wanted} in {flags:?}");
        }
    }
}
