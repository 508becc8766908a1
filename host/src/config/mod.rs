//! Server configuration: a TOML file, overridden by `GLEANER_*` environment
//! variables. Every setting is declared once, in [`settings`].

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde::Deserialize;

pub mod plugin_dir;
pub mod plugin_settings;
mod secrets;
pub mod settings;

/// Errors in the configuration; each says which setting is wrong and how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The configuration file could not be read.
    #[error("cannot read config file {path}: {source}. Check the path given with --config or GLEANER_CONFIG")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The configuration file is not valid TOML for this schema.
    #[error("invalid config file {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// A setting has a value the server cannot work with.
    #[error("{setting} = {value} cannot work: {hint}")]
    Invalid {
        /// The setting and its variable.
        setting: &'static str,
        /// Its value.
        value: String,
        /// What it takes, and why.
        hint: String,
    },
    /// An environment variable holds a value of the wrong form.
    #[error("environment variable {name}={value:?} is invalid: {hint}")]
    Env {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// The expected form.
        hint: &'static str,
    },
}

/// Settings for the whole server.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Listen address (`GLEANER_ADDR`), default 127.0.0.1:8080.
    pub addr: SocketAddr,
    /// Directory holding plugin manifests and components (`GLEANER_PLUGIN_DIR`).
    pub plugin_dir: PathBuf,
    /// Directory for compiled-component cache files (`GLEANER_CACHE_DIR`); none disables the cache.
    pub cache_dir: Option<PathBuf>,
    /// API keys accepted in `x-api-key` or `Authorization: Bearer` (`GLEANER_API_KEYS`, comma separated).
    pub api_keys: Vec<String>,
    /// Keys for the admin API under /admin (`GLEANER_ADMIN_KEYS`, comma separated); none disables it.
    pub admin_keys: Vec<String>,
    /// Keys for `GET /metrics` only (`GLEANER_METRICS_KEYS`, comma separated); admin
    /// keys work there too. With neither, `/metrics` is open on a loopback listen
    /// address and refused on any other.
    pub metrics_keys: Vec<String>,
    /// OTLP/HTTP endpoint traces are exported to (`GLEANER_OTLP_ENDPOINT`), e.g.
    /// `http://127.0.0.1:4318`; none (the default) exports nothing.
    pub otlp_endpoint: Option<String>,
    /// Largest admin upload in bytes (`GLEANER_ADMIN_MAX_BODY_BYTES`).
    pub admin_max_body_bytes: usize,
    /// Watch the plugin directory and hot-swap changed plugins (`GLEANER_WATCH`, true/false).
    pub watch: bool,
    /// Largest accepted request body in bytes (`GLEANER_MAX_BODY_BYTES`).
    pub max_body_bytes: usize,
    /// Time budget of one review fetch when reviews_to_fetch is omitted (`GLEANER_FETCH_BUDGET_MS`).
    pub fetch_budget_ms: u64,
    /// How long a fetch's session (its cookies and browser profile) lives after
    /// its last use, in seconds (`GLEANER_SESSION_TTL_SECS`); a continuation
    /// arriving later starts a new session.
    pub session_ttl_secs: u64,
    /// The pace of an upstream host across the server, over what plugins
    /// declare: `[pacing."www.example.com"] min_delay_ms = 500, delay_jitter_ms = 200,
    /// requests_per_minute = 60`.
    pub pacing: BTreeMap<String, crate::capabilities::http::pacing::Pace>,
    /// Requests served at once before answering 503 (`GLEANER_MAX_CONCURRENT_REQUESTS`).
    pub max_concurrent_requests: usize,
    /// Requests one plugin serves at once before answering 503, so a slow upstream
    /// fills only its own plugin's share (`GLEANER_MAX_CONCURRENT_PER_PLUGIN`).
    pub max_concurrent_per_plugin: usize,
    /// Of `max_concurrent_requests`, how many are kept for plugins that never
    /// reach the network, so slow sites cannot refuse the text processors
    /// (`GLEANER_RESERVED_FOR_LOCAL_PLUGINS`).
    pub reserved_for_local_plugins: usize,
    /// Requests one API key may have in flight before 429 (`GLEANER_MAX_IN_FLIGHT_PER_KEY`).
    pub max_in_flight_per_key: usize,
    /// Requests one client address (IPv6: its /64) may have in flight before
    /// 429 (`GLEANER_MAX_IN_FLIGHT_PER_CLIENT`).
    pub max_in_flight_per_client: usize,
    /// Reverse proxies whose `X-Forwarded-For` names the client: addresses or
    /// CIDR blocks (`GLEANER_TRUSTED_PROXIES`, comma separated). None by default.
    pub trusted_proxies: Vec<String>,
    /// PEM CA certificates trusted beside the public roots for upstream sites
    /// and HTTPS proxies (`GLEANER_UPSTREAM_CA_FILE`): a TLS-inspecting
    /// company proxy, a private site. None by default.
    pub upstream_ca_file: Option<PathBuf>,
    /// Time a client has to send a request's headers, in ms, counted from the
    /// first byte of the request (from the connection's start for its first
    /// request) (`GLEANER_HEADER_READ_TIMEOUT_MS`).
    pub header_read_timeout_ms: u64,
    /// Time a client has to send a request's body, in ms (`GLEANER_BODY_READ_TIMEOUT_MS`).
    pub body_read_timeout_ms: u64,
    /// Time a keep-alive connection may stay silent between requests, in ms,
    /// independent of the header timeout (`GLEANER_IDLE_TIMEOUT_MS`).
    pub idle_timeout_ms: u64,
    /// Time an answer may wait for a client that reads nothing, in ms; then the
    /// connection is closed (`GLEANER_WRITE_STALL_TIMEOUT_MS`).
    pub write_stall_timeout_ms: u64,
    /// Connections open at once; more are closed on accept (`GLEANER_MAX_CONNECTIONS`).
    pub max_connections: usize,
    /// Connections open at once from one client address (`GLEANER_MAX_CONNECTIONS_PER_CLIENT`).
    pub max_connections_per_client: usize,
    /// Time requests in flight get to finish after SIGTERM, in ms (`GLEANER_DRAIN_TIMEOUT_MS`).
    pub drain_timeout_ms: u64,
    /// Memory all live plugin instances may hold together, in MiB (`GLEANER_MAX_TOTAL_MEMORY_MIB`).
    pub max_total_memory_mib: usize,
    /// The share of that memory, in percent, the instances of one plugin may
    /// hold together, so one plugin cannot take it all (`GLEANER_MAX_PLUGIN_MEMORY_SHARE`).
    pub max_plugin_memory_share: usize,
    /// Jobs run at once; more wait in the queue (`GLEANER_JOBS_CONCURRENCY`).
    pub jobs_concurrency: usize,
    /// The largest `reviews_to_fetch` a job takes (`GLEANER_JOB_MAX_REVIEWS`).
    pub job_max_reviews: u64,
    /// Unfinished jobs one API key may hold; more are answered 429
    /// (`GLEANER_MAX_QUEUED_JOBS_PER_KEY`).
    pub max_queued_jobs_per_key: usize,
    /// A job's time budget, in seconds (`GLEANER_JOB_MAX_DURATION_SECS`).
    pub job_max_duration_secs: u64,
    /// How long finished jobs and their reviews are kept, in seconds
    /// (`GLEANER_JOB_RETENTION_SECS`).
    pub job_retention_secs: u64,
    /// The wait before a webhook's second attempt, in ms; it doubles for
    /// each next one (`GLEANER_WEBHOOK_RETRY_BASE_MS`).
    pub webhook_retry_base_ms: u64,
    /// Whether webhooks may go to loopback and private addresses
    /// (`GLEANER_WEBHOOK_ALLOW_PRIVATE`): for trials on one machine; `gleaner
    /// demo` turns it on.
    pub webhook_allow_private: bool,
    /// Whether a review breaking a rule of the record fails its request
    /// (`GLEANER_STRICT_RECORDS`) rather than being repaired.
    pub strict_records: bool,
    /// Answer outbound HTTP from HAR files instead of the network (`GLEANER_REPLAY`):
    /// `.har` files or directories of them, several separated by `:`.
    pub replay: Option<PathBuf>,
    /// Record outbound HTTP exchanges into this HAR file (`GLEANER_RECORD`).
    pub record: Option<PathBuf>,
    /// Send a host's requests to another base URL (`GLEANER_UPSTREAM_OVERRIDE`, comma
    /// separated): `plugin:host=base-url` for one plugin, `host=base-url` for every
    /// plugin. Overridden requests skip the SSRF guard.
    pub upstream_override: BTreeMap<String, String>,
    /// Directory for state the server keeps, such as the generated token secret (`GLEANER_DATA_DIR`).
    pub data_dir: PathBuf,
    /// Secret that signs continuation tokens, at least 32 bytes (`GLEANER_TOKEN_SECRET`).
    /// Unset: generated once and kept in `data_dir/token-secret`. Replicas behind
    /// one load balancer must share it.
    pub token_secret: Option<String>,
    /// The Ed25519 seed that signs review receipts, 64 hex digits
    /// (`GLEANER_RECEIPT_KEY`). Unset: generated once and kept in
    /// `data_dir/receipt-key`.
    pub receipt_key: Option<String>,
    /// The optional LLM (`[llm]`; `GLEANER_LLM_URL`, `GLEANER_LLM_MODEL`, `GLEANER_LLM_API_KEY`, `GLEANER_LLM_TIMEOUT_MS`).
    pub llm: crate::capabilities::llm::LlmConfig,
    /// The headless browser for plugins that declare `uses_browser`
    /// (`[browser]`; `GLEANER_BROWSER`, `GLEANER_CHROMIUM` and the other
    /// `GLEANER_BROWSER_*` settings).
    pub browser: crate::capabilities::browser::BrowserConfig,
    /// Per-plugin settings and secrets: `[plugins.<name>] key = "value"`.
    /// Environment: `GLEANER_PLUGIN_<NAME>_<KEY>` (upper case, `-` as `_`).
    /// A list (`proxies = ["http://…", "socks5://…"]`) is kept comma-joined.
    #[serde(deserialize_with = "settings_tables")]
    pub plugins: BTreeMap<String, BTreeMap<String, String>>,
    /// Proxies for every plugin without its own (`[proxies] urls = [...]`,
    /// `cooldown_secs`; `GLEANER_PROXIES`, comma separated, and
    /// `GLEANER_PROXY_COOLDOWN_SECS`). A plugin's own: `[plugins.<name>] proxies = [...]`.
    pub proxies: ProxyConfig,
    /// Cluster mode on NATS JetStream (`[cluster]`; `GLEANER_NATS_URL` and the
    /// other `GLEANER_NATS_*` settings). Off unless a NATS URL is set.
    pub cluster: gleaner_cluster::settings::ClusterConfig,
    /// Object storage for job exports (`[export]`; `GLEANER_EXPORT_S3_URL`
    /// and the other `GLEANER_EXPORT_S3_*` settings). Off unless a URL is set.
    pub export: crate::export::storage::StorageConfig,
    /// Called with the plugin's name just before each component compile; for
    /// tests that need a compile held. Neither the file nor the environment sets it.
    #[serde(skip)]
    pub compile_hook: Option<crate::runtime::CompileHook>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            plugin_dir: PathBuf::from(plugin_dir::DEFAULT),
            cache_dir: Some(PathBuf::from("target/gleaner-cache")),
            api_keys: Vec::new(),
            admin_keys: Vec::new(),
            metrics_keys: Vec::new(),
            otlp_endpoint: None,
            admin_max_body_bytes: 64 * 1024 * 1024,
            watch: true,
            max_body_bytes: 1024 * 1024,
            fetch_budget_ms: 30_000,
            session_ttl_secs: 1800,
            pacing: BTreeMap::new(),
            proxies: ProxyConfig::default(),
            max_concurrent_requests: 256,
            max_concurrent_per_plugin: 64,
            reserved_for_local_plugins: 64,
            max_in_flight_per_key: 32,
            max_in_flight_per_client: 32,
            trusted_proxies: Vec::new(),
            upstream_ca_file: None,
            header_read_timeout_ms: 10_000,
            body_read_timeout_ms: 30_000,
            idle_timeout_ms: 60_000,
            write_stall_timeout_ms: 30_000,
            max_connections: 4_096,
            max_connections_per_client: 256,
            drain_timeout_ms: 30_000,
            max_total_memory_mib: 2_048,
            max_plugin_memory_share: 50,
            jobs_concurrency: 4,
            job_max_reviews: 100_000,
            max_queued_jobs_per_key: 1_000,
            job_max_duration_secs: 6 * 3_600,
            job_retention_secs: 7 * 86_400,
            webhook_retry_base_ms: 30_000,
            webhook_allow_private: false,
            strict_records: false,
            replay: None,
            record: None,
            upstream_override: BTreeMap::new(),
            data_dir: PathBuf::from("target/gleaner-data"),
            token_secret: None,
            receipt_key: None,
            llm: Default::default(),
            browser: Default::default(),
            plugins: BTreeMap::new(),
            cluster: Default::default(),
            export: Default::default(),
            compile_hook: None,
        }
    }
}

