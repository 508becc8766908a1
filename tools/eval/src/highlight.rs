//! highlight-review-text: does the marked span match one a careful editor
//! would choose? Sets and scoring rules: `eval/highlight/README.md`.

use std::ops::Range;

use serde_json::{json, Value};

use crate::data::Data;
use crate::score;
use crate::server::Server;

const ROUTE: &str = "/features/highlight-review-text";

/// One labelled review.
struct Review {
    id: String,
    text: String,
    /// Byte ranges of the acceptable spans.
    spans: Vec<Range<usize>>,
}

/// Counts for one set (or one source of a set).
#[derive(Default)]
struct Tally {
    marked: usize,
    marked_ok: usize,
    with_span: usize,
    with_span_ok: usize,
    without_span: usize,
    false_fire: usize,
}

/// Runs the benchmark and records its scores.
pub async fn run(server: &Server, data: &Data) -> anyhow::Result<()> {
    score::section(
        "highlight-review-text",
        "Real reviews from the project's recorded fixtures, with the spans an editor \
         would accept written down before the highlighter ran (`eval/highlight/`). \
         precision: marked spans that match an acceptable one (overlap >= half of the \
         shorter, no sentence boundary outside it); recall: reviews with an acceptable \
         span that got one; false fire: reviews with nothing to highlight that got a mark.",
    );
    for (set, file) in [
        ("reviews (benchmark)", "highlight/reviews.jsonl"),
        ("calibration (tuned on)", "highlight/calibration.jsonl"),
    ] {
        let reviews = read(&data.own(file))?;
        let mut all = Tally::default();
        let mut by_source: Vec<(String, Tally)> = Vec::new();
        let mut misses = Vec::new();
        for review in &reviews {
            let mark = highlight(server, review).await?;
            // The source, from the id: tp, g2, sf.
            let prefix: String = review.id.chars().take(2).collect();
            let index = match by_source.iter().position(|(p, _)| *p == prefix) {
                Some(i) => i,
                None => {
                    by_source.push((prefix, Tally::default()));
                    by_source.len() - 1
                }
            };
            let ok = tally(&mut all, review, &mark);
            tally(&mut by_source[index].1, review, &mark);
            if !ok {
                misses.push(review.id.clone());
            }
        }
        report(set, &all);
        if set.starts_with("reviews") {
            for (prefix, t) in &by_source {
                report(&format!("{set}: {prefix}"), t);
            }
            score::note(format!("{set}: not as labelled: {}", misses.join(" ")));
        }
    }
    Ok(())
}

fn report(set: &str, t: &Tally) {
    score::rate(set, "precision", t.marked_ok, t.marked);
    score::rate(set, "recall", t.with_span_ok, t.with_span);
    score::rate(set, "false fire", t.false_fire, t.without_span);
}

/// Adds one answer to `t`; returns whether it was as labelled.
fn tally(t: &mut Tally, review: &Review, mark: &Option<Option<Range<usize>>>) -> bool {
    let ok = match mark {
        None => {
            // A broken answer: a wrong mark.
            t.marked += 1;
            false
        }
        Some(None) => review.spans.is_empty(),
        Some(Some(m)) => {
            t.marked += 1;
            let good = acceptable(&review.text, m, &review.spans);
            t.marked_ok += usize::from(good);
            good
        }
    };
    if review.spans.is_empty() {
        t.without_span += 1;
        t.false_fire += usize::from(!matches!(mark, Some(None)));
    } else {
        t.with_span += 1;
        t.with_span_ok += usize::from(ok);
    }
    ok
}

/// Reads a set: one JSON object per line.
fn read(path: &std::path::Path) -> anyhow::Result<Vec<Review>> {
    let mut out = Vec::new();
    for (n, line) in std::fs::read_to_string(path)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), n + 1))?;
        let text = v["text"].as_str().unwrap_or_default().to_owned();
        let mut spans = Vec::new();
        for s in v["spans"].as_array().into_iter().flatten() {
            let s = s.as_str().unwrap_or_default();
            match text.find(s) {
                Some(start) if !s.is_empty() => spans.push(start..start + s.len()),
                _ => anyhow::bail!("{}:{}: span not in text: {s:?}", path.display(), n + 1),
            }
        }
        out.push(Review {
            id: v["id"].as_str().unwrap_or_default().to_owned(),
            text,
            spans,
        });
    }
    Ok(out)
}

/// The marked byte range: `Some(None)` when unmarked, `None` when the answer is
/// broken (an error, or tags that do not give back the review when removed).
async fn highlight(
    server: &Server,
    review: &Review,
) -> anyhow::Result<Option<Option<Range<usize>>>> {
    if review.text.trim().is_empty() {
        // The route rejects an empty review_text; nothing to highlight.
        return Ok(Some(None));
    }
    let body = json!({ "review_id": review.id, "review_text": review.text });
    let (status, answer) = server.post(ROUTE, &body).await?;
    let Some(out) = answer["review_text"].as_str().filter(|_| status == 200) else {
        score::note(format!("{}: answered {status}: {answer}", review.id));
        return Ok(None);
    };
    let (Some(start), Some(close)) = (out.find("<mark>"), out.find("</mark>")) else {
        return Ok((out == review.text).then_some(None));
    };
    let end = close.saturating_sub("<mark>".len());
    let restored = out.replacen("<mark>", "", 1).replacen("</mark>", "", 1);
    Ok((restored == review.text && start <= end).then_some(Some(start..end)))
}

/// The scoring rule of `eval/highlight/README.md`.
fn acceptable(text: &str, mark: &Range<usize>, spans: &[Range<usize>]) -> bool {
    let chars = |r: Range<usize>| text.get(r).map_or(0, |s| s.chars().count());
    spans.iter().any(|a| {
        let overlap = mark.start.max(a.start)..mark.end.min(a.end);
        if overlap.start >= overlap.end {
            return false;
        }
        let shorter = chars(mark.clone()).min(chars(a.clone()));
        2 * chars(overlap) >= shorter
            && boundaries(text, mark.clone())
                .into_iter()
                .all(|p| a.start <= p && boundaries(text, a.clone()).contains(&p))
    })
}

/// Byte offsets of the sentence boundaries inside `range` of `text` that have
/// a word after them within the range: a line break, an emoji, or `.` `!` `?`
/// `…` followed by a space or a capital letter.
fn boundaries(text: &str, range: Range<usize>) -> Vec<usize> {
    let Some(s) = text.get(range.clone()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, c) in s.char_indices() {
        let after = &s[i + c.len_utf8()..];
        let next = text[range.start + i + c.len_utf8()..].chars().next();
        let boundary = c == '\n'
            || is_emoji(c)
            || (matches!(c, '.' | '!' | '?' | '…')
                && next.is_some_and(|n| n.is_whitespace() || n.is_uppercase()));
        if boundary && after.chars().any(char::is_alphanumeric) {
            out.push(range.start + i);
        }
    }
    out
}

fn is_emoji(c: char) -> bool {
    matches!(u32::from(c), 0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2B50..=0x2B55)
}
