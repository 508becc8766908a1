//! Where the plugins are when no directory was given. The default,
//! `target/plugins`, is relative to the working directory; run from anywhere
//! else, the binary looks beside itself: `<binary's folder>/../plugins`
//! (where `make plugins` stages them for `target/release/gleaner`) and
//! `<binary's folder>/plugins`.

use std::path::{Path, PathBuf};

use super::Config;

/// The default plugin directory, relative to the working directory.
pub const DEFAULT: &str = "target/plugins";

/// The directories looked in for the default, in order, for a binary at `exe`.
pub fn candidates(exe: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = vec![PathBuf::from(DEFAULT)];
    if let Some(folder) = exe.and_then(Path::parent) {
        if let Some(up) = folder.parent() {
            dirs.push(up.join("plugins"));
        }
        dirs.push(folder.join("plugins"));
    }
    dirs
}

impl Config {
    /// Keeps a plugin directory that was given; for the default, takes the
    /// first of [`candidates`] that exists (the default itself when none does).
    pub fn locate_plugin_dir(&mut self) {
        if self.plugin_dir != Path::new(DEFAULT) || self.plugin_dir.is_dir() {
            return;
        }
        let exe = std::env::current_exe().ok();
        if let Some(found) = candidates(exe.as_deref()).into_iter().find(|d| d.is_dir()) {
            self.plugin_dir = found;
        }
    }

    /// What to do about a plugin directory that cannot be read or holds no
    /// plugin: where the plugins were looked for, and how to name the folder.
    pub fn plugin_dir_hint(&self) -> String {
        let looked = if self.plugin_dir == Path::new(DEFAULT) {
            let exe = std::env::current_exe().ok();
            candidates(exe.as_deref())
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            self.plugin_dir.display().to_string()
        };
        format!(
            "looked in {looked}; build the plugins with `make plugins`, or name their folder with \
             GLEANER_PLUGIN_DIR (or --plugin-dir of `gleaner serve` and `gleaner demo`)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_looked_for_here_then_beside_the_binary() {
        let found = candidates(Some(Path::new("/opt/gleaner/target/release/gleaner")));
        assert_eq!(
            found,
            [
                PathBuf::from("target/plugins"),
                PathBuf::from("/opt/gleaner/target/plugins"),
                PathBuf::from("/opt/gleaner/target/release/plugins"),
            ]
        );
    }

    #[test]
    fn a_given_directory_is_kept_even_when_missing() {
        let mut config = Config {
            plugin_dir: PathBuf::from("/nowhere/plugins"),
            ..Config::default()
        };
        config.locate_plugin_dir();
        assert_eq!(config.plugin_dir, Path::new("/nowhere/plugins"));
        assert!(config.plugin_dir_hint().contains("/nowhere/plugins"));
        assert!(config.plugin_dir_hint().contains("GLEANER_PLUGIN_DIR"));
    }
}
