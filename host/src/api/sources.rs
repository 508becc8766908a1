//! `GET /sources`: every review source this server serves, with what its
//! requests take (query forms, sorts with the shared names each stands for,
//! filters, how it continues) and its fill rate per record field, from its
//! manifest. It answers without a key, like `/openapi.json`: it describes
//! the interface, no data.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::AppState;
use crate::manifest::{FieldSpec, Kind, Manifest};

/// `GET /sources`.
pub async fn handle(State(state): State<AppState>) -> Json<Value> {
    let mut plugins = state.registry.plugins();
    plugins.sort_by(|a, b| a.manifest.name.cmp(&b.manifest.name));
    let sources: Vec<Value> = plugins
        .iter()
        .filter(|p| matches!(p.manifest.kind, Kind::Source | Kind::PostSource))
        .map(|p| source(&p.manifest))
        .collect();
    Json(json!({ "sources": sources }))
}

/// One source's entry.
pub fn source(m: &Manifest) -> Value {
    let options = m.source.as_ref();
    json!({
        "label": m.name,
        "route": m.route,
        "kind": if m.kind == Kind::PostSource { "posts" } else { "reviews" },
        "version": m.version,
        "description": m.description,
        "query": options.and_then(|o| o.query_description.clone()),
        "continuation": options.map(|o| o.continuation),
        "sort": options.and_then(|o| o.sort.as_ref()).map(field),
        "filter": options.and_then(|o| o.filter.as_ref()).map(field),
        "fill_rates": m.coverage.as_ref().map(|c| json!({
            "reviews": c.reviews,
            "fields": c.fields,
        })),
    })
}

/// A sort or filter: its field, values, default and shared names.
fn field(spec: &FieldSpec) -> Value {
    json!({
        "field": spec.field,
        "type": spec.ty.describe(),
        "values": spec.values,
        "shared_names": spec.aliases,
        "default": spec.default_value(),
    })
}
