//! Review-fetch endpoints: validate, run the driver, shape the answer.

use axum::response::Response;
use serde_json::{json, Value};

use super::{ok, AppState, Call};
use crate::driver;
use crate::error::ApiError;
use crate::manifest::Continuation;
use crate::validate;

/// Handles `POST /<label>/reviews`.
pub async fn handle(state: &AppState, call: Call) -> Result<Response, ApiError> {
    let plugin = &call.plugin;
    let options = plugin.source_options().ok_or_else(|| {
        ApiError::PluginFailed(format!(
            "plugin {} has no [source] options",
            plugin.manifest.name
        ))
    })?;
    let request = validate::source_request(&plugin.manifest.route, options, &call.body)
        .map_err(ApiError::BadRequest)?;
    let budget = state.config.fetch_budget();
    let outcome = driver::fetch(&state.runtime, plugin, &request, budget, &call.request_id).await?;
    let mut body = json!({
        "all_reviews": outcome.reviews,
        "extra_information": outcome.extra_information,
        "message": outcome.message,
    });
    match options.continuation {
        Continuation::PaginationToken => {
            body["next_page"] = json!(outcome.continuation);
        }
        Continuation::PaginationData => {
            body["pagination_data"] = match outcome.continuation {
                Some(token) => json!({ "token": token }),
                None => Value::Null,
            };
        }
        Continuation::None => {}
    }
    Ok(ok(body))
}
