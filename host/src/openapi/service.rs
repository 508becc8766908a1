//! The routes no plugin serves: `/healthz`, `/openapi.json`, `/docs`, and the
//! admin API under `/admin` with its own keys (`crate::api::admin`).

use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItem,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::{ResponseBuilder, Responses};
use utoipa::openapi::schema::{AdditionalProperties, ArrayBuilder, Schema, Type};
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{ContentBuilder, RefOr, Required};

use super::errors::ADMIN_KEY;
use super::kit::{described, nullable_reference, record, reference, typed};

/// Component schemas of the admin API.
pub fn components() -> Vec<(&'static str, RefOr<Schema>)> {
    let text = |nullable: bool, d: &str| described(typed(Type::String, nullable), d);
    let status = record([
        ("manifest", text(false, "Manifest file name")),
        ("name", text(false, "Plugin name")),
        ("kind", described(
            typed(Type::String, true).enum_values(Some([Some("source"), Some("post-source"), Some("processor"), None])),
            "Kind of the serving version",
        )),
        ("route", text(true, "Route of the serving version")),
        ("version", text(true, "Version serving")),
        ("sha256", text(true, "SHA-256 of the serving component")),
        ("loaded_at", text(true, "When the serving version was loaded (RFC 3339)")),
        ("status", described(
            typed(Type::String, false).enum_values(Some(["active", "degraded", "loading", "failed"])),
            "active (serving, last load fine), degraded (serving an older version; the newest failed), loading (its first load is under way) or failed",
        )),
        ("last_error", text(true, "Why the most recent load failed")),
        ("compile_ms", described(typed(Type::Integer, true).minimum(Some(0)), "Compile (or artifact or cache load) time of the serving version")),
        ("code", described(
            typed(Type::String, true).enum_values(Some([Some("artifact"), Some("cache"), Some("compiled"), None])),
            "Where the serving version's compiled code came from",
        )),
        ("artifact_note", text(true, "Why an artifact beside the component was not used")),
    ])
    .additional_properties(Some(AdditionalProperties::<Schema>::FreeForm(false)));
    vec![("PluginStatus", status.into())]
}

fn json_response(description: &str, schema: RefOr<Schema>) -> RefOr<utoipa::openapi::Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new().schema(Some(schema)).build(),
        )
        .into()
}

/// An error answered as `{"error": "..."}`.
fn error_response(description: &str) -> RefOr<utoipa::openapi::Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(reference("Error")))
                .build(),
        )
        .into()
}

fn responses(list: Vec<(u16, RefOr<utoipa::openapi::Response>)>) -> Responses {
    let mut responses = Responses::new();
    for (status, response) in list {
        responses.responses.insert(status.to_string(), response);
    }
    responses
}

