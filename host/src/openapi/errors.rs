//! Error bodies and statuses per route kind (`crate::error`), the headers the
//! server sets, and the security schemes (`crate::api::auth`).

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::response::{ResponseBuilder, Responses};
use utoipa::openapi::schema::{AdditionalProperties, Schema, Type};
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
};
use utoipa::openapi::{ContentBuilder, RefOr};

use super::kit::{described, record, reference, typed};

/// Every `error_kind` the forum-post shape may carry (`ApiError::kind`).
const ERROR_KINDS: [&str; 13] = [
    "invalid_request",
    "unauthorized",
    "no_endpoint",
    "method_not_allowed",
    "too_large",
    "unsupported_media_type",
    "timeout",
    "not_found",
    "blocked",
    "upstream",
    "plugin_fault",
    "overloaded",
    "too_many_requests",
];

/// The error body shapes as component schemas.
pub fn components() -> Vec<(&'static str, RefOr<Schema>)> {
    let message = |d: &str| described(typed(Type::String, false), d);
    let closed = |o: utoipa::openapi::schema::ObjectBuilder| -> RefOr<Schema> {
        o.additional_properties(Some(AdditionalProperties::<Schema>::FreeForm(false)))
            .into()
    };
    let status = || {
        typed(Type::Integer, false)
            .minimum(Some(400))
            .maximum(Some(599))
    };
    let empty = || typed(Type::Object, false).max_properties(Some(0));
    let failed = || typed(Type::Boolean, false).enum_values(Some([false]));
    vec![
        (
            "Error",
            closed(
                record([("error", message("What was wrong and how to fix it"))])
                    .description(Some("The error shape of review-fetch and processor endpoints")),
            ),
        ),
        (
            "ErrorBoth",
            closed(
                record([
                    ("error", message("What was wrong and how to fix it")),
                    ("status", typed(Type::Integer, false).enum_values(Some([400, 401])).into()),
                    ("data", empty().into()),
                    ("success", failed().into()),
                    ("message", message("The same as `error`")),
                    ("error_kind", described(
                        typed(Type::String, false).enum_values(Some(ERROR_KINDS)),
                        "The precise cause, to branch on",
                    )),
                ])
                .description(Some("The forum-post error shape: both shapes at once, always HTTP 400 but for 401, with the precise cause")),
            ),
        ),
        (
            "ErrorStructured",
            closed(
                record([
                    ("status", status().into()),
                    ("data", empty().into()),
                    ("success", failed().into()),
                    ("message", message("What was wrong and how to fix it")),
                ])
                .description(Some("The error shape of the website-info endpoints under /public/")),
            ),
        ),
    ]
}

/// The error shape of a route, as its manifest declares it.
pub use crate::manifest::ErrorShape as Shape;

/// The schema each shape's errors answer with.
trait SchemaName {
    fn schema(self) -> &'static str;
}

impl SchemaName for Shape {
    fn schema(self) -> &'static str {
        match self {
            Shape::Simple => "Error",
            Shape::Both => "ErrorBoth",
            Shape::Structured => "ErrorStructured",
        }
    }
}

/// The statuses a route of this kind really answers with, and when.
pub fn statuses(kind: RouteKind, auth: bool) -> Vec<(u16, &'static str)> {
    let mut out = vec![(400, match kind {
        RouteKind::Source => "Invalid request: wrong type, unknown or repeated field, blank `query`, unknown sort or filter value, malformed `sync_date`, `reviews_to_fetch` out of range, a corrupted, forged or foreign continuation token, or a query that is not a page of the source",
        RouteKind::Post => "Every failure but 401, with `error_kind` naming the cause: invalid request, post not found, blocked, upstream error, timeout, plugin fault, body too large or slow, not JSON, overloaded, too many requests in flight for the client",
        RouteKind::Processor => "Invalid request: wrong type, unknown or repeated field, missing or blank required field, a value outside its enumeration or bounds; or input the processor refuses (for website processors: the site is unreachable, not HTML, or not a public address)",
    })];
    if auth {
        out.push((
            401,
            "Missing or invalid API key (send it in x-api-key or as Authorization: Bearer)",
        ));
    }
    if kind == RouteKind::Post {
        return out;
    }
    if kind == RouteKind::Source {
        out.push((404, "The source says the page does not exist"));
    }
    out.extend([
        (408, "The request body did not arrive within the body read timeout"),
        (413, "The request body exceeds the size limit (max_body_bytes)"),
        (415, "A Content-Type that is not JSON (application/json or */*+json); a request without one is read as JSON"),
        (429, "This API key or client address already has its limit of requests in flight (max_in_flight_per_key, max_in_flight_per_client); retry after Retry-After seconds"),
        (500, "The plugin crashed (trap, memory cap, broken contract) or returned invalid output"),
    ]);
    if kind == RouteKind::Source {
        out.push((502, "The site blocked the request or answered an error"));
    }
    out.extend([
        (503, "Too many requests at once (in all or for this plugin), plugin memory at its limit, or the plugin is still loading; retry after Retry-After seconds"),
        (504, "The site or the plugin ran out of time"),
    ]);
    out
}

