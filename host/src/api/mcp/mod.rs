//! `POST /mcp`: the Model Context Protocol over Streamable HTTP, through the
//! protocol's Rust SDK (`rmcp`), stateless, each answer plain JSON. Its
//! tools are the plugin routes and the job routes ([`tools`]); a call is
//! sent through the server's own router with the caller's key and address,
//! so it is checked, limited and answered exactly as the route is, and its
//! JSON answer is the tool's result. An error answer becomes a tool error
//! carrying the route's error text. Without a valid API key (when keys are
//! configured) the endpoint answers 401 before any MCP message is read.

pub mod tools;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, request::Parts, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tower::ServiceExt;

use super::AppState;
use crate::error::ApiError;

/// The largest route answer a tool returns (a page of 1,000 reviews is far less).
const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// The headers of the MCP request a tool's route request carries: who the
/// caller is and where it is, never the MCP transport's own.
const FORWARDED: [header::HeaderName; 5] = [
    header::AUTHORIZATION,
    header::HeaderName::from_static("x-api-key"),
    header::HeaderName::from_static("x-forwarded-for"),
    header::HeaderName::from_static("x-request-id"),
    header::USER_AGENT,
];

/// The `/mcp` route, answering through `api`, the server's other routes.
pub fn router(state: AppState, api: Router) -> Router {
    let handler = Gleaner {
        state: state.clone(),
        api,
    };
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_max_request_body_bytes(state.config.max_body_bytes);
    if !state.keys.is_empty() {
        // With keys, a key guards the endpoint whatever host name reaches it
        // (a reverse proxy's); without, it listens on loopback only, where
        // the SDK's check of the Host header stops DNS rebinding.
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    Router::new()
        .route_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(state, guard))
}

/// Refuses a request without a valid API key (when keys are configured)
/// before the MCP layer reads it: not even the tool list is answered.
async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    match state.keys.which(request.headers()) {
        Ok(_) => next.run(request).await,
        Err(()) => ApiError::Unauthorized.into_response(),
    }
}

/// The MCP server: the tools of the plugins serving now.
#[derive(Clone)]
struct Gleaner {
    state: AppState,
    /// The server's routes, which answer tool calls.
    api: Router,
}

impl Gleaner {
    /// The tools now, read from the OpenAPI document.
    fn tools(&self) -> Result<Vec<rmcp::model::Tool>, ErrorData> {
        let document = super::openapi::current(&self.state)
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes))
            .map_err(|e| {
                ErrorData::internal_error(format!("the tool list could not be built: {e}"), None)
            })?;
        Ok(tools::all(&document))
    }

    /// Sends `request` through the server's routes as the MCP request
    /// `parts` came; the answer's status and JSON.
    async fn send(
        &self,
        request: tools::Request,
        parts: Option<&Parts>,
    ) -> Result<(StatusCode, Value), String> {
        let body = match &request.body {
            Some(body) => Body::from(body.to_string()),
            None => Body::empty(),
        };
        let mut outgoing = axum::http::Request::new(body);
        *outgoing.method_mut() = request.method.clone();
        *outgoing.uri_mut() = request
            .path
            .parse()
            .map_err(|e| format!("the tool's path {} is invalid: {e}", request.path))?;
        if let Some(parts) = parts {
            // The caller's address, as the connection gave it, for per-client limits.
            *outgoing.extensions_mut() = parts.extensions.clone();
            for name in &FORWARDED {
                if let Some(value) = parts.headers.get(name) {
                    outgoing.headers_mut().insert(name.clone(), value.clone());
                }
            }
        }
        let json = HeaderValue::from_static("application/json");
        outgoing
            .headers_mut()
            .insert(header::CONTENT_TYPE, json.clone());
        outgoing.headers_mut().insert(header::ACCEPT, json);
        let Ok(response) = self.api.clone().oneshot(outgoing).await;
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), MAX_ANSWER_BYTES)
            .await
            .map_err(|e| format!("the route's answer could not be read: {e}"))?;
        let value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        Ok((status, value))
    }
}

/// The tool result of a route's answer: its JSON, or, for an error status, a
/// tool error with the route's error text.
fn result(status: StatusCode, answer: Value) -> CallToolResult {
    if status.is_success() {
        return match answer {
            Value::Object(_) => CallToolResult::structured(answer),
            other => CallToolResult::success(vec![ContentBlock::text(other.to_string())]),
        };
    }
    let message = [
        &answer["error"]["message"],
        &answer["error"],
        &answer["message"],
    ]
    .into_iter()
    .find_map(|v| v.as_str().map(str::to_owned))
    .unwrap_or_else(|| answer.to_string());
    CallToolResult::error(vec![ContentBlock::text(format!(
        "{} {}: {message}",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    ))])
}

impl ServerHandler for Gleaner {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("gleaner", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Gleaner collects reviews from review sites and processes review text. \
                 Each source tool fetches one page of reviews (give its continuation back for \
                 the next); for every review of a source, use submit_job, then job_status and \
                 job_reviews.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()?))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Found from the routes serving now, without building the tool list.
        let plugins = self.state.registry.plugins();
        let routes = plugins.iter().map(|p| p.manifest.route.as_str());
        let Some(target) = tools::target(&request.name, routes) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool {:?}; tools/list names the tools this server has now",
                    request.name
                ),
                None,
            ));
        };
        let arguments = request.arguments.unwrap_or_default();
        let outgoing = match target.request(&arguments) {
            Ok(outgoing) => outgoing,
            Err(e) => return Ok(CallToolResult::error(vec![ContentBlock::text(e)]).into()),
        };
        let parts = context.extensions.get::<Parts>();
        let answer = match self.send(outgoing, parts).await {
            Ok((status, answer)) => result(status, answer),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e)]),
        };
        Ok(answer.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_error_answer_is_a_tool_error_with_its_text() {
        let r = result(
            StatusCode::BAD_REQUEST,
            json!({"error": "`query` is required"}),
        );
        assert_eq!(r.is_error, Some(true));
        let text = serde_json::to_string(&r.content).unwrap();
        assert!(
            text.contains("400 Bad Request: `query` is required"),
            "{text}"
        );
        let r = result(StatusCode::OK, json!({"reviews": []}));
        assert_eq!(r.is_error, Some(false));
        assert_eq!(r.structured_content, Some(json!({"reviews": []})));
    }
}
