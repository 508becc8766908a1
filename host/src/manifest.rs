//! Plugin manifests: the operator-readable TOML file shipped next to each component.
//!
//! The host derives routes and request validation from manifests, so adding a
//! plugin adds its endpoint with no host code change. A manifest is plain data:
//! it depends on no capability; each capability reads its own table (the HTTP
//! capability parses `[network]` origins when the plugin is loaded).

pub mod coverage;
pub mod output;

use std::path::{Path, PathBuf};

use serde::Deserialize;

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

/// Per-plugin resource limits. Every field has a default.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Wall-clock deadline of one plugin call, in ms.
    pub call_timeout_ms: u64,
    /// Linear memory cap per instance, in MiB.
    pub memory_mib: usize,
    /// Largest upstream response body, in bytes.
    pub max_response_bytes: usize,
    /// Total bytes passed through host calls during one plugin call.
    pub max_host_data_bytes: usize,
    /// Concurrent requests to one upstream host.
    pub upstream_concurrency: usize,
    /// TCP connect timeout, in ms.
    pub connect_timeout_ms: u64,
    /// Time to the response headers, in ms.
    pub first_byte_timeout_ms: u64,
    /// Total time of one outbound request, body included, in ms.
    pub request_timeout_ms: u64,
    /// Retries on 429/503.
    pub max_retries: u32,
    /// Least time between the starts of two requests to one host, across the
    /// server, in ms (the site's politeness; operators may override per host).
    pub min_delay_ms: u64,
    /// A random extra of up to this many ms on top of `min_delay_ms`.
    pub delay_jitter_ms: u64,
    /// Most requests a minute to one host, across the server (0: no limit).
    pub requests_per_minute: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            call_timeout_ms: 20_000,
            memory_mib: 128,
            max_response_bytes: 8 * 1024 * 1024,
            max_host_data_bytes: 64 * 1024 * 1024,
            upstream_concurrency: 4,
            connect_timeout_ms: 5_000,
            first_byte_timeout_ms: 10_000,
            request_timeout_ms: 15_000,
            max_retries: 2,
            min_delay_ms: 0,
            delay_jitter_ms: 0,
            requests_per_minute: 0,
        }
    }
}

/// How a review source continues a fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Continuation {
    /// A string token, `pagination_token` in requests and `next_page` in responses.
    PaginationToken,
    /// An object, `pagination_data` in requests and responses.
    PaginationData,
    /// No continuation field: the host pages internally within the budget.
    None,
}

/// Request options of a review source.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceOptions {
    /// How the endpoint continues a fetch.
    pub continuation: Continuation,
    /// The sort field, if the endpoint has one.
    #[serde(default)]
    pub sort: Option<FieldSpec>,
    /// The filter field, if the endpoint has one.
    #[serde(default)]
    pub filter: Option<FieldSpec>,
    /// Whether review dates are the source's local dates rather than UTC.
    #[serde(default)]
    pub local_dates: bool,
    /// The endpoint's `is_text_formatted` when a request omits it (true unless
    /// the endpoint documents otherwise).
    #[serde(default = "default_text_formatted")]
    pub text_formatted_default: bool,
    /// What `query` takes (the URL forms and identifiers the source reads),
    /// shown in the OpenAPI document.
    #[serde(default)]
    pub query_description: Option<String>,
    /// The keys of each review's `extra` (`[source.extra]`): shown per route in
    /// the OpenAPI document, and checked on every review.
    #[serde(default)]
    pub extra: Option<output::OutputSpec>,
}

fn default_text_formatted() -> bool {
    true
}

/// The declared type of a request field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    /// A JSON string.
    String,
    /// A JSON whole number.
    Integer,
    /// A JSON boolean.
    Boolean,
    /// A JSON object.
    Object,
    /// A JSON array.
    Array,
    /// One of `values` (strings, or numbers written as strings that also accept numbers).
    Enum,
}

impl FieldType {
    /// A short name for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            FieldType::String => "a string",
            FieldType::Integer => "an integer",
            FieldType::Boolean => "a boolean",
            FieldType::Object => "an object",
            FieldType::Array => "an array",
            FieldType::Enum => "one of the allowed values",
        }
    }
}

