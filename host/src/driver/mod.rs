//! The review-fetch driver, shared by every source: it pages through a plugin
//! (fetching ahead the pages the plugin enumerates, see [`window`]), enforces
//! `reviews_to_fetch`, `sync_date` and the time budget, formats text, and
//! issues the continuation token when it stops before the end.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use crate::bindings::types::{FetchError, Order, PageRequest, SourceMeta};
use crate::capabilities::http::session::{Opened, Session};
use crate::error::ApiError;
use crate::manifest::Continuation;
use crate::record::{extra_object, Review};
use crate::runtime::LoadedPlugin;
use crate::runtime::Runtime;
use crate::token::{self, Realigned, Resume, TokenKey};
use crate::validate::SourceRequest;

mod dates;
mod order;
mod sink;
mod window;

use dates::{compare_day, DayMatch};
use order::OrderCheck;
pub use sink::{CommittedPage, Known, PageSink, StopAt};
use window::{pages_wanted, Window};

/// How many of the newest reviews a `sync_cursor` names.
const SYNC_CURSOR_REVIEWS: usize = 20;

/// Time kept back from the budget so the answer arrives before it runs out.
const ANSWER_MARGIN: Duration = Duration::from_millis(300);
/// A new page is not started with less time left than this.
const MIN_PAGE_TIME: Duration = Duration::from_millis(700);
/// The shortest fetch budget that can fetch one page and answer in time; the
/// configuration refuses shorter ones at start-up.
pub const MIN_FETCH_BUDGET: Duration = ANSWER_MARGIN.saturating_add(MIN_PAGE_TIME);

/// Why a fetch stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The source has no more reviews.
    Exhausted,
    /// `reviews_to_fetch` reviews were collected.
    LimitReached,
    /// A dated source went past `sync_date`: older reviews on a newest-first
    /// source, newer ones on an oldest-first source.
    PastSyncDate,
    /// The time budget ran out.
    Budget,
    /// The source failed after some reviews were collected.
    SourceError,
    /// The source serves no further, though the item has more reviews (a feed
    /// capped at N pages); the plugin says why in its metadata's `source_limit`.
    SourceLimit,
    /// The fetch reached reviews delivered before (a `sync_cursor`'s, or a
    /// schedule's earlier runs'): everything after them was delivered.
    CaughtUp,
}

impl StopReason {
    fn code(self) -> &'static str {
        match self {
            StopReason::Exhausted => "exhausted",
            StopReason::LimitReached => "limit_reached",
            StopReason::PastSyncDate => "past_sync_date",
            StopReason::Budget => "time_budget",
            StopReason::SourceError => "source_error",
            StopReason::SourceLimit => "source_limit",
            StopReason::CaughtUp => "caught_up",
        }
    }
}

/// The outcome of one fetch.
pub struct Outcome {
    /// Reviews, in source order.
    pub reviews: Vec<Review>,
    /// Source metadata and fetch statistics.
    pub extra_information: Value,
    /// Human summary.
    pub message: String,
    /// Continuation token, when the fetch stopped before the end.
    pub continuation: Option<String>,
    /// The newest reviews a newest-first fetch that started at the top saw,
    /// signed: a later request with it gets only newer reviews.
    pub sync_cursor: Option<String>,
    /// The fetch's session, whose cookies the answer must not carry.
    session: Arc<Session>,
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outcome")
            .field("reviews", &self.reviews.len())
            .field("message", &self.message)
            .field("continuation", &self.continuation.is_some())
            .finish_non_exhaustive()
    }
}

