//! One job's run: the synchronous endpoints' driver, called again and again
//! with the job's continuation token until the source has no more, the
//! job's total is reached, or its budget runs out. Each page is committed
//! with the position after it before the driver uses the next ([`Committer`]),
//! so a run interrupted anywhere resumes from its last committed page.
//! Upstream trouble is retried with backoff within the job's budget.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use super::model::{now_ms, Job};
use super::store::{Lease, PageWrite, Store};
use super::{End, Worker};
use crate::config::Config;
use crate::driver::{CommittedPage, Fetch, Known, PageSink, StopAt};
use crate::error::ApiError;
use crate::manifest::Continuation;
use crate::registry::Registry;
use crate::runtime::bulkhead::{Bulkheads, Reach};
use crate::runtime::Runtime;
use crate::token::TokenKey;
use crate::validate::{self, MAX_REVIEWS_TO_FETCH};

/// The budget of one driver call; a job makes as many as it needs.
const CALL_BUDGET: Duration = Duration::from_secs(300);

/// Failed calls in a row after which a job fails.
const MAX_FAILURES: u32 = 8;

/// The longest wait between retries.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// The server's worker: runs jobs with its own parts.
#[derive(Clone)]
pub struct Runner {
    /// The runtime plugins run in.
    pub runtime: Arc<Runtime>,
    /// Which plugin serves which route.
    pub registry: Arc<Registry>,
    /// The key continuation tokens are signed with.
    pub tokens: Arc<TokenKey>,
    /// The request pools a job's calls take their slots in.
    pub bulkheads: Arc<Bulkheads>,
    /// The configuration.
    pub config: Arc<Config>,
}

#[async_trait]
impl Worker for Runner {
    async fn drive(
        &self,
        store: &dyn Store,
        job: &Job,
        cancel: &AtomicBool,
        lease: &dyn Lease,
    ) -> End {
        drive(self, store, job, cancel, lease).await
    }
}

/// Commits each page of a job: its reviews and the position after them.
struct Committer<'a> {
    store: &'a dyn Store,
    lease: &'a dyn Lease,
    job_id: &'a str,
    cancel: &'a AtomicBool,
    collected: AtomicU64,
    position: Mutex<Option<String>>,
    committed: AtomicU64,
}

impl PageSink for Committer<'_> {
    fn commit<'a>(&'a self, page: CommittedPage<'a>) -> BoxFuture<'a, Result<(), ApiError>> {
        Box::pin(async move {
            let reviews = page
                .reviews
                .iter()
                .map(|r| {
                    let text = serde_json::to_string(r).unwrap_or_default();
                    (r.review_id.clone(), text)
                })
                .collect();
            let write = PageWrite {
                reviews,
                position: page.resume.clone(),
                pages: u64::from(page.pages),
            };
            let added = self
                .store
                .commit_page(self.job_id, write)
                .await
                .map_err(|e| ApiError::Overloaded(e.to_string()))?;
            self.collected.fetch_add(added, Ordering::Relaxed);
            self.committed.fetch_add(1, Ordering::Relaxed);
            *self.position.lock().unwrap_or_else(|p| p.into_inner()) = page.resume;
            self.lease.keep().await;
            // A cancel asked on another replica reaches this one through the store.
            if let Ok(Some(job)) = self.store.job(None, self.job_id).await {
                if job.cancel_requested {
                    self.cancel.store(true, Ordering::Relaxed);
                }
            }
            if self.cancel.load(Ordering::Relaxed) {
                return Err(ApiError::Overloaded("the job was cancelled".into()));
            }
            Ok(())
        })
    }
}

/// Whether an error will not go away by asking again.
fn is_permanent(e: &ApiError) -> bool {
    matches!(
        e,
        ApiError::BadRequest(_) | ApiError::UpstreamNotFound(_) | ApiError::NotFound(_)
    )
}

/// The wait before retry `failures`: doubling from a second, at most a minute.
fn backoff(failures: u32) -> Duration {
    Duration::from_secs(1 << failures.min(6)).min(MAX_BACKOFF)
}

