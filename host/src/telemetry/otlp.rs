//! Logging, and the optional OpenTelemetry trace export: with `otlp_endpoint`
//! (`GLEANER_OTLP_ENDPOINT`) set, the server's `tracing` spans (a request, its
//! plugin calls, their upstream requests) are sent as traces over OTLP/HTTP
//! (protobuf) to `<endpoint>/v1/traces`, batched, from a background thread.
//! Off by default. Log lines and spans both pass the secrets scrubber on
//! their way out.

use std::sync::Arc;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry::KeyValue;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

use super::logging::LogSettings;
use crate::secrets::Secrets;

/// The service name traces carry.
pub const SERVICE_NAME: &str = "gleaner";

/// Why trace export could not start.
#[derive(Debug, thiserror::Error)]
pub enum OtlpError {
    /// The endpoint is not an http(s) URL.
    #[error("GLEANER_OTLP_ENDPOINT (otlp_endpoint) {0:?} is not an http:// or https:// URL; use the collector's OTLP/HTTP base URL, e.g. http://127.0.0.1:4318")]
    Endpoint(String),
    /// The exporter could not be built.
    #[error("cannot set up trace export to {endpoint}: {message}; check GLEANER_OTLP_ENDPOINT (otlp_endpoint)")]
    Exporter {
        /// The traces URL.
        endpoint: String,
        /// What went wrong.
        message: String,
    },
}

/// Keeps trace export running; dropping it sends the spans still buffered.
#[must_use = "dropping the guard stops trace export"]
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(provider) = self.provider.take() {
            if let Err(e) = provider.shutdown() {
                eprintln!("warning: could not send the last traces: {e}");
            }
        }
    }
}

/// The URL spans are posted to: `<endpoint>/v1/traces`, unless the endpoint
/// already names that path.
pub fn traces_url(endpoint: &str) -> Result<String, OtlpError> {
    let endpoint = endpoint.trim();
    let parsed = url::Url::parse(endpoint).map_err(|_| OtlpError::Endpoint(endpoint.to_owned()))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(OtlpError::Endpoint(endpoint.to_owned()));
    }
    let base = endpoint.trim_end_matches('/');
    Ok(if base.ends_with("/v1/traces") {
        base.to_owned()
    } else {
        format!("{base}/v1/traces")
    })
}

/// Sets up logging to stderr with `logs` and, when `otlp_endpoint` is set,
/// trace export at info level whatever the log filter says.
pub fn init(
    logs: LogSettings,
    otlp_endpoint: Option<&str>,
    secrets: Arc<Secrets>,
) -> Result<Telemetry, OtlpError> {
    let fmt = logs.layer(secrets.clone());
    let (provider, traces) = match otlp_endpoint {
        Some(endpoint) => {
            let provider = provider(&traces_url(endpoint)?, secrets)?;
            let tracer = provider.tracer(SERVICE_NAME);
            let layer = tracing_opentelemetry::layer()
                .with_tracer(tracer)
                .with_filter(LevelFilter::INFO);
            (Some(provider), Some(layer))
        }
        None => (None, None),
    };
    tracing_subscriber::registry().with(fmt).with(traces).init();
    if let Some(endpoint) = otlp_endpoint {
        tracing::info!(endpoint, "exporting traces over OTLP/HTTP");
    }
    Ok(Telemetry { provider })
}

fn provider(url: &str, secrets: Arc<Secrets>) -> Result<SdkTracerProvider, OtlpError> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(url)
        .build()
        .map_err(|e| OtlpError::Exporter {
            endpoint: url.to_owned(),
            message: e.to_string(),
        })?;
    let resource = Resource::builder()
        .with_service_name(SERVICE_NAME)
        .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
        .build();
    Ok(SdkTracerProvider::builder()
        .with_batch_exporter(Scrubbed(exporter, secrets))
        .with_resource(resource)
        .build())
}

/// An exporter that replaces secrets in span names, attributes, events and
/// statuses before the spans leave the process.
#[derive(Debug)]
struct Scrubbed<E>(E, Arc<Secrets>);

impl<E: opentelemetry_sdk::trace::SpanExporter> opentelemetry_sdk::trace::SpanExporter
    for Scrubbed<E>
{
    fn export(
        &self,
        mut batch: Vec<opentelemetry_sdk::trace::SpanData>,
    ) -> impl std::future::Future<Output = opentelemetry_sdk::error::OTelSdkResult> + Send {
        let scrubber = self.1.scrubber();
        if !scrubber.is_empty() {
            for span in &mut batch {
                scrub_span(&scrubber, span);
            }
        }
        self.0.export(batch)
    }

    fn shutdown_with_timeout(
        &mut self,
        timeout: std::time::Duration,
    ) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }

    fn force_flush(&mut self) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.0.set_resource(resource);
    }
}

fn scrub_span(scrubber: &crate::secrets::Scrubber, span: &mut opentelemetry_sdk::trace::SpanData) {
    use std::borrow::Cow;
    let text = |s: &mut Cow<'static, str>| {
        if let Cow::Owned(clean) = scrubber.scrub(s) {
            *s = Cow::Owned(clean);
        }
    };
    text(&mut span.name);
    scrub_attributes(scrubber, &mut span.attributes);
    for event in span.events.events.iter_mut() {
        text(&mut event.name);
        scrub_attributes(scrubber, &mut event.attributes);
    }
    if let opentelemetry::trace::Status::Error { description } = &mut span.status {
        text(description);
    }
}

fn scrub_attributes(scrubber: &crate::secrets::Scrubber, attributes: &mut [KeyValue]) {
    use opentelemetry::{Array, StringValue, Value};
    let one = |s: &StringValue| match scrubber.scrub(s.as_str()) {
        std::borrow::Cow::Owned(clean) => Some(StringValue::from(clean)),
        std::borrow::Cow::Borrowed(_) => None,
    };
    for kv in attributes {
        match &mut kv.value {
            Value::String(s) => {
                if let Some(clean) = one(s) {
                    *s = clean;
                }
            }
            Value::Array(Array::String(list)) => {
                for s in list.iter_mut() {
                    if let Some(clean) = one(s) {
                        *s = clean;
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traces_path_is_added_once() {
        assert_eq!(
            traces_url("http://127.0.0.1:4318").unwrap(),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            traces_url("https://otel.example.com/v1/traces/").unwrap(),
            "https://otel.example.com/v1/traces"
        );
        for bad in ["127.0.0.1:4318", "grpc://collector:4317", ""] {
            let e = traces_url(bad).unwrap_err().to_string();
            assert!(e.contains("GLEANER_OTLP_ENDPOINT"), "{e}");
        }
    }
}
