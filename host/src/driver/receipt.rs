//! A review's receipt, when the request asks for `receipts`: the upstream
//! answer it was read from (the one whose body holds its id, else its text,
//! else the page's latest), the plugin that read it, signed with the
//! server's key ([`crate::receipts`]).

use crate::bindings::types as wit;
use crate::receipts::Evidence;
use crate::record::Review;

use super::run::Run;

/// Characters of a review's text looked for in the answers, when its id is
/// not in any (an id the plugin made from the content).
const TEXT_PROBE: usize = 40;

impl Run<'_, '_> {
    /// Gives `record` (of the plugin's `item`) its signed receipt, when the
    /// request asks for receipts.
    pub(super) fn add_receipt(&self, item: &wit::Review, record: &mut Review) {
        if !self.fetch.request.receipts {
            return;
        }
        let probe: Option<String> = record
            .review_text
            .as_deref()
            .map(|t| t.chars().take(TEXT_PROBE).collect());
        let Some(answer) = self
            .session
            .answers
            .source_of(item.id.trim(), probe.as_deref())
        else {
            return;
        };
        let plugin = self.fetch.plugin;
        let evidence = Evidence {
            fetched_at: answer.at,
            source_url: answer.url,
            response_sha256: answer.sha256,
            plugin: plugin.manifest.name.clone(),
            plugin_version: plugin.manifest.version.clone(),
            component_sha256: plugin.sha256.clone(),
        };
        let Ok(mut value) = serde_json::to_value(&*record) else {
            return;
        };
        self.fetch
            .runtime
            .services()
            .receipts
            .sign(&mut value, evidence);
        record.receipt = value.get("receipt").cloned();
    }
}
