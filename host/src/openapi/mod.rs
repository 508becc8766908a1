//! The OpenAPI 3.1 document of the API as it is served: one path per plugin
//! route, assembled from the plugins' manifests (request fields, declared
//! processor output), plus the records the host builds, the error shapes and
//! statuses each route kind answers with, the security schemes, and the
//! routes no plugin serves. `GET /openapi.json` builds it from the registry on
//! each request, so it changes with every hot swap; `gleaner openapi` builds
//! it from the plugin directory's manifests without starting a server.

mod errors;
mod jobs;
mod kit;
mod outputs;
mod records;
mod requests;
mod service;

use std::path::{Path, PathBuf};

use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, PathItem, Paths};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::schema::{ComponentsBuilder, Schema, Type};
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{ContentBuilder, InfoBuilder, OpenApi, OpenApiBuilder, RefOr, Required};

use crate::manifest::{Kind, Manifest};
use errors::RouteKind;

/// What the server's configuration changes in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Whether API keys are configured: then plugin routes need one and may
    /// answer 401; without keys they take requests without one.
    pub api_keys: bool,
    /// Whether admin keys are configured (without them the admin API answers 401).
    pub admin_keys: bool,
}

const DESCRIPTION: &str = "Collects reviews through sandboxed WebAssembly plugins, processes review text and site assets, and extracts SEO metadata from websites.\n\n\
Every plugin route takes `POST` with a JSON body (`Content-Type: application/json`, or none) and answers JSON; any other method gets 405 with `Allow: POST`, and a path no plugin serves gets 404 (401 first when a key is required and missing). \
Review-fetch and processor endpoints, the routes no plugin serves (`/healthz`, `/metrics`, `/openapi.json`, `/docs`, `/admin/*`) and paths nothing serves answer errors as `{\"error\": \"...\"}`; the forum-post endpoint answers every failure but 401 with HTTP 400 in both shapes at once plus `error_kind`; everything under `/public/` answers `{\"status\", \"data\", \"success\": false, \"message\"}`. \
Every error has its JSON body and an `x-request-id`; a 405 carries `Allow`, a 401 `WWW-Authenticate`. \
A JSON object that names a field twice is refused with 400 on every endpoint. \
This document is assembled from the manifests of the plugins serving now, so it changes with every hot swap.";

/// Builds the document for the plugins of these manifests (one path each).
pub fn document(manifests: &[&Manifest], access: Access) -> OpenApi {
    let mut paths = Paths::new();
    for manifest in manifests {
        if let Some(item) = plugin_path(manifest, access) {
            paths.paths.insert(manifest.route.clone(), item);
        }
    }
    for (route, item) in service::public_paths() {
        paths.paths.insert(route.to_owned(), item);
    }
    for (route, item) in service::admin_paths(access.admin_keys) {
        paths.paths.insert(route.to_owned(), item);
    }
    for (route, item) in jobs::paths(access.api_keys) {
        paths.paths.insert(route.to_owned(), item);
    }
    let mut components = ComponentsBuilder::new();
    let schemas = records::components()
        .into_iter()
        .chain(errors::components())
        .chain(service::components())
        .map(|(name, schema)| (name.to_owned(), schema))
        .chain(jobs::components());
    for (name, schema) in schemas {
        components = components.schema(name, schema);
    }
    for (name, scheme) in errors::schemes() {
        components = components.security_scheme(name, scheme);
    }
    let tags = [
        (
            "reviews",
            "Review-fetch endpoints: one per review source, the same record on each",
        ),
        ("posts", "The forum post"),
        ("processors", "Processors: JSON in, JSON out"),
        (
            "jobs",
            "Jobs: long fetches run in the background, with webhooks",
        ),
        ("schedules", "Schedules: runs that deliver only new reviews"),
        ("service", "Health and documentation"),
        ("admin", "The admin API, for operators, with its own keys"),
    ]
    .map(|(name, text)| TagBuilder::new().name(name).description(Some(text)).build());
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("Gleaner")
                .version(API_VERSION)
                .description(Some(DESCRIPTION))
                .extensions(Some(
                    utoipa::openapi::extensions::ExtensionsBuilder::new()
                        .add("x-server-version", env!("CARGO_PKG_VERSION"))
                        .build(),
                ))
                .build(),
        )
        .paths(paths)
        .components(Some(components.build()))
        .tags(Some(tags))
        .build()
}

/// The version of the interface the server implements (the specification's),
/// as `info.version`; the server's own version is `info.x-server-version`.
pub const API_VERSION: &str = "1.0.0";

/// The document as indented JSON text, for people and files.
pub fn pretty_json(document: &OpenApi) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(&value(document)?)
}

/// The document as compact JSON text, as `/openapi.json` serves it.
pub fn json(document: &OpenApi) -> Result<String, serde_json::Error> {
    serde_json::to_string(&value(document)?)
}

