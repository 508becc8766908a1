//! `/jobs`: long fetches as jobs, with what `/schedules` ([`super::schedules`])
//! checks alike. Thin handlers: they check the request as the source
//! endpoint would, then hand it to the jobs engine (`crate::jobs`).
//! Every route takes the API keys; a job or schedule belongs to the key that
//! created it, and any other key gets 404 for it, as for one that does not
//! exist.

use axum::body::Body;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::AppState;
use crate::error::ApiError;
use crate::export::Format;
use crate::jobs::model::{Job, JobState, NewJob, Webhook};
use crate::jobs::sender;
use crate::jobs::status::{InsightsSummary, InsightsTally, WebhookRequest};
use crate::jobs::store::{each_review, StoreError};
use crate::manifest::Kind;
use crate::validate::{self, MAX_REVIEWS_TO_FETCH};

/// The routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/jobs", post(submit).get(list))
        .route("/jobs/{id}", get(status).delete(cancel))
        .route("/jobs/{id}/reviews", get(reviews))
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::Overloaded(e.to_string())
    }
}

/// The caller: who owns what it creates.
pub(super) fn owner(state: &AppState, headers: &HeaderMap) -> Result<String, ApiError> {
    state
        .keys
        .owner(headers)
        .map_err(|()| ApiError::Unauthorized)
}

pub(super) fn not_found(what: &str, id: &str) -> ApiError {
    ApiError::NotFound(format!(
        "no {what} {id:?} for this API key; GET /{what}s lists yours"
    ))
}

/// A JSON body as an object, read under the body limit and parsed as every
/// endpoint parses one: a JSON `Content-Type` (or none), no key twice.
pub(super) async fn object(
    state: &AppState,
    request: Request,
    required: &[&str],
) -> Result<Map<String, Value>, ApiError> {
    super::check_content_type(request.headers())?;
    let body = super::read_body(&state.config, request, state.config.max_body_bytes).await?;
    validate::object(&body, required).map_err(ApiError::BadRequest)
}

/// Refuses fields a body may not have, naming the ones it may.
pub(super) fn only(map: &Map<String, Value>, allowed: &[&str]) -> Result<(), ApiError> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(ApiError::BadRequest(format!(
            "unknown field `{k}`; the body takes {}",
            allowed.join(", ")
        ))),
        None => Ok(()),
    }
}

/// The source endpoint a job or schedule names, and its request checked as
/// that endpoint checks it; the job's total of reviews, if any.
pub(super) fn checked_request(
    state: &AppState,
    map: &Map<String, Value>,
) -> Result<(String, Value, Option<u64>), ApiError> {
    let sources = || {
        let mut routes: Vec<String> = state
            .registry
            .plugins()
            .iter()
            .filter(|p| p.manifest.kind == Kind::Source)
            .map(|p| p.manifest.route.clone())
            .collect();
        routes.sort();
        routes.join(", ")
    };
    let endpoint = match map.get("endpoint") {
        Some(Value::String(s)) => s.trim().to_owned(),
        _ => {
            return Err(ApiError::BadRequest(format!(
                "`endpoint` is required: the review source's path, one of {}",
                sources()
            )))
        }
    };
    let plugin = state
        .registry
        .get(&endpoint)
        .filter(|p| p.manifest.kind == Kind::Source)
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "`endpoint` {endpoint:?} is not a review source; jobs run these: {}",
                sources()
            ))
        })?;
    let options = plugin
        .source_options()
        .ok_or_else(|| ApiError::BadRequest(format!("{endpoint} has no source options")))?;
    let request = match map.get("request") {
        Some(Value::Object(o)) => Value::Object(o.clone()),
        _ => {
            return Err(ApiError::BadRequest(
                "`request` is required: the body the endpoint takes, e.g. {\"query\": \"...\"}"
                    .into(),
            ))
        }
    };
    let size = request.to_string().len();
    if size > MAX_JOB_REQUEST_BYTES {
        return Err(ApiError::Refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "`request` is {size} bytes as JSON; a job's or schedule's request takes at most {MAX_JOB_REQUEST_BYTES}"
            ),
        ));
    }
    // The endpoint's own checks, on the job's total as far as one request goes.
    let total = match request.get("reviews_to_fetch") {
        Some(Value::Number(n)) => n.as_u64(),
        _ => None,
    };
    let max = state.config.job_max_reviews;
    if let Some(t) = total.filter(|t| *t > max) {
        return Err(ApiError::BadRequest(format!(
            "`request.reviews_to_fetch` is {t}; a job takes at most {max} (job_max_reviews)"
        )));
    }
    // A job may take more reviews than one request; every other value is
    // checked as the endpoint checks it.
    let mut probe = request.clone();
    if let Some(t) = total.filter(|t| *t > MAX_REVIEWS_TO_FETCH) {
        probe["reviews_to_fetch"] = json!(t.min(MAX_REVIEWS_TO_FETCH));
    }
    let checked = validate::source_request(
        &state.tokens,
        &endpoint,
        options,
        probe.to_string().as_bytes(),
    )
    .map_err(|e| ApiError::BadRequest(format!("`request`: {e}")))?;
    if checked.insights {
        crate::insights::Insights::find(&state.registry, &state.runtime)
            .map_err(|e| ApiError::BadRequest(format!("`request`: {e}")))?;
    }
    Ok((endpoint, request, total))
}

