//! Every change a source's site shows is found on that source. In a copy of
//! the source's replay recordings, one review's text is edited, another's
//! reply is edited, and a third's id is changed (that review removed and a
//! new one in its place). The source's answer on the copy then differs from
//! its answer on the recordings by exactly those changes, as the content
//! fingerprint a tracked schedule compares classifies them; nothing else
//! differs. Where the site shows replies, a second copy without one reply
//! shows the reply as added. One test per source; the table says what each
//! site shows, and a source that shows replies the table does not list fails.

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use gleaner::record::fingerprint;
use serde_json::Value;

use super::recorded::{bodies, body_of, is_base64, recordings, tokens, Recording};
use super::{serve, Served};

/// The reviews of an answer, by id, in the answer's order.
fn reviews(answer: &Value) -> Vec<Value> {
    answer["all_reviews"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn by_id(answer: &Value) -> BTreeMap<String, Value> {
    reviews(answer)
        .into_iter()
        .map(|r| (id_of(&r), r))
        .collect()
}

fn id_of(review: &Value) -> String {
    review["review_id"].as_str().unwrap_or_default().to_owned()
}

fn reply_text(review: &Value) -> Option<&str> {
    review["review_reply"]["text"]
        .as_str()
        .filter(|t| !t.trim().is_empty())
}

/// How far from its review's id an edit looks for the text it changes.
const NEAR: usize = 6000;

/// One change to the recordings' response bodies: `from` (through the first
/// `until` after it, when given) becomes `to`. With an `anchor` (a review's
/// id), only the occurrence nearest each of the anchor's is changed, the
/// first after it or else the last before it; without, every one.
#[derive(Debug, Clone)]
struct Edit {
    anchor: Option<String>,
    from: String,
    until: Option<String>,
    to: String,
}

impl Edit {
    fn new(anchor: Option<String>, from: String, to: String) -> Edit {
        let until = None;
        Edit {
            anchor,
            from,
            until,
            to,
        }
    }

    /// Where `body` has what this edit changes.
    fn spans(&self, body: &str) -> Vec<std::ops::Range<usize>> {
        let starts: Vec<usize> = match &self.anchor {
            None => body.match_indices(&self.from).map(|(i, _)| i).collect(),
            Some(anchor) => tokens(body, anchor)
                .filter_map(|at| {
                    let after = body[at..].find(&self.from).filter(|i| *i <= NEAR);
                    let before = body[..at].rfind(&self.from).filter(|i| at - i <= NEAR);
                    after.map(|i| at + i).or(before)
                })
                .collect(),
        };
        let mut spans: Vec<_> = starts
            .into_iter()
            .filter_map(|start| {
                let end = start + self.from.len();
                match &self.until {
                    None => Some(start..end),
                    Some(until) => body[end..]
                        .find(until.as_str())
                        .filter(|i| *i <= NEAR)
                        .map(|i| start..end + i + until.len()),
                }
            })
            .collect();
        spans.sort_by_key(|s| s.start);
        spans.dedup();
        spans
    }

    fn apply(&self, body: &str) -> String {
        let mut out = body.to_owned();
        for span in self.spans(body).into_iter().rev() {
            out.replace_range(span, &self.to);
        }
        out
    }

    fn found(&self, bodies: &[String]) -> bool {
        bodies.iter().any(|b| !self.spans(b).is_empty())
    }
}

/// The recordings written to a new directory, with `edits` made to every
/// response body.
fn edited(recordings: &[Recording], edits: &[Edit]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in recordings {
        let mut har = file.har.clone();
        for entry in har["log"]["entries"].as_array_mut().unwrap() {
            let content = &mut entry["response"]["content"];
            let Some(mut body) = body_of(content) else {
                continue;
            };
            for edit in edits {
                body = edit.apply(&body);
            }
            content["text"] = match is_base64(content) {
                true => B64.encode(&body).into(),
                false => body.into(),
            };
        }
        let path = dir.path().join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_vec(&har).unwrap()).unwrap();
    }
    dir
}

/// `text` with every letter and digit moved one on (`a` to `b`, `z` to `a`,
/// `9` to `0`): as long as it was, and different.
fn shifted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'z' => 'a',
            'Z' => 'A',
            '9' => '0',
            'a'..='y' | 'A'..='Y' | '0'..='8' => char::from(c as u8 + 1),
            other if other.is_alphabetic() => char::from_u32(other as u32 + 1)
                .filter(|c| c.is_alphabetic())
                .unwrap_or(other),
            other => other,
        })
        .collect()
}

