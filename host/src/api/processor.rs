//! Processor endpoints: validate against the manifest's fields, pass JSON through.

use std::time::Instant;

use axum::response::Response;
use serde_json::Value;

use super::{ok, AppState, Call};
use crate::bindings::processor::exports::gleaner::plugin::processor_plugin::ProcessError;
use crate::capabilities::http::session::Session;
use crate::error::ApiError;
use crate::validate;

/// Handles a processor route.
pub async fn handle(state: &AppState, call: Call) -> Result<Response, ApiError> {
    let plugin = &call.plugin;
    let fields = plugin
        .manifest
        .processor
        .as_ref()
        .map(|p| p.fields.as_slice())
        .unwrap_or_default();
    let input = validate::processor_input(fields, &call.body).map_err(ApiError::BadRequest)?;
    validate::field_lengths(fields, &input).map_err(ApiError::BadRequest)?;
    let input = Value::Object(input).to_string();
    let deadline = Instant::now() + state.config.fetch_budget();
    // The call's session: its cookies must not come back in the answer.
    let session = std::sync::Arc::new(Session::new());
    let scrub = |e: ApiError| e.scrubbed(&session.scrubber());
    let output = state
        .runtime
        .process_in(plugin, &call.request_id, &input, deadline, session.clone())
        .await
        .map_err(|e| scrub(e.into()))?
        .map_err(|e| match e {
            ProcessError::InvalidInput(m) | ProcessError::Upstream(m) => {
                scrub(ApiError::BadRequest(m))
            }
        })?;
    let mut value: Value = serde_json::from_str(&output.body).map_err(|e| {
        ApiError::PluginFailed(format!(
            "plugin {} returned invalid JSON: {e}",
            plugin.manifest.name
        ))
    })?;
    session.scrubber().scrub_json(&mut value);
    let mut response = ok(value);
    if let Ok(engine) = axum::http::HeaderValue::from_str(&output.engine) {
        response.headers_mut().insert("x-gleaner-engine", engine);
    }
    Ok(response)
}
