//! The `gleaner` command's arguments, as clap reads them; what each runs is
//! in [`super::command`].

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::Format;
use crate::config::Config;

/// Gleaner: collects reviews through sandboxed WebAssembly plugins.
///
/// Settings come from the TOML file (--config or GLEANER_CONFIG) and GLEANER_*
/// environment variables; see docs/configuration.md.
#[derive(Parser)]
#[command(name = "gleaner", version)]
pub(super) struct Cli {
    /// The configuration file.
    #[arg(long, global = true, env = "GLEANER_CONFIG", value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    #[command(subcommand)]
    pub(super) command: Option<Command>,
}

#[derive(Subcommand)]
pub(super) enum Command {
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
    /// Prints each source's fill rate per record field (what GET /sources
    /// serves), from the plugin directory's manifests: the share of the
    /// reviews of its replay cases that fill the field.
    Coverage,
    /// Jobs on a running server: submit, follow, read, cancel.
    #[command(subcommand)]
    Jobs(JobsCommand),
    /// Schedules on a running server: runs that deliver only new reviews.
    #[command(subcommand)]
    Schedules(SchedulesCommand),
    /// Review receipts: proof a review is verbatim from a public page.
    #[command(subcommand)]
    Receipt(ReceiptCommand),
    /// Builds a HAR file for replay tests from recorded response bodies listed
    /// in an index (TOML: [[exchange]] url, status, content_type, body_file).
    Har {
        /// The index file.
        index: PathBuf,
        /// The HAR file to write.
        out: PathBuf,
    },
}

/// The server a client command talks to.
#[derive(Args)]
pub(super) struct ServerFlags {
    /// The server's base URL [env: GLEANER_SERVER]
    #[arg(
        long,
        env = "GLEANER_SERVER",
        default_value = "http://127.0.0.1:8080",
        global = true
    )]
    pub(super) server: String,
    /// The API key to show it [env: GLEANER_API_KEY]
    #[arg(long, env = "GLEANER_API_KEY", global = true, hide_env_values = true)]
    pub(super) api_key: Option<String>,
}

impl ServerFlags {
    pub(super) fn client(&self) -> crate::cli::jobs::Client {
        crate::cli::jobs::Client {
            server: self.server.clone(),
            api_key: self.api_key.clone(),
        }
    }
}

/// A job's or schedule's request.
#[derive(Args)]
pub(super) struct RequestFlags {
    /// The review source's endpoint, e.g. /customer-feedback-hub/reviews.
    pub(super) endpoint: String,
    /// The query (the request is then {"query": ...}).
    #[arg(long, conflicts_with = "request")]
    pub(super) query: Option<String>,
    /// The whole request body the endpoint takes, as JSON.
    #[arg(long)]
    pub(super) request: Option<String>,
    /// reviews_to_fetch: the job's total.
    #[arg(long, value_name = "N")]
    pub(super) max: Option<u64>,
    /// Where its end is announced (with --webhook-secret).
    #[arg(long, value_name = "URL")]
    pub(super) webhook_url: Option<String>,
    /// The secret that signs each delivery (16 characters or more).
    #[arg(long, value_name = "SECRET")]
    pub(super) webhook_secret: Option<String>,
    /// Writes the reviews to the server's object storage when the job (or
    /// each run) ends, in this format.
    #[arg(long, value_name = "FORMAT", value_parser = ["parquet", "csv", "ndjson", "json"])]
    pub(super) export: Option<String>,
}

