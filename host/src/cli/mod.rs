//! Command-line tools for plugin authors and operators: `gleaner plugin new`,
//! `gleaner plugin build`, `gleaner plugin check`,
//! `gleaner fetch`, `gleaner har`, `gleaner doctor`, `gleaner precompile`, and
//! the fixtures `gleaner demo` serves with.

mod args;
mod build;
mod check;
pub mod command;
mod coverage;
mod doctor;
mod fetch;
pub mod fixtures;
pub mod flags;
mod har;
pub mod jobs;
mod output;
mod plugins;
mod precompile;
mod receipt;
pub mod scaffold;
mod serve;

pub use build::build;
pub use check::check;
pub use doctor::{doctor, DoctorArgs};
pub use fetch::{fetch, FetchArgs};
pub use har::har;
pub use output::Format;
pub use plugins::with_settings;
pub use precompile::precompile;

use crate::capabilities::http::har::{HarRecorder, HarReplay};
use crate::config::Config;
use crate::runtime::Runtime;
use crate::secrets::Secrets;
use std::sync::Arc;

/// A runtime for one-off CLI work, with optional replay or recording.
pub fn runtime(
    config: &Config,
    secrets: Arc<Secrets>,
    replay: Option<HarReplay>,
    recorder: Option<HarRecorder>,
) -> anyhow::Result<Runtime> {
    Runtime::new(
        crate::services(config, secrets, replay, recorder, true)?,
        config.cache_dir.clone(),
        config.max_total_memory_mib,
    )
}
