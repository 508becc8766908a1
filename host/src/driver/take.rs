//! Taking a page's reviews: the rules that decide, review by review, whether
//! a review is kept and whether the fetch stops at it.

use crate::bindings::types::{self as wit, Order, Page};
use crate::error::ApiError;
use crate::record::Review;
use crate::runtime::LoadedPlugin;
use crate::token;

use super::dates::{self, compare_day, DayMatch};
use super::run::Run;
use super::sink::StopAt;
use super::{Fetch, StopReason};

/// What taking one review decided.
enum Take {
    /// Go on to the next review: this one was kept, or left out as a
    /// duplicate or as not of `sync_date`'s day.
    Next,
    /// Go on to the next review: this one was delivered before, and left out.
    Known,
    /// Stop the fetch at this review.
    Stop(StopReason),
}

impl Run<'_, '_> {
    /// Takes the page's reviews after the ones to skip, in order; the reason
    /// to stop, if one came up.
    pub(super) fn take_page(
        &mut self,
        page: &Page,
        order: Order,
    ) -> Result<Option<StopReason>, ApiError> {
        let (mut taken, mut known_here) = (0usize, 0usize);
        self.revisited.clear();
        let skip = self.resume.skip as usize;
        for (index, item) in page.reviews.iter().enumerate().skip(skip) {
            taken += 1;
            match self.take_review(page, index, item, order)? {
                Take::Next => {}
                Take::Known => known_here += 1,
                Take::Stop(reason) => {
                    // The rest of the page was read too: a cursor's reviews
                    // on it are compared all the same.
                    for rest in &page.reviews[index + 1..] {
                        self.compare_named(rest);
                    }
                    return Ok(Some(reason));
                }
            }
        }
        let all_known = taken > 0 && known_here == taken;
        let caught_up = all_known
            && order == Order::NewestFirst
            && self
                .known
                .is_some_and(|k| k.stop_at == StopAt::KnownPage && self.known_read >= k.reread);
        Ok(caught_up.then_some(StopReason::CaughtUp))
    }

    /// Takes review `index` of the page by the rules, in this order: it must
    /// keep the review contract (else the fetch fails); one not of
    /// `sync_date`'s day is left out, or stops the fetch once the source's
    /// order is past that day; a newest-first fetch stops at a review older
    /// than the known floor, and at the first known review when told to; a
    /// known review is left out; a duplicate id is left out; and the fetch
    /// stops once it holds `reviews_to_fetch` reviews.
    fn take_review(
        &mut self,
        page: &Page,
        index: usize,
        item: &wit::Review,
        order: Order,
    ) -> Result<Take, ApiError> {
        let record = self.record(item)?;
        if let Some(day) = &self.sync_day {
            // The date as precise as the site told it (a month
            // never matches a day), as the plugin gave it.
            match compare_day(item.date.as_deref(), day) {
                DayMatch::Same => {}
                DayMatch::Before if order == Order::NewestFirst => {
                    return Ok(Take::Stop(StopReason::PastSyncDate));
                }
                DayMatch::After if order == Order::OldestFirst => {
                    return Ok(Take::Stop(StopReason::PastSyncDate));
                }
                _ => return Ok(Take::Next),
            }
        }
        let floor = self.known.and_then(|k| k.floor.as_deref());
        if let Some(floor) = floor.filter(|_| order == Order::NewestFirst) {
            if dates::older_than(item.date.as_deref(), floor) {
                return Ok(Take::Stop(StopReason::CaughtUp));
            }
        }
        if let Some(known) = self.known.filter(|k| k.contains(&record.review_id)) {
            self.compare_named(item);
            if known.stop_at == StopAt::FirstKnown && order == Order::NewestFirst {
                return Ok(Take::Stop(StopReason::CaughtUp));
            }
            self.known_read += 1;
            if known.track {
                self.revisited.push(record);
            }
            return Ok(Take::Known);
        }
        if self.seen.insert(record.review_id.clone()) {
            let mut record = record;
            self.add_receipt(item, &mut record);
            self.reviews.push(record);
        }
        if self.limit.is_some_and(|l| self.reviews.len() >= l) {
            return Ok(Take::Stop(self.stop_at_limit(page, index, item)));
        }
        Ok(Take::Next)
    }

    /// The review as a record, checked against the review contract and
    /// judged by the record checks.
    fn record(&self, item: &wit::Review) -> Result<Review, ApiError> {
        let Fetch {
            runtime,
            plugin,
            request,
            ..
        } = *self.fetch;
        let declared = plugin.source_options().and_then(|o| o.extra.as_ref());
        let (record, lapses) =
            Review::from_wit(item, &self.label, request.is_text_formatted, declared)
                .map_err(|e| contract_broken(plugin, e))?;
        runtime
            .records
            .judge(&plugin.manifest.name, &record.review_id, &lapses)
            .map_err(|e| contract_broken(plugin, e))?;
        Ok(record)
    }

    /// Sets where the fetch resumes after review `index`, the one that
    /// reached `reviews_to_fetch`, and says why it stops: the limit, or the
    /// end when nothing follows the review.
    fn stop_at_limit(&mut self, page: &Page, index: usize, item: &wit::Review) -> StopReason {
        let resume = &mut self.resume;
        let rest_of_page = index + 1 < page.reviews.len();
        resume.skip = (index + 1) as u32;
        resume.last = Some(token::review_digest(&item.id));
        if !rest_of_page {
            resume.cursor = page.next_cursor.clone();
            resume.skip = 0;
            resume.last = None;
        }
        if rest_of_page || page.next_cursor.is_some() {
            StopReason::LimitReached
        } else {
            StopReason::Exhausted
        }
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