#[derive(Subcommand)]
pub(super) enum JobsCommand {
    /// Submits a job.
    Submit {
        #[command(flatten)]
        server: ServerFlags,
        #[command(flatten)]
        request: RequestFlags,
        /// Follow it with progress until it ends.
        #[arg(long)]
        wait: bool,
    },
    /// A job's status.
    Status {
        #[command(flatten)]
        server: ServerFlags,
        /// The job's id.
        id: String,
    },
    /// Your jobs, newest first.
    List {
        #[command(flatten)]
        server: ServerFlags,
        /// Only jobs in this state: queued, running, succeeded, failed, cancelled.
        #[arg(long)]
        state: Option<String>,
    },
    /// Every review a job collected.
    Reviews {
        #[command(flatten)]
        server: ServerFlags,
        /// The job's id.
        id: String,
        /// JSON, JSON Lines or CSV.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// Cancels a job; what it collected stays.
    Cancel {
        #[command(flatten)]
        server: ServerFlags,
        /// The job's id.
        id: String,
    },
}

#[derive(Subcommand)]
pub(super) enum ReceiptCommand {
    /// Checks the receipts of a review, a list of reviews, or a fetch's or
    /// job's answer (its `all_reviews` or `reviews`), offline.
    Verify {
        /// The JSON file ("-" for standard input).
        file: PathBuf,
        /// The server's public key (base64url); without it, read from the
        /// server's GET /receipts/public-key. A key may start with '-'.
        #[arg(long, allow_hyphen_values = true)]
        public_key: Option<String>,
        #[command(flatten)]
        server: ServerFlags,
    },
    /// Finds, in a HAR recording made with GLEANER_RECORD, the exchange
    /// whose response body each receipt's response_sha256 names.
    Evidence {
        /// The JSON file of reviews with receipts ("-" for standard input).
        file: PathBuf,
        /// The HAR file.
        har: PathBuf,
    },
}

/// `gleaner schedules add`.
#[derive(Args)]
pub(super) struct AddSchedule {
    #[command(flatten)]
    pub(super) server: ServerFlags,
    #[command(flatten)]
    pub(super) request: RequestFlags,
    /// How often, e.g. 6h, 30m, 1d.
    #[arg(long, conflicts_with = "cron")]
    pub(super) every: Option<String>,
    /// Or a cron expression, e.g. "0 3 * * *".
    #[arg(long)]
    pub(super) cron: Option<String>,
    /// The cron expression's IANA time zone (default UTC).
    #[arg(long, requires = "cron")]
    pub(super) timezone: Option<String>,
    /// Each run also finds edits, replies and removals among the
    /// reviews the schedule delivered.
    #[arg(long)]
    pub(super) track_changes: bool,
    /// How many of the newest delivered reviews each run re-reads
    /// (1 to 10000, default 200), or "all".
    #[arg(long, requires = "track_changes")]
    pub(super) change_window: Option<String>,
    /// How often a run walks the whole source to find removals, e.g. 7d.
    #[arg(long, requires = "track_changes")]
    pub(super) reconcile_every: Option<String>,
}

#[derive(Subcommand)]
pub(super) enum SchedulesCommand {
    /// Adds a schedule.
    Add(Box<AddSchedule>),
    /// The edits, replies and removals a tracked schedule's runs found.
    Changes {
        #[command(flatten)]
        server: ServerFlags,
        /// The schedule's id.
        id: String,
        /// Only those found at or after this time (RFC 3339).
        #[arg(long)]
        since: Option<String>,
    },
    /// Your schedules.
    List {
        #[command(flatten)]
        server: ServerFlags,
    },
    /// Removes a schedule; its jobs stay.
    Remove {
        #[command(flatten)]
        server: ServerFlags,
        /// The schedule's id.
        id: String,
    },
    /// Runs a schedule now.
    Run {
        #[command(flatten)]
        server: ServerFlags,
        /// The schedule's id.
        id: String,
        /// Follow the run with progress until it ends.
        #[arg(long)]
        wait: bool,
    },
}

#[derive(Subcommand)]
pub(super) enum PluginCommand {
    /// Validates a plugin's manifest and component (world, package version,
    /// manifest, allowlist) without a server.
    Check {
        /// The manifest, or the component.
        path: PathBuf,
    },
    /// Creates a plugin crate that builds on its own, outside this
    /// repository: a working sample plugin, its manifest and replay cases.
    New {
        /// The plugin's name: lower-case letters, digits and '-'.
        name: String,
        /// What the plugin is.
        #[arg(long, value_enum, default_value_t = crate::cli::scaffold::TemplateKind::Source)]
        kind: crate::cli::scaffold::TemplateKind,
        /// Where to create it (default: ./NAME); it must not exist or be empty.
        #[arg(long, value_name = "PATH")]
        dir: Option<PathBuf>,
        /// The SDK by path: the plugins/sdk folder of a Gleaner checkout
        /// (default: the checkout this gleaner was built from, if it is still there).
        #[arg(long, value_name = "PATH", conflicts_with = "sdk_version")]
        sdk: Option<PathBuf>,
        /// The SDK by version, from a registry cargo reaches, instead of a path.
        #[arg(long, value_name = "VERSION")]
        sdk_version: Option<String>,
    },
    /// Builds a plugin crate for wasm32-wasip2, checks it, precompiles it and
    /// stages it in the plugin directory, where a server watching it
    /// (GLEANER_WATCH, on by default) swaps it in.
    Build {
        /// The plugin crate (holding Cargo.toml and manifest.toml).
        #[arg(default_value = ".")]
        path: PathBuf,
        /// The plugin directory to stage it in [env: GLEANER_PLUGIN_DIR]
        #[arg(long, value_name = "DIR")]
        plugin_dir: Option<PathBuf>,
        /// Cargo's target directory (default: the crate's own target/).
        #[arg(long, value_name = "DIR")]
        target_dir: Option<PathBuf>,
    },
}

/// Settings of `serve` and `demo` as flags; each overrides its variable and
/// the config file.
#[derive(Args, Default)]
pub(super) struct ServeFlags {
    /// Listen address, e.g. 0.0.0.0:8080 [env: GLEANER_ADDR]
    #[arg(long, value_name = "IP:PORT")]
    pub(super) addr: Option<std::net::SocketAddr>,
    /// Plugin manifests and components [env: GLEANER_PLUGIN_DIR]
    #[arg(long, value_name = "DIR")]
    pub(super) plugin_dir: Option<PathBuf>,
    /// Accepted API keys, comma separated [env: GLEANER_API_KEYS]
    #[arg(long, value_name = "KEYS", value_delimiter = ',')]
    pub(super) api_keys: Option<Vec<String>>,
    /// Keys for /admin, comma separated [env: GLEANER_ADMIN_KEYS]
    #[arg(long, value_name = "KEYS", value_delimiter = ',')]
    pub(super) admin_keys: Option<Vec<String>>,
    /// Time budget of one fetch, in ms [env: GLEANER_FETCH_BUDGET_MS]
    #[arg(long, value_name = "MS")]
    pub(super) fetch_budget_ms: Option<u64>,
    /// State the server keeps (the generated token secret) [env: GLEANER_DATA_DIR]
    #[arg(long, value_name = "DIR")]
    pub(super) data_dir: Option<PathBuf>,
}

impl ServeFlags {
    /// `config` with the flags given set.
    pub(super) fn apply(self, mut config: Config) -> anyhow::Result<Config> {
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
pub(super) struct ServeCommand {
    #[command(flatten)]
    pub(super) flags: ServeFlags,
    /// Answer outbound HTTP from HAR recordings (files or directories, `:`
    /// separated) [env: GLEANER_REPLAY]
    #[arg(long, value_name = "PATHS")]
    pub(super) replay: Option<PathBuf>,
}

#[derive(Args)]
pub(super) struct DemoCommand {
    #[command(flatten)]
    pub(super) flags: ServeFlags,
    /// The recordings to answer from: files or directories, `:` separated.
    #[arg(
        long,
        value_name = "PATHS",
        default_value = "plugins:tests/fixtures/har"
    )]
    pub(super) fixtures: PathBuf,
    /// The plugins' sources, whose tests/replay.toml give each plugin the
    /// settings its recordings need.
    #[arg(long, value_name = "DIR", default_value = "plugins")]
    pub(super) plugins_src: PathBuf,
}

/// Flags `fetch` has itself, which a source's own fields never take.
pub(super) const FETCH_FLAGS: [&str; 11] = [
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
pub(super) struct FetchCommand {
    /// The source label, e.g. customer-feedback-hub; `gleaner fetch <label>
    /// --help` lists the source's own fields.
    pub(super) label: String,
    /// The query: a page URL or an identifier.
    pub(super) query: String,
    /// The source's sort (its sort field's flag, e.g. --sort-type, says the same).
    #[arg(long)]
    pub(super) sort: Option<String>,
    /// The source's filter, JSON or a bare string (its filter field's flag, e.g.
    /// --filter-by, says the same).
    #[arg(long)]
    pub(super) filter: Option<String>,
    /// reviews_to_fetch: how many reviews (with --all, per request).
    #[arg(long, visible_alias = "reviews-to-fetch", value_name = "N")]
    pub(super) max: Option<u64>,
    /// sync_date: only reviews posted that day.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub(super) sync_date: Option<String>,
    /// is_text_formatted: keep the source's paragraphs and lists (true), or
    /// single-line text (false).
    #[arg(long, value_name = "BOOL")]
    pub(super) is_text_formatted: Option<bool>,
    /// Follow the continuation until the source has no more, with progress.
    #[arg(long)]
    pub(super) all: bool,
    /// Record the exchanges into this HAR file (default: GLEANER_RECORD).
    #[arg(long, value_name = "OUT.har", conflicts_with = "replay")]
    pub(super) record: Option<PathBuf>,
    /// Answer from this HAR file or directory (default: GLEANER_REPLAY).
    #[arg(long, value_name = "IN.har")]
    pub(super) replay: Option<PathBuf>,
    /// What stdout gets: the response JSON, or only the reviews, one JSON
    /// object per line or as CSV (the message and the continuation token then
    /// go to stderr).
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub(super) format: Format,
}

#[derive(Args)]
pub(super) struct DoctorCommand {
    /// The source label, e.g. customer-feedback-hub.
    pub(super) label: String,
    /// The query; by default the one the source's fixture pages through.
    pub(super) query: Option<String>,
    /// Where the HAR recording goes (default: doctor-<label>.har).
    #[arg(long, value_name = "OUT.har")]
    pub(super) out: Option<PathBuf>,
    /// Read this recording (a HAR file or directory) instead of the live site.
    #[arg(long, value_name = "IN.har")]
    pub(super) replay: Option<PathBuf>,
    /// The plugins' sources, for their fixtures.
    #[arg(long, value_name = "DIR", default_value = "plugins")]
    pub(super) plugins_src: PathBuf,
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{Cli, Command, ReceiptCommand};

    #[test]
    fn a_public_key_may_start_with_a_hyphen() {
        let cli = Cli::try_parse_from([
            "gleaner",
            "receipt",
            "verify",
            "answer.json",
            "--public-key",
            "-9qT0b_key",
        ])
        .unwrap();
        let Some(Command::Receipt(ReceiptCommand::Verify { public_key, .. })) = cli.command else {
            panic!("not parsed as receipt verify");
        };
        assert_eq!(public_key.as_deref(), Some("-9qT0b_key"));
    }
}
