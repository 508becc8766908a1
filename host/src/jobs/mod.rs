//! Jobs in the server: the engine of [`gleaner_jobs`] (its types, rules,
//! stores and loops), with what the server plugs into it: the [`runner`]
//! that drives a job through the plugins (a tracked schedule's run with its
//! [`tracking`]), and the webhook [`sender`] behind the SSRF guard.

pub mod runner;
pub mod sender;
pub mod tracking;

use std::sync::Arc;
use std::time::Duration;

pub use gleaner_jobs::{
    cadence, changes, model, sqlite, status, store, turns, webhooks, End, Jobs, Sender, Settings,
    Worker,
};

use crate::config::Config;

/// The engine's settings in `config`.
pub fn settings(config: &Config) -> Settings {
    Settings {
        concurrency: config.jobs_concurrency,
        webhook_retry_base: Duration::from_millis(config.webhook_retry_base_ms),
        retention: Duration::from_secs(config.job_retention_secs),
        export_retry_base: Duration::from_millis(config.export.retry_base_ms),
    }
}

/// The engine over `store`, running jobs with `runner`'s parts and writing
/// exports with `exporter`, when the server has object storage.
pub fn engine(
    store: Arc<dyn store::Store>,
    runner: runner::Runner,
    exporter: Option<Arc<dyn gleaner_jobs::Exporter>>,
) -> Arc<Jobs> {
    let webhooks = runner.runtime.services().webhooks.clone();
    let sender = Arc::new(sender::HttpSender::new(webhooks));
    let settings = settings(&runner.config);
    Jobs::new(store, settings, Arc::new(runner), sender, exporter)
}
