//! The MCP tools: one per plugin route, read from the OpenAPI document the
//! server serves (so a tool's input schema is its route's request schema,
//! references inlined), and the three job tools. Each tool names the HTTP
//! request that answers it.

use std::sync::Arc;

use axum::http::Method;
use rmcp::model::Tool;
use serde_json::{json, Map, Value};

/// How deep references are inlined; deeper (only a cycle goes there) is `{}`.
const MAX_DEPTH: usize = 24;

/// The request a tool call becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `POST path` with the arguments as the body.
    Post(String),
    /// `GET /jobs/{job_id}`.
    JobStatus,
    /// `GET /jobs/{job_id}/reviews?cursor=&limit=`.
    JobReviews,
}

impl Target {
    /// The method and path of a call with `arguments`, and its body; or what
    /// is wrong with the arguments.
    pub fn request(&self, arguments: &Map<String, Value>) -> Result<Request, String> {
        let job_id = || {
            arguments
                .get("job_id")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty())
                .map(|id| percent_encoding::utf8_percent_encode(id, SEGMENT).to_string())
                .ok_or_else(|| "`job_id` is required: the id submit_job answered".to_owned())
        };
        Ok(match self {
            Target::Post(path) => Request {
                method: Method::POST,
                path: path.clone(),
                body: Some(Value::Object(arguments.clone())),
            },
            Target::JobStatus => Request {
                method: Method::GET,
                path: format!("/jobs/{}", job_id()?),
                body: None,
            },
            Target::JobReviews => {
                let mut path = format!("/jobs/{}/reviews", job_id()?);
                let mut query = Vec::new();
                if let Some(cursor) = arguments.get("cursor").and_then(Value::as_str) {
                    let cursor = percent_encoding::utf8_percent_encode(cursor, SEGMENT);
                    query.push(format!("cursor={cursor}"));
                }
                match arguments.get("limit") {
                    None | Some(Value::Null) => {}
                    Some(Value::Number(n)) if n.as_u64().is_some() => {
                        query.push(format!("limit={n}"))
                    }
                    Some(other) => {
                        return Err(format!(
                            "`limit` is {other}; give a whole number, 1 to 1000"
                        ))
                    }
                }
                if !query.is_empty() {
                    path = format!("{path}?{}", query.join("&"));
                }
                Request {
                    method: Method::GET,
                    path,
                    body: None,
                }
            }
        })
    }
}

/// An HTTP request of the API.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Its method.
    pub method: Method,
    /// Its path, with any query.
    pub path: String,
    /// Its JSON body.
    pub body: Option<Value>,
}

/// What is escaped in a path segment or query value.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// The job tools' names.
const SUBMIT_JOB: &str = "submit_job";
const JOB_STATUS: &str = "job_status";
const JOB_REVIEWS: &str = "job_reviews";

/// What answers the tool `name`: a job tool, or the plugin route among
/// `routes` (those serving now) whose operation id it is.
pub fn target<'a>(name: &str, mut routes: impl Iterator<Item = &'a str>) -> Option<Target> {
    match name {
        SUBMIT_JOB => Some(Target::Post("/jobs".into())),
        JOB_STATUS => Some(Target::JobStatus),
        JOB_REVIEWS => Some(Target::JobReviews),
        _ => routes
            .find(|route| crate::openapi::operation_id(route) == name)
            .map(|route| Target::Post(route.to_owned())),
    }
}

