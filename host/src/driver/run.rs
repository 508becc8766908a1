//! A fetch under way: the state it carries from page to page, and the loop
//! that takes pages in order along the cursor chain until a reason to stop.

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::bindings::types::{FetchError, Order, Page, PageRequest, SourceMeta};
use crate::capabilities::http::session::{Opened, Session};
use crate::error::ApiError;
use crate::record::Review;
use crate::token::{self, Realigned, Resume};

use super::order::{self, OrderCheck};
use super::sink::{CommittedPage, Known};
use super::window::{pages_wanted, Window};
use super::{Fetch, Outcome, StopReason, ANSWER_MARGIN, MIN_PAGE_TIME};

/// A fetch under way: what it has collected, and where it stands.
pub(super) struct Run<'r, 'a> {
    /// What the fetch runs with.
    pub(super) fetch: &'r Fetch<'a>,
    /// Reviews delivered before: the caller's, or the `sync_cursor`'s.
    pub(super) known: Option<&'r Known>,
    /// The plugin's label, for errors and metrics.
    pub(super) label: String,
    /// `sync_date`, as the day review dates are compared with.
    pub(super) sync_day: Option<String>,
    /// `reviews_to_fetch`.
    pub(super) limit: Option<usize>,
    /// When the fetch started.
    pub(super) started: Instant,
    /// When the fetch must answer by, its margin kept back.
    pub(super) deadline: Instant,
    /// Where the fetch stands: the page in use and the reviews of it to skip.
    pub(super) resume: Resume,
    /// The pages requested, ahead of the one in use.
    pub(super) window: Window<'a>,
    /// The reviews collected, in source order.
    pub(super) reviews: Vec<Review>,
    /// The ids of the reviews collected.
    pub(super) seen: HashSet<String>,
    /// The known reviews the page in use read again (kept when tracked).
    pub(super) revisited: Vec<Review>,
    /// Known reviews read so far.
    pub(super) known_read: usize,
    /// The last page's metadata.
    pub(super) meta: Option<SourceMeta>,
    /// Pages used.
    pub(super) pages: u32,
    /// Why the source failed, when it failed after some reviews.
    pub(super) source_error: Option<String>,
    /// How the page a token resumed had changed, when it had.
    pub(super) realigned: Option<Realigned>,
    /// The newest reviews, from the top, a `sync_cursor` names: their ids,
    /// dates and short fingerprints.
    pub(super) newest: Option<Vec<super::cursor::Named>>,
    /// What the reviews a `sync_cursor` names show changed since.
    pub(super) cursor_changes: Vec<Value>,
    /// The order the pages' dates show.
    pub(super) order_check: OrderCheck,
    /// The fetch's session: its cookies, and the answers receipts cite.
    pub(super) session: Arc<Session>,
}

impl<'a> Fetch<'a> {
    /// Runs the fetch within `budget` in `session` (`opened` says how the
    /// session was found): pages until a reason to stop, then the answer.
    pub(super) async fn run_in(
        &self,
        budget: Duration,
        session: Arc<Session>,
        opened: Opened,
    ) -> Result<Outcome, ApiError> {
        // A sync_cursor's reviews, unless the caller knows better (a schedule).
        let from_cursor = self.request.sync_known.as_ref().map(Known::of_cursor);
        let known = self.known.or(from_cursor.as_ref());
        if self.request.receipts {
            session.answers.keep();
        }
        let mut run = Run::start(self, known, budget, &session);
        let stop = run.pages().await?;
        Ok(run.finish(stop, opened, session))
    }

