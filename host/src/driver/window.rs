//! The page window: fetching ahead. A source that can enumerate its further
//! pages (numbered pages, offsets with a known total) lists their cursors in
//! `page.ahead`; the window requests up to its width of them at once, so a
//! long fetch waits for about one round trip per `width` pages rather than
//! one per page. For a cursor chain it requests the next page while the
//! driver works through the current one.
//!
//! The driver still takes pages strictly in order along each page's own
//! `next-cursor`: a page is used only when its cursor is the one that chain
//! reaches, so a wrong list from a plugin costs requests, never reviews, and
//! continuation, `sync_date` and "no gap, no duplicate" hold as for a fetch
//! one page at a time. Pages still in flight when the fetch ends are dropped.

use std::collections::{HashMap, HashSet, VecDeque};

use futures_util::future::{BoxFuture, FutureExt};
use futures_util::stream::{FuturesUnordered, StreamExt};

use crate::bindings::types::{FetchError, Page};
use crate::runtime::CallError;
use gleaner_contract::MAX_AHEAD;

/// What one `fetch-page` call gave.
pub type PageResult = Result<Result<Page, FetchError>, CallError>;

/// Starts one `fetch-page` call for a cursor (`None`: the first page).
pub type Start<'a> = Box<dyn Fn(Option<String>) -> BoxFuture<'a, PageResult> + Send + Sync + 'a>;

/// Pages requested ahead of the driver, at most `width` at a time.
pub struct Window<'a> {
    start: Start<'a>,
    width: usize,
    in_flight: FuturesUnordered<BoxFuture<'a, (Option<String>, PageResult)>>,
    started: HashSet<Option<String>>,
    ready: HashMap<Option<String>, PageResult>,
    /// The cursors after the current page, in order; the front is its `next-cursor`.
    known: VecDeque<String>,
    /// Pages requested so far.
    launched: u32,
}

impl<'a> Window<'a> {
    /// A window of `width` concurrent pages (at least 1).
    pub fn new(width: usize, start: Start<'a>) -> Self {
        Window {
            start,
            width: width.max(1),
            in_flight: FuturesUnordered::new(),
            started: HashSet::new(),
            ready: HashMap::new(),
            known: VecDeque::new(),
            launched: 0,
        }
    }

    /// The page at `cursor`: already arrived, in flight, or requested now.
    pub async fn page(&mut self, cursor: Option<String>) -> PageResult {
        if self.known.front() == cursor.as_ref() {
            self.known.pop_front();
        }
        if let Some(result) = self.ready.remove(&cursor) {
            self.started.remove(&cursor);
            return result;
        }
        if !self.started.contains(&cursor) {
            self.launch(cursor.clone());
        }
        while let Some((arrived, result)) = self.in_flight.next().await {
            if arrived == cursor {
                self.started.remove(&cursor);
                return result;
            }
            self.ready.insert(arrived, result);
        }
        unreachable!("the page at the cursor was started and has not arrived")
    }

    /// Learns what the page just taken says of the pages after it, then
    /// requests up to `wanted` of them (within the window's width).
    pub fn plan(&mut self, next: Option<&String>, ahead: &[String], wanted: usize) {
        let Some(next) = next else {
            self.known.clear();
            return;
        };
        if ahead.first() == Some(next) {
            self.known = ahead.iter().take(MAX_AHEAD).cloned().collect();
        } else if self.known.front() != Some(next) {
            // A chain the list did not foresee: follow the page's own cursor.
            self.known.clear();
            self.known.push_back(next.clone());
        }
        let wanted: Vec<String> = self.known.iter().take(wanted).cloned().collect();
        for cursor in wanted {
            if self.in_flight.len() >= self.width {
                break;
            }
            let cursor = Some(cursor);
            if !self.started.contains(&cursor) {
                self.launch(cursor);
            }
        }
    }

    /// Whether the page at `cursor` has already arrived (checked without waiting).
    pub fn arrived(&mut self, cursor: &Option<String>) -> bool {
        while let Some(Some((arrived, result))) = self.in_flight.next().now_or_never() {
            self.ready.insert(arrived, result);
        }
        self.ready.contains_key(cursor)
    }

    /// Pages requested so far, taken or not.
    pub fn launched(&self) -> u32 {
        self.launched
    }