impl Config {
    /// Reads the TOML file (if any) and applies environment overrides.
    pub fn load(file: Option<&Path>) -> Result<Config, ConfigError> {
        let mut config = match file {
            Some(path) => Self::from_file(path)?,
            None => Config::default(),
        };
        config.apply_env(|name| std::env::var(name).ok())?;
        config.check()?;
        config.locate_plugin_dir();
        Ok(config)
    }

    /// Refuses values the server cannot honour, before it starts: a fetch
    /// budget too short to fetch one page and answer in time.
    pub fn check(&self) -> Result<(), ConfigError> {
        let min = crate::driver::MIN_FETCH_BUDGET.as_millis() as u64;
        if self.fetch_budget_ms < min {
            return Err(ConfigError::Invalid {
                setting: "fetch_budget_ms (GLEANER_FETCH_BUDGET_MS)",
                value: self.fetch_budget_ms.to_string(),
                hint: format!(
                    "a fetch needs at least {min} ms to fetch one page and answer within its \
                     budget; set {min} or more (the default is 30000)"
                ),
            });
        }
        self.cluster
            .check(self.token_secret.is_some())
            .map_err(|e| ConfigError::Invalid {
                setting: e.setting,
                value: e.value,
                hint: e.hint,
            })?;
        self.export
            .exporter()
            .map(drop)
            .map_err(|e| ConfigError::Invalid {
                setting: e.setting,
                value: e.value,
                hint: e.hint,
            })
    }