impl Outcome {
    /// The response body: `all_reviews`, `extra_information`, `message`, and the
    /// continuation as the endpoint's manifest declares it (`next_page` or `pagination_data`).
    pub fn into_body(self, continuation: Continuation) -> Value {
        let mut body = json!({
            "all_reviews": self.reviews,
            "extra_information": self.extra_information,
            "message": self.message,
            "sync_cursor": self.sync_cursor,
        });
        match continuation {
            Continuation::PaginationToken => body["next_page"] = json!(self.continuation),
            Continuation::PaginationData => {
                body["pagination_data"] = match self.continuation {
                    Some(token) => json!({ "token": token }),
                    None => Value::Null,
                }
            }
            Continuation::None => {}
        }
        self.session.scrubber().scrub_json(&mut body);
        body
    }
}

/// A review that broke the contract: a plugin fault, logged with the plugin's name.
fn contract_broken(plugin: &LoadedPlugin, e: crate::contract::ContractError) -> ApiError {
    tracing::error!(plugin = %plugin.manifest.name, version = %plugin.manifest.version, error = %e, "plugin broke the review contract");
    ApiError::PluginFailed(format!(
        "plugin {} returned a review that breaks the review contract ({e}); the plugin needs a fix",
        plugin.manifest.name
    ))
}

/// Progress after each page: pages fetched and reviews collected so far.
pub type OnPage<'a> = &'a (dyn Fn(u32, usize) + Sync);

/// Runs a fetch within `budget`, reporting progress after each page. The
/// fetch's session is the token's while it lives; what the fetch answers,
/// errors included, never carries the session's cookies.
pub async fn fetch(
    runtime: &Runtime,
    plugin: &LoadedPlugin,
    request: &SourceRequest,
    key: &TokenKey,
    budget: Duration,
    request_id: &str,
    on_page: OnPage<'_>,
) -> Result<Outcome, ApiError> {
    Fetch {
        runtime,
        plugin,
        request,
        key,
        request_id,
        on_page,
        sink: None,
        known: None,
    }
    .run(budget)
    .await
}

/// One fetch: what it runs with. [`fetch`] is the plain case; a job adds a
/// sink that commits each page, and a schedule the reviews it delivered.
pub struct Fetch<'a> {
    /// The runtime the plugin runs in.
    pub runtime: &'a Runtime,
    /// The source.
    pub plugin: &'a LoadedPlugin,
    /// The validated request.
    pub request: &'a SourceRequest,
    /// The key tokens are signed with.
    pub key: &'a TokenKey,
    /// The request id, for logs.
    pub request_id: &'a str,
    /// Progress after each page.
    pub on_page: OnPage<'a>,
    /// Commits each page before the next is used.
    pub sink: Option<&'a dyn PageSink>,
    /// Reviews delivered before, left out (a schedule's).
    pub known: Option<&'a Known>,
}

