//! Links a spreadsheet can read: `POST /jobs/{id}/links` gives a signed URL
//! of the job's reviews as CSV ([`crate::token::link`]), which
//! `GET /jobs/{id}/reviews.csv?exp=&sig=` answers without an API key until
//! it expires (Google Sheets' `IMPORTDATA` sends no header).

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use serde_json::json;

use super::AppState;
use crate::error::ApiError;
use crate::export::Format;
use crate::token::link::{self, MAX_DAYS};

/// The routes of signed links.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/jobs/{id}/links", post(create))
        .route("/jobs/{id}/reviews.csv", get(read))
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkRequest {
    expires_in_days: Option<u64>,
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `POST /jobs/{id}/links` with `{"expires_in_days"?}` (1 to 30, default 30).
async fn create(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let job = super::jobs::owned_job(&state, &headers, &id).await?;
    let request: LinkRequest = match body.iter().all(u8::is_ascii_whitespace) {
        true => LinkRequest::default(),
        false => serde_json::from_slice(&body).map_err(|e| {
            ApiError::BadRequest(format!(
                "the body is not a link request ({e}); send {{}} or {{\"expires_in_days\": 1 to {MAX_DAYS}}}"
            ))
        })?,
    };
    let days = request.expires_in_days.unwrap_or(MAX_DAYS);
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(ApiError::BadRequest(format!(
            "`expires_in_days` is {days}; a link lasts 1 to {MAX_DAYS} days"
        )));
    }
    let expires = now() + days * 86_400;
    let sig = link::sign(&state.tokens, &job.job_id, expires);
    let path = format!("/jobs/{}/reviews.csv?exp={expires}&sig={sig}", job.job_id);
    let url = base_url(&headers).map(|base| format!("{base}{path}"));
    let expires_at = time::OffsetDateTime::from_unix_timestamp(expires as i64)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        });
    let mut response = super::ok(json!({
        "url": url,
        "path": path,
        "format": "csv",
        "expires_at": expires_at,
    }));
    *response.status_mut() = StatusCode::CREATED;
    Ok(response)
}

/// The server's address as the caller reached it: `Host`, with `https` when
/// a proxy in front says so (`X-Forwarded-Proto`).
fn base_url(headers: &HeaderMap) -> Option<String> {
    let host = headers.get(header::HOST)?.to_str().ok()?;
    let https = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|p| p.eq_ignore_ascii_case("https"));
    Some(format!("{}://{host}", if https { "https" } else { "http" }))
}

#[derive(Deserialize)]
struct LinkQuery {
    exp: Option<String>,
    sig: Option<String>,
}

/// `GET /jobs/{id}/reviews.csv?exp=&sig=`: the job's reviews as CSV, for a
/// link that is good; 403 saying why for one that is not.
async fn read(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<LinkQuery>,
) -> Result<Response, ApiError> {
    let refused = |e: String| ApiError::Refused(StatusCode::FORBIDDEN, e);
    let (Some(exp), Some(sig)) = (q.exp, q.sig) else {
        return Err(refused(
            "this address needs a signed link's `exp` and `sig`; ask for one with POST /jobs/{id}/links, or read /jobs/{id}/reviews?format=csv with an API key".into(),
        ));
    };
    let expires: u64 = exp
        .parse()
        .map_err(|_| refused(link::LinkError::Tampered.to_string()))?;
    link::check(&state.tokens, &id, expires, &sig, now()).map_err(|e| refused(e.to_string()))?;
    let job = state.jobs.store.job(None, &id).await?;
    let job = job.ok_or_else(|| ApiError::NotFound(format!("no job {id}: it was deleted")))?;
    let mut response = super::jobs::stream(state, job.job_id.clone(), 0, Format::Csv);
    if let Ok(value) = HeaderValue::from_str(&format!("inline; filename=\"{}.csv\"", job.job_id)) {
        response
            .headers_mut()
            .insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}
