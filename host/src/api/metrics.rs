//! `GET /metrics`: the server's metrics in Prometheus text format, for
//! operators. Who may read them:
//!
//! - when metrics keys (`GLEANER_METRICS_KEYS`) or admin keys
//!   (`GLEANER_ADMIN_KEYS`) are configured, only a request carrying one of them
//!   (`x-api-key` or `Authorization: Bearer`); API keys do not work here;
//! - when neither is configured, anyone who can connect, but only while the
//!   server listens on a loopback address (then every client is local);
//!   listening on any other address, `/metrics` is refused until a key is set.

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::auth::ApiKeys;
use super::AppState;
use crate::telemetry::metrics;

/// The content type of the Prometheus text exposition format.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Why `/metrics` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// Keys are configured and the request carries none of them (401).
    #[error("GET /metrics needs a metrics or admin key (GLEANER_METRICS_KEYS or GLEANER_ADMIN_KEYS); send it in x-api-key or as Authorization: Bearer <key>")]
    KeyRequired,
    /// No key is configured and the server listens beyond loopback (403).
    #[error("GET /metrics is open without a key only while the server listens on loopback; set GLEANER_METRICS_KEYS (or metrics_keys in the config file) and send one in x-api-key or as Authorization: Bearer <key>")]
    NotLoopback,
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        let status = match self {
            Refused::KeyRequired => StatusCode::UNAUTHORIZED,
            Refused::NotLoopback => StatusCode::FORBIDDEN,
        };
        (status, Json(json!({ "error": self.to_string() }))).into_response()
    }
}

/// Applies the access rule above.
pub fn check(state: &AppState, headers: &HeaderMap) -> Result<(), Refused> {
    let metrics_keys = ApiKeys::new(&state.config.metrics_keys);
    if metrics_keys.is_empty() && state.admin_keys.is_empty() {
        return if state.config.addr.ip().is_loopback() {
            Ok(())
        } else {
            Err(Refused::NotLoopback)
        };
    }
    let allowed = |keys: &ApiKeys| !keys.is_empty() && keys.allows(headers);
    if allowed(&metrics_keys) || allowed(&state.admin_keys) {
        Ok(())
    } else {
        Err(Refused::KeyRequired)
    }
}

/// `GET /metrics`.
pub async fn handle(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Err(refused) = check(&state, &headers) {
        return refused.into_response();
    }
    match metrics::render() {
        Ok(text) => (
            [(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE))],
            text,
        )
            .into_response(),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "error": e.to_string() })),
        )
            .into_response(),
    }
}

/// The `route` and `plugin` labels of a request: the serving (or loading)
/// plugin's route pattern and name, or `none` when no plugin has the path.
pub fn labels(
    plugin: Option<&crate::runtime::LoadedPlugin>,
    loading: Option<&crate::registry::Loading>,
) -> (String, String) {
    match (plugin, loading) {
        (Some(p), _) => (p.manifest.route.clone(), p.manifest.name.clone()),
        (None, Some(l)) => (
            l.route.clone().unwrap_or_else(|| metrics::NONE.to_owned()),
            l.name.clone(),
        ),
        (None, None) => (metrics::NONE.to_owned(), metrics::NONE.to_owned()),
    }
}
