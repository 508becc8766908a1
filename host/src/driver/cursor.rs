//! What a `sync_cursor` carries besides the ids of the newest reviews: each
//! one's short content fingerprint. A fetch from the top names the newest
//! reviews it reads, as many as fit in the cursor; a fetch sent with a cursor
//! compares each named review it reads again with its fingerprint, and
//! answers what changed in `extra_information.changes`, with no store on
//! the server's side.

use serde_json::{json, Value};

use crate::bindings::types::{self as wit, Order, Page};
use crate::record::{fingerprint, Review};
use crate::token;

use super::run::Run;
use super::SYNC_CURSOR_REVIEWS;

/// A review a cursor names: its id, date and short fingerprint.
pub(super) type Named = (String, Option<String>, String);

impl Run<'_, '_> {
    /// Names `page`'s reviews for the `sync_cursor`, while the fetch names
    /// the newest (from the top, newest first) and has room.
    pub(super) fn name_newest(&mut self, page: &Page, order: Order) {
        let room = match &self.newest {
            Some(named) if order == Order::NewestFirst => {
                SYNC_CURSOR_REVIEWS.saturating_sub(named.len())
            }
            _ => return,
        };
        let named: Vec<Named> = page
            .reviews
            .iter()
            .take(room)
            .map(|item| {
                let short = self
                    .plain_record(item)
                    .map(|r| fingerprint::short(&fingerprint::of(&r).fingerprint))
                    .unwrap_or_default();
                (item.id.trim().to_owned(), item.date.clone(), short)
            })
            .collect();
        if let Some(newest) = &mut self.newest {
            newest.extend(named);
        }
    }

    /// Compares `item`, if the request's cursor names it with a
    /// fingerprint, and notes what changed.
    pub(super) fn compare_named(&mut self, item: &wit::Review) {
        let Some(known) = self.known else { return };
        let digest = token::review_digest(&item.id);
        let Some(was) = known.fingerprints.get(&digest) else {
            return;
        };
        let Some(record) = self.plain_record(item) else {
            return;
        };
        let now = fingerprint::of(&record);
        for kind in fingerprint::short_changes(was, &now) {
            self.cursor_changes.push(json!({
                "event": kind.as_str(),
                "review_id": record.review_id,
                "after": now.snapshot,
            }));
        }
    }

    /// The review as a record, as the fetch would keep it, without judging
    /// it (taking it does); none when it breaks the contract.
    fn plain_record(&self, item: &wit::Review) -> Option<Review> {
        let plugin = self.fetch.plugin;
        let declared = plugin.source_options().and_then(|o| o.extra.as_ref());
        let formatted = self.fetch.request.is_text_formatted;
        Review::from_wit(item, &self.label, formatted, declared)
            .ok()
            .map(|(record, _)| record)
    }
}

/// Whether a fetch's cursor carried fingerprints, so its answer says what
/// changed (an empty list when nothing did).
pub(super) fn changes_answered(run: &Run<'_, '_>) -> Option<Value> {
    let known = run.known?;
    (!known.fingerprints.is_empty()).then(|| json!(run.cursor_changes))
}