    /// Parses a TOML file.
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            message: crate::manifest::toml_error(&text, &e),
        })
    }

    /// Applies `GLEANER_*` overrides read through `var`.
    pub fn apply_env(&mut self, var: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        for setting in settings::SETTINGS {
            setting.apply(self, &var)?;
        }
        Ok(())
    }

    /// The settings of one plugin: the file's `[plugins.<name>]` table, then
    /// `GLEANER_PLUGIN_<NAME>_<KEY>` variables for the keys its manifest declares.
    pub fn plugin_settings(
        &self,
        plugin: &str,
        declared_keys: &[String],
        var: impl Fn(&str) -> Option<String>,
    ) -> BTreeMap<String, String> {
        let mut settings = self.plugins.get(plugin).cloned().unwrap_or_default();
        for key in declared_keys {
            let name = plugin_setting_variable(plugin, key);
            if let Some(v) = var(&name) {
                settings.insert(key.clone(), v);
            }
        }
        settings
    }

    /// The key that signs continuation tokens.
    pub fn token_key(&self) -> Result<crate::token::TokenKey, crate::token::KeyError> {
        crate::token::TokenKey::load(self.token_secret.as_deref(), &self.data_dir)
    }

    /// The fetch budget as a duration.
    pub fn fetch_budget(&self) -> Duration {
        Duration::from_millis(self.fetch_budget_ms)
    }
}

