//! What one plugin occupies in the plugin directory, and changing it as one
//! unit. A plugin is its manifest (`<name>.toml`), its component (the
//! manifest's `component`, `<name>.wasm` by default) and the precompiled
//! artifacts staged beside the component (`<component stem>.<sha>-<engine>.cwasm`).
//!
//! An upload replaces a plugin's files by renaming (so the watcher never sees
//! a half-written file), keeping the files it replaces aside until the new
//! plugin serves: a refused upload puts them back, and the directory is
//! byte for byte as it was. Once the new plugin serves, what it superseded
//! goes: a component under another name, and artifacts of other builds. A
//! deleted plugin leaves none of its files behind.

use std::path::{Path, PathBuf};

use crate::manifest::Manifest;
use crate::runtime::artifact;

/// The files of one plugin in the plugin directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginFiles {
    /// `<name>.toml`.
    pub manifest: PathBuf,
    /// The component the manifest names.
    pub component: PathBuf,
}

impl PluginFiles {
    /// The files of the manifest at `manifest`, as it names its component;
    /// none when there is no readable manifest there.
    pub fn of(manifest: &Path) -> Option<PluginFiles> {
        let parsed = Manifest::load(manifest).ok()?;
        Some(PluginFiles {
            component: parsed.component_path(manifest),
            manifest: manifest.to_owned(),
        })
    }

    /// Removes the manifest, the component and every artifact beside it.
    pub fn remove(&self) {
        for staged in artifact::staged_for(&self.component) {
            remove_file(&staged.path);
        }
        remove_file(&self.component);
        remove_file(&self.manifest);
    }
}

fn remove_file(path: &Path) {
    if let Err(e) = std::fs::remove_file(path) {
        if e.kind() != std::io::ErrorKind::NotFound {
            tracing::warn!(file = %path.display(), error = %e, "could not remove a plugin file");
        }
    }
}

/// New files moved into place, with the files they replaced kept aside.
#[derive(Debug)]
pub struct Replacement {
    /// Each file moved into place, and where the file it replaced was kept.
    moved: Vec<(PathBuf, Option<PathBuf>)>,
    /// The plugin's files before the replacement.
    before: Option<PluginFiles>,
}

impl Replacement {
    /// Moves each `(staged, target)` into place, in order, keeping any file
    /// at a target in `aside` (a directory on the same file system). On an
    /// error, whatever was moved is put back. `manifest` is the target
    /// manifest path, whose current files are noted for [`Self::commit`].
    pub fn put(
        files: &[(PathBuf, PathBuf)],
        aside: &Path,
        manifest: &Path,
    ) -> std::io::Result<Replacement> {
        let mut replacement = Replacement {
            moved: Vec::new(),
            before: PluginFiles::of(manifest),
        };
        for (index, (staged, target)) in files.iter().enumerate() {
            let kept = aside.join(format!("kept-{index}"));
            let result = (|| {
                let had = match std::fs::rename(target, &kept) {
                    Ok(()) => Some(kept.clone()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                    Err(e) => return Err(e),
                };
                replacement.moved.push((target.clone(), had));
                std::fs::rename(staged, target)
            })();
            if let Err(e) = result {
                replacement.roll_back();
                return Err(e);
            }
        }
        Ok(replacement)
    }

    /// Puts every replaced file back and removes the new ones, newest first.
    pub fn roll_back(self) {
        for (target, kept) in self.moved.into_iter().rev() {
            let restored = match &kept {
                Some(kept) => std::fs::rename(kept, &target),
                None => std::fs::remove_file(&target),
            };
            if let Err(e) = restored {
                tracing::error!(file = %target.display(), error = %e, "could not restore a plugin file after a refused upload");
            }
        }
    }

    /// The new plugin serves: removes what it superseded, a component under
    /// another name (with its artifacts) and artifacts of other builds of
    /// the component `now` (whose build is `sha256`).
    pub fn commit(self, now: &PluginFiles, sha256: &str) {
        if let Some(before) = &self.before {
            if before.component != now.component {
                for staged in artifact::staged_for(&before.component) {
                    remove_file(&staged.path);
                }
                remove_file(&before.component);
            }
        }
        for staged in artifact::staged_for(&now.component) {
            if staged.component_sha256 != sha256 {
                remove_file(&staged.path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&p).unwrap())
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_rolled_back_replacement_leaves_the_directory_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let staging = dir.path().join(".staging");
        std::fs::create_dir(&staging).unwrap();
        std::fs::write(dir.path().join("p.toml"), "old manifest").unwrap();
        std::fs::write(dir.path().join("p.wasm"), "old component").unwrap();
        std::fs::write(staging.join("p.toml"), "new manifest").unwrap();
        std::fs::write(staging.join("p-v2.wasm"), "new component").unwrap();
        let before = listing(dir.path());
        let files = [
            (staging.join("p-v2.wasm"), dir.path().join("p-v2.wasm")),
            (staging.join("p.toml"), dir.path().join("p.toml")),
        ];
        let replacement = Replacement::put(&files, &staging, &dir.path().join("p.toml")).unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("p.toml")).unwrap(),
            b"new manifest"
        );
        replacement.roll_back();
        assert_eq!(listing(dir.path()), before);
    }
}
