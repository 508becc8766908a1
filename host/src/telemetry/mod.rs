//! Telemetry: Prometheus metrics ([`metrics`]) served at `GET /metrics`, and the
//! optional OpenTelemetry trace export ([`otlp`]).

pub mod metrics;
pub mod otlp;