    /// The window that fetches this fetch's pages, with `resume`'s sort and
    /// filter, in `session`, before `deadline`.
    fn window(&self, resume: &Resume, deadline: Instant, session: Arc<Session>) -> Window<'a> {
        let Fetch {
            runtime,
            plugin,
            request,
            request_id,
            ..
        } = *self;
        let (sort, filter_json) = (
            resume.sort.clone(),
            resume.filter.as_ref().map(Value::to_string),
        );
        let width = plugin.manifest.limits.upstream_concurrency;
        Window::new(
            width,
            Box::new(move |cursor| {
                let page_request = PageRequest {
                    query: request.query.clone(),
                    sort: sort.clone(),
                    filter_json: filter_json.clone(),
                    cursor,
                };
                let session = session.clone();
                Box::pin(async move {
                    runtime
                        .fetch_page(plugin, request_id, &page_request, deadline, Some(session))
                        .await
                })
            }),
        )
    }
}

impl<'r, 'a> Run<'r, 'a> {
    /// A fetch about to take its first page: where it starts (the token's
    /// position, or the top), its deadline, and the window for its pages.
    fn start(
        fetch: &'r Fetch<'a>,
        known: Option<&'r Known>,
        budget: Duration,
        session: &Arc<Session>,
    ) -> Self {
        let request = fetch.request;
        let started = Instant::now();
        let deadline = started + budget.saturating_sub(ANSWER_MARGIN);
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
        let window = fetch.window(&resume, deadline, session.clone());
        Run {
            fetch,
            known,
            label: fetch.plugin.label(),
            sync_day: request.sync_date.map(|d| d.to_string()),
            limit: request.reviews_to_fetch.map(|n| n as usize),
            started,
            deadline,
            resume,
            window,
            reviews: Vec::new(),
            seen: HashSet::new(),
            revisited: Vec::new(),
            known_read: 0,
            meta: None,
            pages: 0,
            source_error: None,
            realigned: None,
            newest: None,
            cursor_changes: Vec::new(),
            order_check: OrderCheck::default(),
            session: session.clone(),
        }
    }

    /// Takes pages until a reason to stop, which it returns; an error is the
    /// fetch's own (the source failed before any review, or a review broke
    /// the contract, or the sink failed).
    async fn pages(&mut self) -> Result<StopReason, ApiError> {
        loop {
            let page = match self.next_page().await? {
                ControlFlow::Continue(page) => page,
                ControlFlow::Break(stop) => return Ok(stop),
            };
            if let ControlFlow::Break(stop) = self.use_page(page).await? {
                return Ok(stop);
            }
        }
    }

    /// The page at the fetch's cursor, or why the fetch stops before it: too
    /// little time left to start it, or the source failed after some reviews
    /// (a failure before any is the fetch's error).
    async fn next_page(&mut self) -> Result<ControlFlow<StopReason, Page>, ApiError> {
        // Too late to start a page; one that has already arrived is still taken.
        if self.pages > 0
            && self.deadline.saturating_duration_since(Instant::now()) < MIN_PAGE_TIME
            && !self.window.arrived(&self.resume.cursor)
        {
            return Ok(ControlFlow::Break(StopReason::Budget));
        }
        let (reason, error) = match self.window.page(self.resume.cursor.clone()).await {
            Ok(Ok(page)) => return Ok(ControlFlow::Continue(page)),
            Ok(Err(e)) if self.reviews.is_empty() => {
                return Err(ApiError::from_fetch(&self.label, e))
            }
            Err(e) if self.reviews.is_empty() => return Err(e.into()),
            Ok(Err(e)) => {
                // A page that ran out of time (the site, or its pace, would
                // have made it late) ends the fetch at the budget, with a token.
                let reason = if matches!(e, FetchError::Timeout(_)) {
                    StopReason::Budget
                } else {
                    StopReason::SourceError
                };
                (reason, ApiError::from_fetch(&self.label, e).to_string())
            }
            Err(e) => {
                let reason = if matches!(e, crate::runtime::CallError::Timeout { .. }) {
                    StopReason::Budget
                } else {
                    StopReason::SourceError
                };
                (reason, e.to_string())
            }
        };
        self.source_error = Some(error);
        Ok(ControlFlow::Break(reason))
    }

