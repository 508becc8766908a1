//! The forum-post endpoint: one post record, checked field for field.

use std::time::Instant;

use axum::response::Response;
use serde_json::json;

use super::{ok, AppState, Call};
use crate::error::ApiError;
use crate::record::PostRecord;
use crate::validate;

/// Handles `POST /forum-site/post`.
pub async fn handle(state: &AppState, call: Call) -> Result<Response, ApiError> {
    let request = validate::post_request(&call.body).map_err(ApiError::BadRequest)?;
    let deadline = Instant::now() + state.config.fetch_budget();
    let plugin = &call.plugin;
    let json = state
        .runtime
        .fetch_post(plugin, &call.request_id, &request.query, deadline)
        .await?
        .map_err(|e| ApiError::from_fetch(&plugin.label(), e))?;
    let record = PostRecord::from_plugin_json(&json, request.is_text_formatted).map_err(|e| {
        tracing::error!(plugin = %plugin.manifest.name, error = %e, "plugin broke the post record contract");
        ApiError::PluginFailed(format!("plugin {}: {e}", plugin.manifest.name))
    })?;
    Ok(ok(json!({ "all_reviews": [record] })))
}