async fn drive(
    parts: &Runner,
    store: &dyn Store,
    job: &Job,
    cancel: &AtomicBool,
    lease: &dyn Lease,
) -> End {
    let config = &parts.config;
    let started = job.started_at.unwrap_or_else(now_ms);
    let deadline = started + (config.job_max_duration_secs as i64).saturating_mul(1_000);
    // After a restart the route's plugin may still be loading.
    parts.registry.wait_ready().await;
    let Some(plugin) = parts.registry.get(&job.endpoint) else {
        return End::Failed(
            format!(
                "no plugin serves {} now; install it, then submit the job again",
                job.endpoint
            ),
            None,
        );
    };
    let Some(options) = plugin.source_options() else {
        return End::Failed(format!("{} is not a review source", job.endpoint), None);
    };
    let known = match &job.schedule_id {
        Some(id) => match schedule_known(store, id).await {
            Ok(known) => Some(known),
            Err(e) => return End::Failed(e.to_string(), None),
        },
        None => None,
    };
    let committer = Committer {
        store,
        lease,
        job_id: &job.job_id,
        cancel,
        collected: AtomicU64::new(job.reviews_collected),
        position: Mutex::new(job.position.clone()),
        committed: AtomicU64::new(0),
    };
    let mut failures = 0u32;
    let mut last_stop: Option<String> = None;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return End::Cancelled(last_stop);
        }
        let left = deadline - now_ms();
        if left <= 0 {
            return End::Failed(
                format!(
                    "the job's budget of {} s (job_max_duration_secs) ran out; its reviews so far stay",
                    config.job_max_duration_secs
                ),
                Some("time_budget".into()),
            );
        }
        let collected = committer.collected.load(Ordering::Relaxed);
        if job.total.is_some_and(|t| collected >= t) {
            return End::Succeeded("limit_reached".into());
        }
        let position = committer
            .position
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let body = call_body(job, options.continuation, collected, position.as_deref());
        let request = match validate::source_request(
            &parts.tokens,
            &plugin.manifest.route,
            options,
            body.to_string().as_bytes(),
        ) {
            Ok(request) => request,
            Err(e) => return End::Failed(format!("the job's request is refused: {e}"), None),
        };
        let _slots = match parts.bulkheads.enter(&plugin.manifest.name, Reach::Network) {
            Ok(slots) => slots,
            Err(_) => {
                // The synchronous API has the pool; a job waits its turn.
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let committed_before = committer.committed.load(Ordering::Relaxed);
        let budget = CALL_BUDGET.min(Duration::from_millis(left as u64));
        let fetch = Fetch {
            runtime: &parts.runtime,
            plugin: &plugin,
            request: &request,
            key: &parts.tokens,
            request_id: &job.job_id,
            on_page: &|_, _| {},
            sink: Some(&committer),
            known: known.as_ref(),
        };
        let outcome = fetch.run(budget).await;
        let progressed = committer.committed.load(Ordering::Relaxed) > committed_before;
        if progressed {
            failures = 0;
        }
        let error = match outcome {
            Ok(outcome) => {
                let stop = outcome.extra_information["stop_reason"]
                    .as_str()
                    .unwrap_or("exhausted")
                    .to_owned();
                last_stop = Some(stop.clone());
                if outcome.continuation.is_none() {
                    return End::Succeeded(stop);
                }
                if stop != "source_error" {
                    continue;
                }
                outcome.message
            }
            Err(_) if cancel.load(Ordering::Relaxed) => return End::Cancelled(last_stop),
            Err(e) if is_permanent(&e) => return End::Failed(e.to_string(), last_stop),
            Err(e) => e.to_string(),
        };
        failures += 1;
        if failures >= MAX_FAILURES {
            return End::Failed(
                format!("the source failed {failures} times in a row; the last: {error}"),
                Some("source_error".into()),
            );
        }
        let wait = backoff(failures);
        tracing::info!(job = %job.job_id, failures, wait_s = wait.as_secs(), %error, "job retries after upstream trouble");
        tokio::time::sleep(wait).await;
    }
}

/// A job call's body: the job's request, as many reviews as the job still
/// wants (at most the endpoint's own maximum), and its position.
fn call_body(
    job: &Job,
    continuation: Continuation,
    collected: u64,
    position: Option<&str>,
) -> Value {
    let mut body = job.request.clone();
    match job.total {
        Some(total) => {
            let want = total
                .saturating_sub(collected)
                .clamp(1, MAX_REVIEWS_TO_FETCH);
            body["reviews_to_fetch"] = json!(want);
        }
        None => {
            if let Some(object) = body.as_object_mut() {
                object.remove("reviews_to_fetch");
            }
        }
    }
    if let Some(token) = position {
        match continuation {
            Continuation::PaginationToken => body["pagination_token"] = json!(token),
            Continuation::PaginationData => body["pagination_data"] = json!({ "token": token }),
            Continuation::None => {}
        }
    }
    body
}

/// The reviews a schedule's earlier runs delivered, and where a run stops
/// among them: at the first page delivered entirely before only when the
/// last run reached the end (else a run that failed halfway would leave
/// reviews behind a page that looks finished).
async fn schedule_known(store: &dyn Store, id: &str) -> Result<Known, super::store::StoreError> {
    let caught_up = store.schedule(None, id).await?.is_some_and(|s| s.caught_up);
    let delivered = store.delivered_ids(id).await?;
    let stop_at = if caught_up {
        StopAt::KnownPage
    } else {
        StopAt::Never
    };
    Ok(Known::of_ids(&delivered, stop_at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::model::JobState;

    #[test]
    fn backoff_doubles_to_a_minute() {
        assert_eq!(backoff(1), Duration::from_secs(2));
        assert_eq!(backoff(3), Duration::from_secs(8));
        assert_eq!(backoff(10), MAX_BACKOFF);
    }

    #[test]
    fn a_call_asks_for_what_the_job_still_wants_from_its_position() {
        let mut job = Job {
            job_id: "j".into(),
            owner: "o".into(),
            endpoint: "/x/reviews".into(),
            request: json!({"query": "q", "reviews_to_fetch": 50_000}),
            total: Some(50_000),
            state: JobState::Running,
            position: None,
            reviews_collected: 0,
            pages_fetched: 0,
            stop_reason: None,
            error: None,
            created_at: 0,
            started_at: None,
            finished_at: None,
            webhook: None,
            schedule_id: None,
            cancel_requested: false,
        };
        let body = call_body(&job, Continuation::PaginationToken, 45_000, Some("tok"));
        assert_eq!(
            body,
            json!({"query": "q", "reviews_to_fetch": 5_000, "pagination_token": "tok"})
        );
        let body = call_body(&job, Continuation::PaginationData, 0, Some("tok"));
        assert_eq!(body["reviews_to_fetch"], 10_000);
        assert_eq!(body["pagination_data"], json!({"token": "tok"}));
        job.total = None;
        assert_eq!(
            call_body(&job, Continuation::None, 0, None),
            json!({"query": "q"})
        );
    }
}
