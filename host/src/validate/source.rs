//! A review-fetch request, validated in steps: the fields the route accepts,
//! each field's value, the continuation token checked against what the
//! request repeats, the `sync_cursor`, and the options a token restores.

use serde_json::{Map, Value};

use super::MAX_REVIEWS_TO_FETCH;
use super::{
    field_value, kind_of, object, optional_bool, parse_date, reject_unknown, required_string,
};
use crate::manifest::{Continuation, FieldSpec, FieldType, SourceOptions};
use crate::token::{self, Resume, TokenKey};

/// A validated review-fetch request.
#[derive(Debug, Clone)]
pub struct SourceRequest {
    /// The page URL or identifier.
    pub query: String,
    /// Exact number of reviews wanted; none for all within the budget.
    pub reviews_to_fetch: Option<u64>,
    /// Keep visual formatting (default true).
    pub is_text_formatted: bool,
    /// Whether each review carries a signed receipt (`receipts`).
    pub receipts: bool,
    /// Whether each review carries its sentiment, rating mismatch and key
    /// phrases (`insights`, [`crate::insights`]).
    pub insights: bool,
    /// Only reviews of this day (YYYY-MM-DD).
    pub sync_date: Option<time::Date>,
    /// Sort value.
    pub sort: Option<String>,
    /// Filter value.
    pub filter: Option<Value>,
    /// Where to resume, from a continuation token.
    pub resume: Option<Resume>,
    /// What a `sync_cursor` names: only newer reviews are wanted.
    pub sync_known: Option<token::SyncCursor>,
}

/// Validates a review-fetch request against the source's manifest options.
pub fn source_request(
    key: &TokenKey,
    route: &str,
    options: &SourceOptions,
    body: &[u8],
) -> Result<SourceRequest, String> {
    let map = object(body, &["query"])?;
    reject_unknown(&map, &accepted_fields(options))?;
    let query = required_string(&map, "query")?;
    let reviews_to_fetch = reviews_to_fetch(&map)?;
    let is_text_formatted =
        optional_bool(&map, "is_text_formatted", options.text_formatted_default)?;
    let receipts = optional_bool(&map, "receipts", false)?;
    let insights = optional_bool(&map, "insights", false)?;
    let sync_date = sync_date(&map)?;
    let sort = match &options.sort {
        Some(spec) => normalised(spec, field_value(&map, spec)?).map(|v| match v {
            Value::String(s) => s,
            other => other.to_string(),
        }),
        None => None,
    };
    let filter = match &options.filter {
        Some(spec) => normalised(spec, field_value(&map, spec)?),
        None => None,
    };
    let resume = match continuation_token(options, &map)? {
        None => None,
        Some((field, token)) => {
            let resume = opened(key, route, options, &query, field, &token)?;
            let given = Given {
                map: &map,
                sort: sort.clone().map(Value::String),
                filter: filter.clone(),
                sync_date,
            };
            repeats_the_token(options, field, &resume, &given)?;
            Some(resume)
        }
    };
    let sync_known = sync_cursor(key, route, &query, &map)?;
    let (sort, filter, sync_date) = match &resume {
        Some(r) => restored(options, r),
        None => (sort, filter, sync_date),
    };
    Ok(SourceRequest {
        query,
        reviews_to_fetch,
        is_text_formatted,
        receipts,
        insights,
        sync_date,
        sort,
        filter,
        resume,
        sync_known,
    })
}

/// `request` (validated by [`source_request`]) resumed at `token`, a
/// continuation token this server signed for it (a job's committed
/// position): its reviews from there, with the token's sort, filter and day
/// in force, as [`source_request`] would answer the same request sent with it.
pub fn resumed(
    key: &TokenKey,
    route: &str,
    options: &SourceOptions,
    request: &SourceRequest,
    token: &str,
) -> Result<SourceRequest, String> {
    let field = match options.continuation {
        Continuation::PaginationToken => "pagination_token",
        Continuation::PaginationData => "pagination_data",
        Continuation::None => return Err("this source has no continuation to resume".into()),
    };
    let resume = opened(key, route, options, &request.query, field, token)?;
    let (sort, filter, sync_date) = restored(options, &resume);
    Ok(SourceRequest {
        sort,
        filter,
        sync_date,
        resume: Some(resume),
        ..request.clone()
    })
}

