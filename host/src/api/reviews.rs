//! Review-fetch endpoints: validate, run the driver, shape the answer.

use axum::response::Response;

use std::time::Instant;

use super::{ok, AppState, Call};
use crate::driver;
use crate::error::ApiError;
use crate::insights::Insights;
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
    let request =
        validate::source_request(&state.tokens, &plugin.manifest.route, options, &call.body)
            .map_err(ApiError::BadRequest)?;
    let budget = state.config.fetch_budget();
    // Found before fetching, so a server without the plugin says so at once.
    let insights = match request.insights {
        true => Some(Insights::find(&state.registry, &state.runtime)?),
        false => None,
    };
    let mut outcome = driver::fetch(
        &state.runtime,
        plugin,
        &request,
        &state.tokens,
        budget,
        &call.request_id,
        &|_, _| {},
    )
    .await?;
    if let Some(insights) = insights {
        let deadline = Instant::now() + budget;
        insights
            .add(&mut outcome.reviews, &call.request_id, deadline)
            .await?;
    }
    Ok(ok(outcome.into_body(options.continuation)))
}
