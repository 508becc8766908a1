//! The `gleaner` server binary.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use gleaner::cli::{FetchArgs, Format};
use gleaner::config::Config;
use gleaner::App;

/// jemalloc, with a background thread that gives freed pages back to the system
/// within about a second: the system allocator kept what a burst of slow
/// connections had used.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's settings: purge dirty pages after 1 s, from a background thread.
#[allow(non_upper_case_globals)]
#[export_name = "_rjem_malloc_conf"]
pub static malloc_conf: &[u8] = b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\0";

/// Gleaner: collects reviews through sandboxed WebAssembly plugins.
///
/// Settings come from the TOML file (--config or GLEANER_CONFIG) and GLEANER_*
/// environment variables; see docs/configuration.md.
#[derive(Parser)]
#[command(name = "gleaner", version)]
struct Cli {
    /// The configuration file.
    #[arg(long, global = true, env = "GLEANER_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serves the Gleaner API (the default).
    Serve(ServeCommand),
    /// Serves every plugin answering from its recorded site traffic, with the
    /// settings the recordings need: every endpoint answers, offline.
    Demo(DemoCommand),
    /// Plugin author tools.
    #[command(subcommand)]
    Plugin(PluginCommand),
    /// Runs a source locally: progress on stderr; on stdout the response JSON,
    /// or the reviews as JSON Lines or CSV (--format).
    Fetch(FetchCommand),
    /// One real fetch of a source, for operators: each response's status and
    /// wall, the answer, the review count, the fields that came back null
    /// although the fixture has them; the exchanges are written to a HAR file.
    Doctor(DoctorCommand),
    /// Compiles every plugin component of the given directories for this
    /// host's engine and stages each artifact beside its component, so the
    /// server starts without compiling (`make plugins` runs it).
    Precompile {
        /// Plugin directories (manifests with their components).
        #[arg(required = true, value_name = "PLUGIN_DIR")]
        dirs: Vec<PathBuf>,
        /// Compile again even where an up-to-date artifact is staged.
        #[arg(long)]
        force: bool,
    },
    /// Prints a shell completion script for gleaner, e.g.
    /// `gleaner completions bash > /etc/bash_completion.d/gleaner`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Prints the OpenAPI 3.1 document of the plugin directory's manifests
    /// (what GET /openapi.json serves), without starting a server, e.g.
    /// `gleaner openapi > openapi.json`.
    Openapi,
    /// Builds a HAR file for replay tests from recorded response bodies listed
    /// in an index (TOML: [[exchange]] url, status, content_type, body_file).
    Har {
        /// The index file.
        index: PathBuf,
        /// The HAR file to write.
        out: PathBuf,
    },
}

#[derive(Subcommand)]
enum PluginCommand {
    /// Validates a plugin's manifest and component (world, package version,
    /// manifest, allowlist) without a server.
    Check {
        /// The manifest, or the component.
        path: PathBuf,
    },
}

/// Settings of `serve` and `demo` as flags; each overrides its variable and
/// the config file.
#[derive(Args, Default)]
struct ServeFlags {
    /// Listen address, e.g. 0.0.0.0:8080 [env: GLEANER_ADDR]
    #[arg(long, value_name = "IP:PORT")]
    addr: Option<std::net::SocketAddr>,
    /// Plugin manifests and components [env: GLEANER_PLUGIN_DIR]
    #[arg(long, value_name = "DIR")]
    plugin_dir: Option<PathBuf>,
    /// Accepted API keys, comma separated [env: GLEANER_API_KEYS]
    #[arg(long, value_name = "KEYS", value_delimiter = ',')]
    api_keys: Option<Vec<String>>,
    /// Keys for /admin, comma separated [env: GLEANER_ADMIN_KEYS]
    #[arg(long, value_name = "KEYS", value_delimiter = ',')]
    admin_keys: Option<Vec<String>>,
    /// Time budget of one fetch, in ms [env: GLEANER_FETCH_BUDGET_MS]
    #[arg(long, value_name = "MS")]
    fetch_budget_ms: Option<u64>,
    /// State the server keeps (the generated token secret) [env: GLEANER_DATA_DIR]
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
}

impl ServeFlags {
    /// `config` with the flags given set.
    fn apply(self, mut config: Config) -> anyhow::Result<Config> {
        if let Some(v) = self.addr {
            config.addr = v;
        }
        if let Some(v) = self.plugin_dir {
            config.plugin_dir = v;
        }
        if let Some(v) = self.api_keys {
            config.api_keys = v;
        }
        if let Some(v) = self.admin_keys {
            config.admin_keys = v;
        }
        if let Some(v) = self.fetch_budget_ms {
            config.fetch_budget_ms = v;
        }
        if let Some(v) = self.data_dir {
            config.data_dir = v;
        }
        config.check()?;
        Ok(config)
    }
}