/// The document as JSON, with its response links' keys spelt as OpenAPI
/// spells them: utoipa 5 writes a link's fields in snake case.
fn value(document: &OpenApi) -> Result<serde_json::Value, serde_json::Error> {
    let mut doc = serde_json::to_value(document)?;
    let operations = doc["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|p| p.values_mut());
    let operations = operations
        .filter_map(|item| item.as_object_mut())
        .flat_map(|i| i.values_mut());
    for operation in operations {
        let Some(responses) = operation
            .get_mut("responses")
            .and_then(|r| r.as_object_mut())
        else {
            continue;
        };
        let links = responses.values_mut().filter_map(|r| r.get_mut("links"));
        for link in links
            .filter_map(|l| l.as_object_mut())
            .flat_map(|l| l.values_mut())
        {
            let Some(link) = link.as_object_mut() else {
                continue;
            };
            for (from, to) in [
                ("operation_id", "operationId"),
                ("operation_ref", "operationRef"),
                ("request_body", "requestBody"),
            ] {
                if let Some(v) = link.remove(from) {
                    link.insert(to.to_owned(), v);
                }
            }
        }
    }
    Ok(doc)
}

/// A lower-case identifier of a route: `/a-b/reviews` gives `a_b_reviews`.
pub fn operation_id(route: &str) -> String {
    route
        .trim_matches('/')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// The path of one plugin route; none for a manifest whose kind lacks its options.
fn plugin_path(manifest: &Manifest, access: Access) -> Option<PathItem> {
    let (request, ok, kind, tag, shape) = match manifest.kind {
        Kind::Source => {
            let options = manifest.source.as_ref()?;
            (
                requests::source_request(options),
                records::fetch_response(options.continuation, options.extra.as_ref()),
                RouteKind::Source,
                "reviews",
                manifest.error_shape(),
            )
        }
        Kind::PostSource => (
            requests::post_request(),
            records::post_response(),
            RouteKind::Post,
            "posts",
            manifest.error_shape(),
        ),
        Kind::Processor => {
            let options = manifest.processor.as_ref()?;
            (
                requests::processor_request(&options.fields),
                outputs::processor_response(options.output.as_ref()),
                RouteKind::Processor,
                "processors",
                manifest.error_shape(),
            )
        }
    };
    let mut ok_response = errors::plugin_headers(ResponseBuilder::new().description("The answer"))
        .content("application/json", json_content(ok));
    if kind == RouteKind::Processor {
        ok_response = ok_response.header(
            "x-gleaner-engine",
            HeaderBuilder::new()
                .schema(typed_string())
                .description(Some("Which path answered: `llm` or `rules`"))
                .build(),
        );
    }
    let mut responses = errors::error_responses(kind, shape, access.api_keys);
    responses
        .responses
        .insert("200".into(), ok_response.build().into());
    let summary = if manifest.description.trim().is_empty() {
        manifest.name.clone()
    } else {
        manifest.description.trim().to_owned()
    };
    let operation = OperationBuilder::new()
        .summary(Some(summary))
        .description(Some(format!(
            "Served by plugin {} {} (kind {}).",
            manifest.name,
            manifest.version,
            manifest.kind.world()
        )))
        .operation_id(Some(operation_id(&manifest.route)))
        .tag(tag)
        .request_body(Some(
            RequestBodyBuilder::new()
                .required(Some(Required::True))
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(request))
                        .example(manifest.example.clone().map(serde_json::Value::Object))
                        .build(),
                )
                .build(),
        ))
        .responses(responses)
        .securities(Some(errors::plugin_security(access.api_keys)))
        .extensions(Some(
            ExtensionsBuilder::new()
                .add(
                    "x-gleaner-plugin",
                    serde_json::json!({
                        "name": manifest.name,
                        "version": manifest.version,
                        "kind": manifest.kind.world(),
                    }),
                )
                .build(),
        ));
    Some(PathItem::new(HttpMethod::Post, operation))
}

fn json_content(schema: RefOr<Schema>) -> utoipa::openapi::Content {
    ContentBuilder::new().schema(Some(schema)).build()
}

fn typed_string() -> RefOr<Schema> {
    kit::typed(Type::String, false).into()
}

/// The manifests of a plugin directory, as the server would load them: every
/// `*.toml` file that parses and passes the checks, sorted by route; when two
/// serve one route, the first by file name. The problems name each file skipped.
pub fn manifests_in(dir: &Path) -> anyhow::Result<(Vec<Manifest>, Vec<String>)> {
    let files: Vec<PathBuf> = crate::registry::manifest_files(dir)?;
    let mut manifests: Vec<Manifest> = Vec::new();
    let mut problems = Vec::new();
    if files.is_empty() {
        problems.push(format!(
            "no plugin manifest (*.toml) in {}; set GLEANER_PLUGIN_DIR (or plugin_dir in the config file) to the plugin directory",
            dir.display()
        ));
    }
    for file in files {
        match Manifest::load(&file) {
            Ok(m) => {
                if let Some(other) = manifests.iter().find(|o| o.route == m.route) {
                    problems.push(format!(
                        "{}: route {} is also declared by plugin {}; only one of them is served, so give each plugin its own route",
                        file.display(),
                        m.route,
                        other.name
                    ));
                    continue;
                }
                manifests.push(m);
            }
            Err(e) => problems.push(format!("{e}; the plugin is left out of the document")),
        }
    }
    manifests.sort_by(|a, b| a.route.cmp(&b.route));
    Ok((manifests, problems))
}
