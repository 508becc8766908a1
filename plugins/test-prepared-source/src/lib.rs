//! A source whose `prepare` parses a selector, fills a std `HashMap` (seeded
//! from `wasi:random/insecure-seed`, the one import preparation answers) and
//! marks a static: its one review says whether that had happened before the
//! call began, whether the call found the selector parsed, and how many
//! entries the prepared map holds. The host runs `prepare` once before
//! compiling the component and keeps the memory it leaves, so in every call
//! both hold, though the call itself never runs `prepare`. The same code is
//! built as test-prepare-fails, whose preparation calls the host.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::{html, FetchError, Order, Page, PageRequest};

/// Set by `prepare` only.
static PREPARED: AtomicBool = AtomicBool::new(false);

/// A table built by `prepare` with std's randomly seeded hasher.
static TABLE: OnceLock<HashMap<&'static str, u32>> = OnceLock::new();

/// The selector `prepare` parses.
const CARD: &str = "article.review";

gleaner_sdk::export_source!(
    fetch_page,
    prepare = || {
        // Built as test-prepare-fails, the preparation calls the host, which
        // traps there: the host then compiles the component unprepared.
        #[cfg(feature = "calls-the-host")]
        gleaner_sdk::log::info("preparing");
        html::prepare([CARD]);
        TABLE.get_or_init(|| HashMap::from([("good", 1), ("bad", 2), ("fine", 3)]));
        PREPARED.store(true, Ordering::Relaxed);
    }
);

fn fetch_page(_req: PageRequest) -> Result<Page, FetchError> {
    let prepared = PREPARED.load(Ordering::Relaxed);
    let parsed = html::is_parsed(CARD);
    let table = TABLE.get().map_or(0, HashMap::len);
    let review = ReviewBuilder::new("r1")
        .text_plain(Some(format!(
            "prepared: {prepared}; selector parsed: {parsed}; table: {table}"
        )))
        .build()
        .map_err(FetchError::Upstream)?;
    Ok(Page {
        ahead: Vec::new(),
        reviews: vec![review],
        next_cursor: None,
        order: Order::Unordered,
        meta: gleaner_sdk::meta(None, None),
    })
}