/// The public routes: `/healthz`, `/openapi.json`, `/docs`.
pub fn public_paths() -> Vec<(&'static str, PathItem)> {
    let get = |summary: &str,
               description: &str,
               answers: Vec<(u16, RefOr<utoipa::openapi::Response>)>,
               tag: &str| {
        PathItem::new(
            HttpMethod::Get,
            OperationBuilder::new()
                .summary(Some(summary))
                .description(Some(description))
                .operation_id(Some(summary.to_lowercase().replace(' ', "_")))
                .tag(tag)
                .responses(responses(answers)),
        )
    };
    let html = ResponseBuilder::new()
        .description("An HTML page rendering this document")
        .content(
            "text/html",
            ContentBuilder::new()
                .schema(Some(typed(Type::String, false)))
                .build(),
        )
        .into();
    vec![
        (
            "/healthz",
            get(
                "Health",
                "Answers without a key, for load balancers: 200 while some plugin serves or is loading (`status` is `loading` while plugins are still compiling after start-up), 503 with `status: \"no plugins\"` when none is, as when the plugin directory is empty or every plugin failed to load.",
                vec![
                    (200, json_response("The server's health", reference("Health"))),
                    (
                        503,
                        json_response("No plugin serves or is loading", reference("Health")),
                    ),
                ],
                "service",
            ),
        ),
        (
            "/openapi.json",
            get(
                "OpenAPI document",
                "This document, assembled from the manifests of the plugins serving now: it changes with every hot swap. Answers without a key.",
                vec![(
                    200,
                    json_response("The OpenAPI 3.1 document", typed(Type::Object, false).into()),
                )],
                "service",
            ),
        ),
        (
            "/sources",
            get(
                "Sources",
                "Every review source this server serves, answering without a key: its label and route, what `query` takes, its sort and filter (with the shared sort names `newest`, `oldest`, `highest_rating`, `lowest_rating` and `most_relevant` it accepts, each standing for one of the site's values), how it continues a fetch, and `fill_rates`: the share of the reviews of its replay cases (recorded responses) that fill each record field. `gleaner coverage` prints the same table.",
                vec![(
                    200,
                    json_response(
                        "The sources, by label",
                        typed(Type::Object, false).into(),
                    ),
                )],
                "service",
            ),
        ),
        (
            "/metrics",
            PathItem::new(
                HttpMethod::Get,
                OperationBuilder::new()
                    .summary(Some("Metrics"))
                    .description(Some(
                        "The server's metrics in Prometheus text format. With metrics keys (GLEANER_METRICS_KEYS) or admin keys configured, only a request carrying one of them (x-api-key or Authorization: Bearer) may read them; with neither, anyone may while the server listens on loopback, and nobody otherwise.",
                    ))
                    .operation_id(Some("metrics"))
                    .tag("service")
                    .responses(responses(vec![
                        (
                            200,
                            ResponseBuilder::new()
                                .description("Prometheus text exposition format 0.0.4")
                                .content(
                                    "text/plain",
                                    ContentBuilder::new().schema(Some(typed(Type::String, false))).build(),
                                )
                                .into(),
                        ),
                        (401, error_response("Keys are configured and the request carries none of them")),
                        (403, error_response("No key is configured and the server listens beyond loopback")),
                        (503, error_response("The metrics could not be rendered")),
                    ])),
            ),
        ),
        (
            "/receipts/public-key",
            get(
                "Receipt public key",
                "The Ed25519 public key review receipts are signed with (a request's `receipts: true`), base64url, and its id, which each receipt's `key_id` names. Answers without a key. `gleaner receipt verify` checks receipts with it offline.",
                vec![(
                    200,
                    json_response(
                        "The key",
                        record([
                            ("algorithm", described(typed(Type::String, false), "Ed25519")),
                            ("public_key", described(typed(Type::String, false), "The 32-byte public key, base64url without padding")),
                            ("key_id", described(typed(Type::String, false), "16 hex digits of the key's SHA-256")),
                        ])
                        .into(),
                    ),
                )],
                "service",
            ),
        ),
        ("/mcp", mcp_path()),
        (
            "/docs",
            get(
                "API documentation",
                "A human-readable page rendered from /openapi.json. Answers without a key.",
                vec![(200, html)],
                "service",
            ),
        ),
    ]
}

/// `POST /mcp`: JSON-RPC messages of the Model Context Protocol.
fn mcp_path() -> PathItem {
    let message = described(
        typed(Type::Object, false),
        "A JSON-RPC 2.0 message of the Model Context Protocol: `initialize`, `tools/list`, `tools/call`, …",
    );
    PathItem::new(
        HttpMethod::Post,
        OperationBuilder::new()
            .summary(Some("MCP"))
            .description(Some(
                "The Model Context Protocol over Streamable HTTP (2025-06-18 and newer), stateless, each answer one JSON message. Its tools are the plugin routes of this document (named by their operation ids) and `submit_job`, `job_status` and `job_reviews`; a call is answered by its route with the caller's key. Send `Accept: application/json, text/event-stream`. With API keys configured, a request without one is answered 401 before it is read. See docs/api.md, \"MCP\".",
            ))
            .operation_id(Some("mcp"))
            .tag("service")
            .request_body(Some(
                RequestBodyBuilder::new()
                    .required(Some(Required::True))
                    .content("application/json", ContentBuilder::new().schema(Some(message.clone())).build())
                    .build(),
            ))
            .responses(responses(vec![
                (200, json_response("The JSON-RPC answer", message)),
                (202, ResponseBuilder::new().description("A notification, accepted").into()),
                (400, error_response("Not a JSON-RPC message, or one that needs an earlier message")),
                (401, error_response("API keys are configured and the request carries none of them")),
                (403, error_response("No API key is configured and the Host header is not a loopback name")),
                (406, error_response("The Accept header lacks application/json or text/event-stream")),
                (413, error_response("The message is over max_body_bytes")),
                (415, error_response("The Content-Type is not application/json")),
            ])),
    )
}

