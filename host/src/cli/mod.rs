//! Command-line tools for plugin authors: `gleaner plugin check` and `gleaner fetch`.

mod check;
mod fetch;

pub use check::check;
pub use fetch::{fetch, FetchArgs};

use std::sync::Arc;

use crate::capabilities::cache::CacheStore;
use crate::capabilities::http::har::{HarRecorder, HarReplay};
use crate::capabilities::http::overrides::Overrides;
use crate::capabilities::http::{HttpService, HttpSettings};
use crate::config::Config;
use crate::runtime::state::Services;
use crate::runtime::Runtime;

/// A runtime for one-off CLI work, with optional replay or recording.
pub fn runtime(
    config: &Config,
    replay: Option<HarReplay>,
    recorder: Option<HarRecorder>,
) -> anyhow::Result<Runtime> {
    let http = HttpService::new(HttpSettings {
        replay,
        recorder,
        overrides: Overrides::new(&config.upstream_override).map_err(anyhow::Error::msg)?,
    })?;
    let services = Services {
        http: Arc::new(http),
        cache: Arc::new(CacheStore::default()),
    };
    Runtime::new(services, config.cache_dir.clone())
}
