//! `/schedules`: schedules whose runs deliver only new reviews, and with
//! `track_changes`, find the edits, replies and removals among those they
//! delivered (`GET /schedules/{id}/changes`). Thin handlers over the jobs
//! engine, checking a schedule's request as a job's.

use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::jobs::{
    accepted, checked_export, checked_request, checked_webhook, in_range, not_found, object, only,
    owner,
};
use super::AppState;
use crate::error::ApiError;
use crate::jobs::cadence;
use crate::jobs::changes::{Tracking, Window, DEFAULT_WINDOW, MAX_WINDOW};
use crate::jobs::model::{now_ms, Cadence, NewSchedule, Schedule};
use crate::jobs::store::ChangeQuery;
use crate::manifest::ReviewIds;

/// The routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/schedules", post(add_schedule).get(schedules))
        .route("/schedules/{id}", get(schedule).delete(remove_schedule))
        .route("/schedules/{id}/run", post(run_schedule))
        .route("/schedules/{id}/changes", get(changes))
}

/// The caller's schedule `id`; 404 when it is another key's or none.
async fn owned_schedule(
    state: &AppState,
    headers: &HeaderMap,
    id: &str,
) -> Result<Schedule, ApiError> {
    let owner = owner(state, headers)?;
    let schedule = state.jobs.store.schedule(Some(&owner), id).await?;
    schedule.ok_or_else(|| not_found("schedule", id))
}

/// `POST /schedules`.
async fn add_schedule(
    State(state): State<AppState>,
    request: Request,
) -> Result<Response, ApiError> {
    let owner = owner(&state, request.headers())?;
    let map = object(&state, request, &["endpoint", "request", "every"]).await?;
    only(
        &map,
        &[
            "endpoint",
            "request",
            "every",
            "cron",
            "timezone",
            "webhook",
            "track_changes",
            "change_window",
            "reconcile_every",
            "export",
        ],
    )?;
    let (endpoint, body, _) = checked_request(&state, &map)?;
    let tracking = tracking(&state, &endpoint, &map)?;
    let text = |k: &str| map.get(k).and_then(Value::as_str).map(str::to_owned);
    let cadence = match (text("every"), text("cron")) {
        (Some(every), None) => {
            if map.contains_key("timezone") {
                return Err(ApiError::BadRequest(
                    "`timezone` goes with `cron`, not `every`".into(),
                ));
            }
            Cadence::Every(cadence::parse_every(&every).map_err(ApiError::BadRequest)?)
        }
        (None, Some(expression)) => {
            let timezone = match map.get("timezone") {
                None | Some(Value::Null) => None,
                Some(Value::String(tz)) => Some(tz.clone()),
                Some(_) => {
                    return Err(ApiError::BadRequest(
                        "`timezone` must be a string: an IANA time zone such as \"Europe/Paris\" or \"UTC\"".into(),
                    ))
                }
            };
            cadence::check_cron(&expression, timezone.as_deref()).map_err(ApiError::BadRequest)?;
            Cadence::Cron {
                expression,
                timezone,
            }
        }
        _ => {
            return Err(ApiError::BadRequest(
                "give one of `every` (e.g. \"6h\") or `cron` (e.g. \"0 3 * * *\", with an optional `timezone`)".into(),
            ))
        }
    };
    let webhook = checked_webhook(&state, &map).await?;
    let export = checked_export(&state, &map)?;
    let next_run_at = cadence::next_after(&cadence, now_ms());
    let created = state
        .jobs
        .store
        .create_schedule(NewSchedule {
            owner,
            endpoint,
            request: body,
            cadence,
            webhook,
            next_run_at,
            tracking,
            export,
        })
        .await?;
    let mut response = (StatusCode::CREATED, Json(json!(created.body()))).into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("/schedules/{}", created.schedule_id)) {
        response.headers_mut().insert(header::LOCATION, v);
    }
    Ok(response)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SchedulesQuery {
    limit: Option<usize>,
    after: Option<String>,
}

/// `GET /schedules?limit=&after=`: oldest first, a page at a time.
async fn schedules(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<SchedulesQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let owner = owner(&state, &headers)?;
    let Query(q) = query
        .map_err(|e| ApiError::BadRequest(format!("{e}; GET /schedules takes limit and after")))?;
    let limit = in_range(q.limit, 100, 500)?;
    let after = q.after.as_deref().filter(|a| !a.is_empty());
    // The anchor must be one of the caller's schedules, as for the jobs.
    if let Some(after) = after {
        if state
            .jobs
            .store
            .schedule(Some(&owner), after)
            .await?
            .is_none()
        {
            return Err(ApiError::BadRequest(format!(
                "`after` {after:?} is not one of this API key's schedules; send back `next_after` as it came"
            )));
        }
    }
    let page = state.jobs.store.schedules(&owner, after, limit).await?;
    let next = (page.len() == limit).then(|| page.last().map(|s| s.schedule_id.clone()));
    let bodies: Vec<_> = page.iter().map(|s| s.body()).collect();
    Ok(super::ok(
        json!({ "schedules": bodies, "next_after": next.flatten() }),
    ))
}

/// `GET /schedules/{id}`.
async fn schedule(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let found = owned_schedule(&state, &headers, &id).await?;
    Ok(super::ok(json!(found.body())))
}

