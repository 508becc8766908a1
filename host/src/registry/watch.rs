//! Watching the plugin directory: new, changed and removed manifests and
//! components are picked up without a restart.
//!
//! The directory is scanned every [`SCAN_INTERVAL`]. A file set is loaded only
//! after it has stayed unchanged for one whole interval (the debounce), so a
//! half-written file is never loaded; atomic deploys (write to a temporary name,
//! then rename) are picked up one interval after the rename.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::Registry;
use crate::config::Config;
use crate::manifest::Manifest;
use crate::runtime::Runtime;

/// How often the plugin directory is scanned.
pub const SCAN_INTERVAL: Duration = Duration::from_millis(150);

/// Size and modification time of a manifest and its component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint(Vec<(u64, Option<SystemTime>)>);

impl Fingerprint {
    /// The fingerprint of a manifest and the component it names.
    pub fn of(manifest: &Path) -> Fingerprint {
        let stat = |p: &Path| {
            std::fs::metadata(p)
                .map(|m| (m.len(), m.modified().ok()))
                .unwrap_or((u64::MAX, None))
        };
        let mut parts = vec![stat(manifest)];
        if let Ok(m) = Manifest::load(manifest) {
            parts.push(stat(&m.component_path(manifest)));
        }
        Fingerprint(parts)
    }
}

/// `*.toml` files in the plugin directory, sorted.
pub fn manifest_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => anyhow::bail!("cannot read plugin directory {}: {e}", dir.display()),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Watches the plugin directory until the process ends.
pub async fn watch(registry: Arc<Registry>, runtime: Arc<Runtime>, config: Arc<Config>) {
    let mut pending: HashMap<PathBuf, Fingerprint> = HashMap::new();
    loop {
        tokio::time::sleep(SCAN_INTERVAL).await;
        let Ok(files) = manifest_files(&config.plugin_dir) else {
            continue;
        };
        let known = registry.fingerprints();
        for (path, _) in known.iter().filter(|(p, _)| !files.contains(p)) {
            pending.remove(path);
            registry.remove(path);
        }
        for path in files {
            let now = Fingerprint::of(&path);
            if known.get(&path).cloned().flatten().as_ref() == Some(&now) {
                pending.remove(&path);
                continue;
            }
            if pending.get(&path) == Some(&now) {
                pending.remove(&path);
                registry.load(&runtime, &config, &path, now).await;
            } else {
                pending.insert(path, now);
            }
        }
    }
}