    fn launch(&mut self, cursor: Option<String>) {
        self.started.insert(cursor.clone());
        self.launched += 1;
        let call = (self.start)(cursor.clone());
        self.in_flight
            .push(Box::pin(async move { (cursor, call.await) }));
    }
}

/// How many pages after the current one a fetch still needs: with a limit,
/// enough for the reviews missing after this page at this page's size; without
/// one, as many as the window holds.
pub fn pages_wanted(
    limit: Option<usize>,
    collected_after_page: usize,
    page_size: usize,
    width: usize,
) -> usize {
    match limit {
        None => width,
        Some(limit) => {
            let missing = limit.saturating_sub(collected_after_page);
            missing.div_ceil(page_size.max(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::types::{Order, SourceMeta};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    /// Five pages "1" to "5"; the first lists `first_ahead`.
    fn page(cursor: Option<&str>, first_ahead: &[&str]) -> Page {
        let n: u32 = cursor.map_or(1, |c| c.parse().unwrap());
        Page {
            reviews: Vec::new(),
            next_cursor: (n < 5).then(|| (n + 1).to_string()),
            ahead: if n == 1 {
                first_ahead.iter().map(|s| (*s).to_owned()).collect()
            } else {
                Vec::new()
            },
            order: Order::Unordered,
            meta: SourceMeta {
                resolved_url: None,
                name: None,
                average_rating: None,
                total_reviews: None,
                extra_json: String::new(),
            },
        }
    }

    /// Walks the chain as the driver does; returns the cursors taken, the
    /// pages launched and the most in flight at once.
    async fn walk(width: usize, first_ahead: &'static [&'static str]) -> (Vec<u32>, u32, usize) {
        let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let calls = Arc::new(Mutex::new(Vec::new()));
        let (n, m, c) = (now.clone(), most.clone(), calls.clone());
        let mut window = Window::new(
            width,
            Box::new(move |cursor: Option<String>| {
                let (n, m, c) = (n.clone(), m.clone(), c.clone());
                Box::pin(async move {
                    c.lock().unwrap().push(cursor.clone());
                    m.fetch_max(n.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    n.fetch_sub(1, Ordering::SeqCst);
                    Ok(Ok(page(cursor.as_deref(), first_ahead)))
                })
            }),
        );
        let mut taken = Vec::new();
        let mut cursor = None;
        loop {
            let got = window.page(cursor.clone()).await.unwrap().unwrap();
            taken.push(cursor.as_deref().map_or(1, |c: &str| c.parse().unwrap()));
            window.plan(got.next_cursor.as_ref(), &got.ahead, 10);
            match got.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        (taken, window.launched(), most.load(Ordering::SeqCst))
    }

    #[tokio::test]
    async fn an_enumerated_list_is_fetched_within_the_width_and_taken_in_order() {
        let (taken, launched, most) = walk(2, &["2", "3", "4", "5"]).await;
        assert_eq!(taken, [1, 2, 3, 4, 5]);
        assert_eq!(launched, 5, "every page asked once");
        assert_eq!(most, 2, "two at a time");
    }

    #[tokio::test]
    async fn a_wrong_list_costs_requests_never_pages() {
        let (taken, launched, _) = walk(4, &["2", "9", "3", "4"]).await;
        assert_eq!(taken, [1, 2, 3, 4, 5], "the chain of next cursors decides");
        assert!(launched > 5, "the listed page 9 was asked for nothing");
        let (taken, _, _) = walk(4, &["7", "8"]).await;
        assert_eq!(
            taken,
            [1, 2, 3, 4, 5],
            "a list not starting at next-cursor is ignored"
        );
    }

    #[tokio::test]
    async fn a_cursor_chain_asks_one_page_ahead() {
        let (taken, launched, most) = walk(4, &[]).await;
        assert_eq!(taken, [1, 2, 3, 4, 5]);
        assert_eq!((launched, most), (5, 1));
    }

    #[test]
    fn wants_only_the_pages_a_limit_needs() {
        assert_eq!(pages_wanted(Some(100), 20, 20, 8), 4);
        assert_eq!(pages_wanted(Some(100), 100, 20, 8), 0);
        assert_eq!(pages_wanted(Some(30), 20, 20, 8), 1);
        assert_eq!(pages_wanted(Some(30), 20, 0, 8), 10);
        assert_eq!(pages_wanted(None, 20, 20, 8), 8);
    }
}
