//! Telemetry: the log settings ([`logging`]), Prometheus metrics ([`metrics`])
//! served at `GET /metrics`, and the optional OpenTelemetry trace export ([`otlp`]).

pub mod logging;
pub mod metrics;
pub mod otlp;
