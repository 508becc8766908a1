//! `/jobs` and `/schedules` in the document (`crate::api::jobs`): the
//! status body of a job, a schedule's body, and every route with its
//! errors (answered as `{"error": "..."}`).

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::link::LinkBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItem,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::{ResponseBuilder, Responses};
use utoipa::openapi::schema::{AdditionalProperties, ArrayBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{ContentBuilder, RefOr, Required};

use utoipa::{PartialSchema, ToSchema};

use super::errors::plugin_security;
use super::kit::{described, record, reference, typed};
use crate::jobs::changes::ChangeBody;
use crate::jobs::status::{JobStatus, ScheduleBody, WebhookRequest};

fn closed(object: ObjectBuilder) -> ObjectBuilder {
    object.additional_properties(Some(AdditionalProperties::<Schema>::FreeForm(false)))
}

fn text(nullable: bool, d: &str) -> RefOr<Schema> {
    described(typed(Type::String, nullable), d)
}

/// The component schemas, each derived from the one definition the API
/// answers or takes with: `JobStatus` and `Schedule` (with the types they
/// name: `JobState`, `StopReason`, `WebhookStatus`, `WebhookTarget`), and
/// `Webhook`, the webhook a request gives.
pub fn components() -> Vec<(String, RefOr<Schema>)> {
    let mut derived = vec![(
        <JobStatus as ToSchema>::name().into_owned(),
        <JobStatus as PartialSchema>::schema(),
    )];
    <JobStatus as ToSchema>::schemas(&mut derived);
    derived.push((
        <ScheduleBody as ToSchema>::name().into_owned(),
        <ScheduleBody as PartialSchema>::schema(),
    ));
    <ScheduleBody as ToSchema>::schemas(&mut derived);
    derived.push((
        <WebhookRequest as ToSchema>::name().into_owned(),
        <WebhookRequest as PartialSchema>::schema(),
    ));
    derived.push((
        <ChangeBody as ToSchema>::name().into_owned(),
        <ChangeBody as PartialSchema>::schema(),
    ));
    <ChangeBody as ToSchema>::schemas(&mut derived);
    derived
}

fn json(description: &str, schema: RefOr<Schema>) -> ResponseBuilder {
    ResponseBuilder::new().description(description).content(
        "application/json",
        ContentBuilder::new().schema(Some(schema)).build(),
    )
}

fn error(description: &str) -> RefOr<utoipa::openapi::Response> {
    json(description, reference("Error")).build().into()
}

fn location(response: ResponseBuilder) -> ResponseBuilder {
    response.header(
        "location",
        HeaderBuilder::new()
            .schema(typed(Type::String, false))
            .description(Some("Where to read it"))
            .build(),
    )
}

/// Links from a created item's answer to the operations on it, its `id`
/// taken from the answer's `field`.
fn links(response: ResponseBuilder, field: &str, operations: &[&str]) -> ResponseBuilder {
    operations.iter().fold(response, |response, operation| {
        let link = LinkBuilder::new()
            .operation_id(*operation)
            .parameter("id", format!("$response.body#/{field}"))
            .build();
        response.link(*operation, link)
    })
}

fn id_parameter(what: &str) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name("id")
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .description(Some(format!("The {what}'s id")))
        .schema(Some(typed(Type::String, false)))
        .build()
}

fn query(name: &str, schema: ObjectBuilder, d: &str) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description(Some(d))
        .schema(Some(schema))
        .build()
}

/// An operation with its success, the errors every one has, and `errors`.
/// `parameter`, required.
fn required(mut parameter: utoipa::openapi::path::Parameter) -> utoipa::openapi::path::Parameter {
    parameter.required = Required::True;
    parameter
}

fn op(
    id: &str,
    summary: &str,
    tag: &str,
    auth: bool,
    ok: (u16, RefOr<utoipa::openapi::Response>),
    errors: &[(u16, &str)],
) -> OperationBuilder {
    let mut responses = Responses::new();
    responses.responses.insert(ok.0.to_string(), ok.1);
    if auth {
        responses
            .responses
            .insert("401".into(), error("Missing or invalid API key"));
    }
    responses
        .responses
        .insert("503".into(), error("The job store failed; retry"));
    for (status, when) in errors {
        responses.responses.insert(status.to_string(), error(when));
    }
    OperationBuilder::new()
        .summary(Some(summary))
        .operation_id(Some(id))
        .tag(tag)
        .securities(Some(plugin_security(auth)))
        .responses(responses)
}

fn body(schema: ObjectBuilder) -> utoipa::openapi::request_body::RequestBody {
    RequestBodyBuilder::new()
        .required(Some(Required::True))
        .content(
            "application/json",
            ContentBuilder::new().schema(Some(schema)).build(),
        )
        .build()
}

