//! Telemetry: the log settings ([`logging`]), Prometheus metrics ([`metrics`],
//! recorded and rendered by [`prometheus`])
//! served at `GET /metrics`, and the optional OpenTelemetry trace export ([`otlp`]).

pub mod logging;
pub mod metrics;
pub mod otlp;
pub mod prometheus;
