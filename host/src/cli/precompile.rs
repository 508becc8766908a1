//! `gleaner precompile PLUGIN_DIR...`: compiles every plugin component for this
//! host's engine and stages the artifact beside the component, so the server
//! loads it without compiling. Progress goes to stderr, one line per component
//! to stdout.

use std::path::{Path, PathBuf};
use std::time::Instant;

use sha2::{Digest, Sha256};
use wasmtime::Engine;

use crate::manifest::Manifest;
use crate::registry::manifest_files;
use crate::runtime::{artifact, engine, prepare, EngineKey};

/// What became of one component.
enum Outcome {
    /// Compiled and staged.
    Compiled {
        artifact: PathBuf,
        bytes: usize,
        prepared: prepare::Preparation,
    },
    /// An artifact for this component and engine was already staged and intact.
    UpToDate { artifact: PathBuf },
}

/// Precompiles the components of every manifest in `dirs`; with `force`, even
/// those whose artifact is up to date. Returns how many could not be precompiled.
pub fn precompile(dirs: &[PathBuf], force: bool) -> anyhow::Result<usize> {
    let mut components: Vec<PathBuf> = Vec::new();
    let mut failed = 0;
    for dir in dirs {
        let manifests = manifest_files(dir)?;
        anyhow::ensure!(
            !manifests.is_empty() || dir.is_dir(),
            "{} is not a plugin directory; give the directory holding the manifests (e.g. target/plugins)",
            dir.display()
        );
        for path in manifests {
            match Manifest::load(&path) {
                Ok(manifest) => {
                    let component = manifest.component_path(&path);
                    if !components.contains(&component) {
                        components.push(component);
                    }
                }
                Err(e) => {
                    failed += 1;
                    println!("problem    {e}");
                }
            }
        }
    }
    precompile_components(&components, force, failed)
}

/// Precompiles `components` (with `force`, even those whose artifact is up to
/// date), staging each artifact beside its component; `failed` counts the
/// problems found before. Returns how many could not be precompiled, those
/// included.
pub(super) fn precompile_components(
    components: &[PathBuf],
    force: bool,
    mut failed: usize,
) -> anyhow::Result<usize> {
    let (engine, _) = engine::build()?;
    // A plugin's preparation runs under a deadline counted in epoch ticks.
    crate::runtime::start_epoch_ticker(&engine)?;
    let key = EngineKey::of(&engine);
    let bar = indicatif::ProgressBar::new(components.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}")
            .expect("valid template"),
    );
    let (mut compiled, mut current) = (0, 0);
    for component in components {
        let name = component
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        bar.set_message(format!("compiling {name}"));
        let started = Instant::now();
        let line = match stage(&engine, &key, component, force) {
            Ok(Outcome::Compiled {
                artifact,
                bytes,
                prepared,
            }) => {
                compiled += 1;
                let prepared = match prepared {
                    prepare::Preparation::NotAsked => String::new(),
                    prepare::Preparation::Prepared => ", prepared".into(),
                    prepare::Preparation::Failed(why) => {
                        format!("; not prepared, so it builds its tables in each call: {why}")
                    }
                };
                format!(
                    "compiled   {name} -> {} ({:.1} MiB, {} ms{prepared})",
                    file_name(&artifact),
                    bytes as f64 / (1 << 20) as f64,
                    started.elapsed().as_millis()
                )
            }
            Ok(Outcome::UpToDate { artifact }) => {
                current += 1;
                format!("up to date {name} -> {}", file_name(&artifact))
            }
            Err(e) => {
                failed += 1;
                format!("problem    {name}: {e:#}")
            }
        };
        bar.suspend(|| println!("{line}"));
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!(
        "engine {key}: {compiled} compiled, {current} up to date, {failed} failed{}",
        if failed > 0 {
            "; a component that does not compile will not load in the server either: rebuild it with `make plugins`"
        } else {
            ""
        }
    );
    Ok(failed)
}

/// Compiles one component unless an intact artifact for it is staged, then
/// removes artifacts of its older builds.
fn stage(
    engine: &Engine,
    key: &EngineKey,
    component: &Path,
    force: bool,
) -> anyhow::Result<Outcome> {
    let bytes = std::fs::read(component).map_err(|e| {
        anyhow::anyhow!(
            "cannot read {}: {e}; build the plugins with `make plugins`",
            component.display()
        )
    })?;
    let sha256 = hex::encode(Sha256::digest(&bytes));
    let path = artifact::artifact_path(component, &sha256, key);
    let intact = || {
        std::fs::read(&path)
            .ok()
            .is_some_and(|staged| artifact::verify(&path, &staged, &sha256, key).is_ok())
    };
    let outcome = if !force && intact() {
        Outcome::UpToDate {
            artifact: path.clone(),
        }
    } else {
        let (to_compile, prepared) = prepare::to_compile(engine, &bytes);
        let code = engine
            .precompile_component(&to_compile)
            .map_err(|e| anyhow::anyhow!("it does not compile: {e:#}"))?;
        let name = file_name(component);
        artifact::write(&path, &name, &sha256, key, &code).map_err(|e| {
            anyhow::anyhow!(
                "cannot write {}: {e}; make the plugin directory writable",
                path.display()
            )
        })?;
        Outcome::Compiled {
            artifact: path.clone(),
            bytes: code.len(),
            prepared,
        }
    };
    for stale in artifact::staged_for(component) {
        if stale.component_sha256 != sha256 {
            if let Err(e) = std::fs::remove_file(&stale.path) {
                tracing::warn!(file = %stale.path.display(), error = %e, "could not remove an artifact of an older build");
            }
        }
    }
    Ok(outcome)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}
