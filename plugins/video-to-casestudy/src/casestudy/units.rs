//! The units a case study is built from: the customer's sentences of a
//! transcript, or chunks of them, cut at spoken markers and trimmed of
//! fillers.

use super::*;

/// Verbatim byte ranges of the sentences (or chunks) of `text`; in an
/// interview only the customer's: the customer's turns of a labelled one
/// (see [`transcript::dialogue`]), and in an unlabelled one neither what
/// overlaps the interviewer's opening ([`transcript::interviewer_spans`])
/// nor questions.
pub(super) fn units(text: &str) -> Vec<Range<usize>> {
    let whole = std::iter::once(0..text.len()).collect();
    let spans = transcript::dialogue::read(text)
        .map(|d| d.customer_spans())
        .filter(|s| !s.is_empty())
        .unwrap_or(whole);
    let interviewer = transcript::interviewer_spans(text);
    let overlaps = |u: &Range<usize>| {
        interviewer
            .iter()
            .any(|r| r.start < u.end && u.start < r.end)
    };
    let question =
        |u: &Range<usize>| !interviewer.is_empty() && text[u.clone()].trim_end().ends_with('?');
    spans
        .into_iter()
        .flat_map(|r| {
            let base = r.start;
            sentence_units(&text[r])
                .into_iter()
                .map(move |u| u.start + base..u.end + base)
        })
        .filter(|u| !overlaps(u) && !question(u))
        .collect()
}

/// Verbatim byte ranges of the sentences (or chunks) of `text`.
pub(super) fn sentence_units(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for span in segment::sentence_spans(text) {
        let mut ws: Vec<Range<usize>> = Vec::new();
        let mut begin = None;
        for (i, c) in text[span.clone()].char_indices() {
            match (c.is_whitespace(), begin) {
                (false, None) => begin = Some(span.start + i),
                (true, Some(b)) => {
                    ws.push(b..span.start + i);
                    begin = None;
                }
                _ => {}
            }
        }
        if let Some(b) = begin {
            ws.push(b..span.end);
        }
        let norm: Vec<String> = ws
            .iter()
            .map(|r| {
                text[r.clone()]
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .collect();
        let pieces: Vec<Range<usize>> = if ws.len() > MAX_WORDS {
            split(&norm)
        } else {
            std::iter::once(0..ws.len()).collect()
        };
        for piece in pieces {
            if let Some((a, b)) = trim(&norm, piece) {
                out.push(ws[a].start..ws[b - 1].end);
            }
        }
    }
    out
}

/// Splits an over-long sentence (its normalised words) into chunks of
/// `MIN_WORDS..=MAX_WORDS` words at discourse markers where possible.
pub(super) fn split(norm: &[String]) -> Vec<Range<usize>> {
    let at = |k: usize| norm.get(k).map_or("", String::as_str);
    let mut pieces = Vec::new();
    let (mut start, mut soft) = (0, None);
    for k in 1..norm.len() {
        let marker = has(MARKERS, at(k))
            || (at(k) == "and" && has(AND_MARKERS, at(k + 1)))
            || (has(OPENERS, at(k)) && has(SUBJECTS, at(k + 1)));
        let len = k - start;
        if (marker && len >= MIN_WORDS) || len >= MAX_WORDS {
            let cut = if marker && len >= MIN_WORDS {
                k
            } else {
                soft.filter(|&s| s >= start + MIN_WORDS).unwrap_or(k)
            };
            pieces.push(start..cut);
            start = cut;
            soft = None;
        }
        if k > start && has(SOFT_MARKERS, at(k)) {
            soft = Some(k);
        }
    }
    pieces.push(start..norm.len());
    if pieces.len() >= 2 && pieces.last().is_some_and(|p| p.len() < 4) {
        if let Some(last) = pieces.pop() {
            if let Some(prev) = pieces.last_mut() {
                prev.end = last.end;
            }
        }
    }
    pieces
}

/// Drops fillers and bare punctuation from both ends of the words `piece`.
pub(super) fn trim(norm: &[String], piece: Range<usize>) -> Option<(usize, usize)> {
    let (mut a, mut b) = (piece.start, piece.end);
    let at = |k: usize| norm.get(k).map_or("", String::as_str);
    loop {
        if a < b && (at(a).is_empty() || has(LEAD_TRIM, at(a))) {
            a += 1;
        } else if a + 1 < b && at(a) == "you" && at(a + 1) == "know" {
            a += 2;
        } else {
            break;
        }
    }
    loop {
        if b > a && (at(b - 1).is_empty() || has(TRAIL_TRIM, at(b - 1))) {
            b -= 1;
        } else if b >= a + 2 && at(b - 2) == "you" && at(b - 1) == "know" {
            b -= 2;
        } else {
            break;
        }
    }
    (a < b).then_some((a, b))
}