/// What a route serves, which decides its statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteKind {
    /// A review source.
    Source,
    /// The forum post.
    Post,
    /// A processor.
    Processor,
}

/// The `x-request-id` header every response carries.
pub fn request_id_header() -> utoipa::openapi::header::Header {
    HeaderBuilder::new()
        .schema(typed(Type::String, false))
        .description(Some(
            "The request's id: the client's x-request-id (1 to 128 characters), or one generated",
        ))
        .build()
}

/// The headers a plugin's responses carry.
pub fn plugin_headers(response: ResponseBuilder) -> ResponseBuilder {
    response
        .header("x-request-id", request_id_header())
        .header(
            "x-gleaner-plugin",
            HeaderBuilder::new()
                .schema(typed(Type::String, false))
                .description(Some("The plugin that served the request"))
                .build(),
        )
        .header(
            "x-gleaner-plugin-version",
            HeaderBuilder::new()
                .schema(typed(Type::String, false))
                .description(Some("Its version"))
                .build(),
        )
}

/// The error responses of a route, in its shape.
pub fn error_responses(kind: RouteKind, shape: Shape, auth: bool) -> Responses {
    let mut responses = Responses::new();
    for (status, when) in statuses(kind, auth) {
        let mut response = plugin_headers(ResponseBuilder::new().description(when)).content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(reference(shape.schema())))
                .build(),
        );
        if status == 503 || (shape == Shape::Both && status == 400) {
            response = response.header(
                "retry-after",
                HeaderBuilder::new()
                    .schema(typed(Type::Integer, false))
                    .description(Some(
                        "Seconds to wait before retrying (sent when the server is overloaded)",
                    ))
                    .build(),
            );
        }
        responses
            .responses
            .insert(status.to_string(), response.build().into());
    }
    responses
}

/// The name of the API key scheme (header `x-api-key`).
pub const API_KEY: &str = "ApiKeyAuth";
/// The name of the bearer scheme (`Authorization: Bearer <key>`).
pub const BEARER: &str = "BearerAuth";
/// The name of the admin key scheme.
pub const ADMIN_KEY: &str = "AdminKeyAuth";

/// The security schemes.
pub fn schemes() -> Vec<(&'static str, SecurityScheme)> {
    vec![
        (
            API_KEY,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "x-api-key",
                "An API key (GLEANER_API_KEYS). Compared in constant time and never logged.",
            ))),
        ),
        (
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("The same API key as `Authorization: Bearer <key>`"))
                    .build(),
            ),
        ),
        (
            ADMIN_KEY,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "x-api-key",
                "An admin key (GLEANER_ADMIN_KEYS), for /admin only; `Authorization: Bearer <key>` is accepted too",
            ))),
        ),
    ]
}

/// The requirement of a plugin route: either scheme; none when the server has no key.
pub fn plugin_security(auth: bool) -> Vec<SecurityRequirement> {
    let mut out = vec![
        SecurityRequirement::new(API_KEY, Vec::<String>::new()),
        SecurityRequirement::new(BEARER, Vec::<String>::new()),
    ];
    if !auth {
        out.insert(0, SecurityRequirement::default());
    }
    out
}