/// Every tool, from the served OpenAPI `document`.
pub fn all(document: &Value) -> Vec<Tool> {
    let components = &document["components"]["schemas"];
    let mut tools = Vec::new();
    let operations = document["paths"]
        .as_object()
        .into_iter()
        .flat_map(|paths| paths.values())
        .map(|item| &item["post"])
        .filter(|operation| operation.get("x-gleaner-plugin").is_some());
    for operation in operations {
        let Some(name) = operation["operationId"].as_str() else {
            continue;
        };
        let description = [&operation["summary"], &operation["description"]]
            .iter()
            .filter_map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        tools.push(tool(
            name,
            description,
            request_schema(operation, components),
        ));
    }
    let submit = request_schema(&document["paths"]["/jobs"]["post"], components);
    tools.push(tool(
        SUBMIT_JOB,
        "Collects every review of a source in the background, with no time limit: \
         `endpoint` is a source's route (e.g. /customer-feedback-hub/reviews) and `request` \
         its request. Answers the job's status; follow it with job_status and read the \
         reviews with job_reviews."
            .into(),
        submit,
    ));
    let job_id =
        json!({"type": "string", "description": "The job's id, as submit_job answered it"});
    tools.push(tool(
        JOB_STATUS,
        "A job's status: its state (queued, running, succeeded, failed, cancelled), \
         the reviews collected so far, and why it stopped."
            .into(),
        object(json!({ "job_id": job_id }), &["job_id"]),
    ));
    tools.push(tool(
        JOB_REVIEWS,
        "A page of a job's reviews, oldest first, while it runs or after: give \
         `next_cursor` of one page as `cursor` to read the next."
            .into(),
        object(
            json!({
                "job_id": job_id,
                "cursor": {"type": "string", "description": "`next_cursor` of the page before; none for the first"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Reviews per page (default 100)"},
            }),
            &["job_id"],
        ),
    ));
    tools
}

fn tool(name: &str, description: String, schema: Map<String, Value>) -> Tool {
    Tool::new(name.to_owned(), description, Arc::new(schema))
}

fn object(properties: Value, required: &[&str]) -> Map<String, Value> {
    let schema = json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    });
    schema.as_object().cloned().unwrap_or_default()
}

/// The JSON request body schema of `operation`, its references inlined; an
/// open object when it has none.
fn request_schema(operation: &Value, components: &Value) -> Map<String, Value> {
    let schema = &operation["requestBody"]["content"]["application/json"]["schema"];
    match inline(schema, components, 0) {
        Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("object") => map,
        _ => object(json!({}), &[]),
    }
}

/// `schema` with every `#/components/schemas/…` reference replaced by what
/// it names.
fn inline(schema: &Value, components: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return json!({});
    }
    match schema {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                return inline(&components[name], components, depth + 1);
            }
            let inlined = map
                .iter()
                .map(|(k, v)| (k.clone(), inline(v, components, depth + 1)))
                .collect();
            Value::Object(inlined)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| inline(v, components, depth + 1))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_inlined_and_cycles_cut() {
        let components = json!({
            "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
            "B": {"type": "string", "maxLength": 5},
            "Loop": {"type": "object", "properties": {"again": {"$ref": "#/components/schemas/Loop"}}},
        });
        let a = inline(&json!({"$ref": "#/components/schemas/A"}), &components, 0);
        assert_eq!(
            a["properties"]["b"],
            json!({"type": "string", "maxLength": 5})
        );
        let looped = inline(
            &json!({"$ref": "#/components/schemas/Loop"}),
            &components,
            0,
        );
        assert!(!looped.to_string().contains("$ref"), "{looped}");
    }

    #[test]
    fn a_tool_is_found_by_its_routes_operation_id() {
        let routes = ["/customer-feedback-hub/reviews", "/features/review-chunk"];
        let found = |name| target(name, routes.into_iter());
        assert_eq!(
            found("features_review_chunk"),
            Some(Target::Post("/features/review-chunk".into()))
        );
        assert_eq!(found("submit_job"), Some(Target::Post("/jobs".into())));
        assert_eq!(found("job_reviews"), Some(Target::JobReviews));
        assert_eq!(found("features_review"), None);
    }

    #[test]
    fn job_tools_become_requests_with_the_id_escaped() {
        let args = |v: Value| v.as_object().cloned().unwrap();
        let r = Target::JobStatus
            .request(&args(json!({"job_id": "a/b"})))
            .unwrap();
        assert_eq!((r.method, r.path.as_str()), (Method::GET, "/jobs/a%2Fb"));
        let r = Target::JobReviews
            .request(&args(json!({"job_id": "j1", "cursor": "500", "limit": 50})))
            .unwrap();
        assert_eq!(r.path, "/jobs/j1/reviews?cursor=500&limit=50");
        let e = Target::JobReviews
            .request(&args(json!({"job_id": "j1", "limit": "many"})))
            .unwrap_err();
        assert!(e.contains("`limit`"), "{e}");
        let e = Target::JobStatus.request(&args(json!({}))).unwrap_err();
        assert!(e.contains("submit_job"), "{e}");
        let r = Target::Post("/x/reviews".into())
            .request(&args(json!({"query": "q"})))
            .unwrap();
        assert_eq!(r.body, Some(json!({"query": "q"})));
    }
}
