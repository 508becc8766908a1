//! The forum-post endpoint: one post record, checked field for field.

use std::time::Instant;

use axum::response::Response;
use serde_json::json;

use super::{ok, AppState, Call};
use crate::capabilities::http::session::Session;
use crate::error::ApiError;
use crate::record::PostRecord;
use crate::validate;

/// Handles `POST /forum-site/post`.
pub async fn handle(state: &AppState, call: Call) -> Result<Response, ApiError> {
    let request = validate::post_request(&call.body).map_err(ApiError::BadRequest)?;
    let deadline = Instant::now() + state.config.fetch_budget();
    let plugin = &call.plugin;
    // The call's session: its cookies must not come back in the answer.
    let session = std::sync::Arc::new(Session::new());
    let scrub = |e: ApiError| e.scrubbed(&session.scrubber());
    let json = state
        .runtime
        .fetch_post(
            plugin,
            &call.request_id,
            &request.query,
            deadline,
            session.clone(),
        )
        .await
        .map_err(|e| scrub(e.into()))?
        .map_err(|e| scrub(ApiError::from_fetch(&plugin.label(), e)))?;
    let record = PostRecord::from_plugin_json(&json, request.is_text_formatted).map_err(|e| {
        tracing::error!(plugin = %plugin.manifest.name, error = %e, "plugin broke the post record contract");
        scrub(ApiError::PluginFailed(format!("plugin {}: {e}", plugin.manifest.name)))
    })?;
    let mut body = json!({ "all_reviews": [record] });
    session.scrubber().scrub_json(&mut body);
    Ok(ok(body))
}
