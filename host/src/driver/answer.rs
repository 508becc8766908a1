//! The answer a fetch gives once it stops: its outcome, the
//! `extra_information` it reports, and the message that says what happened.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::bindings::types::SourceMeta;
use crate::capabilities::http::session::{Opened, Session};
use crate::record::extra_object;
use crate::runtime::LoadedPlugin;
use crate::token::{self, Realigned};
use crate::validate::SourceRequest;

use super::run::Run;
use super::{dates, order};
use super::{Fetch, Outcome, StopReason};

impl Run<'_, '_> {
    /// The fetch's outcome once it stopped for `stop`: the reviews, the
    /// continuation token unless it is complete, its statistics and message,
    /// and the `sync_cursor` of a newest-first fetch from the top.
    pub(super) fn finish(
        mut self,
        stop: StopReason,
        opened: Opened,
        session: Arc<Session>,
    ) -> Outcome {
        let Fetch {
            plugin,
            request,
            key,
            ..
        } = *self.fetch;
        let route = &plugin.manifest.route;
        let meta = self.meta.take();
        let source_limit = meta.as_ref().and_then(|m| reserved(m, "source_limit"));
        let notice = meta.as_ref().and_then(|m| reserved(m, "notice"));
        let stop = match (stop, &source_limit) {
            (StopReason::Exhausted, Some(_)) => StopReason::SourceLimit,
            (stop, _) => stop,
        };
        let complete = matches!(
            stop,
            StopReason::Exhausted | StopReason::PastSyncDate | StopReason::CaughtUp
        );
        // A source limit is an end: following it would only read the last page again.
        let continues = !complete && stop != StopReason::SourceLimit;
        let continuation =
            continues.then(|| token::encode(key, route, &request.query, &self.resume));
        let elapsed_ms = self.started.elapsed().as_millis() as u64;
        let pages = self.pages;
        let mut extra_information =
            extra_information(meta, pages, complete, stop, elapsed_ms, plugin);
        extra_information["pages_unused"] = json!(self.window.launched().saturating_sub(pages));
        extra_information["session"] = json!(opened.code());
        extra_information["order"] = json!(self.order_check.last_order().map(order::code));
        extra_information["order_contradicted"] =
            json!(self.order_check.contradicted().map(order::code));
        let why = self.source_error.take().or(source_limit);
        let message = self.message(stop, why.as_deref(), continuation.is_some(), notice);
        crate::telemetry::metrics::fetch_answered(&self.label, self.reviews.len(), stop.code());
        if let Some(changes) = super::cursor::changes_answered(&self) {
            extra_information["changes"] = changes;
        }
        let sync_cursor = self
            .newest
            .take()
            .filter(|named| !named.is_empty())
            .map(|named| {
                let (ids, dates): (Vec<(String, String)>, Vec<Option<String>>) = named
                    .into_iter()
                    .map(|(id, date, f)| ((id, f), date))
                    .unzip();
                let encode = |named: &[(String, String)], floor| {
                    token::encode_sync(key, route, &request.query, named, floor)
                };
                let (cursor, kept) = encode(&ids, dates::oldest(&dates));
                // As many as fit: the floor is then the oldest of those kept.
                match kept < ids.len() {
                    true => encode(&ids[..kept], dates::oldest(&dates[..kept])).0,
                    false => cursor,
                }
            });
        Outcome {
            reviews: self.reviews,
            extra_information,
            message,
            continuation,
            sync_cursor,
            session,
        }
    }

    /// The human summary of a fetch that stopped for `stop` (`why`: the
    /// source's failure or limit), with the notes its answer needs: `sync_date`
    /// over an order not by date, a resumed page that had changed, and the
    /// source's notice.
    fn message(
        &self,
        stop: StopReason,
        why: Option<&str>,
        continues: bool,
        notice: Option<String>,
    ) -> String {
        let request = self.fetch.request;
        let mut message = summary(
            self.reviews.len(),
            self.pages,
            stop,
            request,
            why,
            continues,
        );
        if request.sync_date.is_some() && self.order_check.was_unordered() {
            message = format!("{message} {}", undated_note(self.resume.sort.as_deref()));
        }
        if let Some(note) = self.realigned.map(realigned_note) {
            message = format!("{message} {note}");
        }
        if let Some(notice) = notice {
            message = format!("{message} {}", sentence(&notice));
        }
        message
    }
}

/// What the message says when the page a token resumed had changed.
fn realigned_note(at: Realigned) -> &'static str {
    match at {
        Realigned::Moved(_) => {
            "The page the token continued had changed since; the fetch went on after the last review it had returned."
        }
        _ => {
            "The page the token continued had changed since and its last returned review is gone; \
             that page was returned from its start, so some reviews may repeat."
        }
    }
}