/// The paths of `/jobs` and `/schedules`; `auth` is whether API keys are required.
pub fn paths(auth: bool) -> Vec<(&'static str, PathItem)> {
    let status = || reference("JobStatus");
    let not_found = (404, "No job of that id for this API key");
    let job_body = closed(record([
        ("endpoint", text(false, "A review source's path, e.g. /customer-feedback-hub/reviews")),
        ("request", described(typed(Type::Object, false), "The body that endpoint takes, checked as it checks it; reviews_to_fetch is the job's total, up to job_max_reviews")),
    ]))
    .property("webhook", reference("Webhook"))
    .property("export", reference("ExportTarget"))
    .description(Some("A job: a fetch with no 30-second budget, run in the background"));
    let submit = op(
        "submit_job",
        "Submit a job",
        "jobs",
        auth,
        (202, links(location(json("The job, queued", status())), "job_id", &["job_status", "cancel_job", "job_reviews"]).build().into()),
        &[
            (400, "Invalid body, a key given twice, an endpoint that is not a review source, a request the endpoint refuses, a webhook URL that is not public or over 2048 bytes, or an export in a format not written or on a server without object storage"),
            (408, "The body did not arrive within the body read timeout"),
            (413, "The body exceeds max_body_bytes, or its request 16384 bytes"),
            (415, "A Content-Type that is not JSON"),
            (429, "This API key holds max_queued_jobs_per_key jobs that have not ended; Retry-After says when to try again"),
        ],
    )
    .request_body(Some(body(job_body)));
    let list = op(
        "list_jobs",
        "List your jobs, newest first",
        "jobs",
        auth,
        (
            200,
            json(
                "A page of jobs",
                closed(record([
                    ("jobs", ArrayBuilder::new().items(status()).into()),
                    (
                        "next_before",
                        text(true, "Send as `before` for the next page; null on the last"),
                    ),
                ]))
                .into(),
            )
            .build()
            .into(),
        ),
        &[(
            400,
            "An unknown state or query parameter, a limit out of range, or a `before` that is not one of this key's jobs",
        )],
    )
    .parameter(query(
        "state",
        typed(Type::String, false).enum_values(Some([
            "queued",
            "running",
            "succeeded",
            "failed",
            "cancelled",
        ])),
        "Only jobs in this state",
    ))
    .parameter(query(
        "limit",
        typed(Type::Integer, false)
            .minimum(Some(1))
            .maximum(Some(500)),
        "At most this many (default 50)",
    ))
    .parameter(query(
        "before",
        typed(Type::String, false),
        "The previous page's `next_before`: one of this API key's jobs",
    ));
    let mut jobs = PathItem::new(HttpMethod::Post, submit);
    jobs.merge_operations(PathItem::new(HttpMethod::Get, list));

    let get = op(
        "job_status",
        "A job's status",
        "jobs",
        auth,
        (200, json("The job", status()).build().into()),
        &[not_found],
    )
    .parameter(id_parameter("job"));
    let cancel = op(
        "cancel_job",
        "Cancel a job (what it collected stays)",
        "jobs",
        auth,
        (
            200,
            json("The job, cancelled or cancelling", status())
                .build()
                .into(),
        ),
        &[not_found],
    )
    .parameter(id_parameter("job"));
    let mut job = PathItem::new(HttpMethod::Get, get);
    job.merge_operations(PathItem::new(HttpMethod::Delete, cancel));

    let page: Schema = closed(record([
        (
            "reviews",
            ArrayBuilder::new().items(reference("Review")).into(),
        ),
        (
            "next_cursor",
            text(
                true,
                "Send as `cursor` for the next page; null when none is stored yet",
            ),
        ),
    ]))
    .into();
    let file: Schema = ArrayBuilder::new()
        .items(reference("Review"))
        .description(Some(
            "With format=json, every review from `cursor` on, as one array",
        ))
        .into();
    let reviews_ok = json(
        "The job's reviews, in the source's order, as the endpoint returns them: a page, or with format=json all of them",
        utoipa::openapi::schema::OneOfBuilder::new()
            .item(page)
            .item(file)
            .into(),
    )
    .content(
        "application/x-ndjson",
        ContentBuilder::new()
            .schema(Some(described(
                typed(Type::String, false),
                "With format=ndjson or Accept: application/x-ndjson, every review from `cursor` on, one per line",
            )))
            .build(),
    )
    .content(
        "application/vnd.apache.parquet",
        ContentBuilder::new()
            .schema(Some(described(
                typed(Type::String, false),
                "With format=parquet, every review from `cursor` on as a Parquet file of typed columns",
            )))
            .build(),
    )
    .content(
        "text/csv; charset=utf-8",
        ContentBuilder::new()
            .schema(Some(described(
                typed(Type::String, false),
                "With format=csv or Accept: text/csv, every review from `cursor` on: a header row, then one row per review (the columns are the record's fields; docs/api.md lists them)",
            )))
            .build(),
    );
    let reviews = op(
        "job_reviews",
        "A job's reviews, readable while it runs",
        "jobs",
        auth,
        (200, reviews_ok.build().into()),
        &[
            (
                400,
                "A cursor this API did not give, an unknown parameter or format, or a limit out of range",
            ),
            not_found,
        ],
    )
    .parameter(id_parameter("job"))
    .parameter(query(
        "format",
        typed(Type::String, false).enum_values(Some(crate::export::Format::NAMES.iter().copied())),
        "Every review from `cursor` on as one streamed file: json (one array), ndjson (one review per line), csv or parquet; without it, a page",
    ))
    .parameter(query(
        "cursor",
        typed(Type::String, false),
        "The previous page's `next_cursor`",
    ))
    .parameter(query(
        "limit",
        typed(Type::Integer, false)
            .minimum(Some(1))
            .maximum(Some(1_000)),
        "At most this many (default 100)",
    ));

    let schedule_body = closed(record([
        ("endpoint", text(false, "A review source's path")),
        ("request", described(typed(Type::Object, false), "The body that endpoint takes, sent by every run")),
    ]))
    .property("every", text(false, "An interval: a whole number and s, m, h, d or w (at least 1m), e.g. 6h"))
    .property("cron", text(false, "Instead of every: five fields, minute hour day-of-month month day-of-week, e.g. 0 3 * * *"))
    .property("timezone", text(false, "The cron expression's IANA time zone (default UTC)"))
    .property("webhook", reference("Webhook"))
    .property("export", reference("ExportTarget"))
    .property("track_changes", described(typed(Type::Boolean, false), "Each run also finds edits, replies and removals among the reviews the schedule delivered (GET /schedules/{id}/changes); refused for a source whose review ids are digests of their content"))
    .property("change_window", described(ObjectBuilder::new(), "With track_changes: how many of the newest delivered reviews each run re-reads, 1 to 10000 (default 200), or \"all\""))
    .property("reconcile_every", text(false, "With track_changes: how often a run walks the whole source, which is what finds removals, e.g. 7d"));
    let schedule = || reference("Schedule");
    let add = op(
        "add_schedule",
        "Add a schedule whose runs deliver only new reviews",
        "schedules",
        auth,
        (201, links(location(json("The schedule", schedule())), "schedule_id", &["schedule", "run_schedule", "remove_schedule"]).build().into()),
        &[
            (400, "Invalid body, a key given twice, an endpoint that is not a review source, a request the endpoint refuses, neither or both of every and cron, an interval over 366 days, a timezone that is not an IANA zone name, a webhook URL that is not public or over 2048 bytes, or an export in a format not written or on a server without object storage"),
            (408, "The body did not arrive within the body read timeout"),
            (413, "The body exceeds max_body_bytes, or its request 16384 bytes"),
            (415, "A Content-Type that is not JSON"),
        ],
    )
    .request_body(Some(body(schedule_body)));
    let list_schedules = op(
        "list_schedules",
        "List your schedules, oldest first",
        "schedules",
        auth,
        (
            200,
            json(
                "A page of schedules",
                closed(record([
                    ("schedules", ArrayBuilder::new().items(schedule()).into()),
                    (
                        "next_after",
                        text(true, "Send as `after` for the next page; null on the last"),
                    ),
                ]))
                .into(),
            )
            .build()
            .into(),
        ),
        &[(
            400,
            "An unknown query parameter, a limit out of range, or an `after` that is not one of this key's schedules",
        )],
    )
    .parameter(query(
        "limit",
        typed(Type::Integer, false)
            .minimum(Some(1))
            .maximum(Some(500)),
        "At most this many (default 100)",
    ))
    .parameter(query(
        "after",
        typed(Type::String, false),
        "The previous page's `next_after`: one of this API key's schedules",
    ));
    let mut schedules = PathItem::new(HttpMethod::Post, add);
    schedules.merge_operations(PathItem::new(HttpMethod::Get, list_schedules));
    let missing = (404, "No schedule of that id for this API key");
    let get_schedule = op(
        "schedule",
        "A schedule",
        "schedules",
        auth,
        (200, json("The schedule", schedule()).build().into()),
        &[missing],
    )
    .parameter(id_parameter("schedule"));
    let delete = op(
        "remove_schedule",
        "Remove a schedule (its jobs stay)",
        "schedules",
        auth,
        (
            200,
            json(
                "It was removed",
                closed(record([("deleted", text(false, "The schedule's id"))])).into(),
            )
            .build()
            .into(),
        ),
        &[missing],
    )
    .parameter(id_parameter("schedule"));
    let mut one = PathItem::new(HttpMethod::Get, get_schedule);
    one.merge_operations(PathItem::new(HttpMethod::Delete, delete));
    let run = op(
        "run_schedule",
        "Run a schedule now",
        "schedules",
        auth,
        (
            202,
            location(json("The run's job", status())).build().into(),
        ),
        &[missing, (409, "Its previous run is still going")],
    )
    .parameter(id_parameter("schedule"));
    let (link, link_read) = signed_links(auth);
    vec![
        ("/jobs", jobs),
        ("/jobs/{id}", job),
        (
            "/jobs/{id}/reviews",
            PathItem::new(HttpMethod::Get, reviews),
        ),
        ("/jobs/{id}/links", PathItem::new(HttpMethod::Post, link)),
        (
            "/jobs/{id}/reviews.csv",
            PathItem::new(HttpMethod::Get, link_read),
        ),
        ("/schedules", schedules),
        ("/schedules/{id}", one),
        ("/schedules/{id}/run", PathItem::new(HttpMethod::Post, run)),
        (
            "/schedules/{id}/changes",
            PathItem::new(HttpMethod::Get, changes(auth)),
        ),
    ]
}

