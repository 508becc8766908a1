//! A corpus of real review texts: every review the source plugins parse from
//! their recorded pages (`plugins/*/tests`), paged through as far as the
//! recordings go, as the host formats them (`is_text_formatted: true`).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use gleaner::bindings::types::PageRequest;
use gleaner::runtime::LoadedPlugin;
use gleaner::runtime::Runtime;

/// Pages followed per source at most.
const MAX_PAGES: usize = 40;

/// The texts of the reviews on the pages from `request` on, as far as the
/// recording answers (a page it has no answer for ends the walk).
pub async fn texts(runtime: &Runtime, plugin: &LoadedPlugin, request: &PageRequest) -> Vec<String> {
    let mut texts = Vec::new();
    let mut request = request.clone();
    for _ in 0..MAX_PAGES {
        let deadline = Instant::now() + Duration::from_secs(10);
        let Ok(Ok(page)) = runtime
            .fetch_page(plugin, "bench-corpus", &request, deadline, None)
            .await
        else {
            break;
        };
        for review in &page.reviews {
            if let Some(text) = &review.text {
                let source = gleaner::record::source_text(text);
                texts.push(gleaner::text::format(&source, true));
            }
        }
        match page.next_cursor {
            Some(next) if request.cursor.as_ref() != Some(&next) => request.cursor = Some(next),
            _ => break,
        }
    }
    texts
}

/// The distinct non-empty texts of `all`, in a stable order.
pub fn distinct(all: Vec<String>) -> Vec<String> {
    let set: BTreeSet<String> = all
        .into_iter()
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
        .collect();
    set.into_iter().collect()
}