/// The largest request a job or schedule keeps, as JSON.
const MAX_JOB_REQUEST_BYTES: usize = 16 * 1024;

/// The longest webhook URL taken.
const MAX_WEBHOOK_URL_BYTES: usize = 2_048;

/// The webhook a body gives, its URL checked by the SSRF guard.
pub(super) async fn checked_webhook(
    state: &AppState,
    map: &Map<String, Value>,
) -> Result<Option<Webhook>, ApiError> {
    let Some(value) = map.get("webhook").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let given: WebhookRequest = serde_json::from_value(value.clone()).map_err(|e| {
        ApiError::BadRequest(format!(
            "`webhook` must be {{\"url\": \"https://...\", \"secret\": \"...\"}}: {e}"
        ))
    })?;
    if given.url.len() > MAX_WEBHOOK_URL_BYTES {
        return Err(ApiError::BadRequest(format!(
            "`webhook.url` is {} bytes; give at most {MAX_WEBHOOK_URL_BYTES}",
            given.url.len()
        )));
    }
    if given.secret.trim().len() < 16 {
        return Err(ApiError::BadRequest(
            "`webhook.secret` is under 16 characters; give a random one (e.g. openssl rand -hex 32), \
             which signs every delivery"
                .into(),
        ));
    }
    let http = &state.runtime.services().webhooks;
    sender::check_url(http, &given.url)
        .await
        .map_err(ApiError::BadRequest)?;
    Ok(Some(Webhook {
        url: given.url,
        secret: given.secret,
    }))
}

/// `POST /jobs`.
async fn submit(State(state): State<AppState>, request: Request) -> Result<Response, ApiError> {
    let owner = owner(&state, request.headers())?;
    let map = object(&state, request, &["endpoint", "request"]).await?;
    only(&map, &["endpoint", "request", "webhook", "export"])?;
    let (endpoint, body, total) = checked_request(&state, &map)?;
    let webhook = checked_webhook(&state, &map).await?;
    let export = checked_export(&state, &map)?;
    let cap = state.config.max_queued_jobs_per_key;
    let unfinished = state.jobs.store.unfinished_count(&owner).await?;
    if unfinished >= cap {
        return Err(ApiError::TooManyRequests(format!(
            "this API key has {unfinished} jobs that have not ended, the most it may hold \
             (max_queued_jobs_per_key = {cap}); wait for some to end, or cancel some"
        )));
    }
    let job = state
        .jobs
        .submit(NewJob {
            owner,
            endpoint,
            request: body,
            total,
            webhook,
            schedule_id: None,
            export,
        })
        .await?;
    let status = state.jobs.status(&job).await?;
    Ok(accepted(&format!("/jobs/{}", job.job_id), json!(status)))
}

/// The export format a body's `"export": {"format": …}` asks for; refused
/// when the server has no object storage to write it to.
pub(super) fn checked_export(
    state: &AppState,
    map: &Map<String, Value>,
) -> Result<Option<String>, ApiError> {
    let Some(value) = map.get("export").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let names = Format::NAMES.join(", ");
    let format = value
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get("format"))
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "`export` must be {{\"format\": \"parquet\"}}, with a format among {names}"
            ))
        })?;
    if Format::named(format).is_none() {
        return Err(ApiError::BadRequest(format!(
            "`export.format` {format:?} is not one this server writes; use one of {names}"
        )));
    }
    if state.config.export.s3_url.is_none() {
        return Err(ApiError::BadRequest(
            "`export` needs object storage, and this server has none: its operator sets \
             GLEANER_EXPORT_S3_URL (docs/operating.md). Without it, read the reviews with \
             GET /jobs/{id}/reviews?format=…"
                .into(),
        ));
    }
    Ok(Some(format.to_owned()))
}

/// A `limit`: `default` when absent, else 1 to `max`.
pub(super) fn in_range(
    limit: Option<usize>,
    default: usize,
    max: usize,
) -> Result<usize, ApiError> {
    match limit {
        None => Ok(default),
        Some(n) if (1..=max).contains(&n) => Ok(n),
        Some(n) => Err(ApiError::BadRequest(format!(
            "`limit` is {n}; give 1 to {max}"
        ))),
    }
}

/// A 202 with its `Location`.
pub(super) fn accepted(location: &str, body: Value) -> Response {
    let mut response = (StatusCode::ACCEPTED, Json(body)).into_response();
    if let Ok(v) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, v);
    }
    response
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    state: Option<String>,
    limit: Option<usize>,
    before: Option<String>,
}

