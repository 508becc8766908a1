//! What every answer carries, and what none ever carries. One layer over the
//! whole router:
//!
//! - a request id (the client's `x-request-id` when it is sensible, else a new
//!   one), given to the handlers as a [`RequestId`] extension and sent back;
//! - an error body, for errors the router answers by itself without one (a
//!   built-in route's 405): the same JSON error as every other;
//! - `x-content-type-options: nosniff`, and `cache-control: no-store` unless
//!   the route set its own (the `/docs` assets); a 401's `WWW-Authenticate`;
//! - no secret: header values and JSON, text, CSV and JSON Lines bodies pass
//!   the scrubber (bodies the server compressed, the `/docs` assets, and the
//!   binary Parquet exports pass untouched); a streamed body (a job's export)
//!   a chunk at a time, so it stays streamed.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use crate::error::ApiError;
use crate::secrets::Secrets;

/// The id of the request being served.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// Longest client-chosen request id kept.
const MAX_REQUEST_ID: usize = 128;

/// The request id a client sent, when it is usable.
fn client_request_id(request: &Request) -> Option<String> {
    request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= MAX_REQUEST_ID)
        .map(str::to_owned)
}

/// A new request id.
pub fn new_request_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The layer's function: see the module documentation.
pub async fn layer(
    State(secrets): State<Arc<Secrets>>,
    mut request: Request,
    next: Next,
) -> Response {
    let id = client_request_id(&request).unwrap_or_else(new_request_id);
    request.extensions_mut().insert(RequestId(id.clone()));
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let response = next.run(request).await;
    let response = with_error_body(response, &method, &path);
    let mut response = scrubbed(response, &secrets).await;
    let status = response.status();
    let headers = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&id) {
        headers.insert("x-request-id", v);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    if status == StatusCode::UNAUTHORIZED {
        // HTTP's challenge: the key goes as a Bearer token (or in x-api-key).
        headers.insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"gleaner\""),
        );
    }
    response
}

/// An error the router answered by itself (a built-in route's 405), which
/// comes with no body, gets the documented JSON error, in the simple shape of
/// the built-in routes, keeping its status and headers.
fn with_error_body(response: Response, method: &Method, path: &str) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error())
        || response.headers().contains_key(header::CONTENT_TYPE)
    {
        return response;
    }
    let allow = response
        .headers()
        .get(header::ALLOW)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let message = match (status, allow) {
        (StatusCode::METHOD_NOT_ALLOWED, Some(allow)) => format!(
            "method {method} is not allowed on {path}; it takes {}",
            allow.replace(',', ", ")
        ),
        (status, _) => format!(
            "{path} answered {status}",
            status = status.canonical_reason().unwrap_or(status.as_str())
        ),
    };
    let mut shaped =
        ApiError::Refused(status, message).into_shaped_response(crate::error::ErrorShape::Simple);
    let (mut parts, _) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    for (name, value) in shaped
        .headers_mut()
        .drain()
        .filter_map(|(n, v)| Some((n?, v)))
    {
        parts.headers.insert(name, value);
    }
    Response::from_parts(parts, shaped.into_body())
}

/// Whether a body with these headers is text the scrubber reads.
fn is_text(headers: &axum::http::HeaderMap) -> bool {
    if headers.contains_key(header::CONTENT_ENCODING) {
        return false;
    }
    let Some(kind) = headers.get(header::CONTENT_TYPE) else {
        return false;
    };
    let kind = kind.to_str().unwrap_or_default().to_ascii_lowercase();
    kind.starts_with("application/json")
        || kind.contains("+json")
        || kind.starts_with("text/plain")
        || kind.starts_with("text/csv")
        || kind.starts_with("application/x-ndjson")
}

/// The response with every secret of the server replaced in its header values
/// and, for JSON and plain text, its body.
async fn scrubbed(response: Response, secrets: &Secrets) -> Response {
    let scrubber = secrets.scrubber();
    if scrubber.is_empty() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    for value in parts.headers.values_mut() {
        let Ok(text) = value.to_str() else { continue };
        if let std::borrow::Cow::Owned(clean) = scrubber.scrub(text) {
            if let Ok(clean) = HeaderValue::from_str(&clean) {
                *value = clean;
            }
        }
    }
    if !is_text(&parts.headers) {
        return Response::from_parts(parts, body);
    }
    if axum::body::HttpBody::size_hint(&body).exact().is_none() {
        // A streamed answer (a job's export) is scrubbed a chunk at a time,
        // so it stays streamed. Each chunk holds whole records, so no
        // secret in a record spans two chunks.
        parts.headers.remove(header::CONTENT_LENGTH);
        let chunks = futures_util::StreamExt::map(body.into_data_stream(), move |chunk| {
            chunk.map(|bytes| {
                let clean = match scrubber.scrub_bytes(&bytes) {
                    std::borrow::Cow::Owned(clean) => Some(clean),
                    std::borrow::Cow::Borrowed(_) => None,
                };
                clean.map_or(bytes, axum::body::Bytes::from)
            })
        });
        return Response::from_parts(parts, Body::from_stream(chunks));
    }
    // Answers are built whole in memory, so collecting them costs no wait.
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(e) => {
            tracing::warn!(error = %e, "an answer's body could not be read to scrub it");
            return Response::from_parts(parts, Body::empty());
        }
    };
    let body = match scrubber.scrub_bytes(&bytes) {
        std::borrow::Cow::Borrowed(_) => Body::from(bytes),
        std::borrow::Cow::Owned(clean) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Body::from(clean)
        }
    };
    Response::from_parts(parts, body)
}
