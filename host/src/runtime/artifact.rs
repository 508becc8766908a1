//! Compiled-component files: the artifacts `gleaner precompile` stages beside
//! components, and the entries of the compile cache.
//!
//! Compiled code is native code that wasmtime maps without validating it again,
//! so each file carries a header recording what it is: the SHA-256 of the
//! component it was compiled from, the [`EngineKey`] of the engine that compiled
//! it, and the length and BLAKE3 hash of the code. Loading opens the file once, maps
//! it through that handle, checks every field against the component and this
//! engine and hashes the code; only then does wasmtime map that same open file
//! (on Linux through `/proc/self/fd`, so a rename meanwhile cannot swap it;
//! elsewhere wasmtime gets a copy of the checked bytes). A file that fails any
//! check is never deserialised.
//!
//! Layout: the code exactly as wasmtime wrote it (an ELF image, which wasmtime
//! maps from the start of the file and reads through its own offsets), then the
//! header as one line of JSON, its length (4 bytes, little-endian) and [`MAGIC`].
//! Header and code are one file, written under a temporary name and renamed into
//! place, so a reader never pairs a header with other code.
//!
//! Names: a cache entry is `<component sha256>-<engine key>.cwasm`; an artifact
//! beside `review-chunk.wasm` is `review-chunk.<component sha256>-<engine key>.cwasm`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use wasmtime::component::Component;
use wasmtime::Engine;

use super::engine::EngineKey;
use super::mapped::Mapped;

/// The last bytes of every compiled-component file.
const MAGIC: &[u8] = b"gleaner-compiled-component-v1";
/// The header format this host writes and reads.
const FORMAT: u32 = 2;
/// The longest header line accepted.
const MAX_HEADER_BYTES: usize = 4096;
/// The extension of compiled-component files.
pub const EXTENSION: &str = "cwasm";

/// What a compiled-component file says about its code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// The header format.
    pub format: u32,
    /// The component file the code was compiled from (for people; not checked).
    pub component: String,
    /// Hex SHA-256 of the component.
    pub component_sha256: String,
    /// The key of the engine that compiled it.
    pub engine: String,
    /// Length of the code that follows the header, in bytes.
    pub code_len: u64,
    /// Hex BLAKE3 hash of that code (format 1 had its SHA-256: BLAKE3 checks the
    /// same at load over twice as fast).
    pub code_blake3: String,
    /// The host that wrote it, e.g. `gleaner 0.1.0` (for people; the engine key
    /// covers the wasmtime version and settings).
    pub written_by: String,
}

/// Why compiled code was not used. Each says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum ArtifactError {
    /// There is no such file.
    #[error("{path} does not exist")]
    Missing {
        /// The file looked for.
        path: PathBuf,
    },
    /// The file could not be read.
    #[error("cannot read {path}: {source}; check its permissions, or delete it")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not in this host's format (or its header is damaged).
    #[error("{path} is not a compiled component of this host ({reason}); it is ignored: delete it, or run `gleaner precompile` again")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The code was compiled from another component.
    #[error("{path} was compiled from another component (sha256 {found}, but the component is {expected}); it is ignored: run `gleaner precompile` again")]
    OtherComponent {
        /// The file.
        path: PathBuf,
        /// The component's SHA-256.
        expected: String,
        /// The SHA-256 the header records.
        found: String,
    },
    /// The code was compiled by an engine configured differently.
    #[error("{path} was compiled for another engine configuration ({found}; this server's is {expected}); it is ignored: run `gleaner precompile` with this server's binary")]
    OtherEngine {
        /// The file.
        path: PathBuf,
        /// This engine's key.
        expected: String,
        /// The key the header records.
        found: String,
    },
    /// The code does not hash to what the header records: altered or truncated.
    #[error("{path} does not match the SHA-256 its header records (the code was altered or truncated); it is ignored and the component compiled instead: run `gleaner precompile` again")]
    Tampered {
        /// The file.
        path: PathBuf,
    },
    /// Every check passed, but wasmtime refused the code.
    #[error("wasmtime refused {path}: {message}; it is ignored: run `gleaner precompile` again")]
    Refused {
        /// The file.
        path: PathBuf,
        /// wasmtime's reason.
        message: String,
    },
}

