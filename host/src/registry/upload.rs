//! Installing an uploaded plugin: its manifest text and component, checked
//! exactly as a plugin found in the directory is, then swapped in. The
//! admin API calls it for an upload, and a cluster replica for a version
//! another replica announced. The plugin directory changes only once the
//! upload is valid, and is put back as it was when it cannot be installed.

use std::path::Path;

use super::directory::{PluginFiles, Replacement};
use super::Registry;
use crate::config::Config;
use crate::manifest::{self, Manifest};
use crate::runtime::Runtime;

/// Validates and installs plugin `name` from `manifest_text` and `component`;
/// why not, in words for the operator.
pub async fn install(
    runtime: &Runtime,
    registry: &Registry,
    config: &Config,
    name: &str,
    manifest_text: &str,
    component: &[u8],
) -> Result<(), String> {
    manifest::check_plugin_name(name)?;
    let manifest: Manifest = toml::from_str(manifest_text).map_err(|e| {
        format!(
            "`manifest` is not a valid manifest: {}",
            manifest::toml_error(manifest_text, &e)
        )
    })?;
    manifest
        .check()
        .map_err(|e| format!("`manifest` is not a valid manifest: {e}"))?;
    if manifest.name != name {
        return Err(format!(
            "the manifest names plugin {:?} but the URL says {name:?}; upload to /admin/plugins/{}",
            manifest.name, manifest.name
        ));
    }
    let dir = &config.plugin_dir;
    let final_manifest = dir.join(format!("{name}.toml"));
    // Refused before anything is staged: a name or route another plugin has.
    if let Some(clash) = registry.clash(&final_manifest, &manifest) {
        return Err(clash);
    }
    std::fs::create_dir_all(dir).map_err(io_error)?;
    // Staged under a hidden directory inside the plugin directory: the same file
    // system (so the final rename is atomic) and invisible to the watcher.
    let staging = dir.join(format!(".staging-{}", uuid::Uuid::new_v4()));
    let result = stage_and_swap(
        runtime,
        registry,
        config,
        &staging,
        &manifest,
        manifest_text,
        component,
    )
    .await;
    if let Err(e) = std::fs::remove_dir_all(&staging) {
        if e.kind() != std::io::ErrorKind::NotFound {
            tracing::warn!(dir = %staging.display(), error = %e, "could not remove an upload's staging directory");
        }
    }
    result
}

async fn stage_and_swap(
    runtime: &Runtime,
    registry: &Registry,
    config: &Config,
    staging: &Path,
    manifest: &Manifest,
    manifest_text: &str,
    component: &[u8],
) -> Result<(), String> {
    let dir = &config.plugin_dir;
    let name = &manifest.name;
    let component_file = manifest.component_file();
    let staged_manifest = staging.join(format!("{name}.toml"));
    let aside = staging.join("replaced");
    std::fs::create_dir(staging).map_err(io_error)?;
    std::fs::create_dir(&aside).map_err(io_error)?;
    std::fs::write(staging.join(&component_file), component).map_err(io_error)?;
    std::fs::write(&staged_manifest, manifest_text).map_err(io_error)?;
    let plugin = Registry::validate(runtime, config, &staged_manifest).await?;
    let sha256 = plugin.sha256.clone();
    let final_manifest = dir.join(format!("{name}.toml"));
    let files = [
        (staging.join(&component_file), dir.join(&component_file)),
        (staged_manifest, final_manifest.clone()),
    ];
    let replacement = Replacement::put(&files, &aside, &final_manifest).map_err(io_error)?;
    match registry.install_validated(&final_manifest, plugin).await {
        Some(e) => {
            replacement.roll_back();
            Err(e)
        }
        None => {
            let now = PluginFiles {
                manifest: final_manifest,
                component: dir.join(&component_file),
            };
            replacement.commit(&now, &sha256);
            Ok(())
        }
    }
}

/// Removes plugin `name`: its files and its route. False when there is none.
pub fn remove(registry: &Registry, name: &str) -> bool {
    let Some(path) = registry.path_of(name) else {
        return false;
    };
    match PluginFiles::of(&path) {
        Some(files) => files.remove(),
        None => {
            let _ = std::fs::remove_file(&path);
        }
    }
    registry.remove(&path);
    true
}

fn io_error(e: std::io::Error) -> String {
    format!("cannot write to the plugin directory: {e}; check that the server may write there")
}
