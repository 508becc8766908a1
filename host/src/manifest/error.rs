//! What goes wrong reading a manifest, and TOML errors told in one line.

use std::path::PathBuf;

/// A TOML error in one line: where it is and what is wrong, without the
/// parser's multi-line excerpt (`line 6, column 1: unknown field …`).
pub fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim().replace('\n', "; ");
    let Some(span) = e.span() else {
        return message;
    };
    let before = &text[..span.start.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .unwrap_or_default()
        .chars()
        .count()
        + 1;
    format!("line {line}, column {column}: {message}")
}

/// Problems with a manifest, each naming the file and what to change.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// Unreadable file.
    #[error("cannot read manifest {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Not valid TOML for the manifest schema.
    #[error("invalid manifest {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// Valid TOML, but a rule is broken.
    #[error("manifest {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The broken rule and how to fix it.
        message: String,
    },
}