/// Continuation token `token`, given as `field`, opened: signed by this
/// server for `route` and `query`, and carrying only options the endpoint
/// still has.
fn opened(
    key: &TokenKey,
    route: &str,
    options: &SourceOptions,
    query: &str,
    field: &str,
    token: &str,
) -> Result<Resume, String> {
    let resume = token::decode(key, route, query, token).map_err(|e| format!("`{field}` {e}"))?;
    revalidate(options, field, &resume)?;
    Ok(resume)
}

/// The fields a source route accepts: the common ones, its continuation
/// field, and its sort and filter fields.
fn accepted_fields(options: &SourceOptions) -> Vec<&str> {
    let mut accepted = vec![
        "query",
        "reviews_to_fetch",
        "is_text_formatted",
        "receipts",
        "insights",
        "sync_date",
        "sync_cursor",
    ];
    match options.continuation {
        Continuation::PaginationToken => accepted.push("pagination_token"),
        Continuation::PaginationData => accepted.push("pagination_data"),
        Continuation::None => {}
    }
    let declared = options.sort.iter().chain(options.filter.iter());
    accepted.extend(declared.map(|spec| spec.field.as_str()));
    accepted
}

/// `reviews_to_fetch`: none, or 1 to [`MAX_REVIEWS_TO_FETCH`].
fn reviews_to_fetch(map: &Map<String, Value>) -> Result<Option<u64>, String> {
    match map.get("reviews_to_fetch") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(v) if v > MAX_REVIEWS_TO_FETCH as i64 => Err(format!(
                "`reviews_to_fetch` is at most {MAX_REVIEWS_TO_FETCH}, not {v}; fetch more by sending back the continuation token"
            )),
            Some(v) if v > 0 => Ok(Some(v as u64)),
            Some(v) => Err(format!(
                "`reviews_to_fetch` must be a positive integer (1 or more), not {v}"
            )),
            None => Err(format!(
                "`reviews_to_fetch` must be a positive integer, not {n}"
            )),
        },
        Some(other) => Err(format!(
            "`reviews_to_fetch` must be a positive integer, not {}",
            kind_of(other)
        )),
    }
}

/// `sync_date`: none, or a day written YYYY-MM-DD.
fn sync_date(map: &Map<String, Value>) -> Result<Option<time::Date>, String> {
    match map.get("sync_date") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => parse_date(s).map(Some),
        Some(other) => Err(format!(
            "`sync_date` must be a string YYYY-MM-DD, not {}",
            kind_of(other)
        )),
    }
}

/// The continuation token the request sends back, with the name of the field
/// that carried it; none for a first request.
fn continuation_token(
    options: &SourceOptions,
    map: &Map<String, Value>,
) -> Result<Option<(&'static str, String)>, String> {
    match options.continuation {
        Continuation::PaginationToken => match map.get("pagination_token") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(("pagination_token", s.clone()))),
            Some(other) => Err(format!("`pagination_token` must be a string, not {}", kind_of(other))),
        },
        Continuation::PaginationData => match map.get("pagination_data") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(o)) if o.is_empty() => Ok(None),
            Some(Value::Object(o)) => match o.get("token") {
                Some(Value::String(_)) if o.len() > 1 => {
                    Err("`pagination_data` holds fields other than `token`; send back the previous response's `pagination_data` object unchanged".into())
                }
                Some(Value::String(s)) => Ok(Some(("pagination_data", s.clone()))),
                _ => Err("`pagination_data` must be the object returned by the previous response (with its `token`)".into()),
            },
            Some(other) => Err(format!("`pagination_data` must be an object, not {}", kind_of(other))),
        },
        Continuation::None => Ok(None),
    }
}

/// What a request that sends a token back also gives.
struct Given<'a> {
    map: &'a Map<String, Value>,
    sort: Option<Value>,
    filter: Option<Value>,
    sync_date: Option<time::Date>,
}