/// The cache entry name of a component's code for an engine.
pub fn cache_name(component_sha256: &str, key: &EngineKey) -> String {
    format!("{component_sha256}-{key}.{EXTENSION}")
}

/// Where the artifact of the component at `component` (with `component_sha256`)
/// for an engine with `key` is staged: beside the component.
pub fn artifact_path(component: &Path, component_sha256: &str, key: &EngineKey) -> PathBuf {
    let stem = component_stem(component);
    component.with_file_name(format!("{stem}.{}", cache_name(component_sha256, key)))
}

/// The component's file name without `.wasm`.
fn component_stem(component: &Path) -> String {
    let name = component
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    name.strip_suffix(".wasm")
        .map(str::to_owned)
        .unwrap_or(name)
}

/// An artifact beside a component, as its name describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    /// The file.
    pub path: PathBuf,
    /// The component SHA-256 in its name.
    pub component_sha256: String,
    /// The engine key in its name.
    pub engine: String,
}

/// The artifacts staged beside the component at `component`, for any component
/// build and any engine.
pub fn staged_for(component: &Path) -> Vec<Staged> {
    let stem = component_stem(component);
    let dir = component.parent().unwrap_or(Path::new("."));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<Staged> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let rest = name
                .strip_suffix(&format!(".{EXTENSION}"))?
                .strip_prefix(&stem)?
                .strip_prefix('.')?;
            let (sha, engine) = rest.split_once('-')?;
            let is_hex =
                |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_hexdigit());
            (is_hex(sha, 64) && is_hex(engine, 16)).then(|| Staged {
                path: entry.path(),
                component_sha256: sha.to_owned(),
                engine: engine.to_owned(),
            })
        })
        .collect();
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// Says why no artifact fits a component that has none under its expected name:
/// those beside it are for another engine or another build. None when there
/// are none at all (a deploy without artifacts).
pub fn why_none_fits(component: &Path, component_sha256: &str, key: &EngineKey) -> Option<String> {
    let staged = staged_for(component);
    if staged.is_empty() {
        return None;
    }
    let engines: Vec<&str> = staged
        .iter()
        .filter(|s| s.component_sha256 == component_sha256)
        .map(|s| s.engine.as_str())
        .collect();
    let dir = component.parent().unwrap_or(Path::new(".")).display();
    Some(if engines.is_empty() {
        format!(
            "the artifacts beside {} were compiled from another build of it; it is compiled instead: run `gleaner precompile {dir}`",
            component.display()
        )
    } else {
        format!(
            "the artifacts beside {} were compiled for other engine configurations ({}; this server's is {key}); it is compiled instead: run `gleaner precompile {dir}` with this server's binary",
            component.display(),
            engines.join(", ")
        )
    })
}

/// Appends the header to compiled `code`.
pub fn encode(component: &str, component_sha256: &str, key: &EngineKey, code: &[u8]) -> Vec<u8> {
    let header = Header {
        format: FORMAT,
        component: component.to_owned(),
        component_sha256: component_sha256.to_owned(),
        engine: key.to_string(),
        code_len: code.len() as u64,
        code_blake3: blake3::hash(code).to_hex().to_string(),
        written_by: concat!("gleaner ", env!("CARGO_PKG_VERSION")).to_owned(),
    };
    let line = serde_json::to_vec(&header).unwrap_or_default();
    let mut out = Vec::with_capacity(code.len() + line.len() + 4 + MAGIC.len());
    out.extend_from_slice(code);
    out.extend_from_slice(&line);
    out.extend_from_slice(&(line.len() as u32).to_le_bytes());
    out.extend_from_slice(MAGIC);
    out
}

