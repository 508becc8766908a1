//! Start-up: every manifest of the plugin directory starts loading at once.
//!
//! Plugins whose compiled code is at hand (a verified artifact beside the
//! component, or the compile cache) are serving when [`start`] returns. The
//! others compile in the background, smallest component first and one at a time
//! (a compile already uses every core), while the server answers the ready
//! routes. Until its compile ends a plugin is `loading`: its route answers 503
//! with `Retry-After`, and `/healthz` lists it.

use std::collections::HashMap;
use std::sync::Arc;

use super::{manifest_files, Fingerprint, Registry, Ticket};
use crate::capabilities::settings::Settings;
use crate::config::plugin_settings::{self, Declared};
use crate::config::Config;
use crate::manifest::{Manifest, ManifestError};
use crate::runtime::{Artifacts, Located, Runtime};

/// A plugin whose component must be compiled before it can serve.
struct Pending {
    ticket: Ticket,
    manifest: Manifest,
    settings: Settings,
    located: Located,
}

/// Starts loading every manifest in `config.plugin_dir`; returns once each plugin
/// whose compiled code was at hand serves (or failed), leaving the compiles to a
/// background task. [`Registry::wait_ready`] waits for those too.
pub async fn start(
    registry: &Arc<Registry>,
    runtime: &Arc<Runtime>,
    config: &Arc<Config>,
) -> anyhow::Result<()> {
    let manifests = manifest_files(&config.plugin_dir)?;
    if manifests.is_empty() {
        tracing::debug!(dir = %config.plugin_dir.display(), "no plugin manifests found");
    }
    // As many components are read at once as there are cores: more would not
    // finish sooner, and each reading thread reuses its buffers.
    let readers = Arc::new(tokio::sync::Semaphore::new(
        std::thread::available_parallelism().map_or(2, |n| n.get()),
    ));
    let manifests: Vec<_> = manifests
        .into_iter()
        .map(|path| {
            let manifest = super::read_manifest(&path);
            (path, manifest)
        })
        .collect();
    check_settings(config, &manifests)?;
    let mut tasks = tokio::task::JoinSet::new();
    let mut tickets = HashMap::new();
    for (path, manifest) in manifests {
        let ticket = registry.begin(&path, Fingerprint::of(&path), manifest.as_ref().ok());
        let task = tasks.spawn(locate(
            registry.clone(),
            runtime.clone(),
            config.clone(),
            readers.clone(),
            ticket.clone(),
            manifest,
        ));
        tickets.insert(task.id(), ticket);
    }
    let mut pending = Vec::new();
    while let Some(joined) = tasks.join_next_with_id().await {
        match joined {
            Ok((_, Some(compile))) => pending.push(compile),
            Ok((_, None)) => {}
            Err(e) => {
                if let Some(ticket) = tickets.get(&e.id()) {
                    registry.finish(ticket, Err(format!("loading the plugin failed: {e}")));
                }
            }
        }
    }
    if !pending.is_empty() {
        pending.sort_by_key(|p| p.located.size());
        let names: Vec<&str> = pending.iter().map(|p| p.located.plugin()).collect();
        tracing::info!(
            plugins = ?names,
            "no usable artifact or cache entry: compiling in the background; these routes answer 503 until ready \
             (`make plugins` or `gleaner precompile` stages artifacts)"
        );
        tokio::spawn(compile_in_background(
            registry.clone(),
            runtime.clone(),
            pending,
        ));
    }
    Ok(())
}

/// Refuses a plugin setting (file or environment) that its plugin does not
/// declare; warns about settings naming no plugin here yet.
fn check_settings(
    config: &Config,
    manifests: &[(std::path::PathBuf, Result<Manifest, ManifestError>)],
) -> anyhow::Result<()> {
    let declared: Vec<Declared> = manifests
        .iter()
        .filter_map(|(_, m)| m.as_ref().ok())
        .map(|m| Declared {
            name: m.name.clone(),
            keys: m.config_keys(),
        })
        .collect();
    let vars = std::env::vars_os().filter_map(|(name, _)| name.into_string().ok());
    for setting in plugin_settings::check(config, &declared, vars)? {
        tracing::warn!(
            %setting,
            "a plugin setting names no plugin in the plugin directory; it applies once that plugin is added"
        );
    }
    Ok(())
}

/// Reads one plugin's component; loads it at once when its code is at hand,
/// else hands it back for compiling.
async fn locate(
    registry: Arc<Registry>,
    runtime: Arc<Runtime>,
    config: Arc<Config>,
    readers: Arc<tokio::sync::Semaphore>,
    ticket: Ticket,
    manifest: Result<Manifest, ManifestError>,
) -> Option<Pending> {
    let manifest = match manifest {
        Ok(manifest) => manifest,
        Err(e) => {
            registry.finish(&ticket, Err(e.to_string()));
            return None;
        }
    };
    let settings = config.settings_of(&manifest, &runtime.services().secrets);
    let read = readers.acquire().await;
    let located = runtime
        .locate(&ticket.path, &manifest, Artifacts::Use)
        .await;
    drop(read);
    let located = match located {
        Ok(located) => located,
        Err(e) => {
            registry.finish(&ticket, Err(e.to_string()));
            return None;
        }
    };
    if !located.is_ready() {
        return Some(Pending {
            ticket,
            manifest,
            settings,
            located,
        });
    }
    let result = runtime
        .prepare(manifest, settings, located)
        .await
        .map_err(|e| e.to_string());
    registry.finish(&ticket, result);
    None
}

/// Compiles and loads the pending plugins one after the other.
async fn compile_in_background(
    registry: Arc<Registry>,
    runtime: Arc<Runtime>,
    pending: Vec<Pending>,
) {
    for Pending {
        ticket,
        manifest,
        settings,
        located,
    } in pending
    {
        if !registry.is_current(&ticket) {
            // A hot swap or a removal came first; its result stands.
            continue;
        }
        let result = match runtime.compile(located).await {
            Ok(located) => runtime.prepare(manifest, settings, located).await,
            Err(e) => Err(e),
        };
        registry.finish(&ticket, result.map_err(|e| e.to_string()));
    }
    tracing::info!("background compiles done");
}
