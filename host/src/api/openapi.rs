//! `GET /openapi.json`: the OpenAPI document of the plugins serving now.
//! It answers without a key, like `/healthz`: it describes the interface, no data.
//!
//! Building the document takes a few milliseconds, so each server keeps the
//! JSON ([`DocumentCache`], in its state) for the set of serving plugins it
//! was built from, and builds it again when that set changes (a hot swap, a
//! removal).

use std::sync::{Arc, Mutex, Weak};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::AppState;
use crate::openapi::{self, Access};
use crate::runtime::LoadedPlugin;

/// The last document served and what it was built from. The plugins are held
/// weakly: the cache keeps no plugin alive, and as their allocations stay
/// reserved while referenced, a new plugin never takes an old one's address.
struct Cached {
    plugins: Vec<Weak<LoadedPlugin>>,
    access: Access,
    json: Bytes,
}

impl Cached {
    fn matches(&self, plugins: &[Arc<LoadedPlugin>], access: Access) -> bool {
        self.access == access
            && self.plugins.len() == plugins.len()
            && self
                .plugins
                .iter()
                .zip(plugins)
                .all(|(old, new)| std::ptr::eq(old.as_ptr(), Arc::as_ptr(new)))
    }
}

/// One server's last document, kept until its plugins change.
#[derive(Default)]
pub struct DocumentCache(Mutex<Option<Cached>>);

/// The document's JSON for these plugins, from `cache` when it is current.
fn document_json(
    cache: &DocumentCache,
    plugins: &[Arc<LoadedPlugin>],
    access: Access,
) -> Result<Bytes, serde_json::Error> {
    let mut cache = cache.0.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(cached) = cache.as_ref().filter(|c| c.matches(plugins, access)) {
        return Ok(cached.json.clone());
    }
    let manifests: Vec<_> = plugins.iter().map(|p| &p.manifest).collect();
    let json = Bytes::from(openapi::json(&openapi::document(&manifests, access))?);
    *cache = Some(Cached {
        plugins: plugins.iter().map(Arc::downgrade).collect(),
        access,
        json: json.clone(),
    });
    Ok(json)
}

/// The document of the plugins serving now, as `GET /openapi.json` answers it.
pub(super) fn current(state: &AppState) -> Result<Bytes, serde_json::Error> {
    let access = Access {
        api_keys: !state.keys.is_empty(),
        admin_keys: !state.admin_keys.is_empty(),
    };
    document_json(&state.openapi, &state.registry.plugins(), access)
}

/// Handles `GET /openapi.json`.
pub async fn handle(State(state): State<AppState>) -> Response {
    match current(&state) {
        Ok(json) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "cannot serialise the OpenAPI document");
            let body = json!({ "error": format!("the OpenAPI document could not be built ({e}); please report this") });
            (StatusCode::INTERNAL_SERVER_ERROR, Json(body)).into_response()
        }
    }
}