/// Writes compiled `code` with its header to `path`: under a temporary name in the
/// same directory, then renamed into place.
pub fn write(
    path: &Path,
    component: &str,
    component_sha256: &str,
    key: &EngineKey,
    code: &[u8],
) -> std::io::Result<()> {
    let bytes = encode(component, component_sha256, key, code);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", uuid::Uuid::new_v4()));
    let result = std::fs::write(&tmp, &bytes).and_then(|_| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Splits a file into its code and header, checking the header's shape.
pub fn decode<'a>(path: &Path, bytes: &'a [u8]) -> Result<(Header, &'a [u8]), ArtifactError> {
    let malformed = |reason: &str| ArtifactError::Malformed {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    let rest = bytes
        .strip_suffix(MAGIC)
        .ok_or_else(|| malformed("it does not end with this host's header"))?;
    let split = rest
        .len()
        .checked_sub(4)
        .ok_or_else(|| malformed("it is truncated"))?;
    let (rest, len) = rest.split_at(split);
    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    if len > MAX_HEADER_BYTES || len > rest.len() {
        return Err(malformed("its header length is out of bounds"));
    }
    let (code, line) = rest.split_at(rest.len() - len);
    // The format first, so a header of another format is named as such.
    #[derive(Deserialize)]
    struct Format {
        format: u32,
    }
    let unreadable = |e: serde_json::Error| malformed(&format!("its header is not readable: {e}"));
    let Format { format } = serde_json::from_slice(line).map_err(unreadable)?;
    if format != FORMAT {
        return Err(malformed(&format!(
            "header format {format} where this host reads {FORMAT}"
        )));
    }
    let header: Header = serde_json::from_slice(line).map_err(unreadable)?;
    Ok((header, code))
}

/// Checks a file's header and code against the component and this engine;
/// returns the code, ready for wasmtime.
pub fn verify<'a>(
    path: &Path,
    bytes: &'a [u8],
    component_sha256: &str,
    key: &EngineKey,
) -> Result<&'a [u8], ArtifactError> {
    let (header, code) = decode(path, bytes)?;
    if !header
        .component_sha256
        .eq_ignore_ascii_case(component_sha256)
    {
        return Err(ArtifactError::OtherComponent {
            path: path.to_owned(),
            expected: component_sha256.to_owned(),
            found: header.component_sha256,
        });
    }
    if header.engine != key.as_str() {
        return Err(ArtifactError::OtherEngine {
            path: path.to_owned(),
            expected: key.to_string(),
            found: header.engine,
        });
    }
    let digest = blake3::hash(code).to_hex();
    if code.len() as u64 != header.code_len || !digest.eq_ignore_ascii_case(&header.code_blake3) {
        return Err(ArtifactError::Tampered {
            path: path.to_owned(),
        });
    }
    Ok(code)
}