/// The review's id as the recordings carry it, if they do.
fn anchor_of(review: &Value, bodies: &[String]) -> Option<String> {
    let id = id_of(review);
    let found = bodies.iter().any(|b| tokens(b, &id).next().is_some());
    (id.chars().count() >= 4 && found).then_some(id)
}

/// A run of words of `text` that the recordings carry as it is (near the
/// review's id where they carry that, else held by no other text of the
/// answer), and the same run with its longest word shifted: the edit of
/// that text alone.
fn edit_of(
    text: &str,
    anchor: &Option<String>,
    others: &[String],
    bodies: &[String],
) -> Option<Edit> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let plain = |w: &&str| w.chars().count() > 1 && w.chars().all(char::is_alphanumeric);
    // A run no other text holds first; near the id, any run.
    for unique_only in [true, anchor.is_none()] {
        for size in [5, 4, 3] {
            for run in words.windows(size).filter(|run| run.iter().all(plain)) {
                let phrase = run.join(" ");
                let unique = !unique_only || others.iter().all(|o| !o.contains(&phrase));
                let longest = run.iter().max_by_key(|w| w.chars().count()).unwrap();
                let to = phrase.replacen(longest, &shifted(longest), 1);
                let edit = Edit::new(anchor.clone(), phrase, to);
                if edit.from.len() >= 12 && unique && edit.to != edit.from && edit.found(bodies) {
                    return Some(edit);
                }
            }
        }
    }
    None
}

/// The cut of `reply` from the recordings, near the review's id: from its
/// first words (as far as they need no escaping) through the nearest of its
/// last words that follows.
fn cut_of(reply: &str, anchor: &Option<String>, bodies: &[String]) -> Option<Edit> {
    let escaped = |c: char| matches!(c, '"' | '\\' | '<' | '>' | '&' | '\'');
    let words: Vec<&str> = reply.split_whitespace().collect();
    let head_words = words
        .iter()
        .take(5)
        .take_while(|w| !w.chars().any(escaped))
        .count();
    if head_words == 0 {
        return None;
    }
    let head = words[..head_words].join(" ");
    if head_words == words.len() {
        let edit = Edit::new(anchor.clone(), head, String::new());
        return edit.found(bodies).then_some(edit);
    }
    // The record's spaces may be line breaks in the recordings, so the
    // longest run of last words that is there.
    (1..=4.min(words.len() - head_words))
        .rev()
        .map(|n| words[words.len() - n..].join(" "))
        .filter(|tail| !tail.chars().any(escaped))
        .map(|tail| Edit {
            anchor: anchor.clone(),
            from: head.clone(),
            until: Some(tail),
            to: String::new(),
        })
        .find(|edit| edit.found(bodies))
}

/// Every text of an answer's reviews but `except`'s.
fn texts_but(all: &[Value], except: &str) -> Vec<String> {
    let mut out = Vec::new();
    for review in all.iter().filter(|r| id_of(r) != except) {
        for field in ["review_text", "review_title"] {
            out.extend(review[field].as_str().map(str::to_owned));
        }
        out.extend(reply_text(review).map(str::to_owned));
    }
    out
}