/// One request field: its name, type and constraints.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    /// The JSON field name, e.g. `sort_type`.
    pub field: String,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: FieldType,
    /// Allowed values, for enums.
    #[serde(default)]
    pub values: Vec<String>,
    /// Whether JSON null is accepted.
    #[serde(default)]
    pub nullable: bool,
    /// Whether the field must be present.
    #[serde(default)]
    pub required: bool,
    /// For strings: whether an empty or whitespace-only value is rejected.
    #[serde(default)]
    pub non_empty: bool,
    /// The value an omitted field means (one of `values` for enums). Requests
    /// and continuation tokens are compared with defaults filled in.
    #[serde(default)]
    pub default: Option<String>,
    /// For strings: the most characters (Unicode code points) accepted; a
    /// longer value is refused at once with 400, before the plugin runs.
    #[serde(default)]
    pub max_length: Option<usize>,
    /// For integers: the smallest value accepted.
    #[serde(default)]
    pub min: Option<i64>,
    /// For integers: the largest value accepted.
    #[serde(default)]
    pub max: Option<i64>,
    /// What the field means and which values it takes, shown in the OpenAPI
    /// document (validation is by the other keys).
    #[serde(default)]
    pub description: Option<String>,
    /// For enums: other names a request may use, each standing for one of
    /// `values`. A source's sort maps the shared names ([`SHARED_SORTS`])
    /// it can serve onto its site's own values.
    #[serde(default)]
    pub aliases: std::collections::BTreeMap<String, String>,
}

/// The sort names every source takes where its site can sort so.
pub const SHARED_SORTS: &[&str] = &[
    "newest",
    "oldest",
    "highest_rating",
    "lowest_rating",
    "most_relevant",
];

impl FieldSpec {
    /// Whether an integer lies within `min` and `max`.
    pub fn in_bounds(&self, v: i64) -> bool {
        self.min.is_none_or(|min| v >= min) && self.max.is_none_or(|max| v <= max)
    }

    /// The default as the JSON value an omitted field means: a string for
    /// strings and enums, the parsed value for booleans and integers; none when
    /// there is no default or it does not fit the type.
    pub fn default_value(&self) -> Option<serde_json::Value> {
        let text = self.default.as_deref()?;
        match self.ty {
            FieldType::String | FieldType::Enum => Some(serde_json::Value::String(text.to_owned())),
            FieldType::Boolean => text
                .trim()
                .parse::<bool>()
                .ok()
                .map(serde_json::Value::Bool),
            FieldType::Integer => text.trim().parse::<i64>().ok().map(serde_json::Value::from),
            FieldType::Object | FieldType::Array => {
                serde_json::from_str(text)
                    .ok()
                    .filter(|v: &serde_json::Value| {
                        v.is_object() == (self.ty == FieldType::Object)
                            && (v.is_object() || v.is_array())
                    })
            }
        }
    }
}

/// Request fields of a processor, and the response body it declares.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessorOptions {
    /// The accepted fields.
    #[serde(default)]
    pub fields: Vec<FieldSpec>,
    /// The response body (`[processor.output]`); none leaves it undescribed.
    #[serde(default)]
    pub output: Option<OutputSpec>,
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

/// The server's own routes a plugin route would hide behind, and what owns
/// each: exact paths, and prefixes (every path starting with them).
const RESERVED_EXACT: [(&str, &str); 5] = [
    ("/healthz", "the health check"),
    ("/sources", "the list of sources"),
    ("/metrics", "the metrics"),
    ("/openapi.json", "the OpenAPI document"),
    ("/docs", "the API reference page"),
];
const RESERVED_PREFIXES: [(&str, &str); 4] = [
    ("/docs/", "the API reference page"),
    ("/admin", "the admin API"),
    ("/jobs", "the jobs API"),
    ("/schedules", "the schedules API"),
];

/// What owns `route`, when the server's own routes answer it.
pub fn reserved_route(route: &str) -> Option<&'static str> {
    RESERVED_EXACT
        .iter()
        .find(|(path, _)| route == *path)
        .or_else(|| RESERVED_PREFIXES.iter().find(|(p, _)| route.starts_with(p)))
        .map(|(_, owner)| *owner)
}

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

