//! The upstream answers a fetch that asked for receipts read, kept for the
//! receipts of its reviews: each 2xx body's URL (credentials taken out),
//! SHA-256 and time, and the body itself while it may still be the one a
//! review of the page in use came from.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};

/// Answers kept at most: a page's, and those of the pages read ahead.
const KEPT: usize = 24;

/// One upstream answer.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The URL that answered, credentials taken out.
    pub url: String,
    /// SHA-256 of the body, hex.
    pub sha256: String,
    /// When it arrived (RFC 3339).
    pub at: String,
    /// The body, as text.
    pub body: Arc<str>,
}

/// A session's answers, kept only once a fetch asks.
#[derive(Debug, Default)]
pub struct Answers {
    kept: Mutex<Option<VecDeque<Answer>>>,
}

impl Answers {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<VecDeque<Answer>>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts keeping answers.
    pub fn keep(&self) {
        self.lock().get_or_insert_with(VecDeque::new);
    }

    /// Whether answers are kept: a fetch that asked for receipts uses the
    /// session.
    pub fn kept(&self) -> bool {
        self.lock().is_some()
    }

    /// Notes a 2xx answer from `url` (already without credentials), if
    /// answers are kept.
    pub fn note(&self, url: &str, body: &[u8]) {
        let mut kept = self.lock();
        let Some(kept) = kept.as_mut() else { return };
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back(Answer {
            url: url.to_owned(),
            sha256: hex::encode(Sha256::digest(body)),
            at: gleaner_jobs::clock::rfc3339(gleaner_jobs::clock::now_ms()),
            body: String::from_utf8_lossy(body).into(),
        });
    }

    /// The answer a review came from: the latest whose body holds `id`,
    /// else the latest holding `text`, else the latest of all.
    pub fn source_of(&self, id: &str, text: Option<&str>) -> Option<Answer> {
        let kept = self.lock();
        let kept = kept.as_ref()?;
        let holding = |needle: &str| {
            kept.iter()
                .rev()
                .find(|a| !needle.is_empty() && a.body.contains(needle))
                .cloned()
        };
        holding(id)
            .or_else(|| text.and_then(holding))
            .or_else(|| kept.back().cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_is_traced_to_the_answer_that_holds_it() {
        let answers = Answers::default();
        answers.note("https://a.example/1", b"{\"id\":\"r1\"}");
        assert!(
            answers.source_of("r1", None).is_none(),
            "not kept unless asked"
        );
        answers.keep();
        answers.note(
            "https://a.example/1",
            b"{\"id\":\"r1\",\"text\":\"Great stay\"}",
        );
        answers.note("https://a.example/2", b"{\"id\":\"r2\"}");
        assert_eq!(
            answers.source_of("r1", None).unwrap().url,
            "https://a.example/1"
        );
        let by_text = answers.source_of("h-0042", Some("Great stay")).unwrap();
        assert_eq!(by_text.url, "https://a.example/1");
        let latest = answers.source_of("none", Some("nothing")).unwrap();
        assert_eq!(latest.url, "https://a.example/2");
        assert_eq!(
            latest.sha256,
            hex::encode(Sha256::digest(b"{\"id\":\"r2\"}"))
        );
    }
}