/// What the fingerprint finds changed from `was` to `is`, by event name.
fn found(was: &Value, is: &Value) -> Vec<String> {
    let (was, is) = (fingerprint::of_record(was), fingerprint::of_record(is));
    fingerprint::changes(&was, &is)
        .into_iter()
        .map(|(kind, _)| {
            serde_json::to_value(kind)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// A source's first case that stands alone and answers at least three
/// reviews: its request, its answer on the recordings, and the recordings.
struct Baseline {
    route: String,
    request: Value,
    settings: BTreeMap<String, String>,
    answer: Value,
    recordings: Vec<Recording>,
}

async fn baseline(name: &str) -> Baseline {
    let (cases, dir, manifest) = super::replay_of(name);
    for case in &cases.case {
        if !case.answered_alone() {
            continue;
        }
        let request: Value = serde_json::from_str(&case.request).unwrap();
        let served = serve(name, &Some(dir.clone()), &cases.settings).await;
        let (_, answer) = served.server.post(&manifest.route, request.clone()).await;
        if reviews(&answer).len() >= 3 {
            return Baseline {
                route: manifest.route,
                request,
                settings: cases.settings.clone(),
                answer,
                recordings: recordings(&dir),
            };
        }
    }
    panic!("{name}: no replay case answers three reviews");
}

impl Baseline {
    /// The answer to the same request on the recordings with `edits`.
    async fn answer_with(&self, name: &str, edits: &[Edit]) -> Value {
        let dir = edited(&self.recordings, edits);
        let served: Served = serve(name, &Some(dir.path().to_owned()), &self.settings).await;
        let (status, answer) = served.server.post(&self.route, self.request.clone()).await;
        assert_eq!(status, 200, "{name}: the edited recordings: {answer}");
        answer
    }
}

/// What a source's site shows besides review text.
struct Shows {
    /// Business replies.
    replies: bool,
}

const SHOWS: &[(&str, Shows)] = &[
    ("attraction-booking", Shows { replies: false }),
    ("code-hosting-project", Shows { replies: false }),
    ("customer-feedback-hub", Shows { replies: true }),
    ("design-market", Shows { replies: true }),
    ("fitness-class", Shows { replies: false }),
    ("home-services", Shows { replies: true }),
    ("hostel-site", Shows { replies: true }),
    ("podcast-directory", Shows { replies: true }),
    ("review-platform", Shows { replies: false }),
    ("testimonial-wall", Shows { replies: false }),
    ("theme-market", Shows { replies: true }),
    ("venue-guide", Shows { replies: false }),
    ("wholesale-market", Shows { replies: true }),
];

/// Edits one review, one reply (where the site shows them) and one id of
/// `name`'s recordings, and checks the answer shows those and nothing else.
async fn each_change_is_found(name: &str) {
    if !tracked(name) {
        // Its ids are its content: an edit makes another review, so no
        // schedule tracks it (tests/changes.rs checks the 400), and the table
        // of what sites show has no row for it.
        assert!(
            SHOWS.iter().all(|(n, _)| *n != name),
            "{name} has content ids"
        );
        return;
    }
    let shows = &SHOWS.iter().find(|(n, _)| *n == name).unwrap().1;
    let base = baseline(name).await;
    let all = reviews(&base.answer);
    let texts = bodies(&base.recordings);
    let with_reply = all.iter().find(|r| reply_text(r).is_some());
    assert_eq!(
        with_reply.is_some(),
        shows.replies,
        "{name}: whether the answer carries replies"
    );

    // The reply edit, where there is one.
    let mut edits = Vec::new();
    let mut expected: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    if let Some(review) = with_reply {
        let id = id_of(review);
        let mut others = texts_but(&all, &id);
        others.extend(review["review_text"].as_str().map(str::to_owned));
        others.extend(review["review_title"].as_str().map(str::to_owned));
        let anchor = anchor_of(review, &texts);
        let edit = edit_of(reply_text(review).unwrap(), &anchor, &others, &texts)
            .unwrap_or_else(|| panic!("{name}: no run of {id}'s reply is in the recordings"));
        edits.push(edit);
        expected.insert(id, vec!["review.reply_updated"]);
    }
    // The text edit, on another review.
    let edited_text = all
        .iter()
        .filter(|r| !expected.contains_key(&id_of(r)))
        .find_map(|r| {
            let text = r["review_text"].as_str()?;
            let mut others = texts_but(&all, &id_of(r));
            others.extend(reply_text(r).map(str::to_owned));
            let anchor = anchor_of(r, &texts);
            Some((id_of(r), edit_of(text, &anchor, &others, &texts)?))
        });
    let (id, edit) = edited_text.unwrap_or_else(|| panic!("{name}: no review text to edit"));
    edits.push(edit);
    expected.insert(id, vec!["review.updated"]);
    // The removal: a third review's id, changed wherever the recordings
    // carry it, so it is gone and another is in its place. Where they carry
    // no review id (the source derives it from the author and the day), the
    // name of an author of one review is changed instead.
    let left: Vec<&Value> = all
        .iter()
        .filter(|r| !expected.contains_key(&id_of(r)))
        .collect();
    let by_author = |r: &Value| {
        let author = r["author_name"].as_str()?;
        let once = all.iter().filter(|o| o["author_name"] == author).count() == 1;
        let found = texts.iter().any(|b| tokens(b, author).next().is_some());
        (once && found && author.len() >= 4).then(|| (id_of(r), author.to_owned()))
    };
    let (removed, token) = left
        .iter()
        .find_map(|r| anchor_of(r, &texts).map(|id| (id.clone(), id)))
        .or_else(|| left.iter().find_map(|r| by_author(r)))
        .unwrap_or_else(|| panic!("{name}: no review id or author is in the recordings"));
    edits.push(Edit::new(
        Some(token.clone()),
        token.clone(),
        shifted(&token),
    ));

    let before = by_id(&base.answer);
    let after = by_id(&base.answer_with(name, &edits).await);
    let gone: Vec<&String> = before
        .keys()
        .filter(|id| !after.contains_key(*id))
        .collect();
    let new: Vec<&String> = after
        .keys()
        .filter(|id| !before.contains_key(*id))
        .collect();
    assert_eq!(gone, [&removed], "{name}: the reviews gone");
    assert_eq!(new.len(), 1, "{name}: the reviews new: {new:?}");
    assert_eq!(
        after[new[0]]["review_text"], before[&removed]["review_text"],
        "{name}: the review in the removed one's place"
    );
    let mut changed = BTreeMap::new();
    for (id, was) in before.iter().filter(|(id, _)| after.contains_key(*id)) {
        let kinds = found(was, &after[id]);
        if !kinds.is_empty() {
            changed.insert(id.clone(), kinds);
        }
    }
    let expected: BTreeMap<String, Vec<String>> = expected
        .into_iter()
        .map(|(id, kinds)| (id, kinds.into_iter().map(str::to_owned).collect()))
        .collect();
    assert_eq!(changed, expected, "{name}: the changes found");

    if let Some(review) = with_reply {
        // A copy without the reply: the recordings then add it.
        let id = id_of(review);
        let cut = cut_of(
            reply_text(review).unwrap(),
            &anchor_of(review, &texts),
            &texts,
        )
        .unwrap_or_else(|| panic!("{name}: {id}'s reply is not in the recordings"));
        let without = by_id(&base.answer_with(name, &[cut]).await);
        assert_eq!(
            found(&without[&id], &before[&id]),
            ["review.reply_added"],
            "{name}: the reply of {id} added: {}",
            without[&id]["review_reply"]
        );
    }
    println!(
        "ok    {name}: an edit, {}a removal and a new review found",
        match shows.replies {
            true => "a reply edited, a reply added, ",
            false => "",
        }
    );
}

macro_rules! edits {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[tokio::test]
            async fn $test() {
                each_change_is_found($name).await;
            }
        )*
    };
}

review_sources!(edits);

/// Whether schedules track `name`: its review ids are the site's.
fn tracked(name: &str) -> bool {
    super::manifest_of(name)
        .source
        .is_some_and(|s| s.review_ids == gleaner::manifest::ReviewIds::Site)
}

/// Every source fetched twice is edited too, but those whose review ids are
/// their content (an edit makes another review; no schedule tracks them).
#[test]
fn every_tracked_source_is_edited() {
    let listed: Vec<&str> = SHOWS.iter().map(|(name, _)| *name).collect();
    let tracked: Vec<&str> = super::twice::SOURCES
        .iter()
        .copied()
        .filter(|name| tracked(name))
        .collect();
    assert_eq!(listed, tracked, "the sources whose site ids are tracked");
}