/// The admin API's paths; `enabled` is whether admin keys are configured
/// (without them every admin request gets 401).
pub fn admin_paths(enabled: bool) -> Vec<(&'static str, PathItem)> {
    let security = vec![SecurityRequirement::new(ADMIN_KEY, Vec::<String>::new())];
    let unauthorized = if enabled {
        "Missing or invalid admin key"
    } else {
        "The admin API is disabled: no admin key is configured (GLEANER_ADMIN_KEYS)"
    };
    let plugins = || -> RefOr<Schema> {
        record([(
            "plugins",
            ArrayBuilder::new().items(reference("PluginStatus")).into(),
        )])
        .property(
            "replicas",
            ArrayBuilder::new()
                .items(typed(Type::Object, false))
                .description(Some(
                    "In cluster mode: each replica's version of each plugin, as the replicas report it \
                     (`replica`, `plugin`, `version`, `sha256`, `state`: serving, refused or removed, `error`, `at`)",
                )),
        )
        .into()
    };
    let op =
        |id: &str, summary: &str, ok: RefOr<utoipa::openapi::Response>, errors: &[(u16, &str)]| {
            let mut list = vec![(200, ok), (401, error_response(unauthorized))];
            for (status, when) in errors {
                list.push((*status, error_response(when)));
            }
            OperationBuilder::new()
                .summary(Some(summary))
                .operation_id(Some(id))
                .tag("admin")
                .securities(Some(security.clone()))
                .responses(responses(list))
        };
    let name = ParameterBuilder::new()
        .name("name")
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .description(Some("The plugin name: 1 to 64 lower-case ASCII letters, digits and '-', starting with a letter or digit"))
        .schema(Some(typed(Type::String, false)))
        .build();
    let upload_body = RequestBodyBuilder::new()
        .required(Some(Required::True))
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(
                    record([
                        (
                            "manifest",
                            described(typed(Type::String, false), "The manifest's TOML text"),
                        ),
                        (
                            "component",
                            described(
                                typed(Type::String, false),
                                "The component (.wasm), base64-encoded",
                            ),
                        ),
                    ])
                    .additional_properties(Some(AdditionalProperties::<Schema>::FreeForm(false))),
                ))
                .build(),
        )
        .build();
    let upload = op(
        "admin_upload_plugin",
        "Upload (install or replace) a plugin",
        json_response(
            "The plugin's status after the swap",
            record([("plugin", nullable_reference("PluginStatus"))]).into(),
        ),
        &[
            (400, "Invalid name, body, manifest or component; the plugin does not load; or the plugin directory is not writable"),
            (408, "The body did not arrive within the body read timeout"),
            (413, "The body exceeds admin_max_body_bytes"),
        ],
    )
    .parameter(name.clone())
    .request_body(Some(upload_body));
    let delete = op(
        "admin_delete_plugin",
        "Delete a plugin",
        json_response(
            "The plugin was deleted",
            record([("deleted", typed(Type::String, false).into())]).into(),
        ),
        &[
            (400, "Invalid plugin name"),
            (404, "No plugin of that name"),
        ],
    )
    .parameter(name);
    let mut plugin_item = PathItem::new(HttpMethod::Put, upload);
    plugin_item.merge_operations(PathItem::new(HttpMethod::Delete, delete));
    vec![
        (
            "/admin/plugins",
            PathItem::new(
                HttpMethod::Get,
                op(
                    "admin_list_plugins",
                    "List the plugins and their status",
                    json_response("Every manifest's status", plugins()),
                    &[],
                ),
            ),
        ),
        ("/admin/plugins/{name}", plugin_item),
        (
            "/admin/reload",
            PathItem::new(
                HttpMethod::Post,
                op(
                    "admin_reload",
                    "Reload every plugin from the plugin directory",
                    json_response("Every manifest's status after the reload", plugins()),
                    &[(400, "The plugin directory cannot be read")],
                ),
            ),
        ),
    ]
}
