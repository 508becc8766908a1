//! The admin API under `/admin`, for operators: list, upload, delete and reload
//! plugins. It takes its own keys (`GLEANER_ADMIN_KEYS`); anything else gets 401.

use axum::extract::{Path as UrlPath, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use base64::Engine;
use serde::Deserialize;
use serde_json::json;

use super::AppState;
use crate::error::ApiError;
use crate::manifest;
use crate::registry::{upload, Fingerprint};

/// The admin routes.
pub fn router(state: AppState) -> Router<AppState> {
    Router::new()
        .route("/admin/plugins", get(list))
        .route("/admin/plugins/{name}", put(upload).delete(delete))
        .route("/admin/reload", post(reload))
        .route_layer(axum::middleware::from_fn_with_state(
            state,
            require_admin_key,
        ))
}

async fn require_admin_key(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if state.admin_keys.is_empty() {
        return ApiError::AdminDisabled.into_response();
    }
    if !state.admin_keys.allows(request.headers()) {
        if matches!(state.keys.which(request.headers()), Ok(Some(_))) {
            return ApiError::AdminKeyNeeded.into_response();
        }
        return ApiError::Unauthorized.into_response();
    }
    next.run(request).await
}

async fn list(State(state): State<AppState>) -> Json<serde_json::Value> {
    #[cfg_attr(not(feature = "cluster"), allow(unused_mut))]
    let mut body = json!({ "plugins": state.registry.statuses() });
    #[cfg(feature = "cluster")]
    if let Some(cluster) = &state.cluster {
        // Each replica's version of each plugin, as the replicas report them.
        body["replicas"] = match cluster.rollout.replica_versions().await {
            Ok(versions) => json!(versions),
            Err(e) => json!({ "error": e.to_string() }),
        };
    }
    Json(body)
}

/// An upload: the manifest's TOML text and the component, base64-encoded.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Upload {
    manifest: String,
    component: String,
}

async fn upload(
    State(state): State<AppState>,
    UrlPath(name): UrlPath<String>,
    request: Request,
) -> Result<Response, ApiError> {
    // Every name that will become part of a path is checked before the disk is touched.
    manifest::check_plugin_name(&name).map_err(ApiError::BadRequest)?;
    let body = super::read_body(&state.config, request, state.config.admin_max_body_bytes).await?;
    let upload: Upload = serde_json::from_slice(&body).map_err(|e| {
        ApiError::BadRequest(format!(
            "send {{\"manifest\": \"<TOML text>\", \"component\": \"<base64 of the .wasm>\"}}: {e}"
        ))
    })?;
    let component = base64::engine::general_purpose::STANDARD
        .decode(upload.component.trim())
        .map_err(|e| {
            ApiError::BadRequest(format!(
                "`component` is not valid base64 ({e}); send the .wasm file base64-encoded, e.g. `base64 -w0 plugin.wasm`"
            ))
        })?;
    upload::install(
        &state.runtime,
        &state.registry,
        &state.config,
        &name,
        &upload.manifest,
        &component,
    )
    .await
    .map_err(ApiError::BadRequest)?;
    let status = state
        .registry
        .statuses()
        .into_iter()
        .find(|s| s.name == name);
    #[cfg_attr(not(feature = "cluster"), allow(unused_mut))]
    let mut body = json!({ "plugin": status });
    #[cfg(feature = "cluster")]
    if let Some(cluster) = &state.cluster {
        // Every replica checks and swaps it in itself.
        body["rollout"] = json!(match cluster
            .rollout
            .announce(&name, &upload.manifest, &component)
            .await
        {
            Ok(()) =>
                "announced to every replica; GET /admin/plugins shows each one's version".to_owned(),
            Err(e) => format!("installed here only: {e}; upload it again once NATS is back"),
        });
    }
    Ok((StatusCode::OK, Json(body)).into_response())
}

async fn delete(
    State(state): State<AppState>,
    UrlPath(name): UrlPath<String>,
) -> Result<Response, ApiError> {
    manifest::check_plugin_name(&name).map_err(ApiError::BadRequest)?;
    if !upload::remove(&state.registry, &name) {
        return Err(ApiError::NotFound(format!(
            "no plugin named {name:?}; GET /admin/plugins lists them"
        )));
    }
    #[cfg_attr(not(feature = "cluster"), allow(unused_mut))]
    let mut body = json!({ "deleted": name });
    #[cfg(feature = "cluster")]
    if let Some(cluster) = &state.cluster {
        body["rollout"] = json!(match cluster.rollout.withdraw(&name).await {
            Ok(()) => "removed from every replica".to_owned(),
            Err(e) => format!("removed here only: {e}; delete it again once NATS is back"),
        });
    }
    Ok(Json(body).into_response())
}

async fn reload(State(state): State<AppState>) -> Result<Json<serde_json::Value>, ApiError> {
    let files = crate::registry::manifest_files(&state.config.plugin_dir)
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    for (path, _) in state.registry.fingerprints() {
        if !files.contains(&path) {
            state.registry.remove(&path);
        }
    }
    for path in files {
        let fingerprint = Fingerprint::of(&path);
        state
            .registry
            .load(&state.runtime, &state.config, &path, fingerprint)
            .await;
    }
    Ok(Json(json!({ "plugins": state.registry.statuses() })))
}