impl Fetch<'_> {
    /// Runs the fetch within `budget`, in the token's session while it lives;
    /// what it answers, errors included, never carries the session's cookies.
    pub async fn run(&self, budget: Duration) -> Result<Outcome, ApiError> {
        let id = self
            .request
            .resume
            .as_ref()
            .and_then(|r| r.session.as_deref());
        let sessions = &self.runtime.services().sessions;
        let (session, opened) = sessions.open_anywhere(id).await;
        let result = self.run_in(budget, session.clone(), opened).await;
        // In a cluster, the replica the next token reaches goes on in it.
        sessions.keep(&session).await;
        result.map_err(|e| e.scrubbed(&session.scrubber()))
    }

    async fn run_in(
        &self,
        budget: Duration,
        session: Arc<Session>,
        opened: Opened,
    ) -> Result<Outcome, ApiError> {
        let Fetch {
            runtime,
            plugin,
            request,
            key,
            request_id,
            on_page,
            sink,
            known,
        } = *self;
        // A sync_cursor's reviews, unless the caller knows better (a schedule).
        let from_cursor = request.sync_known.as_ref().map(Known::of_cursor);
        let known = known.or(from_cursor.as_ref());
        // The first page's newest reviews: their ids and dates.
        let mut newest: Option<Vec<(String, Option<String>)>> = None;
        let started = Instant::now();
        let deadline = started + budget.saturating_sub(ANSWER_MARGIN);
        let label = plugin.label();
        let route = plugin.manifest.route.clone();
        let sync_day = request.sync_date.map(|d| d.to_string());
        let mut resume = request.resume.clone().unwrap_or(Resume {
            cursor: None,
            skip: 0,
            last: None,
            sort: request.sort.clone(),
            filter: request.filter.clone(),
            sync_date: request.sync_date,
            session: None,
        });
        // One session per fetch, continued through its tokens while it lives.
        resume.session = Some(session.id.clone());
        let limit = request.reviews_to_fetch.map(|n| n as usize);
        let mut reviews: Vec<Review> = Vec::new();
        let mut seen = HashSet::new();
        let mut meta: Option<SourceMeta> = None;
        let mut pages = 0u32;
        let mut source_error = None;
        let mut realigned = None;
        let (sort, filter_json) = (
            resume.sort.clone(),
            resume.filter.as_ref().map(Value::to_string),
        );
        let width = plugin.manifest.limits.upstream_concurrency;
        let fetch_session = session.clone();
        let mut window = Window::new(
            width,
            Box::new(move |cursor| {
                let page_request = PageRequest {
                    query: request.query.clone(),
                    sort: sort.clone(),
                    filter_json: filter_json.clone(),
                    cursor,
                };
                let session = fetch_session.clone();
                Box::pin(async move {
                    runtime
                        .fetch_page(plugin, request_id, &page_request, deadline, Some(session))
                        .await
                })
            }),
        );
        let mut order_check = OrderCheck::default();
        let stop = loop {
            // Too late to start a page; one that has already arrived is still taken.
            if pages > 0
                && deadline.saturating_duration_since(Instant::now()) < MIN_PAGE_TIME
                && !window.arrived(&resume.cursor)
            {
                break StopReason::Budget;
            }
            let page = match window.page(resume.cursor.clone()).await {
                Ok(Ok(page)) => page,
                Ok(Err(e)) if reviews.is_empty() => return Err(ApiError::from_fetch(&label, e)),
                Err(e) if reviews.is_empty() => return Err(e.into()),
                Ok(Err(e)) => {
                    // A page that ran out of time (the site, or its pace, would
                    // have made it late) ends the fetch at the budget, with a token.
                    let reason = if matches!(e, FetchError::Timeout(_)) {
                        StopReason::Budget
                    } else {
                        StopReason::SourceError
                    };
                    source_error = Some(ApiError::from_fetch(&label, e).to_string());
                    break reason;
                }
                Err(e) => {
                    let reason = if matches!(e, crate::runtime::CallError::Timeout { .. }) {
                        StopReason::Budget
                    } else {
                        StopReason::SourceError
                    };
                    source_error = Some(e.to_string());
                    break reason;
                }
            };
            pages += 1;
            let seen_against = order_check.contradicted();
            let order =
                order_check.page(page.order, page.reviews.iter().map(|r| r.date.as_deref()));
            if let (None, Some(declared)) = (seen_against, order_check.contradicted()) {
                tracing::warn!(
                    plugin = %label,
                    request_id,
                    declared = order::code(declared),
                    page = pages,
                    "the page's review dates go against the order the source declared; \
                     the rest of the fetch is read as not by date"
                );
            }
            if pages == 1 && request.resume.is_none() && order == Order::NewestFirst {
                let named = page.reviews.iter().take(SYNC_CURSOR_REVIEWS);
                newest = Some(
                    named
                        .map(|r| (r.id.trim().to_owned(), r.date.clone()))
                        .collect(),
                );
            }
            if pages == 1 && resume.skip > 0 {
                // The token's count is checked against the page as it is now.
                let ids: Vec<&str> = page.reviews.iter().map(|r| r.id.trim()).collect();
                let at = token::realign(&ids, resume.skip, resume.last.as_deref());
                resume.skip = at.skip() as u32;
                realigned = Some(at).filter(|a| !matches!(a, Realigned::Unchanged(_)));
            }
            let fresh = page.reviews.len().saturating_sub(resume.skip as usize);
            window.plan(
                page.next_cursor.as_ref(),
                &page.ahead,
                pages_wanted(limit, reviews.len() + fresh, page.reviews.len(), width),
            );
            let mut reason = None;
            let before = reviews.len();
            let (mut taken, mut known_here) = (0usize, 0usize);
            for (index, item) in page.reviews.iter().enumerate().skip(resume.skip as usize) {
                taken += 1;
                let declared = plugin.source_options().and_then(|o| o.extra.as_ref());
                let (record, lapses) =
                    Review::from_wit(item, &label, request.is_text_formatted, declared)
                        .map_err(|e| contract_broken(plugin, e))?;
                self.runtime
                    .records
                    .judge(&plugin.manifest.name, &record.review_id, &lapses)
                    .map_err(|e| contract_broken(plugin, e))?;
                if let Some(day) = &sync_day {
                    // The date as precise as the site told it (a month
                    // never matches a day), as the plugin gave it.
                    match compare_day(item.date.as_deref(), day) {
                        DayMatch::Same => {}
                        DayMatch::Before if order == Order::NewestFirst => {
                            reason = Some(StopReason::PastSyncDate);
                            break;
                        }
                        DayMatch::After if order == Order::OldestFirst => {
                            reason = Some(StopReason::PastSyncDate);
                            break;
                        }
                        _ => continue,
                    }
                }
                let floor = known.and_then(|k| k.floor.as_deref());
                if let Some(floor) = floor.filter(|_| order == Order::NewestFirst) {
                    if dates::older_than(item.date.as_deref(), floor) {
                        reason = Some(StopReason::CaughtUp);
                        break;
                    }
                }
                if let Some(known) = known.filter(|k| k.contains(&record.review_id)) {
                    known_here += 1;
                    if known.stop_at == StopAt::FirstKnown && order == Order::NewestFirst {
                        reason = Some(StopReason::CaughtUp);
                        break;
                    }
                    continue;
                }
                if seen.insert(record.review_id.clone()) {
                    reviews.push(record);
                }
                if limit.is_some_and(|l| reviews.len() >= l) {
                    let rest_of_page = index + 1 < page.reviews.len();
                    resume.skip = (index + 1) as u32;
                    resume.last = Some(token::review_digest(&item.id));
                    if !rest_of_page {
                        resume.cursor = page.next_cursor.clone();
                        resume.skip = 0;
                        resume.last = None;
                    }
                    reason = Some(if rest_of_page || page.next_cursor.is_some() {
                        StopReason::LimitReached
                    } else {
                        StopReason::Exhausted
                    });
                    break;
                }
            }
            let all_known = taken > 0 && known_here == taken;
            if reason.is_none()
                && all_known
                && order == Order::NewestFirst
                && known.is_some_and(|k| k.stop_at == StopAt::KnownPage)
            {
                reason = Some(StopReason::CaughtUp);
            }
            if let Some(sink) = sink {
                // Where a fetch resumes right after this page's reviews.
                let after = match reason {
                    Some(StopReason::LimitReached) => Some(resume.clone()),
                    Some(_) => None,
                    None => page.next_cursor.clone().map(|next| Resume {
                        cursor: Some(next),
                        skip: 0,
                        last: None,
                        ..resume.clone()
                    }),
                };
                let committed = CommittedPage {
                    reviews: &reviews[before..],
                    resume: after.map(|r| token::encode(key, &route, &request.query, &r)),
                    pages: 1,
                };
                sink.commit(committed).await?;
            }
            meta = Some(page.meta);
            on_page(pages, reviews.len());
            if let Some(reason) = reason {
                break reason;
            }
            match page.next_cursor {
                Some(next) => {
                    resume.cursor = Some(next);
                    resume.skip = 0;
                    resume.last = None;
                }
                None => break StopReason::Exhausted,
            }
        };
        let source_limit = meta.as_ref().and_then(|m| reserved(m, "source_limit"));
        let notice = meta.as_ref().and_then(|m| reserved(m, "notice"));
        let stop = match (stop, &source_limit) {
            (StopReason::Exhausted, Some(_)) => StopReason::SourceLimit,
            (stop, _) => stop,
        };
        let complete = matches!(
            stop,
            StopReason::Exhausted | StopReason::PastSyncDate | StopReason::CaughtUp
        );
        // A source limit is an end: following it would only read the last page again.
        let continues = !complete && stop != StopReason::SourceLimit;
        let continuation = continues.then(|| token::encode(key, &route, &request.query, &resume));
        let elapsed_ms = started.elapsed().as_millis() as u64;
        let mut extra_information =
            extra_information(meta, pages, complete, stop, elapsed_ms, plugin);
        extra_information["pages_unused"] = json!(window.launched().saturating_sub(pages));
        extra_information["session"] = json!(opened.code());
        extra_information["order"] = json!(order_check.last_order().map(order::code));
        extra_information["order_contradicted"] =
            json!(order_check.contradicted().map(order::code));
        let why = source_error.or(source_limit);
        let mut message = summary(
            reviews.len(),
            pages,
            stop,
            request,
            why.as_deref(),
            continuation.is_some(),
        );
        if request.sync_date.is_some() && order_check.was_unordered() {
            message = format!("{message} {}", undated_note(resume.sort.as_deref()));
        }
        if let Some(note) = realigned.map(realigned_note) {
            message = format!("{message} {note}");
        }
        if let Some(notice) = notice {
            message = format!("{message} {}", sentence(&notice));
        }
        crate::telemetry::metrics::fetch_answered(&label, reviews.len(), stop.code());
        let sync_cursor = newest.filter(|named| !named.is_empty()).map(|named| {
            let (ids, dates): (Vec<String>, Vec<Option<String>>) = named.into_iter().unzip();
            let floor = dates::oldest(&dates);
            token::encode_sync(key, &route, &request.query, &ids, floor)
        });
        Ok(Outcome {
            reviews,
            extra_information,
            message,
            continuation,
            sync_cursor,
            session,
        })
    }
}

