//! A source's replay recordings as files: their response bodies, read and
//! written back, for tests that edit what a site answered or look for what
//! a review was read from.

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use serde_json::Value;

/// One HAR file of a source's recordings: its path below the recordings'
/// directory, and its JSON.
pub(super) struct Recording {
    pub(super) path: PathBuf,
    pub(super) har: Value,
}

/// Every HAR file below `dir`.
pub(super) fn recordings(dir: &Path) -> Vec<Recording> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(at) = dirs.pop() {
        for entry in std::fs::read_dir(&at).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "har") {
                let har = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                let path = path.strip_prefix(dir).unwrap().to_path_buf();
                files.push(Recording { path, har });
            }
        }
    }
    files
}

/// Every response body of the recordings that is text.
pub(super) fn bodies(recordings: &[Recording]) -> Vec<String> {
    let mut out = Vec::new();
    for file in recordings {
        for entry in file.har["log"]["entries"].as_array().unwrap() {
            out.extend(body_of(&entry["response"]["content"]));
        }
    }
    out
}

/// Whether a HAR `content` holds its text in base64.
pub(super) fn is_base64(content: &Value) -> bool {
    content["encoding"]
        .as_str()
        .is_some_and(|e| e.eq_ignore_ascii_case("base64"))
}

/// A HAR `content`'s body, decoded, when it is text.
pub(super) fn body_of(content: &Value) -> Option<String> {
    let text = content["text"].as_str()?;
    match is_base64(content) {
        true => {
            let compact: String = text.split_ascii_whitespace().collect();
            String::from_utf8(B64.decode(compact).ok()?).ok()
        }
        false => Some(text.to_owned()),
    }
}

/// Where `body` has `token` with no letter or digit either side of it.
pub(super) fn tokens<'a>(body: &'a str, token: &'a str) -> impl Iterator<Item = usize> + 'a {
    body.match_indices(token).map(|(i, _)| i).filter(move |i| {
        let before = body[..*i].chars().next_back();
        let after = body[i + token.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}
