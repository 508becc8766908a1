//! The admin API under `/admin`, for operators: list, upload, delete and reload
//! plugins. It takes its own keys (`GLEANER_ADMIN_KEYS`); anything else gets 401.

use std::path::Path;

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
use crate::manifest::{self, Manifest};
use crate::registry::directory::{PluginFiles, Replacement};
use crate::registry::{Fingerprint, Registry};

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
        return ApiError::Unauthorized.into_response();
    }
    next.run(request).await
}

async fn list(State(state): State<AppState>) -> Json<serde_json::Value> {
    Json(json!({ "plugins": state.registry.statuses() }))
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
    let manifest: Manifest = toml::from_str(&upload.manifest).map_err(|e| {
        ApiError::BadRequest(format!(
            "`manifest` is not a valid manifest: {}",
            manifest::toml_error(&upload.manifest, &e)
        ))
    })?;
    manifest
        .check()
        .map_err(|e| ApiError::BadRequest(format!("`manifest` is not a valid manifest: {e}")))?;
    if manifest.name != name {
        return Err(ApiError::BadRequest(format!(
            "the manifest names plugin {:?} but the URL says {name:?}; upload to /admin/plugins/{}",
            manifest.name, manifest.name
        )));
    }
    let dir = &state.config.plugin_dir;
    let final_manifest = dir.join(format!("{name}.toml"));
    // Refused before anything is staged: a name or route another plugin has.
    if let Some(clash) = state.registry.clash(&final_manifest, &manifest) {
        return Err(ApiError::BadRequest(clash));
    }
    std::fs::create_dir_all(dir).map_err(io_error)?;
    // Staged under a hidden directory inside the plugin directory: the same file
    // system (so the final rename is atomic) and invisible to the watcher.
    let staging = dir.join(format!(".staging-{}", uuid::Uuid::new_v4()));
    let result = install(
        &state,
        &staging,
        &name,
        &manifest,
        &upload.manifest,
        &component,
    )
    .await;
    if let Err(e) = std::fs::remove_dir_all(&staging) {
        if e.kind() != std::io::ErrorKind::NotFound {
            tracing::warn!(dir = %staging.display(), error = %e, "could not remove an upload's staging directory");
        }
    }
    result?;
    let status = state
        .registry
        .statuses()
        .into_iter()
        .find(|s| s.name == name);
    Ok((StatusCode::OK, Json(json!({ "plugin": status }))).into_response())
}

/// Stages, validates and installs an upload. The plugin directory changes
/// only once the upload is valid, and is put back as it was when the new
/// plugin cannot be installed.
async fn install(
    state: &AppState,
    staging: &Path,
    name: &str,
    manifest: &Manifest,
    manifest_text: &str,
    component: &[u8],
) -> Result<(), ApiError> {
    let dir = &state.config.plugin_dir;
    let component_file = manifest.component_file();
    let staged_manifest = staging.join(format!("{name}.toml"));
    let aside = staging.join("replaced");
    std::fs::create_dir(staging).map_err(io_error)?;
    std::fs::create_dir(&aside).map_err(io_error)?;
    std::fs::write(staging.join(&component_file), component).map_err(io_error)?;
    std::fs::write(&staged_manifest, manifest_text).map_err(io_error)?;
    let plugin = Registry::validate(&state.runtime, &state.config, &staged_manifest)
        .await
        .map_err(ApiError::BadRequest)?;
    let sha256 = plugin.sha256.clone();
    let final_manifest = dir.join(format!("{name}.toml"));
    let files = [
        (staging.join(&component_file), dir.join(&component_file)),
        (staged_manifest, final_manifest.clone()),
    ];
    let replacement = Replacement::put(&files, &aside, &final_manifest).map_err(io_error)?;
    match state
        .registry
        .install_validated(&final_manifest, plugin)
        .await
    {
        Some(e) => {
            replacement.roll_back();
            Err(ApiError::BadRequest(e))
        }
        None => {
            let now = PluginFiles {
                manifest: final_manifest,
                component: dir.join(&component_file),
            };
            replacement.commit(&now, &sha256);
            Ok(())
        }
    }
}

fn io_error(e: std::io::Error) -> ApiError {
    ApiError::BadRequest(format!(
        "cannot write to the plugin directory: {e}; check that the server may write there"
    ))
}

async fn delete(
    State(state): State<AppState>,
    UrlPath(name): UrlPath<String>,
) -> Result<Response, ApiError> {
    manifest::check_plugin_name(&name).map_err(ApiError::BadRequest)?;
    let path = state.registry.path_of(&name).ok_or_else(|| {
        ApiError::NotFound(format!(
            "no plugin named {name:?}; GET /admin/plugins lists them"
        ))
    })?;
    match PluginFiles::of(&path) {
        Some(files) => files.remove(),
        None => {
            let _ = std::fs::remove_file(&path);
        }
    }
    state.registry.remove(&path);
    Ok(Json(json!({ "deleted": name })).into_response())
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
