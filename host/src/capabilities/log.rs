//! Plugin logging into the host's structured log, tagged with plugin and request id.
//! A plugin's line loses its session's cookies here and every registered
//! secret in the log writer, so a plugin that logs a secret logs `[redacted]`.

use crate::bindings::sdk::gleaner::plugin::log;
use crate::capabilities::{view_link, CallContext};

/// Severity of a plugin log line.
#[derive(Debug, Clone, Copy)]
pub enum Level {
    /// Finest detail.
    Trace,
    /// Debugging.
    Debug,
    /// Normal events.
    Info,
    /// Something odd.
    Warn,
    /// A failure.
    Error,
}

/// Longest message kept; longer ones are cut.
const MAX_MESSAGE_CHARS: usize = 4096;

/// Writes one plugin log line.
pub fn write(plugin: &str, version: &str, request_id: &str, level: Level, message: &str) {
    let message: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
    match level {
        Level::Trace => tracing::trace!(plugin, version, request_id, "{message}"),
        Level::Debug => tracing::debug!(plugin, version, request_id, "{message}"),
        Level::Info => tracing::info!(plugin, version, request_id, "{message}"),
        Level::Warn => tracing::warn!(plugin, version, request_id, "{message}"),
        Level::Error => tracing::error!(plugin, version, request_id, "{message}"),
    }
}

/// What the log import sees of a call.
pub struct LogView<'a> {
    /// The call.
    pub call: &'a mut CallContext,
}

view_link!(LogLink, LogView, log);

impl log::Host for LogView<'_> {
    async fn log(&mut self, level: log::Level, message: String) -> wasmtime::Result<()> {
        self.call.charge(message.len())?;
        let level = match level {
            log::Level::Trace => Level::Trace,
            log::Level::Debug => Level::Debug,
            log::Level::Info => Level::Info,
            log::Level::Warn => Level::Warn,
            log::Level::Error => Level::Error,
        };
        let grant = &self.call.grant;
        let scrubber = self.call.session.scrubber();
        write(
            &grant.name,
            &grant.version,
            &self.call.request_id,
            level,
            &scrubber.scrub(&message),
        );
        Ok(())
    }
}