/// Checks that a sort, filter or `sync_date` the request repeats beside a
/// token is the one the token was issued for.
fn repeats_the_token(
    options: &SourceOptions,
    field: &str,
    resume: &Resume,
    given: &Given<'_>,
) -> Result<(), String> {
    let sent = |spec: Option<&FieldSpec>, value: &Option<Value>| {
        spec.and_then(|s| given.map.get(s.field.as_str()))
            .filter(|v| !v.is_null())
            .and(value.clone())
    };
    let saved_sort = options
        .sort
        .as_ref()
        .and_then(|spec| normalised(spec, resume.sort.clone().map(Value::String)));
    let saved_filter = options
        .filter
        .as_ref()
        .and_then(|spec| normalised(spec, resume.filter.clone()));
    let name = |spec: Option<&FieldSpec>, or: &'static str| {
        spec.map_or(or.to_owned(), |s| s.field.clone())
    };
    check_same(
        field,
        &name(options.sort.as_ref(), "sort"),
        sent(options.sort.as_ref(), &given.sort),
        saved_sort,
    )?;
    check_same(
        field,
        &name(options.filter.as_ref(), "filter"),
        sent(options.filter.as_ref(), &given.filter),
        saved_filter,
    )?;
    let date = given.sync_date.map(|d| Value::String(d.to_string()));
    let saved_date = resume.sync_date.map(|d| Value::String(d.to_string()));
    check_same(field, "sync_date", date, saved_date)
}

/// The reviews a `sync_cursor` names, when the request sends one.
fn sync_cursor(
    key: &TokenKey,
    route: &str,
    query: &str,
    map: &Map<String, Value>,
) -> Result<Option<token::SyncCursor>, String> {
    match map.get("sync_cursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => token::decode_sync(key, route, query, s)
            .map(Some)
            .map_err(|e| format!("`sync_cursor` {e}")),
        Some(other) => Err(format!(
            "`sync_cursor` must be the string a previous answer gave, not {}",
            kind_of(other)
        )),
    }
}

/// The sort, filter and `sync_date` a token carries: a continued fetch keeps
/// the options it started with.
type Options = (Option<String>, Option<Value>, Option<time::Date>);

fn restored(options: &SourceOptions, resume: &Resume) -> Options {
    let sort = options
        .sort
        .as_ref()
        .and_then(|spec| normalised(spec, resume.sort.clone().map(Value::String)))
        .and_then(|v| v.as_str().map(str::to_owned));
    let filter = options
        .filter
        .as_ref()
        .and_then(|spec| normalised(spec, resume.filter.clone()));
    (sort, filter, resume.sync_date)
}

/// Checks the options a token carries exactly as if the client had sent them:
/// a token is signed, but the manifest may have changed since it was issued.
fn revalidate(options: &SourceOptions, field: &str, resume: &Resume) -> Result<(), String> {
    let pairs = [
        (
            options.sort.as_ref(),
            resume.sort.clone().map(Value::String),
        ),
        (options.filter.as_ref(), resume.filter.clone()),
    ];
    for (spec, value) in pairs {
        let Some(value) = value else { continue };
        let Some(spec) = spec else {
            return Err(format!(
                "`{field}` carries an option this endpoint no longer has; drop `{field}` to start over"
            ));
        };
        let map = Map::from_iter([(spec.field.clone(), value)]);
        field_value(&map, spec).map_err(|e| {
            format!("`{field}` carries an option this endpoint no longer accepts ({e}); drop `{field}` to start over")
        })?;
    }
    Ok(())
}

/// A field's value with its default filled in and enum values as strings, so
/// `5` and `"5"`, or an omitted sort and its default, compare equal.
fn normalised(spec: &FieldSpec, value: Option<Value>) -> Option<Value> {
    let value = value
        .filter(|v| !v.is_null())
        .or_else(|| spec.default_value())?;
    Some(match (spec.ty, value) {
        (FieldType::Enum, Value::Number(n)) => Value::String(n.to_string()),
        (_, v) => v,
    })
}

/// A value for messages: JSON text, or "none".
fn shown(v: Option<&Value>) -> String {
    v.map_or_else(|| "none".to_owned(), Value::to_string)
}

fn check_same(
    field: &str,
    what: &str,
    given: Option<Value>,
    saved: Option<Value>,
) -> Result<(), String> {
    match given {
        Some(g) if Some(&g) != saved.as_ref() => Err(format!(
            "`{field}` was issued for `{what}` {}, but this request asks for {}; repeat the original `{what}` or drop `{field}` to start over",
            shown(saved.as_ref()),
            shown(Some(&g)),
        )),
        _ => Ok(()),
    }
}