/// The environment variable of plugin `plugin`'s setting `key`:
/// `GLEANER_PLUGIN_<PLUGIN>_<KEY>`, upper-case, `-` as `_`.
pub fn plugin_setting_variable(plugin: &str, key: &str) -> String {
    format!("GLEANER_PLUGIN_{}_{}", env_part(plugin), env_part(key))
}

fn env_part(s: &str) -> String {
    s.to_ascii_uppercase().replace(['-', '.'], "_")
}

/// The proxies of the configuration.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProxyConfig {
    /// Proxy URLs with their credentials: `http://`, `https://`, `socks5://`.
    pub urls: Vec<String>,
    /// How long a proxy a site blocked is left out for that site, in seconds.
    pub cooldown_secs: u64,
}

impl Default for ProxyConfig {
    fn default() -> Self {
        ProxyConfig {
            urls: Vec::new(),
            cooldown_secs: 600,
        }
    }
}

impl Config {
    /// The proxy settings: the server's list, and each plugin's own `proxies`.
    pub fn proxy_settings(&self) -> crate::capabilities::http::proxies::ProxySettings {
        let per_plugin = self
            .plugins
            .iter()
            .filter_map(|(name, settings)| {
                Some((name.clone(), split_list(settings.get("proxies")?)))
            })
            .collect();
        crate::capabilities::http::proxies::ProxySettings {
            urls: self.proxies.urls.clone(),
            per_plugin,
            cooldown: Duration::from_secs(self.proxies.cooldown_secs),
        }
    }

    /// The PEM certificates of `upstream_ca_file`, read and checked (empty
    /// when it is unset).
    pub fn upstream_roots(&self) -> anyhow::Result<Vec<u8>> {
        let Some(path) = &self.upstream_ca_file else {
            return Ok(Vec::new());
        };
        let pem = std::fs::read(path).with_context(|| {
            format!(
                "upstream_ca_file {}: cannot read it; give a readable PEM file of CA certificates, \
                 or unset GLEANER_UPSTREAM_CA_FILE",
                path.display()
            )
        })?;
        let roots = reqwest::Certificate::from_pem_bundle(&pem).with_context(|| {
            format!(
                "upstream_ca_file {}: not PEM certificates; give the CA certificates as \
                 -----BEGIN CERTIFICATE----- blocks",
                path.display()
            )
        })?;
        if roots.is_empty() {
            anyhow::bail!(
                "upstream_ca_file {}: holds no certificate; give the CA certificates as \
                 -----BEGIN CERTIFICATE----- blocks",
                path.display()
            );
        }
        Ok(pem)
    }
}