/// Opens the file at `path`, verifies it (see [`verify`]) and deserialises its code.
pub fn load(
    engine: &Engine,
    key: &EngineKey,
    path: &Path,
    component_sha256: &str,
) -> Result<Component, ArtifactError> {
    let read_error = |source: std::io::Error| {
        if source.kind() == std::io::ErrorKind::NotFound {
            ArtifactError::Missing {
                path: path.to_owned(),
            }
        } else {
            ArtifactError::Read {
                path: path.to_owned(),
                source,
            }
        }
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let bytes = Mapped::of(&file).map_err(read_error)?;
    let code = verify(path, &bytes, component_sha256, key)?;
    let refused = |e: wasmtime::Error| ArtifactError::Refused {
        path: path.to_owned(),
        message: format!("{e:#}"),
    };
    // SAFETY (both calls): the code is exactly the bytes whose SHA-256 the header
    // records, the header names this component and this engine, and the file came
    // from the plugin directory or the host's own cache, which only the operator
    // and this host write (see docs/security.md); files there are
    // replaced by renaming, never rewritten in place. wasmtime checks its own
    // version and settings in the code before using it.
    if let Some(same_file) = reopen_path(&file) {
        // wasmtime maps the file from its start and reads the code through the
        // image's own offsets; the header after it is never looked at.
        return unsafe { Component::deserialize_file(engine, same_file) }.map_err(refused);
    }
    unsafe { Component::deserialize(engine, code) }.map_err(refused)
}

/// A path that opens the very file `file` has open, whatever was renamed since:
/// `/proc/self/fd/<fd>` on Linux; none elsewhere.
fn reopen_path(file: &std::fs::File) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        path.exists().then_some(path)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    /// The smallest component: the preamble alone.
    const EMPTY_COMPONENT: &[u8] = b"\0asm\x0d\0\x01\0";

    fn engine() -> (Engine, EngineKey) {
        let engine = Engine::new(&super::super::engine::config(false)).unwrap();
        let key = EngineKey::of(&engine);
        (engine, key)
    }

    #[test]
    fn code_loads_only_with_matching_component_engine_and_hash() {
        let (engine, key) = engine();
        let code = engine.precompile_component(EMPTY_COMPONENT).unwrap();
        let sha = hex::encode(Sha256::digest(EMPTY_COMPONENT));
        let dir = tempfile::tempdir().unwrap();
        let component = dir.path().join("tiny.wasm");
        let path = artifact_path(&component, &sha, &key);
        assert_eq!(
            path.file_name().unwrap().to_string_lossy(),
            format!("tiny.{sha}-{key}.cwasm")
        );
        write(&path, "tiny.wasm", &sha, &key, &code).unwrap();
        assert!(load(&engine, &key, &path, &sha).is_ok());
        assert_eq!(staged_for(&component).len(), 1);

        let other_sha = "0".repeat(64);
        assert!(matches!(
            load(&engine, &key, &path, &other_sha),
            Err(ArtifactError::OtherComponent { .. })
        ));

        let mut bytes = std::fs::read(&path).unwrap();
        bytes[code.len() / 2] ^= 0x01;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            load(&engine, &key, &path, &sha),
            Err(ArtifactError::Tampered { .. })
        ));

        std::fs::write(&path, &code).unwrap();
        assert!(matches!(
            load(&engine, &key, &path, &sha),
            Err(ArtifactError::Malformed { .. })
        ));
        assert!(matches!(
            load(&engine, &key, &dir.path().join("none.cwasm"), &sha),
            Err(ArtifactError::Missing { .. })
        ));
    }

    #[test]
    fn code_of_another_engine_is_refused_before_wasmtime_sees_it() {
        let (engine, key) = engine();
        let mut config = super::super::engine::config(false);
        config.epoch_interruption(false);
        let other = Engine::new(&config).unwrap();
        let other_key = EngineKey::of(&other);
        let code = other.precompile_component(EMPTY_COMPONENT).unwrap();
        let sha = hex::encode(Sha256::digest(EMPTY_COMPONENT));
        let dir = tempfile::tempdir().unwrap();
        let component = dir.path().join("tiny.wasm");
        let path = artifact_path(&component, &sha, &key);
        write(&path, "tiny.wasm", &sha, &other_key, &code).unwrap();
        assert!(matches!(
            load(&engine, &key, &path, &sha),
            Err(ArtifactError::OtherEngine { .. })
        ));
        // A header that lies about the engine: wasmtime's own check refuses the code.
        write(&path, "tiny.wasm", &sha, &key, &code).unwrap();
        assert!(matches!(
            load(&engine, &key, &path, &sha),
            Err(ArtifactError::Refused { .. })
        ));
        std::fs::remove_file(&path).unwrap();
        write(
            &artifact_path(&component, &sha, &other_key),
            "tiny.wasm",
            &sha,
            &other_key,
            &code,
        )
        .unwrap();
        let why = why_none_fits(&component, &sha, &key).unwrap();
        assert!(why.contains("other engine configurations"), "{why}");
    }

    #[test]
    fn an_artifact_of_the_first_header_format_is_refused_with_what_to_do() {
        let (engine, key) = engine();
        let code = engine.precompile_component(EMPTY_COMPONENT).unwrap();
        let sha = hex::encode(Sha256::digest(EMPTY_COMPONENT));
        // Format 1 recorded the code's SHA-256 where format 2 records its BLAKE3.
        let line = serde_json::json!({
            "format": 1,
            "component": "tiny.wasm",
            "component_sha256": sha,
            "engine": key.to_string(),
            "code_len": code.len(),
            "code_sha256": hex::encode(Sha256::digest(&code)),
            "written_by": "gleaner 0.1.0",
        })
        .to_string();
        let mut bytes = code.to_vec();
        bytes.extend_from_slice(line.as_bytes());
        bytes.extend_from_slice(&(line.len() as u32).to_le_bytes());
        bytes.extend_from_slice(MAGIC);
        let dir = tempfile::tempdir().unwrap();
        let path = artifact_path(&dir.path().join("tiny.wasm"), &sha, &key);
        std::fs::write(&path, &bytes).unwrap();
        let e = load(&engine, &key, &path, &sha).unwrap_err();
        assert!(matches!(e, ArtifactError::Malformed { .. }), "{e}");
        let message = e.to_string();
        assert!(
            message.contains("header format 1 where this host reads 2"),
            "{message}"
        );
        assert!(message.contains("gleaner precompile"), "{message}");
    }
}