/// `POST /jobs/{id}/links` and the link it gives, `GET /jobs/{id}/reviews.csv`.
fn signed_links(auth: bool) -> (OperationBuilder, OperationBuilder) {
    let days = typed(Type::Integer, false)
        .minimum(Some(1))
        .maximum(Some(crate::token::link::MAX_DAYS))
        .description(Some("How long the link lasts, in days (default 30)"));
    let request = RequestBodyBuilder::new()
        .required(Some(Required::False))
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(closed(
                    ObjectBuilder::new().property("expires_in_days", days),
                )))
                .build(),
        )
        .build();
    let answer = closed(record([
        (
            "url",
            text(
                true,
                "The link, with the scheme and host the request came with",
            ),
        ),
        ("path", text(false, "The link without scheme and host")),
        ("format", text(false, "csv")),
        (
            "expires_at",
            text(false, "When the link stops working (RFC 3339)"),
        ),
    ]));
    let create = op(
        "job_link",
        "A signed link to a job's reviews as CSV, which needs no API key (for spreadsheets)",
        "jobs",
        auth,
        (201, json("The link", answer.into()).build().into()),
        &[
            (
                400,
                "expires_in_days out of 1 to 30, or a body that is not a link request",
            ),
            (404, "No job of that id for this API key"),
        ],
    )
    .parameter(id_parameter("job"))
    .request_body(Some(request));
    let csv = ResponseBuilder::new()
        .description(
            "Every review of the job as CSV (the columns of GET /jobs/{id}/reviews?format=csv)",
        )
        .content(
            "text/csv; charset=utf-8",
            ContentBuilder::new()
                .schema(Some(typed(Type::String, false)))
                .build(),
        );
    let read = op(
        "job_link_csv",
        "A job's reviews as CSV, read through a signed link",
        "jobs",
        false,
        (200, csv.build().into()),
        &[
            (403, "The link's signature does not match its job and expiry, it expired, or exp or sig is missing"),
            (404, "The job was deleted"),
        ],
    )
    .parameter(id_parameter("job"))
    .parameter(required(query("exp", typed(Type::String, false), "The link's expiry, as given")))
    .parameter(required(query("sig", typed(Type::String, false), "The link's signature, as given")));
    (create, read)
}

