//! Plugin logging into the host's structured log, tagged with plugin and request id.

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
