//! Plugin manifests: the operator-readable TOML file shipped next to each component.
//!
//! The host derives routes and request validation from manifests, so adding a
//! plugin adds its endpoint with no host code change. A manifest is plain data:
//! it depends on no capability; each capability reads its own table (the HTTP
//! capability parses `[network]` origins when the plugin is loaded).

mod check;
pub mod coverage;
mod error;
mod fields;
mod limits;
mod names;
mod options;
pub mod output;

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use error::{toml_error, ManifestError};
pub use fields::{FieldSpec, FieldType, SHARED_SORTS};
pub use limits::Limits;
pub use names::{check_component_file, check_plugin_name, reserved_route};
pub use options::{Continuation, ProcessorOptions, ReviewIds, SourceOptions};
pub use output::{OutputField, OutputSpec, OutputType};

/// What a plugin does, which decides its WIT world and its HTTP handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A review source (world `source`), served by the review-fetch driver.
    Source,
    /// A single-post source (world `post-source`), e.g. the forum post.
    PostSource,
    /// A processor (world `processor`): JSON in, JSON out.
    Processor,
}

impl Kind {
    /// The WIT world a component of this kind must target.
    pub fn world(self) -> &'static str {
        match self {
            Kind::Source => "source",
            Kind::PostSource => "post-source",
            Kind::Processor => "processor",
        }
    }

    /// The WIT interface a component of this kind must export.
    pub fn export_interface(self) -> &'static str {
        match self {
            Kind::Source => "source-plugin",
            Kind::PostSource => "post-plugin",
            Kind::Processor => "processor-plugin",
        }
    }
}

/// A plugin manifest as written by its author and edited by operators.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Unique plugin name, e.g. `customer-feedback-hub`.
    pub name: String,
    /// Plugin kind.
    pub kind: Kind,
    /// HTTP route, e.g. `/customer-feedback-hub/reviews`.
    pub route: String,
    /// Plugin version (semver).
    pub version: String,
    /// Component file name relative to the manifest; default `<name>.wasm`.
    #[serde(default)]
    pub component: Option<String>,
    /// One-line description.
    #[serde(default)]
    pub description: String,
    /// Outbound network policy.
    #[serde(default)]
    pub network: Network,
    /// Resource limits.
    #[serde(default)]
    pub limits: Limits,
    /// Review-source request options (kind `source`).
    #[serde(default)]
    pub source: Option<SourceOptions>,
    /// Processor request fields (kind `processor`).
    #[serde(default)]
    pub processor: Option<ProcessorOptions>,
    /// Configuration keys the operator may set.
    #[serde(default)]
    pub config: Vec<ConfigKey>,
    /// Whether the plugin may call the optional LLM.
    #[serde(default)]
    pub uses_llm: bool,
    /// Whether the plugin may open pages in the host's headless browser.
    #[serde(default)]
    pub uses_browser: bool,
    /// A request body that works (`[example]`), shown in the OpenAPI document.
    #[serde(default)]
    pub example: Option<serde_json::Map<String, serde_json::Value>>,
    /// The shape of the route's error answers, when not its kind's
    /// ([`Manifest::error_shape`]).
    #[serde(default)]
    pub errors: Option<ErrorShape>,
    /// A source's fill rates, written by its replay tests ([`coverage`]).
    #[serde(default)]
    pub coverage: Option<coverage::Coverage>,
}

/// The body shape of a route's error answers (docs/SPEC.md fixes each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorShape {
    /// `{"error": "..."}`: review-fetch and processor endpoints.
    Simple,
    /// Both shapes at once, always HTTP 400 but for 401, with an `error_kind`: the forum post.
    Both,
    /// `{status, data, success: false, message}`: the website-info endpoint.
    Structured,
}

impl Kind {
    /// The error shape of a route of this kind unless its manifest says otherwise.
    pub fn error_shape(self) -> ErrorShape {
        match self {
            Kind::PostSource => ErrorShape::Both,
            Kind::Source | Kind::Processor => ErrorShape::Simple,
        }
    }
}

/// Outbound network policy.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Network {
    /// Allowed `scheme://host[:port]` origins; `*.` as the first host label allows subdomains.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Allows any public host (for plugins whose job is to read any website). The SSRF guard still applies.
    #[serde(default)]
    pub any_public_host: bool,
}

/// A configuration key the operator may set for the plugin.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigKey {
    /// Key name.
    pub name: String,
    /// Secret values are never logged or listed.
    #[serde(default)]
    pub secret: bool,
    /// What the key is for.
    #[serde(default)]
    pub description: String,
}

impl Manifest {
    /// Reads and checks a manifest file.
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Read {
            path: path.to_owned(),
            source,
        })?;
        let manifest: Manifest = toml::from_str(&text).map_err(|e| ManifestError::Parse {
            path: path.to_owned(),
            message: toml_error(&text, &e),
        })?;
        manifest.check().map_err(|message| ManifestError::Invalid {
            path: path.to_owned(),
            message,
        })?;
        Ok(manifest)
    }

    /// The component's file name: `component`, or `<name>.wasm`. This is the one
    /// place the naming convention lives; `make plugins` stages components under it.
    pub fn component_file(&self) -> String {
        self.component
            .clone()
            .unwrap_or_else(|| format!("{}.wasm", self.name))
    }

    /// The component file next to the manifest. [`Manifest::check`] guarantees
    /// that it stays inside the manifest's directory.
    pub fn component_path(&self, manifest_path: &Path) -> PathBuf {
        let dir = manifest_path.parent().unwrap_or(Path::new("."));
        dir.join(self.component_file())
    }

    /// The shape of the route's error answers: the manifest's `errors`, else
    /// its kind's.
    pub fn error_shape(&self) -> ErrorShape {
        self.errors.unwrap_or(self.kind.error_shape())
    }

    /// Names of the declared configuration keys.
    pub fn config_keys(&self) -> Vec<String> {
        self.config.iter().map(|k| k.name.clone()).collect()
    }
}

#[cfg(test)]
mod tests;