#[derive(Args, Default)]
struct ServeCommand {
    #[command(flatten)]
    flags: ServeFlags,
    /// Answer outbound HTTP from HAR recordings (files or directories, `:`
    /// separated) [env: GLEANER_REPLAY]
    #[arg(long, value_name = "PATHS")]
    replay: Option<PathBuf>,
}

#[derive(Args)]
struct DemoCommand {
    #[command(flatten)]
    flags: ServeFlags,
    /// The recordings to answer from: files or directories, `:` separated.
    #[arg(
        long,
        value_name = "PATHS",
        default_value = "plugins:tests/fixtures/har"
    )]
    fixtures: PathBuf,
    /// The plugins' sources, whose tests/replay.toml give each plugin the
    /// settings its recordings need.
    #[arg(long, value_name = "DIR", default_value = "plugins")]
    plugins_src: PathBuf,
}

/// Flags `fetch` has itself, which a source's own fields never take.
const FETCH_FLAGS: [&str; 11] = [
    "sort",
    "filter",
    "max",
    "reviews-to-fetch",
    "sync-date",
    "is-text-formatted",
    "all",
    "record",
    "replay",
    "format",
    "help",
];

#[derive(Args)]
struct FetchCommand {
    /// The source label, e.g. customer-feedback-hub; `gleaner fetch <label>
    /// --help` lists the source's own fields.
    label: String,
    /// The query: a page URL or an identifier.
    query: String,
    /// The source's sort (its sort field's flag, e.g. --sort-type, says the same).
    #[arg(long)]
    sort: Option<String>,
    /// The source's filter, JSON or a bare string (its filter field's flag, e.g.
    /// --filter-by, says the same).
    #[arg(long)]
    filter: Option<String>,
    /// reviews_to_fetch: how many reviews (with --all, per request).
    #[arg(long, visible_alias = "reviews-to-fetch", value_name = "N")]
    max: Option<u64>,
    /// sync_date: only reviews posted that day.
    #[arg(long, value_name = "YYYY-MM-DD")]
    sync_date: Option<String>,
    /// is_text_formatted: keep the source's paragraphs and lists (true), or
    /// single-line text (false).
    #[arg(long, value_name = "BOOL")]
    is_text_formatted: Option<bool>,
    /// Follow the continuation until the source has no more, with progress.
    #[arg(long)]
    all: bool,
    /// Record the exchanges into this HAR file (default: GLEANER_RECORD).
    #[arg(long, value_name = "OUT.har", conflicts_with = "replay")]
    record: Option<PathBuf>,
    /// Answer from this HAR file or directory (default: GLEANER_REPLAY).
    #[arg(long, value_name = "IN.har")]
    replay: Option<PathBuf>,
    /// What stdout gets: the response JSON, or only the reviews, one JSON
    /// object per line or as CSV (the message and the continuation token then
    /// go to stderr).
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
}

#[derive(Args)]
struct DoctorCommand {
    /// The source label, e.g. customer-feedback-hub.
    label: String,
    /// The query; by default the one the source's fixture pages through.
    query: Option<String>,
    /// Where the HAR recording goes (default: doctor-<label>.har).
    #[arg(long, value_name = "OUT.har")]
    out: Option<PathBuf>,
    /// Read this recording (a HAR file or directory) instead of the live site.
    #[arg(long, value_name = "IN.har")]
    replay: Option<PathBuf>,
    /// The plugins' sources, for their fixtures.
    #[arg(long, value_name = "DIR", default_value = "plugins")]
    plugins_src: PathBuf,
}