/// What the message says when the page a token resumed had changed.
fn realigned_note(at: Realigned) -> &'static str {
    match at {
        Realigned::Moved(_) => {
            "The page the token continued had changed since; the fetch went on after the last review it had returned."
        }
        _ => {
            "The page the token continued had changed since and its last returned review is gone; \
             that page was returned from its start, so some reviews may repeat."
        }
    }
}

/// A reserved key of a page's metadata, as non-empty text: `source_limit`
/// (why the source serves no further although the item has more reviews) or
/// `notice` (what the user should know about the answer, such as "this
/// project does not accept reviews"), which the message carries.
fn reserved(meta: &SourceMeta, key: &str) -> Option<String> {
    let extra: Value = serde_json::from_str(&meta.extra_json).ok()?;
    extra[key]
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn extra_information(
    meta: Option<SourceMeta>,
    pages: u32,
    complete: bool,
    stop: StopReason,
    elapsed_ms: u64,
    plugin: &LoadedPlugin,
) -> Value {
    let mut info = Map::new();
    let meta = meta.unwrap_or(SourceMeta {
        resolved_url: None,
        name: None,
        average_rating: None,
        total_reviews: None,
        extra_json: String::new(),
    });
    info.insert("resolved_url".into(), json!(meta.resolved_url));
    info.insert("name".into(), json!(meta.name));
    info.insert("average_rating".into(), json!(meta.average_rating));
    info.insert("total_reviews".into(), json!(meta.total_reviews));
    info.insert("pages_fetched".into(), json!(pages));
    info.insert("complete".into(), json!(complete));
    info.insert("stop_reason".into(), json!(stop.code()));
    info.insert("elapsed_ms".into(), json!(elapsed_ms));
    info.insert("plugin".into(), json!(plugin.manifest.name));
    info.insert("plugin_version".into(), json!(plugin.manifest.version));
    info.insert(
        "dates_are".into(),
        json!(if plugin.source_options().is_some_and(|s| s.local_dates) {
            "source_local"
        } else {
            "utc"
        }),
    );
    info.insert("source".into(), extra_object(&meta.extra_json));
    info.insert(
        "record_version".into(),
        json!(crate::record::RECORD_VERSION),
    );
    Value::Object(info)
}

/// Text ending as a sentence does.
/// What a `sync_date` fetch over an order not strictly by date did.
fn undated_note(sort: Option<&str>) -> String {
    let sort = sort.map_or_else(|| "the default sort".to_owned(), |s| format!("sort {s:?}"));
    format!(
        "The source's order for {sort} is not strictly by date, so sync_date was applied as a \
         filter without stopping early: every page was read, within reviews_to_fetch and the \
         time budget."
    )
}

/// `text` as a sentence of its own: capitalised, and ending with a stop.
fn sentence(text: &str) -> String {
    let text = text.trim();
    let mut chars = text.chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

fn summary(
    count: usize,
    pages: u32,
    stop: StopReason,
    request: &SourceRequest,
    error: Option<&str>,
    continues: bool,
) -> String {
    let reviews = if count == 1 { "review" } else { "reviews" };
    let page_word = if pages == 1 { "page" } else { "pages" };
    let why = match stop {
        StopReason::Exhausted => "the source has no more reviews".to_owned(),
        StopReason::LimitReached => format!(
            "reviews_to_fetch ({}) was reached",
            request.reviews_to_fetch.unwrap_or_default()
        ),
        StopReason::PastSyncDate => "the source went past sync_date".to_owned(),
        StopReason::Budget => "the time budget ran out".to_owned(),
        StopReason::SourceError => {
            format!("the source failed: {}", error.unwrap_or("unknown error"))
        }
        StopReason::SourceLimit => format!(
            "the source serves no more, though it has more reviews: {}",
            error.unwrap_or("it stopped early")
        ),
        StopReason::CaughtUp => "it reached reviews delivered before".to_owned(),
    };
    let next = if continues {
        "; send the continuation token back to get the rest"
    } else {
        ""
    };
    format!("Fetched {count} {reviews} from {pages} {page_word}; stopped because {why}{next}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_limit_is_read_from_the_metadata() {
        let meta = |extra: &str| SourceMeta {
            resolved_url: None,
            name: None,
            average_rating: None,
            total_reviews: None,
            extra_json: extra.into(),
        };
        assert_eq!(
            reserved(
                &meta(r#"{"source_limit": " the feed stops at 10 pages "}"#),
                "source_limit"
            )
            .as_deref(),
            Some("the feed stops at 10 pages")
        );
        assert_eq!(
            reserved(&meta(r#"{"source_limit": ""}"#), "source_limit"),
            None
        );
        assert_eq!(
            reserved(&meta(r#"{"source_limit": 3}"#), "source_limit"),
            None
        );
        assert_eq!(reserved(&meta(""), "notice"), None);
        assert_eq!(sentence(" no reviews yet "), "No reviews yet.");
        assert_eq!(sentence("closed!"), "Closed!");
        let line = summary(
            5,
            10,
            StopReason::SourceLimit,
            &crate::validate::SourceRequest {
                query: "q".into(),
                reviews_to_fetch: None,
                is_text_formatted: true,
                sync_date: None,
                sort: None,
                filter: None,
                resume: None,
                sync_known: None,
            },
            Some("the feed stops at 10 pages"),
            false,
        );
        assert!(
            line.contains("serves no more, though it has more reviews: the feed stops at 10 pages"),
            "{line}"
        );
    }
}
