//! Where the sets are: the project's own (`eval/`) and the third-party ones
//! (`GLEANER_EVAL_DATA`).

use std::path::{Path, PathBuf};

/// The two places sets are read from.
pub struct Data {
    /// `eval/` in the repository: sets the project wrote, committed.
    pub own: PathBuf,
    /// `GLEANER_EVAL_DATA`, when set: third-party sets, not committed.
    pub third_party: Option<PathBuf>,
}

/// A third-party set: its directory under `GLEANER_EVAL_DATA`, where it comes
/// from and how to place it.
pub struct ThirdParty {
    /// Directory name under `GLEANER_EVAL_DATA`.
    pub dir: &'static str,
    /// Where the data comes from, with its licence.
    pub source: &'static str,
    /// The commands that place it.
    pub place: &'static str,
}

impl Data {
    /// Reads `GLEANER_EVAL_DATA`; `root` is the repository.
    pub fn from_env(root: &Path) -> Data {
        Data {
            own: root.join("eval"),
            third_party: std::env::var_os("GLEANER_EVAL_DATA")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        }
    }

    /// A file of the project's own sets, e.g. `highlight/reviews.jsonl`.
    pub fn own(&self, rel: &str) -> PathBuf {
        self.own.join(rel)
    }

    /// A set's directory when it is there, without the note
    /// [`Data::third_party`] prints (for the exchanges a set needs before
    /// its section prints the note once).
    pub fn present(&self, set: &ThirdParty) -> Option<PathBuf> {
        let dir = self.third_party.as_ref()?.join(set.dir);
        dir.is_dir().then_some(dir)
    }

    /// The directory of a third-party set, or `None` (after saying where it
    /// comes from and how to place it) when it is not there.
    pub fn third_party(&self, set: &ThirdParty) -> Option<PathBuf> {
        let found = self
            .third_party
            .as_ref()
            .map(|d| d.join(set.dir))
            .filter(|d| d.is_dir());
        if found.is_none() {
            let base = self
                .third_party
                .as_ref()
                .map_or("$GLEANER_EVAL_DATA (not set)".to_owned(), |d| {
                    d.display().to_string()
                });
            crate::score::note(format!(
                "skipped {}: not found at {base}/{}. It comes from {}. Place it with:\n    {}",
                set.dir,
                set.dir,
                set.source,
                set.place.replace('\n', "\n    ")
            ));
        }
        found
    }
}
