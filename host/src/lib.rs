//! Gleaner: an HTTP JSON service that collects reviews from third-party sites
//! through sandboxed WebAssembly plugins, processes review text and site assets,
//! and extracts SEO metadata from websites.
//!
//! Layout: [`api`] (thin HTTP handlers), [`driver`] (paging and limits),
//! [`registry`] (routes to plugins), [`runtime`] (wasmtime), and one module per
//! host capability under [`capabilities`].

pub mod api;
pub mod bindings;
pub mod capabilities;
pub mod cli;
#[cfg(feature = "cluster")]
pub mod cluster;
#[cfg(not(feature = "cluster"))]
#[path = "cluster/absent.rs"]
pub mod cluster;
pub mod config;
pub mod contract;
pub mod driver;
pub mod error;
pub mod export;
pub mod features;
pub mod insights;
pub mod jobs;
pub mod manifest;
pub mod openapi;
pub mod receipts;
pub mod record;
pub mod registry;
pub mod runtime;
pub mod secrets;
pub mod server;
pub mod telemetry;
pub mod text;
pub mod token;
pub mod validate;

use std::sync::Arc;

use anyhow::Context;

use capabilities::cache::CacheStore;
use capabilities::http::har::{HarRecorder, HarReplay};
use capabilities::http::overrides::Overrides;
use capabilities::http::session::Sessions;
use capabilities::http::{HttpService, HttpSettings};
use capabilities::Services;
use config::Config;

/// Sessions alive at once; the least recently used goes first beyond it.
const MAX_SESSIONS: usize = 10_000;

/// Builds the server-wide services: outbound HTTP (with optional replay or
/// recording), the plugin cache, the optional LLM and the optional browser.
pub fn services(
    config: &Config,
    secrets: Arc<secrets::Secrets>,
    replay: Option<HarReplay>,
    recorder: Option<HarRecorder>,
    observe: bool,
) -> anyhow::Result<Services> {
    config.register_secrets(&secrets);
    let overrides = Overrides::new(&config.upstream_override).map_err(anyhow::Error::msg)?;
    let http = HttpService::new(HttpSettings {
        replay,
        recorder,
        overrides,
        resolver: Default::default(),
        pacing: config.pacing.clone(),
        proxies: config.proxy_settings(),
        observe,
        trusted_roots: config.upstream_roots()?,
    })?;
    let sessions = Arc::new(Sessions::new(
        std::time::Duration::from_secs(config.session_ttl_secs),
        MAX_SESSIONS,
    ));
    let browser = Arc::new(capabilities::browser::BrowserService::new(&config.browser));
    capabilities::browser::close_ended_periodically(
        &browser,
        &sessions,
        std::time::Duration::from_secs(30),
    );
    let webhooks = HttpService::new(HttpSettings {
        replay: None,
        recorder: None,
        overrides: Overrides::new(&config.upstream_override).map_err(anyhow::Error::msg)?,
        resolver: jobs::sender::guard(config.webhook_allow_private),
        pacing: Default::default(),
        proxies: config.proxy_settings(),
        observe: false,
        trusted_roots: config.upstream_roots()?,
    })?;
    let receipts = Arc::new(receipts::ReceiptKey::load(
        config.receipt_key.as_deref(),
        &config.data_dir,
    )?);
    receipts.keep_secret(&secrets);
    Ok(Services {
        http: Arc::new(http),
        webhooks: Arc::new(webhooks),
        sessions,
        cache: Arc::new(CacheStore::default()),
        llm: Arc::new(capabilities::llm::LlmService::new(&config.llm)?),
        browser,
        secrets,
        receipts,
    })
}

/// A built application: runtime, plugins and router, not yet listening.
pub struct App {
    /// Shared state.
    pub state: api::AppState,
}

impl App {
    /// Builds the runtime, loads every plugin (compiling those without an artifact
    /// or cache entry) and prepares the router.
    pub async fn build(config: Config) -> anyhow::Result<App> {
        App::build_with(config, Arc::default()).await
    }

    /// [`App::build`], keeping `secrets` (shared with the process's log
    /// writer) out of what it sends.
    pub async fn build_with(config: Config, secrets: Arc<secrets::Secrets>) -> anyhow::Result<App> {
        let app = App::start_with(config, secrets).await?;
        app.state.registry.wait_ready().await;
        Ok(app)
    }

    /// Builds the runtime and prepares the router; returns once every plugin whose
    /// compiled code was at hand (an artifact or the compile cache) serves, while
    /// the others go on compiling in the background (their routes answer 503
    /// until they are ready; `/healthz` lists them).
    pub async fn start(config: Config) -> anyhow::Result<App> {
        App::start_with(config, Arc::default()).await
    }

