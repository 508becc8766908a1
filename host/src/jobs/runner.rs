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

use super::model::{now_ms, Job};
use super::store::{each_review, Lease, PageWrite, Store, StoreError};
use super::tracking::Tracker;
use super::{End, Worker};
use crate::config::Config;
use crate::driver::{CommittedPage, Fetch, Known, PageSink, StopAt};
use crate::error::ApiError;
use crate::insights::Insights;
use crate::manifest::SourceOptions;
use crate::registry::Registry;
use crate::runtime::bulkhead::{Bulkheads, Reach};
use crate::runtime::Runtime;
use crate::token::TokenKey;
use crate::validate::{self, MAX_REVIEWS_TO_FETCH};
use gleaner_jobs::changes::ChangeWrite;

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
    tracker: Option<&'a Tracker>,
    /// The review-insights plugin, when the job's request asks for insights.
    insights: Option<Insights>,
}

impl PageSink for Committer<'_> {
    fn commit<'a>(&'a self, page: CommittedPage<'a>) -> BoxFuture<'a, Result<(), ApiError>> {
        Box::pin(async move {
            let mut enriched = Vec::new();
            let stored = match &self.insights {
                Some(insights) => {
                    enriched.extend_from_slice(page.reviews);
                    let deadline = std::time::Instant::now() + CALL_BUDGET;
                    insights.add(&mut enriched, self.job_id, deadline).await?;
                    enriched.as_slice()
                }
                None => page.reviews,
            };
            let reviews = stored
                .iter()
                .map(|r| {
                    let text = serde_json::to_string(r).unwrap_or_default();
                    (r.review_id.clone(), text)
                })
                .collect();
            let changes = self
                .tracker
                .map(|t| t.page(page.reviews, page.revisited))
                .unwrap_or_default();
            let write = PageWrite {
                reviews,
                position: page.resume.clone(),
                pages: u64::from(page.pages),
                changes,
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

/// Shows `insights` the reviews job `id` stored before it resumed, in their
/// order, so a later near-duplicate points at them.
async fn seen_before(store: &dyn Store, id: &str, insights: &Insights) -> Result<(), ApiError> {
    each_review(store, id, |review| {
        if let (Some(review_id), Some(text)) =
            (review["review_id"].as_str(), review["review_text"].as_str())
        {
            insights.seen_before(review_id, text);
        }
    })
    .await
    .map_err(ApiError::from)
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
    let (known, tracker) = match &job.schedule_id {
        Some(id) => match schedule_known(store, id, &job.job_id).await {
            Ok((known, tracker)) => (Some(known), tracker),
            Err(e) => return End::Failed(e.to_string(), None),
        },
        None => (None, None),
    };
    // The job's request, checked as its endpoint checks it; each call only
    // changes how many reviews it asks for and where it resumes.
    let route = &plugin.manifest.route;
    let first = match first_request(&parts.tokens, route, options, job) {
        Ok(request) => request,
        Err(e) => return End::Failed(format!("the job's request is refused: {e}"), None),
    };
    let insights = match first.insights {
        true => match Insights::find(&parts.registry, &parts.runtime) {
            Ok(found) => match seen_before(store, &job.job_id, &found).await {
                Ok(()) => Some(found),
                Err(e) => return End::Failed(e.to_string(), None),
            },
            Err(e) => return End::Failed(e.to_string(), None),
        },
        false => None,
    };
    let committer = Committer {
        store,
        lease,
        job_id: &job.job_id,
        cancel,
        collected: AtomicU64::new(job.reviews_collected),
        position: Mutex::new(job.position.clone()),
        committed: AtomicU64::new(0),
        tracker: tracker.as_ref(),
        insights,
    };
    // Only a walk of everything, from the top, can find a review gone.
    let from_top = job.position.is_none()
        && first.resume.is_none()
        && first.sync_date.is_none()
        && first.filter.is_none();
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
        let mut request = match &position {
            None => first.clone(),
            Some(token) => match validate::resumed(&parts.tokens, route, options, &first, token) {
                Ok(request) => request,
                Err(e) => return End::Failed(format!("the job's request is refused: {e}"), None),
            },
        };
        request.reviews_to_fetch = wanted(job, collected);
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
                    if let (Some(tracker), Some(id)) = (&tracker, &job.schedule_id) {
                        let walked = tracker.walks_all && from_top && stop == "exhausted";
                        if let Err(e) = finish_tracking(store, id, tracker, walked).await {
                            return End::Failed(e.to_string(), Some(stop));
                        }
                    }
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

/// The job's request as its first call sends it: what was submitted,
/// validated by the endpoint's own rules, resuming where it was submitted to
/// (a continuation token given with it), whatever its count.
fn first_request(
    key: &TokenKey,
    route: &str,
    options: &SourceOptions,
    job: &Job,
) -> Result<validate::SourceRequest, String> {
    let mut body = job.request.clone();
    if let Some(object) = body.as_object_mut() {
        object.remove("reviews_to_fetch");
    }
    validate::source_request(key, route, options, body.to_string().as_bytes())
}

/// How many reviews a call asks for: what the job still wants (at most the
/// endpoint's own maximum), or, with no total, all it can within its budget.
fn wanted(job: &Job, collected: u64) -> Option<u64> {
    job.total.map(|total| {
        total
            .saturating_sub(collected)
            .clamp(1, MAX_REVIEWS_TO_FETCH)
    })
}

/// The reviews a schedule's earlier runs delivered, and where a run stops
/// among them: at the first page delivered entirely before only when the
/// last run reached the end (else a run that failed halfway would leave
/// reviews behind a page that looks finished). With the schedule's tracker
/// when it tracks changes.
async fn schedule_known(
    store: &dyn Store,
    id: &str,
    job_id: &str,
) -> Result<(Known, Option<Tracker>), StoreError> {
    let schedule = store.schedule(None, id).await?;
    let delivered = store.delivered_ids(id).await?;
    let stop_at = match schedule.as_ref().is_some_and(|s| s.caught_up) {
        true => StopAt::KnownPage,
        false => StopAt::Never,
    };
    let Some(schedule) = schedule else {
        return Ok((Known::of_ids(&delivered, stop_at), None));
    };
    let tracker = Tracker::open(store, &schedule, job_id).await?;
    let known = match &tracker {
        Some(tracker) => tracker.known(&delivered, stop_at),
        None => Known::of_ids(&delivered, stop_at),
    };
    Ok((known, tracker))
}

/// A tracked run's end: on a full walk from the top, the reviews it never
/// met are recorded removed, and the walk's time kept.
async fn finish_tracking(
    store: &dyn Store,
    schedule_id: &str,
    tracker: &Tracker,
    walked_all: bool,
) -> Result<(), StoreError> {
    let (write, at) = match walked_all {
        true => (tracker.removals(), Some(now_ms())),
        false => (ChangeWrite::default(), None),
    };
    if write.is_empty() && at.is_none() {
        return Ok(());
    }
    store.record_changes(schedule_id, write, at).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::model::JobState;
    use serde_json::json;

    #[test]
    fn backoff_doubles_to_a_minute() {
        assert_eq!(backoff(1), Duration::from_secs(2));
        assert_eq!(backoff(3), Duration::from_secs(8));
        assert_eq!(backoff(10), MAX_BACKOFF);
    }

    #[test]
    fn a_call_asks_for_what_the_job_still_wants() {
        let mut job = Job {
            job_id: "j".into(),
            owner: "o".into(),
            endpoint: "/x/reviews".into(),
            request: json!({"query": " q ", "reviews_to_fetch": 50_000, "sync_date": "2024-02-29"}),
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
            export: None,
        };
        assert_eq!(wanted(&job, 45_000), Some(5_000));
        assert_eq!(wanted(&job, 0), Some(MAX_REVIEWS_TO_FETCH));
        assert_eq!(wanted(&job, 50_000), Some(1));
        let key = TokenKey::from_secret(b"a-token-secret-of-at-least-32-bytes!!").unwrap();
        let options: SourceOptions =
            toml::from_str(r#"continuation = "pagination_token""#).unwrap();
        // The count the job was submitted with is the job's total, not a call's.
        let first = first_request(&key, "/x/reviews", &options, &job).unwrap();
        assert_eq!(first.query, "q");
        assert_eq!(first.reviews_to_fetch, None);
        assert_eq!(first.sync_date.unwrap().to_string(), "2024-02-29");
        job.request["surprise"] = json!(1);
        let e = first_request(&key, "/x/reviews", &options, &job).unwrap_err();
        assert!(e.contains("surprise"), "{e}");
        job.total = None;
        assert_eq!(wanted(&job, 10), None);
    }
}