/// A reserved key of a page's metadata, as non-empty text: `source_limit`
/// (why the source serves no further although the item has more reviews) or
/// `notice` (what the user should know about the answer, such as "this
/// project does not accept reviews"), which the message carries.
fn reserved(meta: &SourceMeta, key: &str) -> Option<String> {
    let extra: Value = serde_json::from_str(&meta.extra_json).ok()?;
    extra[key]
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn extra_information(
    meta: Option<SourceMeta>,
    pages: u32,
    complete: bool,
    stop: StopReason,
    elapsed_ms: u64,
    plugin: &LoadedPlugin,
) -> Value {
    let mut info = Map::new();
    let meta = meta.unwrap_or(SourceMeta {
        resolved_url: None,
        name: None,
        average_rating: None,
        total_reviews: None,
        extra_json: String::new(),
    });
    info.insert("resolved_url".into(), json!(meta.resolved_url));
    info.insert("name".into(), json!(meta.name));
    info.insert("average_rating".into(), json!(meta.average_rating));
    info.insert("total_reviews".into(), json!(meta.total_reviews));
    info.insert("pages_fetched".into(), json!(pages));
    info.insert("complete".into(), json!(complete));
    info.insert("stop_reason".into(), json!(stop));
    info.insert("elapsed_ms".into(), json!(elapsed_ms));
    info.insert("plugin".into(), json!(plugin.manifest.name));
    info.insert("plugin_version".into(), json!(plugin.manifest.version));
    info.insert(
        "dates_are".into(),
        json!(if plugin.source_options().is_some_and(|s| s.local_dates) {
            "source_local"
        } else {
            "utc"
        }),
    );
    info.insert("source".into(), extra_object(&meta.extra_json));
    info.insert(
        "record_version".into(),
        json!(crate::record::RECORD_VERSION),
    );
    Value::Object(info)
}

/// Text ending as a sentence does.
/// What a `sync_date` fetch over an order not strictly by date did.
fn undated_note(sort: Option<&str>) -> String {
    let sort = sort.map_or_else(|| "the default sort".to_owned(), |s| format!("sort {s:?}"));
    format!(
        "The source's order for {sort} is not strictly by date, so sync_date was applied as a \
         filter without stopping early: every page was read, within reviews_to_fetch and the \
         time budget."
    )
}

/// `text` as a sentence of its own: capitalised, and ending with a stop.
fn sentence(text: &str) -> String {
    let text = text.trim();
    let mut chars = text.chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

fn summary(
    count: usize,
    pages: u32,
    stop: StopReason,
    request: &SourceRequest,
    error: Option<&str>,
    continues: bool,
) -> String {
    let reviews = if count == 1 { "review" } else { "reviews" };
    let page_word = if pages == 1 { "page" } else { "pages" };
    let why = match stop {
        StopReason::Exhausted => "the source has no more reviews".to_owned(),
        StopReason::LimitReached => format!(
            "reviews_to_fetch ({}) was reached",
            request.reviews_to_fetch.unwrap_or_default()
        ),
        StopReason::PastSyncDate => "the source went past sync_date".to_owned(),
        StopReason::Budget => "the time budget ran out".to_owned(),
        StopReason::SourceError => {
            format!("the source failed: {}", error.unwrap_or("unknown error"))
        }
        StopReason::SourceLimit => format!(
            "the source serves no more, though it has more reviews: {}",
            error.unwrap_or("it stopped early")
        ),
        StopReason::CaughtUp => "it reached reviews delivered before".to_owned(),
    };
    let next = if continues {
        "; send the continuation token back to get the rest"
    } else {
        ""
    };
    format!("Fetched {count} {reviews} from {pages} {page_word}; stopped because {why}{next}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_limit_is_read_from_the_metadata() {
        let meta = |extra: &str| SourceMeta {
            resolved_url: None,
            name: None,
            average_rating: None,
            total_reviews: None,
            extra_json: extra.into(),
        };
        assert_eq!(
            reserved(
                &meta(r#"{"source_limit": " the feed stops at 10 pages "}"#),
                "source_limit"
            )
            .as_deref(),
            Some("the feed stops at 10 pages")
        );
        assert_eq!(
            reserved(&meta(r#"{"source_limit": ""}"#), "source_limit"),
            None
        );
        assert_eq!(
            reserved(&meta(r#"{"source_limit": 3}"#), "source_limit"),
            None
        );
        assert_eq!(reserved(&meta(""), "notice"), None);
        assert_eq!(sentence(" no reviews yet "), "No reviews yet.");
        assert_eq!(sentence("closed!"), "Closed!");
        let line = summary(
            5,
            10,
            StopReason::SourceLimit,
            &crate::validate::SourceRequest {
                query: "q".into(),
                reviews_to_fetch: None,
                is_text_formatted: true,
                receipts: false,
                insights: false,
                sync_date: None,
                sort: None,
                filter: None,
                resume: None,
                sync_known: None,
            },
            Some("the feed stops at 10 pages"),
            false,
        );
        assert!(
            line.contains("serves no more, though it has more reviews: the feed stops at 10 pages"),
            "{line}"
        );
    }
}