/// `DELETE /schedules/{id}`: no further runs; its jobs stay.
async fn remove_schedule(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let owner = owner(&state, &headers)?;
    if !state.jobs.store.delete_schedule(&owner, &id).await? {
        return Err(not_found("schedule", &id));
    }
    Ok(super::ok(json!({ "deleted": id })))
}

/// `POST /schedules/{id}/run`: one run now (202 with its job), unless the
/// previous run is still going (409).
async fn run_schedule(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let found = owned_schedule(&state, &headers, &id).await?;
    match state.jobs.run_schedule(&found).await? {
        Some(job) => {
            let status = state.jobs.status(&job).await?;
            Ok(accepted(&format!("/jobs/{}", job.job_id), json!(status)))
        }
        None => Err(ApiError::Refused(
            StatusCode::CONFLICT,
            format!(
                "the schedule's previous run ({}) is still going; wait for it to end",
                found.last_job_id.unwrap_or_default()
            ),
        )),
    }
}

/// The change tracking a schedule's body asks for: `track_changes`, with
/// `change_window` (1 to 10,000, or `"all"`) and `reconcile_every` (an
/// interval); a source whose review ids are digests of their content cannot
/// track changes.
fn tracking(
    state: &AppState,
    endpoint: &str,
    map: &Map<String, Value>,
) -> Result<Option<Tracking>, ApiError> {
    let on = match map.get("track_changes") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => true,
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "`track_changes` is {other}; give true or false"
            )))
        }
    };
    if !on {
        for field in ["change_window", "reconcile_every"] {
            if map.get(field).is_some_and(|v| !v.is_null()) {
                return Err(ApiError::BadRequest(format!(
                    "`{field}` goes with `track_changes: true`"
                )));
            }
        }
        return Ok(None);
    }
    let content_ids = state
        .registry
        .get(endpoint)
        .and_then(|p| p.source_options().map(|o| o.review_ids))
        == Some(ReviewIds::Content);
    if content_ids {
        return Err(ApiError::BadRequest(format!(
            "`track_changes` needs a source whose reviews keep their id when edited; {endpoint} \
             shows none, so each review's id is a digest of its content and an edited review \
             would read as another review. Schedule it without `track_changes`"
        )));
    }
    let window = match map.get("change_window") {
        None | Some(Value::Null) => Window::Newest(DEFAULT_WINDOW),
        Some(Value::String(s)) if s == "all" => Window::All,
        Some(Value::Number(n))
            if n.as_u64()
                .is_some_and(|n| (1..=MAX_WINDOW as u64).contains(&n)) =>
        {
            Window::Newest(n.as_u64().unwrap_or(1) as u32)
        }
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "`change_window` is {other}; give how many of the newest delivered reviews each \
                 run re-reads, 1 to {MAX_WINDOW} (default {DEFAULT_WINDOW}), or \"all\""
            )))
        }
    };
    let reconcile_every = match map.get("reconcile_every") {
        None | Some(Value::Null) => None,
        Some(Value::String(every)) => Some(
            cadence::parse_every(every)
                .map_err(|e| ApiError::BadRequest(format!("`reconcile_every`: {e}")))?,
        ),
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "`reconcile_every` is {other}; give an interval such as \"7d\" or \"12h\""
            )))
        }
    };
    Ok(Some(Tracking {
        window,
        reconcile_every,
        last_full_walk_at: None,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChangesQuery {
    limit: Option<usize>,
    cursor: Option<String>,
    since: Option<String>,
    run: Option<String>,
}

/// `GET /schedules/{id}/changes?since=&cursor=&limit=&run=`: the changes
/// its runs found, in the order found, a page at a time.
async fn changes(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    query: Result<Query<ChangesQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let found = owned_schedule(&state, &headers, &id).await?;
    let Query(q) = query.map_err(|e| {
        ApiError::BadRequest(format!(
            "{e}; GET /schedules/{{id}}/changes takes limit, cursor, since and run"
        ))
    })?;
    let limit = in_range(q.limit, 100, 1_000)?;
    let after = match q.cursor.as_deref().filter(|c| !c.is_empty()) {
        None => 0,
        Some(c) => c.parse::<u64>().map_err(|_| {
            ApiError::BadRequest(format!(
                "`cursor` {c:?} is not a cursor of this list; send back `next_cursor` as it came"
            ))
        })?,
    };
    let since = match q.since.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => Some(crate::jobs::model::parse_rfc3339(s).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "`since` {s:?} is not a time; give RFC 3339, e.g. 2026-03-01T00:00:00Z"
            ))
        })?),
    };
    let query = ChangeQuery {
        after,
        since,
        run: q.run.as_deref().filter(|r| !r.is_empty()),
        limit: limit + 1,
    };
    let mut page = state.jobs.store.changes(&found.schedule_id, query).await?;
    let more = page.len() > limit;
    page.truncate(limit);
    let next = page.last().filter(|_| more).map(|(seq, _)| seq.to_string());
    let bodies: Vec<_> = page.iter().map(|(_, c)| c.body()).collect();
    Ok(super::ok(json!({
        "track_changes": found.tracking.is_some(),
        "changes": bodies,
        "next_cursor": next,
    })))
}
