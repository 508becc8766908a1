//! Per-plugin resource limits: `[limits]` in a manifest, each with a default.

use serde::Deserialize;

/// Per-plugin resource limits. Every field has a default.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Wall-clock deadline of one plugin call, in ms.
    pub call_timeout_ms: u64,
    /// Linear memory cap per instance, in MiB.
    pub memory_mib: usize,
    /// Largest upstream response body, in bytes.
    pub max_response_bytes: usize,
    /// Total bytes passed through host calls during one plugin call.
    pub max_host_data_bytes: usize,
    /// Concurrent requests to one upstream host.
    pub upstream_concurrency: usize,
    /// TCP connect timeout, in ms.
    pub connect_timeout_ms: u64,
    /// Time to the response headers, in ms.
    pub first_byte_timeout_ms: u64,
    /// Total time of one outbound request, body included, in ms.
    pub request_timeout_ms: u64,
    /// Retries on 429/503.
    pub max_retries: u32,
    /// Least time between the starts of two requests to one host, across the
    /// server, in ms (the site's politeness; operators may override per host).
    pub min_delay_ms: u64,
    /// A random extra of up to this many ms on top of `min_delay_ms`.
    pub delay_jitter_ms: u64,
    /// Most requests a minute to one host, across the server (0: no limit).
    pub requests_per_minute: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            call_timeout_ms: 20_000,
            memory_mib: 128,
            max_response_bytes: 8 * 1024 * 1024,
            max_host_data_bytes: 64 * 1024 * 1024,
            upstream_concurrency: 4,
            connect_timeout_ms: 5_000,
            first_byte_timeout_ms: 10_000,
            request_timeout_ms: 15_000,
            max_retries: 2,
            min_delay_ms: 0,
            delay_jitter_ms: 0,
            requests_per_minute: 0,
        }
    }
}