/// `GET /jobs?state=&limit=&before=`.
async fn list(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let owner = owner(&state, &headers)?;
    let Query(q) = query.map_err(|e| {
        ApiError::BadRequest(format!("{e}; GET /jobs takes state, limit and before"))
    })?;
    let wanted = q.state.as_deref().map(|word| {
        JobState::parse(word).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "`state` is {word:?}; give one of queued, running, succeeded, failed, cancelled"
            ))
        })
    });
    let wanted = wanted.transpose()?;
    let limit = in_range(q.limit, 50, 500)?;
    // The anchor must be one of the caller's jobs: another key's would tell
    // that it exists, and when it was made.
    if let Some(before) = q.before.as_deref().filter(|b| !b.is_empty()) {
        if state.jobs.store.job(Some(&owner), before).await?.is_none() {
            return Err(ApiError::BadRequest(format!(
                "`before` {before:?} is not one of this API key's jobs; send back `next_before` as it came"
            )));
        }
    }
    let jobs = state
        .jobs
        .store
        .jobs(&owner, wanted, q.before.as_deref(), limit)
        .await?;
    let next = (jobs.len() == limit).then(|| jobs.last().map(|j| j.job_id.clone()));
    let mut listed = Vec::new();
    for job in &jobs {
        listed.push(state.jobs.status(job).await?);
    }
    Ok(super::ok(
        json!({ "jobs": listed, "next_before": next.flatten() }),
    ))
}

/// The caller's job `id`; 404 when it is another key's or none.
pub(super) async fn owned_job(
    state: &AppState,
    headers: &HeaderMap,
    id: &str,
) -> Result<Job, ApiError> {
    let owner = owner(state, headers)?;
    let job = state.jobs.store.job(Some(&owner), id).await?;
    job.ok_or_else(|| not_found("job", id))
}

/// `GET /jobs/{id}`.
async fn status(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let job = owned_job(&state, &headers, &id).await?;
    let mut status = state.jobs.status(&job).await?;
    if job.request["insights"] == true {
        status.insights = Some(insights_summary(&state, &job.job_id).await?);
    }
    Ok(super::ok(json!(status)))
}

/// The sentiment of a job's stored reviews at a glance.
async fn insights_summary(state: &AppState, id: &str) -> Result<InsightsSummary, ApiError> {
    let mut tally = InsightsTally::default();
    each_review(state.jobs.store.as_ref(), id, |r| tally.add(r)).await?;
    Ok(tally.summary())
}

/// `DELETE /jobs/{id}`.
async fn cancel(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let owner = owner(&state, &headers)?;
    let job = state
        .jobs
        .cancel(&owner, &id)
        .await?
        .ok_or_else(|| not_found("job", &id))?;
    Ok(super::ok(json!(state.jobs.status(&job).await?)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewsQuery {
    cursor: Option<String>,
    limit: Option<usize>,
    format: Option<String>,
}

/// `GET /jobs/{id}/reviews?cursor=&limit=`: a page of reviews; with
/// `format=json|ndjson|csv` (or `Accept: application/x-ndjson` or
/// `text/csv`), every review after `cursor` as one streamed file.
async fn reviews(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    query: Result<Query<ReviewsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(q) = query.map_err(|e| {
        ApiError::BadRequest(format!("{e}; the reviews take cursor, limit and format"))
    })?;
    let job = owned_job(&state, &headers, &id).await?;
    let after = match q.cursor.as_deref() {
        None | Some("") => 0,
        // The store counts in i64: a larger cursor would wrap around.
        Some(c) => c
            .parse::<i64>()
            .ok()
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| {
                ApiError::BadRequest(format!(
                    "`cursor` {c:?} is not one this API gave; send back `next_cursor` as it came"
                ))
            })?,
    };
    let format = match q.format.as_deref() {
        Some(name) => Some(Format::named(name).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "`format` {name:?} is not one this API writes; use one of {}",
                Format::NAMES.join(", ")
            ))
        })?),
        None => headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .and_then(Format::accepted),
    };
    if let Some(format) = format {
        return Ok(stream(state, job.job_id, after, format));
    }
    let limit = in_range(q.limit, 100, 1_000)?;
    let (reviews, next) = state.jobs.store.reviews(&job.job_id, after, limit).await?;
    Ok(super::ok(
        json!({ "reviews": reviews, "next_cursor": next.map(|n| n.to_string()) }),
    ))
}

/// Every stored review of a job after `after`, as one file in `format`,
/// read from the store and written a batch at a time.
pub(super) fn stream(state: AppState, job_id: String, after: u64, format: Format) -> Response {
    let chunks = crate::export::chunks(state.jobs.store.clone(), job_id, after, format);
    let mut response = Response::new(Body::from_stream(chunks));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    response
}