    /// [`App::start`], keeping `secrets` (shared with the process's log
    /// writer) out of what it sends.
    pub async fn start_with(config: Config, secrets: Arc<secrets::Secrets>) -> anyhow::Result<App> {
        // Installed once per process; an error is answered by GET /metrics.
        let _ = telemetry::metrics::install();
        let replay = match &config.replay {
            Some(path) => Some(
                HarReplay::load_list(path)
                    .with_context(|| format!("GLEANER_REPLAY={}", path.display()))?,
            ),
            None => None,
        };
        let recorder = config
            .record
            .clone()
            .map(|path| HarRecorder::new(path, secrets.clone()));
        let services = services(&config, secrets.clone(), replay, recorder, false)?;
        let runtime = Arc::new(
            runtime::Runtime::new(
                services,
                config.cache_dir.clone(),
                config.max_total_memory_mib,
            )?
            .with_compile_hook(config.compile_hook.clone())
            .with_plugin_memory_share(config.max_plugin_memory_share)
            .with_record_policy(match config.strict_records {
                true => record::repair::Policy::Refuse,
                false => record::repair::Policy::Repair,
            }),
        );
        let mut keys = api::auth::ApiKeys::new(&config.api_keys);
        let admin_keys = api::auth::ApiKeys::new(&config.admin_keys);
        let tokens = Arc::new(config.token_key()?);
        tokens.register_as_secret(&secrets);
        let trusted = api::clients::TrustedProxies::parse(&config.trusted_proxies)
            .map_err(anyhow::Error::msg)?;
        let clients = api::clients::ClientLimits::new(
            config.max_in_flight_per_key,
            config.max_in_flight_per_client,
        );
        let config = Arc::new(config);
        let registry = Arc::new(registry::Registry::default());
        registry::start(&registry, &runtime, &config).await?;
        let bulkheads = Arc::new(runtime::bulkhead::Bulkheads::new(
            config.max_concurrent_requests,
            config.max_concurrent_per_plugin,
            config.reserved_for_local_plugins,
        ));
        let cluster = match config.cluster.enabled() {
            true => Some(cluster::Cluster::connect(&config).await?),
            false => None,
        };
        if let Some(cluster) = &cluster {
            cluster.share(runtime.services());
            // What a key owns is named, in the shared buckets, by an HMAC
            // under the cluster's key.
            keys = api::auth::ApiKeys::with_owners(&config.api_keys, |key| cluster.owner_id(key));
        }
        // The jobs store: the cluster's, or the SQLite file in the data directory.
        let store: Arc<dyn jobs::store::Store> = match &cluster {
            #[cfg(feature = "cluster")]
            Some(cluster) => Arc::new(cluster::jobs::JetStreamStore::new(cluster.link.clone())),
            #[cfg(not(feature = "cluster"))]
            Some(cluster) => match **cluster {},
            None => {
                let path = config.data_dir.join("jobs.sqlite3");
                let seal = tokens.seal(config.cluster.seal_key.as_deref());
                Arc::new(jobs::sqlite::SqliteStore::open(&path, Arc::new(seal))?)
            }
        };
        let exporter = config
            .export
            .exporter()?
            .map(|e| Arc::new(e) as Arc<dyn gleaner_jobs::Exporter>);
        let jobs = jobs::engine(
            store,
            jobs::runner::Runner {
                runtime: runtime.clone(),
                registry: registry.clone(),
                tokens: tokens.clone(),
                bulkheads: bulkheads.clone(),
                config: config.clone(),
            },
            exporter,
        );
        #[cfg(feature = "cluster")]
        if let Some(cluster) = &cluster {
            // Versions uploaded to any replica come here too, once the
            // plugins found at start are loaded.
            cluster
                .rollout
                .follow(runtime.clone(), registry.clone(), config.clone());
        }
        let state = api::AppState::new(api::Shared {
            runtime,
            registry,
            bulkheads,
            jobs,
            cluster,
            clients: Arc::new(clients),
            trusted: Arc::new(trusted),
            config,
            keys,
            admin_keys,
            tokens,
            openapi: Default::default(),
        });
        Ok(App { state })
    }

    /// Checks the listen address against the auth rule: without keys, loopback only.
    pub fn check_bind(&self) -> anyhow::Result<()> {
        let addr = self.state.config.addr;
        if self.state.keys.is_empty() && !addr.ip().is_loopback() {
            anyhow::bail!(
                "refusing to listen on {addr} without API keys: set GLEANER_API_KEYS (or api_keys in the config file), \
                 or listen on a loopback address such as 127.0.0.1"
            );
        }
        Ok(())
    }

    /// Serves until `shutdown` resolves, then drains requests in flight within
    /// the drain deadline.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        if self.state.config.watch {
            let s = &self.state;
            tokio::spawn(registry::watch(
                s.registry.clone(),
                s.runtime.clone(),
                s.config.clone(),
            ));
        }
        // Unfinished jobs resume, schedules run and webhooks go out while the server serves.
        self.state.jobs.start();
        let limits = server::ServerLimits::from_config(&self.state.config);
        let router = api::router(self.state);
        server::serve(listener, router, limits, shutdown).await?;
        Ok(())
    }
}