/// Longest plugin or component file name accepted.
const MAX_NAME_LEN: usize = 64;

/// Checks a plugin name: 1 to 64 lower-case ASCII letters, digits and `-`,
/// starting with a letter or digit. Such a name is a plain file name: no
/// separator, no `..`, no NUL, never absolute.
pub fn check_plugin_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if ok {
        return Ok(());
    }
    Err(format!(
        "plugin name {name:?} must be 1 to {MAX_NAME_LEN} lower-case ASCII letters, digits and '-', starting with a letter or digit"
    ))
}

/// Checks a component file name: a plain file name in the plugin directory,
/// 1 to 64 ASCII letters, digits, `_`, `-` and `.`, ending in `.wasm`, not
/// starting with `.`. Absolute paths, `..`, separators and NUL are refused.
pub fn check_component_file(file: &str) -> Result<(), String> {
    let ok = file.len() <= MAX_NAME_LEN
        && file.ends_with(".wasm")
        && file.len() > ".wasm".len()
        && !file.starts_with('.')
        && !file.contains("..")
        && file
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        return Ok(());
    }
    Err(format!(
        "component {file:?} must be a plain file name in the plugin directory, such as my-plugin.wasm: \
         ASCII letters, digits, '_', '-' and '.', ending in .wasm; no path separators, no '..', not absolute"
    ))
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

    /// Checks the rules that TOML types cannot express; a plugin that breaks one
    /// is refused by the watcher and the admin API alike.
    pub fn check(&self) -> Result<(), String> {
        check_plugin_name(&self.name)?;
        if let Some(file) = &self.component {
            check_component_file(file)?;
        }
        if !self.route.starts_with('/') || self.route.contains(char::is_whitespace) {
            return Err(format!(
                "route {:?} must start with '/' and contain no spaces",
                self.route
            ));
        }
        if let Some(owner) = reserved_route(&self.route) {
            return Err(format!(
                "route {:?} is the server's own ({owner}); a plugin there would never be reached. \
                 Pick another route; the server keeps /healthz, /metrics, /openapi.json, /sources, /docs and /docs/*, \
                 and everything under /admin, /jobs and /schedules",
                self.route
            ));
        }
        if semver::Version::parse(&self.version).is_err() {
            return Err(format!(
                "version {:?} must be semver, e.g. 1.2.0",
                self.version
            ));
        }
        match self.kind {
            Kind::Source if self.source.is_none() => {
                return Err("kind \"source\" needs a [source] table with `continuation`".into())
            }
            Kind::Processor if self.processor.is_none() => {
                return Err("kind \"processor\" needs a [processor] table with `fields`".into())
            }
            _ => {}
        }
        if let Some(coverage) = &self.coverage {
            coverage.check()?;
        }
        if let Some(extra) = self.source.as_ref().and_then(|s| s.extra.as_ref()) {
            extra.check().map_err(|e| format!("[source.extra]: {e}"))?;
        }
        if let Some(sort) = self.source.as_ref().and_then(|s| s.sort.as_ref()) {
            if let Some(alias) = sort
                .aliases
                .keys()
                .find(|a| !SHARED_SORTS.contains(&a.as_str()))
            {
                return Err(format!(
                    "sort alias {alias:?} is not a shared sort name; use {}",
                    SHARED_SORTS.join(", ")
                ));
            }
        }
        let specs = self
            .source
            .iter()
            .flat_map(|s| s.sort.iter().chain(s.filter.iter()))
            .chain(self.processor.iter().flat_map(|p| p.fields.iter()));
        for spec in specs {
            if (spec.min.is_some() || spec.max.is_some()) && spec.ty != FieldType::Integer {
                return Err(format!(
                    "field {:?} has `min` or `max`, which only integer fields take",
                    spec.field
                ));
            }
            if spec.max_length.is_some() && spec.ty != FieldType::String {
                return Err(format!(
                    "field {:?} has `max_length`, which only string fields take",
                    spec.field
                ));
            }
            if spec.max_length == Some(0) {
                return Err(format!(
                    "field {:?} has `max_length = 0`; give the most characters the field takes",
                    spec.field
                ));
            }
            if !spec.aliases.is_empty() && spec.ty != FieldType::Enum {
                return Err(format!(
                    "field {:?} has `aliases`, which only enum fields take",
                    spec.field
                ));
            }
            for (alias, value) in &spec.aliases {
                if !spec.values.contains(value) {
                    return Err(format!(
                        "field {:?} maps alias {alias:?} to {value:?}, which is not one of its `values`",
                        spec.field
                    ));
                }
                if spec.values.contains(alias) {
                    return Err(format!(
                        "field {:?} has alias {alias:?}, which is one of its `values` already",
                        spec.field
                    ));
                }
            }
            if spec.ty == FieldType::Enum && spec.values.is_empty() {
                return Err(format!(
                    "field {:?} is an enum but lists no `values`",
                    spec.field
                ));
            }
            if let Some(default) = &spec.default {
                if spec.ty == FieldType::Enum && !spec.values.contains(default) {
                    return Err(format!(
                        "field {:?} has default {default:?}, which is not one of its `values`",
                        spec.field
                    ));
                }
                if spec.default_value().is_none()
                    || spec
                        .default_value()
                        .and_then(|v| v.as_i64())
                        .is_some_and(|v| !spec.in_bounds(v))
                {
                    return Err(format!(
                        "field {:?} has default {default:?}, which is not {}; write it as the JSON value, e.g. \"false\" or \"50\"",
                        spec.field,
                        spec.ty.describe()
                    ));
                }
            }
        }
        if let Some(output) = self.processor.as_ref().and_then(|p| p.output.as_ref()) {
            output.check()?;
        }
        if self.limits.memory_mib == 0 || self.limits.call_timeout_ms == 0 {
            return Err("limits.memory_mib and limits.call_timeout_ms must be positive".into());
        }
        Ok(())
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
mod tests {
    use super::*;

    const SOURCE: &str = r#"
name = "demo-source"
kind = "source"
route = "/demo-source/reviews"
version = "0.1.0"
[network]
allow = ["https://www.example.com", "https://*.example.org"]
[source]
continuation = "pagination_token"
sort = { field = "sort_type", type = "enum", values = ["recent", "popular"] }
"#;

    #[test]
    fn parses_a_source_manifest() {
        let m: Manifest = toml::from_str(SOURCE).unwrap();
        m.check().unwrap();
        assert_eq!(m.kind, Kind::Source);
        assert_eq!(m.limits.memory_mib, 128);
        assert_eq!(
            m.component_path(Path::new("/p/demo.toml")),
            Path::new("/p/demo-source.wasm")
        );
    }

    #[test]
    fn rejects_broken_rules() {
        for (from, to) in [
            ("version = \"0.1.0\"", "version = \"one\""),
            ("route = \"/demo-source/reviews\"", "route = \"/admin/x\""),
            ("values = [\"recent\", \"popular\"]", "values = []"),
            ("name = \"demo-source\"", "name = \"../demo\""),
            ("name = \"demo-source\"", "name = \"demo/x\""),
            (
                "version = \"0.1.0\"",
                "version = \"0.1.0\"\ncomponent = \"/tmp/x.wasm\"",
            ),
            (
                "version = \"0.1.0\"",
                "version = \"0.1.0\"\ncomponent = \"../x.wasm\"",
            ),
            (
                "version = \"0.1.0\"",
                "version = \"0.1.0\"\ncomponent = \"sub/x.wasm\"",
            ),
            (
                "version = \"0.1.0\"",
                "version = \"0.1.0\"\ncomponent = \"x\\\\y.wasm\"",
            ),
            (
                "version = \"0.1.0\"",
                "version = \"0.1.0\"\ncomponent = \"x\\u0000.wasm\"",
            ),
            (
                "version = \"0.1.0\"",
                "version = \"0.1.0\"\ncomponent = \"..wasm\"",
            ),
        ] {
            let m: Manifest = toml::from_str(&SOURCE.replace(from, to)).unwrap();
            assert!(m.check().is_err(), "{to} should be rejected");
        }
    }
}
