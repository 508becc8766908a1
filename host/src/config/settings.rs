//! Every setting, declared once: its TOML key, its environment variable, what
//! it does, and how a variable's value is read. The environment overrides
//! (`Config::apply_env`), the tables of `docs/configuration.md` and of the
//! README, and the deployment checks all come from [`SETTINGS`]; the defaults
//! shown are read from `Config::default()`.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;

use super::{parse_number, split_list, Config, ConfigError};

/// One setting.
pub struct Setting {
    /// The TOML key (`[table] key` inside a table).
    pub key: &'static str,
    /// The environment variable; none for a setting only the file holds.
    pub env: Option<&'static str>,
    /// What it does, one line of Markdown.
    pub meaning: &'static str,
    /// The guide's table that lists it.
    pub table: Table,
    /// Whether the README's table of the most used settings lists it too.
    pub readme: bool,
    /// Reads the variable's value into the configuration.
    apply: Option<Apply>,
    /// The default as the guides show it.
    default: Shown,
}

/// Where a setting is listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// The server's settings.
    Server,
    /// Cluster mode (`[cluster]`).
    Cluster,
    /// Read by the binary before the configuration exists (the file's path,
    /// the log settings); listed in the README only.
    Process,
}

type Apply = fn(&mut Config, &'static str, String) -> Result<(), ConfigError>;

/// How a default is shown.
enum Shown {
    /// Read from `Config::default()`; the text stands for an unset value.
    Read(fn(&Config) -> Option<String>, &'static str),
    /// A default no field holds (computed at start, or another setting's).
    Text(&'static str),
}

impl Setting {
    /// The default as the guides show it.
    pub fn default_text(&self) -> String {
        match &self.default {
            Shown::Read(read, unset) => {
                read(&Config::default()).unwrap_or_else(|| (*unset).to_owned())
            }
            Shown::Text(text) => (*text).to_owned(),
        }
    }

    /// Applies the variable's value, when this setting has a variable the
    /// configuration reads and `var` gives it a value.
    pub(super) fn apply(
        &self,
        config: &mut Config,
        var: &impl Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        match (self.apply, self.env) {
            (Some(apply), Some(name)) => match var(name) {
                Some(value) => apply(config, name, value),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

/// A value as the guides show it: numbers bare, everything else as code;
/// none for an unset value or an empty list.
trait Show {
    fn show(&self) -> Option<String>;
}

macro_rules! bare {
    ($($t:ty),*) => {$(
        impl Show for $t {
            fn show(&self) -> Option<String> {
                Some(self.to_string())
            }
        }
    )*};
}
bare!(u64, usize);

macro_rules! code {
    ($($t:ty),*) => {$(
        impl Show for $t {
            fn show(&self) -> Option<String> {
                Some(format!("`{self}`"))
            }
        }
    )*};
}
code!(bool, String, SocketAddr);
impl Show for PathBuf {
    fn show(&self) -> Option<String> {
        Some(format!("`{}`", self.display()))
    }
}
impl<T: Show> Show for Option<T> {
    fn show(&self) -> Option<String> {
        self.as_ref().and_then(Show::show)
    }
}
impl Show for Vec<String> {
    fn show(&self) -> Option<String> {
        (!self.is_empty()).then(|| format!("`{}`", self.join(",")))
    }
}
impl Show for BTreeMap<String, String> {
    fn show(&self) -> Option<String> {
        (!self.is_empty()).then(|| format!("{} entries", self.len()))
    }
}

/// A setting read from the variable by `$read` into `config.$field`.
macro_rules! setting {
    ($table:ident, $key:literal, $env:literal, $($field:ident).+, $read:expr, $unset:literal, $readme:literal, $meaning:literal) => {
        Setting {
            key: $key,
            env: Some($env),
            meaning: $meaning,
            table: Table::$table,
            readme: $readme,
            apply: Some(|config: &mut Config, name: &'static str, value: String| {
                config.$($field).+ = $read(name, value)?;
                Ok(())
            }),
            default: Shown::Read(|config: &Config| config.$($field).+.show(), $unset),
        }
    };
}

/// A setting the guides list but `apply_env` does not read: a table of the
/// file, a family of variables, or a variable the binary reads itself.
macro_rules! listed {
    ($table:ident, $key:literal, $env:expr, $default:literal, $readme:literal, $meaning:literal) => {
        Setting {
            key: $key,
            env: $env,
            meaning: $meaning,
            table: Table::$table,
            readme: $readme,
            apply: None,
            default: Shown::Text($default),
        }
    };
}

type Read<T> = Result<T, ConfigError>;

fn number<T: std::str::FromStr>(name: &'static str, v: String) -> Read<T> {
    parse_number(name, v)
}
fn some_number<T: std::str::FromStr>(name: &'static str, v: String) -> Read<Option<T>> {
    parse_number(name, v).map(Some)
}
fn text(_: &'static str, v: String) -> Read<String> {
    Ok(v)
}
fn some_text(_: &'static str, v: String) -> Read<Option<String>> {
    Ok(Some(v))
}
fn text_or_unset(_: &'static str, v: String) -> Read<Option<String>> {
    Ok(Some(v.trim().to_owned()).filter(|v| !v.is_empty()))
}
fn path(_: &'static str, v: String) -> Read<PathBuf> {
    Ok(v.into())
}
fn some_path(_: &'static str, v: String) -> Read<Option<PathBuf>> {
    Ok(Some(v.into()))
}
fn path_or_off(_: &'static str, v: String) -> Read<Option<PathBuf>> {
    Ok((!v.is_empty()).then(|| v.into()))
}
fn list(_: &'static str, v: String) -> Read<Vec<String>> {
    Ok(split_list(&v))
}
fn address(name: &'static str, v: String) -> Read<SocketAddr> {
    v.parse().map_err(|_| ConfigError::Env {
        name,
        value: v.clone(),
        hint: "use host:port, e.g. 127.0.0.1:8080",
    })
}
fn switch(name: &'static str, v: String) -> Read<bool> {
    match v.trim() {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        _ => Err(ConfigError::Env {
            name,
            value: v,
            hint: "use true or false",
        }),
    }
}
fn overrides(name: &'static str, v: String) -> Read<BTreeMap<String, String>> {
    let mut map = BTreeMap::new();
    for pair in split_list(&v) {
        let (host, base) = pair.split_once('=').ok_or_else(|| ConfigError::Env {
            name,
            value: v.clone(),
            hint: "use [plugin:]host=base-url pairs separated by commas, e.g. forum-site:www.reddit.com=http://127.0.0.1:9000",
        })?;
        map.insert(host.trim().to_ascii_lowercase(), base.trim().to_owned());
    }
    Ok(map)
}

/// Every setting, in the order the guides list them.
pub const SETTINGS: &[Setting] = &[
    setting!(Server, "addr", "GLEANER_ADDR", addr, address, "", true, "listen address"),
    setting!(Server, "plugin_dir", "GLEANER_PLUGIN_DIR", plugin_dir, path, "", true, "plugin manifests and components"),
    setting!(Server, "cache_dir", "GLEANER_CACHE_DIR", cache_dir, path_or_off, "off", false, "compile cache, for components without a usable precompiled artifact (empty disables)"),
    setting!(Server, "api_keys", "GLEANER_API_KEYS", api_keys, list, "none", true, "accepted API keys (required to listen beyond loopback)"),
    setting!(Server, "admin_keys", "GLEANER_ADMIN_KEYS", admin_keys, list, "none", true, "keys for `/admin` (none disables it)"),
    setting!(Server, "admin_max_body_bytes", "GLEANER_ADMIN_MAX_BODY_BYTES", admin_max_body_bytes, number, "", false, "admin upload limit"),
    setting!(Server, "metrics_keys", "GLEANER_METRICS_KEYS", metrics_keys, list, "none", false, "keys for `GET /metrics` only (admin keys work there too); see [Metrics and traces](operating.md#metrics-and-traces)"),
    setting!(Server, "otlp_endpoint", "GLEANER_OTLP_ENDPOINT", otlp_endpoint, text_or_unset, "off", false, "OTLP/HTTP collector base URL (e.g. `http://127.0.0.1:4318`); traces go to `<url>/v1/traces`"),
    setting!(Server, "watch", "GLEANER_WATCH", watch, switch, "", false, "watch the plugin directory and hot-swap plugins"),
    setting!(Server, "max_body_bytes", "GLEANER_MAX_BODY_BYTES", max_body_bytes, number, "", false, "request body limit"),
    setting!(Server, "fetch_budget_ms", "GLEANER_FETCH_BUDGET_MS", fetch_budget_ms, number, "", true, "time budget of one fetch"),
    setting!(Server, "max_concurrent_requests", "GLEANER_MAX_CONCURRENT_REQUESTS", max_concurrent_requests, number, "", false, "requests served at once; beyond this, 503"),
    setting!(Server, "max_concurrent_per_plugin", "GLEANER_MAX_CONCURRENT_PER_PLUGIN", max_concurrent_per_plugin, number, "", false, "requests one plugin serves at once; beyond this, 503"),
    setting!(Server, "reserved_for_local_plugins", "GLEANER_RESERVED_FOR_LOCAL_PLUGINS", reserved_for_local_plugins, number, "", false, "of `max_concurrent_requests`, kept for plugins that never reach the network (the text processors): sources and website processors together hold at most the rest. Of that rest, the last quarter is kept for plugins holding fewer than a sixteenth of it: a plugin past that floor is refused (503) while only the last quarter is free, so sites that hang on some plugins never starve a source whose site answers"),
    setting!(Server, "max_in_flight_per_key", "GLEANER_MAX_IN_FLIGHT_PER_KEY", max_in_flight_per_key, number, "", false, "requests one API key may have in flight; beyond this, 429 with `Retry-After`"),
    setting!(Server, "max_in_flight_per_client", "GLEANER_MAX_IN_FLIGHT_PER_CLIENT", max_in_flight_per_client, number, "", false, "requests one client address (IPv6: its /64) may have in flight; beyond this, 429"),
    setting!(Server, "upstream_ca_file", "GLEANER_UPSTREAM_CA_FILE", upstream_ca_file, some_path, "none", false, "PEM CA certificates trusted beside the public roots for upstream sites and HTTPS proxies (a TLS-inspecting company proxy, a private site)"),
    setting!(Server, "trusted_proxies", "GLEANER_TRUSTED_PROXIES", trusted_proxies, list, "none", false, "reverse proxies (addresses or CIDR blocks, comma separated) whose `X-Forwarded-For` names the client; see [Behind a reverse proxy](#behind-a-reverse-proxy)"),
    setting!(Server, "header_read_timeout_ms", "GLEANER_HEADER_READ_TIMEOUT_MS", header_read_timeout_ms, number, "", false, "time to send a request's headers, from its first byte (from the connection's start for the first request); then the connection is closed"),
    setting!(Server, "body_read_timeout_ms", "GLEANER_BODY_READ_TIMEOUT_MS", body_read_timeout_ms, number, "", false, "time to send a request's body; then 408 (a `Content-Length` over `max_body_bytes` gets 413 at once)"),
    setting!(Server, "idle_timeout_ms", "GLEANER_IDLE_TIMEOUT_MS", idle_timeout_ms, number, "", false, "a keep-alive connection silent this long between requests is closed; independent of the header timeout"),
    setting!(Server, "write_stall_timeout_ms", "GLEANER_WRITE_STALL_TIMEOUT_MS", write_stall_timeout_ms, number, "", false, "an answer that a client does not read for this long is cut and the connection closed"),
    setting!(Server, "max_connections", "GLEANER_MAX_CONNECTIONS", max_connections, number, "", false, "connections open at once; at the cap, the connection that has waited longest on its client (a slow head, or idle) is closed to make room, and a new one is refused only when every connection has a request in flight"),
    setting!(Server, "max_connections_per_client", "GLEANER_MAX_CONNECTIONS_PER_CLIENT", max_connections_per_client, number, "", false, "the same, per client address (IPv6: per /64)"),
    setting!(Server, "drain_timeout_ms", "GLEANER_DRAIN_TIMEOUT_MS", drain_timeout_ms, number, "", false, "after SIGTERM, time requests in flight get to finish"),
    setting!(Server, "max_total_memory_mib", "GLEANER_MAX_TOTAL_MEMORY_MIB", max_total_memory_mib, number, "", false, "linear memory all live plugin instances may hold together"),
    setting!(Server, "max_plugin_memory_share", "GLEANER_MAX_PLUGIN_MEMORY_SHARE", max_plugin_memory_share, number, "", false, "percent of `max_total_memory_mib` the instances of one plugin may hold together; beyond, 503"),
    setting!(Server, "jobs_concurrency", "GLEANER_JOBS_CONCURRENCY", jobs_concurrency, number, "", false, "jobs run at once (inside the request pools, so jobs never take the synchronous API's room); more wait, queued"),
    setting!(Server, "job_max_reviews", "GLEANER_JOB_MAX_REVIEWS", job_max_reviews, number, "", false, "the largest `reviews_to_fetch` a job takes"),
    setting!(Server, "max_queued_jobs_per_key", "GLEANER_MAX_QUEUED_JOBS_PER_KEY", max_queued_jobs_per_key, number, "", false, "unfinished jobs one API key may hold; a job beyond them is answered 429 with `Retry-After`"),
    setting!(Server, "job_max_duration_secs", "GLEANER_JOB_MAX_DURATION_SECS", job_max_duration_secs, number, "", false, "a job's time budget (6 h); past it the job fails and keeps what it collected"),
    setting!(Server, "job_retention_secs", "GLEANER_JOB_RETENTION_SECS", job_retention_secs, number, "", false, "finished jobs and their reviews are deleted this long after they end (7 days)"),
    setting!(Server, "webhook_allow_private", "GLEANER_WEBHOOK_ALLOW_PRIVATE", webhook_allow_private, switch, "", false, "let webhooks reach loopback and private addresses (never link-local ones), for a receiver on this machine or network; `gleaner demo` turns it on. A warning at start says it is on"),
    setting!(Server, "strict_records", "GLEANER_STRICT_RECORDS", strict_records, switch, "", false, "a review that breaks a rule of the review record (a country that is no ISO code, a concept left in `extra`, an aspect rating outside its scale) fails the request as a plugin fault instead of being repaired, logged and counted; the tests run with it"),
    setting!(Server, "webhook_retry_base_ms", "GLEANER_WEBHOOK_RETRY_BASE_MS", webhook_retry_base_ms, number, "", false, "the wait before a webhook's second attempt; each next waits twice as long, 8 attempts in all (about an hour)"),
    setting!(Server, "data_dir", "GLEANER_DATA_DIR", data_dir, path, "", false, "state the server keeps: the generated token secret, and `jobs.sqlite3` (jobs, their reviews, schedules, webhook deliveries; see [operating.md](operating.md#the-jobs-store))"),
    setting!(Server, "token_secret", "GLEANER_TOKEN_SECRET", token_secret, some_text, "generated", true, "signs continuation tokens; at least 32 bytes; share it between replicas"),
    setting!(Server, "receipt_key", "GLEANER_RECEIPT_KEY", receipt_key, some_text, "generated", false, "the Ed25519 seed that signs review receipts, 64 hex digits; unset, made once and kept in <data_dir>/receipt-key; share it between replicas"),
    setting!(Server, "replay", "GLEANER_REPLAY", replay, some_path, "none", true, "answer outbound HTTP from a HAR file or directory (what `make demo` sets)"),
    setting!(Server, "record", "GLEANER_RECORD", record, some_path, "none", false, "write real exchanges into this HAR file"),
    setting!(Server, "upstream_override", "GLEANER_UPSTREAM_OVERRIDE", upstream_override, overrides, "none", false, "`[plugin:]host=base-url,...`: send a host's requests elsewhere"),
    setting!(Server, "[llm] url", "GLEANER_LLM_URL", llm.url, some_text, "off", false, "base URL of an optional OpenAI-compatible LLM, e.g. `https://api.openai.com/v1`"),
    setting!(Server, "[llm] model", "GLEANER_LLM_MODEL", llm.model, some_text, "none", false, "the LLM's model name"),
    setting!(Server, "[llm] api_key", "GLEANER_LLM_API_KEY", llm.api_key, some_text, "none", false, "the LLM's bearer key"),
    setting!(Server, "[browser] enabled", "GLEANER_BROWSER", browser.enabled, switch, "", false, "whether plugins that declare `uses_browser` may open pages in headless Chromium; off, they answer 502 naming this setting"),
    setting!(Server, "[browser] chromium", "GLEANER_CHROMIUM", browser.chromium, some_path, "`chromium` on the `PATH`", false, "the Chromium binary; missing, plugins that need the browser answer 502 naming the package"),
    setting!(Server, "[browser] max_pages", "GLEANER_BROWSER_MAX_PAGES", browser.max_pages, number, "", false, "browser pages open at once across the server; a visit waits for a free one within its call's budget"),
    setting!(Server, "[browser] max_memory_mib", "GLEANER_BROWSER_MAX_MEMORY_MIB", browser.max_memory_mib, number, "", false, "Chromium's memory (the proportional set size of all its processes) above which it restarts once its pages close; visits are refused until then"),
    setting!(Server, "[browser] page_timeout_ms", "GLEANER_BROWSER_PAGE_TIMEOUT_MS", browser.page_timeout_ms, number, "", false, "one visit's time limit, within its call's budget"),
    setting!(Server, "[llm] timeout_ms", "GLEANER_LLM_TIMEOUT_MS", llm.timeout_ms, some_number, "20000", false, "time limit of one completion"),
    setting!(Server, "[export] s3_url", "GLEANER_EXPORT_S3_URL", export.s3_url, some_text, "off", false, "`s3://bucket/prefix`: where jobs and schedules that ask for an `export` write their reviews when they end, as `<prefix>/<source>/<job_id>.<ext>`; unset, such a request is refused (400). See [Exports](operating.md#exports-to-object-storage)"),
    setting!(Server, "[export] s3_endpoint", "GLEANER_EXPORT_S3_ENDPOINT", export.s3_endpoint, some_text, "AWS's, for the region", false, "an S3-compatible store's base URL (MinIO, R2, Ceph…); requests use path-style addressing"),
    setting!(Server, "[export] s3_region", "GLEANER_EXPORT_S3_REGION", export.s3_region, some_text, "`us-east-1`", false, "the bucket's region"),
    setting!(Server, "[export] s3_access_key_id", "GLEANER_EXPORT_S3_ACCESS_KEY_ID", export.s3_access_key_id, some_text, "the instance's role", false, "the access key id (a secret: never logged or answered)"),
    setting!(Server, "[export] s3_secret_access_key", "GLEANER_EXPORT_S3_SECRET_ACCESS_KEY", export.s3_secret_access_key, some_text, "the instance's role", false, "the secret access key (a secret: never logged or answered)"),
    setting!(Server, "[export] retry_base_ms", "GLEANER_EXPORT_RETRY_BASE_MS", export.retry_base_ms, number, "", false, "the wait before a failed upload's second attempt; each next waits twice as long, 8 attempts in all (about 4 minutes)"),
    listed!(Server, "[plugins.<name>]", Some("GLEANER_PLUGIN_<NAME>_<KEY>"), "none", true, "per-plugin settings and secrets declared in its manifest (`<NAME>` and `<KEY>` upper-case, `-` as `_`)"),
    listed!(Server, "[plugins.<name>] proxies", None, "none", false, "proxies for one plugin, in place of `[proxies] urls`"),
    setting!(Server, "[proxies] urls", "GLEANER_PROXIES", proxies.urls, list, "none", true, "proxies for every plugin (`http://user:pass@host:port`, `socks5://…`; comma separated in the variable); see [the sandbox](architecture.md#what-the-host-offers-plugins-the-sandbox)"),
    setting!(Server, "[proxies] cooldown_secs", "GLEANER_PROXY_COOLDOWN_SECS", proxies.cooldown_secs, number, "", false, "how long a proxy a site blocked rests for that site"),
    setting!(Server, "session_ttl_secs", "GLEANER_SESSION_TTL_SECS", session_ttl_secs, number, "", false, "how long a fetch's session (cookies, browser profile) lives after its last use"),
    listed!(Server, "[pacing.\"<host>\"]", None, "the plugin's manifest", false, "`min_delay_ms`, `delay_jitter_ms`, `requests_per_minute` for one upstream host, across every plugin"),
    setting!(Cluster, "nats_url", "GLEANER_NATS_URL", cluster.nats_url, some_text, "unset", false, "NATS server URLs, comma separated; set, the replica runs in cluster mode. It refuses to start without `GLEANER_TOKEN_SECRET` (every replica must sign tokens alike) or when NATS cannot be reached"),
    setting!(Cluster, "nats_creds", "GLEANER_NATS_CREDS", cluster.nats_creds, some_path, "unset", false, "a NATS credentials file (JWT and NKey seed)"),
    setting!(Cluster, "nats_token", "GLEANER_NATS_TOKEN", cluster.nats_token, some_text, "unset", false, "a NATS token (a secret: never logged)"),
    setting!(Cluster, "nats_user", "GLEANER_NATS_USER", cluster.nats_user, some_text, "unset", false, "a NATS user, with `nats_password` (the shipped NATS configurations give the replicas the user `gleaner`)"),
    setting!(Cluster, "nats_password", "GLEANER_NATS_PASSWORD", cluster.nats_password, some_text, "unset", false, "the NATS user's password (a secret: never logged)"),
    setting!(Cluster, "nats_tls_ca", "GLEANER_NATS_TLS_CA", cluster.nats_tls_ca, some_path, "unset", false, "PEM CA certificates to trust; set, TLS is required"),
    setting!(Cluster, "nats_tls_cert", "GLEANER_NATS_TLS_CERT", cluster.nats_tls_cert, some_path, "unset", false, "a client certificate, for servers that verify clients (with `nats_tls_key`)"),
    setting!(Cluster, "nats_tls_key", "GLEANER_NATS_TLS_KEY", cluster.nats_tls_key, some_path, "unset", false, "the client certificate's key"),
    setting!(Cluster, "insecure", "GLEANER_NATS_INSECURE", cluster.insecure, switch, "", false, "join a NATS server without credentials: for a trial on one machine only (anyone who reaches that NATS could remove plugins and read jobs); warned about at start and in `/healthz`. Without it, cluster mode refuses to start without a token, a credentials file or a client certificate"),
    setting!(Cluster, "replicas", "GLEANER_NATS_REPLICAS", cluster.replicas, number, "", false, "copies of each stream and bucket the first replica creates: 1 on one NATS server, 3 on a three-node cluster"),
    setting!(Cluster, "storage", "GLEANER_NATS_STORAGE", cluster.storage, text, "", false, "`file` (kept across a NATS restart) or `memory`"),
    setting!(Cluster, "job_ack_wait_secs", "GLEANER_JOB_ACK_WAIT_SECS", cluster.job_ack_wait_secs, number, "", false, "how long a job's worker may go silent before another replica takes the job over (workers send progress every third of it)"),
    setting!(Cluster, "wall_backoff_secs", "GLEANER_WALL_BACKOFF_SECS", cluster.wall_backoff_secs, number, "", false, "how long every replica leaves a host alone after one of them met a bot wall there (requests to it fail at once, naming the wall and the replica)"),
    setting!(Cluster, "replica_name", "GLEANER_REPLICA_NAME", cluster.replica_name, some_text, "host name and process id", false, "this replica's name in `/healthz`"),
    setting!(Cluster, "seal_key", "GLEANER_CLUSTER_KEY", cluster.seal_key, some_text, "derived from the token secret", false, "64 hex digits that seal secrets kept at rest (the cluster's buckets, webhook secrets in the jobs store); the same on every replica"),
    listed!(Process, "", Some("GLEANER_CONFIG"), "none", false, "the configuration file (`--config FILE`)"),
    listed!(Process, "", Some("GLEANER_LOG"), "`info`", true, "log filter; `GLEANER_LOG_FORMAT=json` for JSON lines"),
    listed!(Process, "", Some("GLEANER_LOG_FORMAT"), "text", false, "`text` or `json` (JSON lines); anything else is refused at start"),
];

/// The Markdown table of `table`'s settings, as `docs/configuration.md` lists them.
pub fn guide_table(table: Table) -> String {
    let mut out = String::from("| setting | env | default | meaning |\n|---|---|---|---|\n");
    for s in SETTINGS.iter().filter(|s| s.table == table) {
        let env = s
            .env
            .map_or_else(|| "none".to_owned(), |e| format!("`{e}`"));
        out.push_str(&format!(
            "| `{}` | {env} | {} | {} |\n",
            s.key,
            s.default_text(),
            s.meaning
        ));
    }
    out
}

/// The README's table of the most used settings, by variable.
pub fn readme_table() -> String {
    let mut out = String::from("| env | default | meaning |\n|---|---|---|\n");
    for s in SETTINGS.iter().filter(|s| s.readme) {
        let Some(env) = s.env else { continue };
        // Links in the README point into docs/.
        let meaning = s.meaning.replace("](", "](docs/");
        out.push_str(&format!("| `{env}` | {} | {meaning} |\n", s.default_text()));
    }
    out
}

/// Every environment variable a setting names, patterns included.
pub fn variables() -> impl Iterator<Item = &'static str> {
    SETTINGS.iter().filter_map(|s| s.env)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replaces what stands between `<!-- settings: NAME -->` and
    /// `<!-- end settings -->` in `text`; none when the markers are missing.
    fn with_block(text: &str, name: &str, block: &str) -> Option<String> {
        let open = format!("<!-- settings: {name} -->\n");
        let close = "<!-- end settings -->";
        let start = text.find(&open)? + open.len();
        let end = start + text[start..].find(close)?;
        Some(format!("{}{block}{}", &text[..start], &text[end..]))
    }

    /// The guides' settings tables are the declared ones; `GLEANER_BLESS=1`
    /// rewrites them from the declaration.
    #[test]
    fn the_guides_tables_are_the_declaration() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let bless = std::env::var("GLEANER_BLESS").is_ok_and(|v| v == "1");
        let files = [
            (
                "docs/configuration.md",
                vec![
                    ("server", guide_table(Table::Server)),
                    ("cluster", guide_table(Table::Cluster)),
                ],
            ),
            ("README.md", vec![("readme", readme_table())]),
        ];
        for (file, blocks) in files {
            let path = root.join(file);
            let text = std::fs::read_to_string(&path).unwrap();
            let mut wanted = text.clone();
            for (name, block) in blocks {
                wanted = with_block(&wanted, name, &block)
                    .unwrap_or_else(|| panic!("{file} has no `<!-- settings: {name} -->` block"));
            }
            if bless {
                std::fs::write(&path, &wanted).unwrap();
            } else {
                assert!(
                    text == wanted,
                    "{file}'s settings tables differ from the declaration in host/src/config/settings.rs; \
                     run the test with GLEANER_BLESS=1 to rewrite them"
                );
            }
        }
    }

    #[test]
    fn defaults_are_read_from_the_default_configuration() {
        let shown = |env: &str| {
            SETTINGS
                .iter()
                .find(|s| s.env == Some(env))
                .map(Setting::default_text)
                .unwrap()
        };
        assert_eq!(shown("GLEANER_ADDR"), "`127.0.0.1:8080`");
        assert_eq!(shown("GLEANER_FETCH_BUDGET_MS"), "30000");
        assert_eq!(shown("GLEANER_WATCH"), "`true`");
        assert_eq!(shown("GLEANER_API_KEYS"), "none");
        assert_eq!(shown("GLEANER_NATS_STORAGE"), "`file`");
        let mut envs: Vec<_> = variables().collect();
        let all = envs.len();
        envs.sort_unstable();
        envs.dedup();
        assert_eq!(envs.len(), all, "a variable is declared twice");
    }
}