/// `GET /schedules/{id}/changes`.
fn changes(auth: bool) -> OperationBuilder {
    let page = closed(record([
        (
            "track_changes",
            described(
                typed(Type::Boolean, false),
                "Whether the schedule tracks changes",
            ),
        ),
        (
            "changes",
            ArrayBuilder::new().items(reference("ChangeBody")).into(),
        ),
        (
            "next_cursor",
            text(true, "Send as `cursor` for the next page; null on the last"),
        ),
    ]));
    op(
        "schedule_changes",
        "The edits, replies and removals a tracked schedule's runs found, in the order found",
        "schedules",
        auth,
        (200, json("A page of changes", page.into()).build().into()),
        &[
            (400, "A cursor this API did not give, a since that is not RFC 3339, an unknown parameter, or a limit out of range"),
            (404, "No schedule of that id for this API key"),
        ],
    )
    .parameter(id_parameter("schedule"))
    .parameter(query("cursor", typed(Type::String, false), "The previous page's `next_cursor`"))
    .parameter(query("since", typed(Type::String, false), "Only changes found at or after this time (RFC 3339)"))
    .parameter(query("run", typed(Type::String, false), "Only those one run (its job id) found"))
    .parameter(query(
        "limit",
        typed(Type::Integer, false).minimum(Some(1)).maximum(Some(1_000)),
        "At most this many (default 100)",
    ))
}