    /// Uses one page: reads its order, asks for the pages after it, takes its
    /// reviews and commits them, then moves to the next page unless a reason
    /// to stop came up.
    async fn use_page(&mut self, page: Page) -> Result<ControlFlow<StopReason>, ApiError> {
        self.pages += 1;
        let order = self.read_order(&page);
        if self.pages == 1 {
            self.first_page(&page, order);
        }
        self.name_newest(&page, order);
        let fresh = page.reviews.len().saturating_sub(self.resume.skip as usize);
        let width = self.fetch.plugin.manifest.limits.upstream_concurrency;
        self.window.plan(
            page.next_cursor.as_ref(),
            &page.ahead,
            pages_wanted(
                self.limit,
                self.reviews.len() + fresh,
                page.reviews.len(),
                width,
            ),
        );
        let before = self.reviews.len();
        let reason = self.take_page(&page, order)?;
        if let Some(sink) = self.fetch.sink {
            let committed = self.committed(&page, reason, before);
            sink.commit(committed).await?;
        }
        self.meta = Some(page.meta);
        (self.fetch.on_page)(self.pages, self.reviews.len());
        if let Some(reason) = reason {
            return Ok(ControlFlow::Break(reason));
        }
        match page.next_cursor {
            Some(next) => {
                self.resume.cursor = Some(next);
                self.resume.skip = 0;
                self.resume.last = None;
                Ok(ControlFlow::Continue(()))
            }
            None => Ok(ControlFlow::Break(StopReason::Exhausted)),
        }
    }

    /// The order the page's reviews are in: the source's declared order while
    /// the dates agree with it. Warns when the dates first go against it.
    fn read_order(&mut self, page: &Page) -> Order {
        let request_id = self.fetch.request_id;
        let seen_against = self.order_check.contradicted();
        let order = self
            .order_check
            .page(page.order, page.reviews.iter().map(|r| r.date.as_deref()));
        if let (None, Some(declared)) = (seen_against, self.order_check.contradicted()) {
            tracing::warn!(
                plugin = %self.label,
                request_id,
                declared = order::code(declared),
                page = self.pages,
                "the page's review dates go against the order the source declared; \
                 the rest of the fetch is read as not by date"
            );
        }
        order
    }

    /// What the first page settles: where a token's page resumes, checked
    /// against the page as it is now; and whether the fetch names the newest
    /// reviews for a `sync_cursor` (a newest-first fetch from the top).
    fn first_page(&mut self, page: &Page, order: Order) {
        if self.fetch.request.resume.is_none() && order == Order::NewestFirst {
            self.newest = Some(Vec::new());
        }
        if self.resume.skip > 0 {
            // The token's count is checked against the page as it is now.
            let ids: Vec<&str> = page.reviews.iter().map(|r| r.id.trim()).collect();
            let at = token::realign(&ids, self.resume.skip, self.resume.last.as_deref());
            self.resume.skip = at.skip() as u32;
            self.realigned = Some(at).filter(|a| !matches!(a, Realigned::Unchanged(_)));
        }
    }

    /// The page's reviews as a sink commits them: the ones it added (from
    /// `before` on), with the token that resumes right after them.
    fn committed(
        &self,
        page: &Page,
        reason: Option<StopReason>,
        before: usize,
    ) -> CommittedPage<'_> {
        // Where a fetch resumes right after this page's reviews.
        let after = match reason {
            Some(StopReason::LimitReached) => Some(self.resume.clone()),
            Some(_) => None,
            None => page.next_cursor.clone().map(|next| Resume {
                cursor: Some(next),
                skip: 0,
                last: None,
                ..self.resume.clone()
            }),
        };
        let Fetch {
            key,
            plugin,
            request,
            ..
        } = *self.fetch;
        CommittedPage {
            reviews: &self.reviews[before..],
            revisited: &self.revisited,
            resume: after.map(|r| token::encode(key, &plugin.manifest.route, &request.query, &r)),
            pages: 1,
        }
    }
}
