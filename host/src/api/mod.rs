//! The HTTP API: one dispatcher that finds the plugin for a path in the registry,
//! checks auth, method and body size, then hands over to the handler for the
//! plugin's kind. Handlers are thin; the work lives in the driver and runtime.

mod admin;
pub mod answer;
pub mod auth;
pub mod clients;
mod docs;
mod jobs;
mod links;
mod mcp;
pub mod metrics;
pub mod openapi;
mod post;
mod processor;
mod receipts;
mod reviews;
mod schedules;
pub mod sources;

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use tracing::Instrument;

use crate::config::Config;
use crate::error::{ApiError, ErrorShape};
use crate::manifest::Kind;
use crate::registry::Registry;
use crate::runtime::LoadedPlugin;
use crate::runtime::Runtime;
use auth::ApiKeys;

/// Everything a request handler needs. Every request clones it, so it is one
/// shared reference: a clone is one reference count, not one per service.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl AppState {
    /// The state of a server holding `shared`.
    pub fn new(shared: Shared) -> AppState {
        AppState(Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// The services and settings behind [`AppState`].
pub struct Shared {
    /// The WebAssembly runtime.
    pub runtime: Arc<Runtime>,
    /// Loaded plugins.
    pub registry: Arc<Registry>,
    /// Server configuration.
    pub config: Arc<Config>,
    /// Accepted API keys.
    pub keys: ApiKeys,
    /// Accepted admin keys (for /admin only).
    pub admin_keys: ApiKeys,
    /// Requests allowed at once, in all and per plugin; beyond that the answer is 503.
    pub bulkheads: Arc<crate::runtime::bulkhead::Bulkheads>,
    /// Requests allowed in flight per API key and per client address; beyond, 429.
    pub clients: Arc<clients::ClientLimits>,
    /// Proxies whose `X-Forwarded-For` names the client.
    pub trusted: Arc<clients::TrustedProxies>,
    /// The key continuation tokens are signed with.
    pub tokens: Arc<crate::token::TokenKey>,
    /// Jobs and schedules.
    pub jobs: Arc<crate::jobs::Jobs>,
    /// The cluster this replica shares jobs and state with, in cluster mode.
    pub cluster: Option<Arc<crate::cluster::Cluster>>,
    /// The OpenAPI document last served, for the plugins it describes.
    pub openapi: openapi::DocumentCache,
}

/// The per-request context a handler gets.
pub struct Call {
    /// The plugin.
    pub plugin: Arc<LoadedPlugin>,
    /// Request id (from `x-request-id` or generated).
    pub request_id: String,
    /// The request body.
    pub body: axum::body::Bytes,
}

/// Builds the router.
pub fn router(state: AppState) -> Router {
    // Bodies are read by `read_body`, which applies each route's size limit
    // (admin uploads: admin_max_body_bytes) and the body read timeout.
    let secrets = state.runtime.services().secrets.clone();
    let api = routes(state.clone());
    mcp::router(state, api.clone())
        .layer(axum::middleware::from_fn_with_state(secrets, answer::layer))
        .merge(api)
}

/// Every route but `/mcp`, which answers its tool calls through them.
fn routes(state: AppState) -> Router {
    let secrets = state.runtime.services().secrets.clone();
    Router::new()
        .route("/healthz", get(health))
        .route("/metrics", get(metrics::handle))
        .route("/openapi.json", get(openapi::handle))
        .route("/sources", get(sources::handle))
        .route("/receipts/public-key", get(receipts::public_key))
        .merge(docs::router())
        .merge(admin::router(state.clone()))
        .merge(jobs::router())
        .merge(links::router())
        .merge(schedules::router())
        .fallback(dispatch)
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(secrets, answer::layer))
}

/// `GET /healthz`: `status` is `ok`, or `loading` while some plugin's first load
/// (a compile) is under way; `loading` and `failed` name those plugins. Always
/// 200: the server answers every ready route meanwhile. In cluster mode,
/// `cluster` names the replica and says whether NATS is connected; `browser`
/// says whether the headless browser can be used, and if not, why;
/// `features` lists the optional parts built into this binary.
/// The server's health: 200 while a plugin serves or loads, 503 when none
/// does (an empty plugin directory, or every load failed).
async fn health(State(state): State<AppState>) -> (StatusCode, Json<serde_json::Value>) {
    let health = state.registry.health();
    let (code, status) = match (health.ready, health.loading.is_empty()) {
        (_, false) => (StatusCode::OK, "loading"),
        (0, true) => (StatusCode::SERVICE_UNAVAILABLE, "no plugins"),
        (_, true) => (StatusCode::OK, "ok"),
    };
    let mut body = json!({
        "status": status,
        "plugins": health.ready,
        "failed_plugins": health.failed.len(),
        "loading_plugins": health.loading.len(),
        "loading": health.loading,
        "failed": health.failed,
        "features": crate::features::compiled(),
    });
    let browser = state.runtime.services().browser.unavailable();
    body["browser"] = json!({"available": browser.is_none(), "reason": browser});
    if let Some(cluster) = &state.cluster {
        body["cluster"] = cluster.health();
    }
    (code, Json(body))
}

async fn dispatch(State(state): State<AppState>, request: Request<Body>) -> Response {
    let started = Instant::now();
    let request_id = request
        .extensions()
        .get::<answer::RequestId>()
        .map(|id| id.0.clone())
        .unwrap_or_else(answer::new_request_id);
    let path = request.uri().path().to_owned();
    let method = request.method().clone();
    let plugin = state.registry.get(&path);
    let span = tracing::info_span!(
        "request",
        request_id = %request_id,
        %method,
        %path,
        plugin = plugin.as_ref().map(|p| p.manifest.name.as_str()).unwrap_or("-"),
        version = plugin.as_ref().map(|p| p.manifest.version.as_str()).unwrap_or("-"),
    );
    let loading = match &plugin {
        Some(_) => None,
        None => state.registry.loading(&path),
    };
    let (route_label, plugin_label) = metrics::labels(plugin.as_deref(), loading.as_ref());
    // The route's declared shape; a path nothing serves answers in the shape
    // of the routes beside it.
    let shape = plugin
        .as_ref()
        .map(|p| p.manifest.error_shape())
        .or(loading.as_ref().and_then(|l| l.error_shape))
        .or_else(|| state.registry.neighbours_error_shape(&path))
        .unwrap_or(ErrorShape::Simple);
    let mut response = match handle(&state, plugin.clone(), loading, request, request_id.clone())
        .instrument(span.clone())
        .await
    {
        Ok(response) => response,
        Err(e) => e.into_shaped_response(shape),
    };
    // Who serves a route is told only to clients that may use it.
    let authorized = response.status() != StatusCode::UNAUTHORIZED;
    let serving = plugin
        .as_ref()
        .filter(|_| authorized)
        .map(|p| (p.manifest.name.as_str(), p.manifest.version.as_str()));
    served(
        &mut response,
        serving,
        (&route_label, &plugin_label),
        &span,
        started,
    );
    response
}

/// The end of a plugin-route request: the headers naming the plugin and
/// version that `serving` gives, the request metric under `labels` (route,
/// plugin), and the "served" event in `span`.
pub fn served(
    response: &mut Response,
    serving: Option<(&str, &str)>,
    labels: (&str, &str),
    span: &tracing::Span,
    started: Instant,
) {
    let headers = response.headers_mut();
    if let Some((name, version)) = serving {
        if let Ok(v) = HeaderValue::from_str(name) {
            headers.insert("x-gleaner-plugin", v);
        }
        if let Ok(v) = HeaderValue::from_str(version) {
            headers.insert("x-gleaner-plugin-version", v);
        }
    }
    let status = response.status().as_u16();
    crate::telemetry::metrics::request(labels.0, labels.1, status, started.elapsed());
    span.in_scope(|| {
        tracing::info!(
            status,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "served"
        )
    });
}

async fn handle(
    state: &AppState,
    plugin: Option<Arc<LoadedPlugin>>,
    loading: Option<crate::registry::Loading>,
    request: Request<Body>,
    request_id: String,
) -> Result<Response, ApiError> {
    let key = state
        .keys
        .which(request.headers())
        .map_err(|()| ApiError::Unauthorized)?;
    let path = request.uri().path().to_owned();
    if let Some(loading) = loading {
        return Err(ApiError::Overloaded(format!(
            "plugin {} serving {path} is still loading (its component is being compiled); retry in a moment",
            loading.name
        )));
    }
    let Some(plugin) = plugin else {
        return Err(ApiError::NotFound(format!(
            "no endpoint at {path}; GET /openapi.json (or /docs in a browser) lists the endpoints this server serves"
        )));
    };
    if request.method() != Method::POST {
        return Err(ApiError::MethodNotAllowed {
            method: request.method().to_string(),
            path,
        });
    }
    check_content_type(request.headers())?;
    let client = clients::Client::of(key, &request, &state.trusted);
    let _client_slot = state.clients.enter(&client)?;
    let body = read_body(&state.config, request, state.config.max_body_bytes).await?;
    let _slots = state
        .bulkheads
        .enter(&plugin.manifest.name, reach(state, &plugin))?;
    let call = Call {
        plugin: plugin.clone(),
        request_id,
        body,
    };
    match plugin.manifest.kind {
        Kind::Source => reviews::handle(state, call).await,
        Kind::PostSource => post::handle(state, call).await,
        Kind::Processor => processor::handle(state, call).await,
    }
}

/// Whether a plugin's calls may wait on the network: it may reach sites, or
/// it uses the LLM and one is configured.
fn reach(state: &AppState, plugin: &LoadedPlugin) -> crate::runtime::bulkhead::Reach {
    let m = &plugin.manifest;
    let llm = m.uses_llm && state.runtime.services().llm.is_configured();
    if m.network.allow.is_empty() && !m.network.any_public_host && !llm {
        crate::runtime::bulkhead::Reach::Local
    } else {
        crate::runtime::bulkhead::Reach::Network
    }
}

/// Accepts a JSON `Content-Type` (`application/json`, `*/*+json`) or none at all.
pub fn check_content_type(headers: &axum::http::HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(axum::http::header::CONTENT_TYPE) else {
        return Ok(());
    };
    let text = value.to_str().unwrap_or_default();
    let media = text
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if media.is_empty() || media == "application/json" || media.ends_with("+json") {
        return Ok(());
    }
    Err(ApiError::UnsupportedMediaType(text.to_owned()))
}

/// Reads a request body of at most `limit` bytes within the body read timeout,
/// so a client that sends it a byte at a time cannot hold the connection. A
/// `Content-Length` over the limit is refused at once, before any byte is read.
pub async fn read_body(
    config: &Config,
    request: Request<Body>,
    limit: usize,
) -> Result<axum::body::Bytes, ApiError> {
    let announced = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if announced.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::PayloadTooLarge { limit });
    }
    let body = request.into_body();
    let timeout = std::time::Duration::from_millis(config.body_read_timeout_ms);
    match tokio::time::timeout(timeout, axum::body::to_bytes(body, limit)).await {
        Err(_) => Err(ApiError::BodyTimeout {
            after_ms: config.body_read_timeout_ms,
        }),
        Ok(Err(_)) => Err(ApiError::PayloadTooLarge { limit }),
        Ok(Ok(bytes)) => Ok(bytes),
    }
}

/// A 200 JSON answer.
pub fn ok(body: serde_json::Value) -> Response {
    (StatusCode::OK, Json(body)).into_response()
}