#[tokio::main]
async fn main() -> ExitCode {
    // `fetch` takes the named source's own request fields as flags: they are
    // read from its manifest before the arguments are parsed.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let source_flags = gleaner::cli::flags::for_argv(&argv, &FETCH_FLAGS);
    let command = Cli::command().mut_subcommand("fetch", |fetch| fetch.args(source_flags));
    let matches = command.get_matches_from(&argv);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let fetch_matches = matches.subcommand_matches("fetch").cloned();
    match run(cli, fetch_matches).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli, fetch_matches: Option<clap::ArgMatches>) -> anyhow::Result<ExitCode> {
    let config = Config::load(cli.config.as_deref())?;
    match cli
        .command
        .unwrap_or(Command::Serve(ServeCommand::default()))
    {
        Command::Serve(s) => {
            let mut config = s.flags.apply(config)?;
            if let Some(replay) = s.replay {
                config.replay = Some(replay);
            }
            serve(config).await.map(|_| ExitCode::SUCCESS)
        }
        Command::Demo(d) => {
            let mut config = d.flags.apply(config)?;
            config.replay = Some(d.fixtures);
            for (plugin, settings) in gleaner::cli::fixtures::all_settings(&d.plugins_src)? {
                config = gleaner::cli::with_settings(&config, &plugin, &settings);
            }
            eprintln!(
                "demo: every site is answered from {} (recorded traffic); nothing reaches the internet",
                config.replay.as_deref().unwrap_or_else(|| std::path::Path::new("")).display()
            );
            serve(config).await.map(|_| ExitCode::SUCCESS)
        }
        Command::Plugin(PluginCommand::Check { path }) => {
            init_logging("warn");
            let problems = gleaner::cli::check(&config, &path).await?;
            Ok(if problems == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Precompile { dirs, force } => {
            init_logging("warn");
            let failed = gleaner::cli::precompile(&dirs, force)?;
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "gleaner", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Openapi => {
            let (manifests, problems) = gleaner::openapi::manifests_in(&config.plugin_dir)?;
            for problem in &problems {
                eprintln!("warning: {problem}");
            }
            let access = gleaner::openapi::Access {
                api_keys: !config.api_keys.is_empty(),
                admin_keys: !config.admin_keys.is_empty(),
            };
            let manifests: Vec<_> = manifests.iter().collect();
            let document = gleaner::openapi::document(&manifests, access);
            println!("{}", gleaner::openapi::pretty_json(&document)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Har { index, out } => {
            let count = gleaner::cli::har(&index, &out)?;
            eprintln!("wrote {count} exchanges to {}", out.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Doctor(d) => {
            init_logging("warn");
            let out = d
                .out
                .unwrap_or_else(|| PathBuf::from(format!("doctor-{}.har", d.label)));
            let args = gleaner::cli::DoctorArgs {
                label: d.label,
                query: d.query,
                out,
                replay: d.replay,
                plugins_src: d.plugins_src,
            };
            let healthy = gleaner::cli::doctor(&config, args).await?;
            Ok(if healthy {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Fetch(f) => {
            init_logging("warn");
            let mut fields = serde_json::Map::new();
            if let Some(n) = f.max {
                fields.insert("reviews_to_fetch".into(), n.into());
            }
            if let Some(day) = f.sync_date {
                fields.insert("sync_date".into(), day.into());
            }
            if let Some(formatted) = f.is_text_formatted {
                fields.insert("is_text_formatted".into(), formatted.into());
            }
            if let Some(matches) = &fetch_matches {
                fields.extend(gleaner::cli::flags::given(matches, &config, &f.label));
            }
            let args = FetchArgs {
                label: f.label,
                query: f.query,
                fields,
                sort: f.sort,
                filter: f.filter,
                all: f.all,
                record: f.record.or_else(|| config.record.clone()),
                replay: f.replay.or_else(|| config.replay.clone()),
                format: f.format,
            };
            gleaner::cli::fetch(&config, args)
                .await
                .map(|_| ExitCode::SUCCESS)
        }
    }
}

async fn serve(config: Config) -> anyhow::Result<()> {
    // Logging, and trace export when otlp_endpoint is set; dropped last, sending the last spans.
    let _telemetry = gleaner::telemetry::otlp::init("info", config.otlp_endpoint.as_deref())?;
    let started = std::time::Instant::now();
    let app = App::start(config).await?;
    app.check_bind()?;
    let addr = app.state.config.addr;
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| {
        format!("cannot listen on {addr}; is another server using it? set GLEANER_ADDR")
    })?;
    let plugins = app.state.registry.plugins();
    let health = app.state.registry.health();
    tracing::info!(
        %addr,
        plugins = plugins.len(),
        loading = health.loading.len(),
        failed = health.failed.len(),
        pooling = app.state.runtime.pooling,
        startup_ms = started.elapsed().as_millis() as u64,
        "gleaner listening"
    );
    if app.state.keys.is_empty() {
        tracing::warn!(%addr, "no API keys configured: listening on loopback only, without authentication");
    }
    for p in &plugins {
        eprintln!(
            "  POST {}  ({} {})",
            p.manifest.route, p.manifest.name, p.manifest.version
        );
    }
    for name in &health.loading {
        eprintln!("  (compiling) {name}: its route answers 503 until it is ready");
    }
    if plugins.is_empty() && health.loading.is_empty() {
        let dir = &app.state.config.plugin_dir;
        let shown = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
        tracing::error!(
            plugin_dir = %shown.display(),
            "no plugins found: nothing but /healthz, /openapi.json and /docs is served. Build them with \
             `make plugins` in the repository, or point GLEANER_PLUGIN_DIR (relative paths are taken from \
             the directory the server starts in) at a directory of plugin manifests and components; \
             plugins put there later are picked up without a restart"
        );
    }
    if !health.loading.is_empty() {
        let registry = app.state.registry.clone();
        tokio::spawn(async move {
            registry.wait_ready().await;
            let health = registry.health();
            tracing::info!(
                plugins = health.ready,
                failed = health.failed.len(),
                ready_ms = started.elapsed().as_millis() as u64,
                "every plugin loaded"
            );
        });
    }
    app.serve(listener, shutdown_signal()).await
}

fn init_logging(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("GLEANER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(gleaner::secrets::writer::MakeScrubbedStderr);
    if std::env::var("GLEANER_LOG_FORMAT").is_ok_and(|v| v == "json") {
        builder.json().init();
    } else {
        builder.init();
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
}
