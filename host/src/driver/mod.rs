//! The review-fetch driver, shared by every source: it pages through a plugin
//! (fetching ahead the pages the plugin enumerates, see [`window`]), enforces
//! `reviews_to_fetch`, `sync_date` and the time budget, formats text, and
//! issues the continuation token when it stops before the end.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::capabilities::http::session::Session;
use crate::error::ApiError;
use crate::manifest::Continuation;
use crate::record::Review;
use crate::runtime::LoadedPlugin;
use crate::runtime::Runtime;
use crate::token::TokenKey;
use crate::validate::SourceRequest;

mod answer;
mod cursor;
mod dates;
mod order;
mod receipt;
mod run;
mod sink;
mod take;
mod window;

pub use sink::{CommittedPage, Known, PageSink, StopAt};

/// The most of the newest reviews a `sync_cursor` names; it names as many
/// of them as fit in [`crate::token::MAX_SYNC_CURSOR_BYTES`].
const SYNC_CURSOR_REVIEWS: usize = 128;

/// Time kept back from the budget so the answer arrives before it runs out.
const ANSWER_MARGIN: Duration = Duration::from_millis(300);
/// A new page is not started with less time left than this.
const MIN_PAGE_TIME: Duration = Duration::from_millis(700);
/// The shortest fetch budget that can fetch one page and answer in time; the
/// configuration refuses shorter ones at start-up.
pub const MIN_FETCH_BUDGET: Duration = ANSWER_MARGIN.saturating_add(MIN_PAGE_TIME);

pub use gleaner_jobs::StopReason;

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
}
