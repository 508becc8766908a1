//! What a fetch may be told besides its request: a sink that commits each
//! page's reviews with the position after them before the fetch moves on
//! (a job's store), and reviews it has delivered before (a schedule's, or a
//! `sync_cursor`'s), which it leaves out and may stop at.

use std::collections::{HashMap, HashSet};

use futures_util::future::BoxFuture;

use crate::error::ApiError;
use crate::record::Review;

/// One page's worth of a fetch, as it is committed.
#[derive(Debug)]
pub struct CommittedPage<'a> {
    /// The reviews the page added, in the source's order.
    pub reviews: &'a [Review],
    /// The known reviews the page read again, when [`Known::track`] asks
    /// for them.
    pub revisited: &'a [Review],
    /// The continuation token that resumes right after them; none when the
    /// fetch has nothing after them (the end, `sync_date`, known reviews).
    pub resume: Option<String>,
    /// Pages this commit covers (one).
    pub pages: u32,
}

/// Takes each page's reviews before the fetch uses the next page. An error
/// ends the fetch: what was committed before it stays committed.
pub trait PageSink: Send + Sync {
    /// Commits one page.
    fn commit<'a>(&'a self, page: CommittedPage<'a>) -> BoxFuture<'a, Result<(), ApiError>>;
}

/// Where a fetch stops among reviews it knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopAt {
    /// At the first known review of a newest-first source: everything after
    /// it was delivered (`sync_cursor`).
    FirstKnown,
    /// At the first page of a newest-first source whose reviews are all
    /// known (a schedule whose last run reached the end), once the fetch
    /// has read [`Known::reread`] known reviews.
    KnownPage,
    /// Nowhere: known reviews are only left out (a schedule whose last run
    /// failed, or an oldest-first source).
    Never,
}

/// Reviews delivered before, by the digest of their id
/// ([`crate::token::review_digest`], as a `sync_cursor` names them), and
/// where to stop among them.
#[derive(Debug, Clone)]
pub struct Known {
    digests: HashSet<String>,
    /// Where to stop.
    pub stop_at: StopAt,
    /// A newest-first fetch also stops at a review wholly older than this
    /// date, in case the reviews it knows were taken down.
    pub floor: Option<String>,
    /// Known reviews to read before a [`StopAt::KnownPage`] stop (a tracked
    /// schedule's window).
    pub reread: usize,
    /// Whether the sink is given the known reviews read again.
    pub track: bool,
    /// A `sync_cursor`'s short fingerprints of the reviews it names, by
    /// digest: the fetch answers what changed in those it reads again.
    pub fingerprints: HashMap<String, String>,
}

impl Known {
    /// The reviews of these ids.
    pub fn of_ids<'a>(ids: impl IntoIterator<Item = &'a String>, stop_at: StopAt) -> Known {
        let digests = ids
            .into_iter()
            .map(|id| crate::token::review_digest(id))
            .collect();
        Known {
            digests,
            stop_at,
            floor: None,
            reread: 0,
            track: false,
            fingerprints: HashMap::new(),
        }
    }

    /// The reviews a `sync_cursor` names; the fetch stops at the first.
    pub fn of_cursor(cursor: &crate::token::SyncCursor) -> Known {
        Known {
            digests: cursor.digests.iter().cloned().collect(),
            stop_at: StopAt::FirstKnown,
            floor: cursor.floor.clone(),
            reread: 0,
            track: false,
            fingerprints: cursor.fingerprints.iter().cloned().collect(),
        }
    }

    /// Whether a review of this id was delivered before.
    pub fn contains(&self, id: &str) -> bool {
        self.digests.contains(&crate::token::review_digest(id))
    }
}
