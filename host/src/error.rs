//! Errors the API answers with, their HTTP statuses, and the body shapes docs/SPEC.md fixes.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::bindings::types::FetchError;
use crate::capabilities::http::credentials::redact_urls_in;

pub use crate::manifest::ErrorShape;

/// An error answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    /// The request is invalid (400).
    #[error("{0}")]
    BadRequest(String),
    /// No valid API key (401).
    #[error("missing or invalid API key; send it in the x-api-key header or as Authorization: Bearer <key>")]
    Unauthorized,
    /// A valid API key on an admin route, which needs an admin key (401).
    #[error("this route needs an admin key, and the key sent is an API key; send one of GLEANER_ADMIN_KEYS (admin_keys in the config file) in x-api-key")]
    AdminKeyNeeded,
    /// The admin API has no keys configured (401).
    #[error("the admin API is disabled: set GLEANER_ADMIN_KEYS (or admin_keys in the config file) and send one in x-api-key")]
    AdminDisabled,
    /// No such path (404).
    #[error("{0}")]
    NotFound(String),
    /// Wrong method (405).
    #[error("method {method} is not allowed on {path}; use POST with a JSON body")]
    MethodNotAllowed {
        /// Method used.
        method: String,
        /// Path.
        path: String,
    },
    /// A body that is not JSON by its `Content-Type` (415).
    #[error("the request's Content-Type is {0:?}; send JSON with Content-Type: application/json (or none)")]
    UnsupportedMediaType(String),
    /// Body too large (413).
    #[error("the request body exceeds {limit} bytes; send a smaller body")]
    PayloadTooLarge {
        /// Limit in bytes.
        limit: usize,
    },
    /// The body did not arrive in time (408).
    #[error("the request body did not arrive within {after_ms} ms; send the whole body at once")]
    BodyTimeout {
        /// The body read timeout in ms.
        after_ms: u64,
    },
    /// The upstream page does not exist (404).
    #[error("{0}")]
    UpstreamNotFound(String),
    /// The site blocked us: a bot wall, a refusal, a login wall (502).
    #[error("{0}")]
    Blocked(String),
    /// The site answered an error (502).
    #[error("{0}")]
    Upstream(String),
    /// The site or the plugin ran out of time (504).
    #[error("{0}")]
    Timeout(String),
    /// The plugin crashed (500).
    #[error("{0}")]
    PluginFailed(String),
    /// Too busy (503).
    #[error("{0}")]
    Overloaded(String),
    /// The client has its limit of requests in flight (429).
    #[error("{0}")]
    TooManyRequests(String),
    /// An error the router answered by itself (a built-in route's 405), with
    /// its status.
    #[error("{1}")]
    Refused(StatusCode, String),
}

impl ApiError {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized | ApiError::AdminKeyNeeded | ApiError::AdminDisabled => {
                StatusCode::UNAUTHORIZED
            }
            ApiError::NotFound(_) | ApiError::UpstreamNotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::BodyTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Blocked(_) | ApiError::Upstream(_) => StatusCode::BAD_GATEWAY,
            ApiError::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
            ApiError::PluginFailed(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Overloaded(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Refused(status, _) => *status,
        }
    }

    /// What went wrong, in one word a client can branch on (the forum post's `error_kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "invalid_request",
            ApiError::Unauthorized | ApiError::AdminKeyNeeded | ApiError::AdminDisabled => {
                "unauthorized"
            }
            ApiError::NotFound(_) => "no_endpoint",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::PayloadTooLarge { .. } => "too_large",
            ApiError::UnsupportedMediaType(_) => "unsupported_media_type",
            ApiError::BodyTimeout { .. } => "timeout",
            ApiError::UpstreamNotFound(_) => "not_found",
            ApiError::Blocked(_) => "blocked",
            ApiError::Upstream(_) => "upstream",
            ApiError::Timeout(_) => "timeout",
            ApiError::PluginFailed(_) => "plugin_fault",
            ApiError::Overloaded(_) => "overloaded",
            ApiError::TooManyRequests(_) => "too_many_requests",
            ApiError::Refused(status, _) => match *status {
                StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
                StatusCode::NOT_FOUND => "no_endpoint",
                StatusCode::UNAUTHORIZED => "unauthorized",
                _ => "invalid_request",
            },
        }
    }

    /// Renders the error in `shape`.
    pub fn into_shaped_response(self, shape: ErrorShape) -> Response {
        let status = match shape {
            ErrorShape::Both if self.status() != StatusCode::UNAUTHORIZED => {
                StatusCode::BAD_REQUEST
            }
            _ => self.status(),
        };
        let message = self.to_string();
        let body = match shape {
            ErrorShape::Simple => json!({ "error": message }),
            ErrorShape::Both => json!({
                "error": message, "status": status.as_u16(), "data": {}, "success": false,
                "message": message, "error_kind": self.kind(),
            }),
            ErrorShape::Structured => json!({
                "status": status.as_u16(), "data": {}, "success": false, "message": message,
            }),
        };
        let mut response = (status, axum::Json(body)).into_response();
        match &self {
            ApiError::Overloaded(_) | ApiError::TooManyRequests(_) => {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            ApiError::MethodNotAllowed { .. } => {
                response
                    .headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("POST"));
            }
            _ => {}
        }
        response
    }

    /// The error with the secrets `scrubber` knows replaced in its message.
    pub fn scrubbed(self, scrubber: &crate::secrets::Scrubber) -> ApiError {
        let clean = |m: String| scrubber.scrub(&m).into_owned();
        match self {
            ApiError::BadRequest(m) => ApiError::BadRequest(clean(m)),
            ApiError::NotFound(m) => ApiError::NotFound(clean(m)),
            ApiError::UpstreamNotFound(m) => ApiError::UpstreamNotFound(clean(m)),
            ApiError::Blocked(m) => ApiError::Blocked(clean(m)),
            ApiError::Upstream(m) => ApiError::Upstream(clean(m)),
            ApiError::Timeout(m) => ApiError::Timeout(clean(m)),
            ApiError::PluginFailed(m) => ApiError::PluginFailed(clean(m)),
            ApiError::Overloaded(m) => ApiError::Overloaded(clean(m)),
            ApiError::TooManyRequests(m) => ApiError::TooManyRequests(clean(m)),
            ApiError::UnsupportedMediaType(m) => ApiError::UnsupportedMediaType(clean(m)),
            other => other,
        }
    }

    /// Maps a plugin's typed fetch error.
    pub fn from_fetch(plugin: &str, e: FetchError) -> ApiError {
        // A plugin's message may quote a URL it built with a secret in it.
        let clean = |m: String| redact_urls_in(&m);
        match e {
            FetchError::BadQuery(m) | FetchError::BadCursor(m) => ApiError::BadRequest(clean(m)),
            FetchError::NotFound(m) => ApiError::UpstreamNotFound(clean(m)),
            FetchError::Blocked(m) => ApiError::Blocked(format!(
                "{plugin}: the site refused the request: {}",
                clean(m)
            )),
            FetchError::Upstream(m) => ApiError::Upstream(format!(
                "{plugin}: the site answered with an error: {}",
                clean(m)
            )),
            FetchError::Timeout(m) => ApiError::Timeout(format!(
                "{plugin}: the site did not answer in time: {}",
                clean(m)
            )),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.into_shaped_response(ErrorShape::Simple)
    }
}