/// `[plugins.<name>]` tables: string values as they are, lists of strings comma-joined.
fn settings_tables<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, BTreeMap<String, String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Value {
        Text(String),
        List(Vec<String>),
    }
    let tables: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::deserialize(d)?;
    Ok(tables
        .into_iter()
        .map(|(plugin, table)| {
            let table = table
                .into_iter()
                .map(|(k, v)| match v {
                    Value::Text(s) => (k, s),
                    Value::List(list) => (k, list.join(",")),
                })
                .collect();
            (plugin, table)
        })
        .collect())
}

pub(crate) fn split_list(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

pub(crate) fn parse_number<T: std::str::FromStr>(
    name: &'static str,
    v: String,
) -> Result<T, ConfigError> {
    v.trim().parse().map_err(|_| ConfigError::Env {
        name,
        value: v,
        hint: "use a non-negative whole number",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_upstream_ca_file_is_read_or_refused_with_a_fix() {
        let mut config = Config::default();
        assert!(
            config.upstream_roots().unwrap().is_empty(),
            "none by default"
        );
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        config.upstream_ca_file = Some(missing);
        let e = config.upstream_roots().unwrap_err().to_string();
        assert!(
            e.contains("upstream_ca_file") && e.contains("cannot read"),
            "{e}"
        );
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no certificate here\n").unwrap();
        config.upstream_ca_file = Some(empty);
        let e = format!("{:#}", config.upstream_roots().unwrap_err());
        assert!(e.contains("BEGIN CERTIFICATE"), "{e}");
    }

    #[test]
    fn env_overrides_file_values() {
        let mut config: Config = toml::from_str(
            "addr = \"127.0.0.1:9000\"\napi_keys = [\"a\"]\n[plugins.forum-site]\nclient_id = \"x\"\n",
        )
        .unwrap();
        let env = |name: &str| match name {
            "GLEANER_ADDR" => Some("0.0.0.0:8081".to_owned()),
            "GLEANER_API_KEYS" => Some("k1, k2".to_owned()),
            "GLEANER_UPSTREAM_OVERRIDE" => Some("www.reddit.com=http://127.0.0.1:9000".to_owned()),
            "GLEANER_PLUGIN_FORUM_SITE_CLIENT_SECRET" => Some("s".to_owned()),
            _ => None,
        };
        config.apply_env(env).unwrap();
        assert_eq!(config.addr.to_string(), "0.0.0.0:8081");
        assert_eq!(config.api_keys, vec!["k1", "k2"]);
        assert_eq!(
            config.upstream_override["www.reddit.com"],
            "http://127.0.0.1:9000"
        );
        let keys = vec!["client_id".to_owned(), "client_secret".to_owned()];
        let settings = config.plugin_settings("forum-site", &keys, env);
        assert_eq!(settings["client_id"], "x");
        assert_eq!(settings["client_secret"], "s");
    }

    #[test]
    fn bad_env_value_names_the_variable() {
        let mut config = Config::default();
        let err = config
            .apply_env(|n| (n == "GLEANER_ADDR").then(|| "nope".to_owned()))
            .unwrap_err();
        assert!(err.to_string().contains("GLEANER_ADDR"));
    }

    #[test]
    fn metrics_keys_and_the_otlp_endpoint_come_from_file_or_env() {
        let mut config: Config =
            toml::from_str("metrics_keys = [\"m\"]\notlp_endpoint = \"http://127.0.0.1:4318\"\n")
                .unwrap();
        assert_eq!(config.metrics_keys, vec!["m"]);
        assert_eq!(
            config.otlp_endpoint.as_deref(),
            Some("http://127.0.0.1:4318")
        );
        let env = |name: &str| match name {
            "GLEANER_METRICS_KEYS" => Some("m1,m2".to_owned()),
            "GLEANER_OTLP_ENDPOINT" => Some(" ".to_owned()),
            _ => None,
        };
        config.apply_env(env).unwrap();
        assert_eq!(config.metrics_keys, vec!["m1", "m2"]);
        assert_eq!(
            config.otlp_endpoint, None,
            "an empty value turns export off"
        );
    }

    #[test]
    fn unknown_keys_are_rejected() {
        assert!(toml::from_str::<Config>("adress = \"x\"").is_err());
    }
}
