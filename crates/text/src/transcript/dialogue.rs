//! Speaker labels and turns in interview transcripts.
//!
//! A transcript is *labelled* when at least two lines start with a speaker
//! label followed by a colon ("Interviewer:", "Speaker B:", "SPEAKER_01:",
//! "Host:", "Dana Lee:", "Dr. Ines Vidal:"), optionally after a timestamp
//! ("[00:01:07]", "(0:42)", "00:01:07 -"), and at least two different labels
//! occur. Lines without a label continue the previous turn.
//!
//! The interviewer is the label named so ("Interviewer", "Host", "Q", ...),
//! otherwise the label whose turns ask the larger share of questions; the
//! customer is the remaining label with the most words. Labels with neither
//! an interviewer nor a role word ("Speaker", "Guest", ...) are headings
//! ("Challenge:", "Results:"), not speakers.

use std::ops::Range;

/// Labels that name the interviewer's role.
const INTERVIEWER: &str =
    "interviewer host moderator q question presenter narrator reporter producer me";
/// Labels that name the customer's role without naming them.
const ROLE_LABELS: &str = "speaker guest customer client interviewee a answer respondent \
    participant person voice unknown";
/// Words opening a question.
const QUESTION_OPENERS: &str = "what how why when where who which could can would will do does \
    did is are tell walk";

/// One speaker turn of a labelled transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// The label as written, without the colon.
    pub label: String,
    /// Byte range of the label in the transcript.
    pub label_span: Range<usize>,
    /// Byte range of what the speaker says (after the colon, to the next label).
    pub span: Range<usize>,
}

/// The turns of a labelled transcript and who plays which part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialogue {
    /// All turns in order.
    pub turns: Vec<Turn>,
    /// The interviewer's label, when one label asks the questions.
    pub interviewer: Option<String>,
    /// The customer's label.
    pub customer: Option<String>,
}

impl Dialogue {
    /// Byte ranges of the customer's turns.
    pub fn customer_spans(&self) -> Vec<Range<usize>> {
        self.spans_of(self.customer.as_deref())
    }

    /// Byte ranges of the interviewer's turns.
    pub fn interviewer_spans(&self) -> Vec<Range<usize>> {
        self.spans_of(self.interviewer.as_deref())
    }

    fn spans_of(&self, label: Option<&str>) -> Vec<Range<usize>> {
        let Some(label) = label else {
            return Vec::new();
        };
        self.turns
            .iter()
            .filter(|t| key(&t.label) == key(label))
            .map(|t| t.span.clone())
            .collect()
    }

    /// The customer's label when it is a person's name (not "Speaker B",
    /// "Guest" or "A"), with its byte range in the transcript.
    pub fn customer_name(&self) -> Option<(&str, Range<usize>)> {
        let label = self.customer.as_deref()?;
        let words: Vec<String> = label
            .split_whitespace()
            .map(|w| w.trim_matches('.').to_lowercase())
            .collect();
        let role = words
            .iter()
            .any(|w| has(ROLE_LABELS, w) || has(INTERVIEWER, w));
        let shaped = words.iter().all(|w| {
            w.chars().count() >= 2
                && w.chars()
                    .all(|c| c.is_alphabetic() || c == '\'' || c == '-')
        });
        if role || !shaped {
            return None;
        }
        let turn = self.turns.iter().find(|t| key(&t.label) == key(label))?;
        Some((turn.label.as_str(), turn.label_span.clone()))
    }
}

fn has(list: &str, word: &str) -> bool {
    !word.is_empty() && list.split(' ').any(|w| w == word)
}

/// A label compared without case or spacing.
fn key(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The label at the start of `line`, as (byte range within the line, byte
/// offset just after the colon).
fn label_of(line: &str) -> Option<(Range<usize>, usize)> {
    let start = line.len() - line.trim_start().len();
    let start = start + timestamp_len(&line[start..]);
    let colon = line[start..].find(':')? + start;
    let label = line[start..colon].trim_end();
    let words: Vec<&str> = label.split_whitespace().collect();
    if words.is_empty() || words.len() > 4 || label.chars().count() > 40 {
        return None;
    }
    let word_ok = |w: &&str| {
        w.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '\'' | '’' | '-' | '_'))
    };
    let first_ok = words[0].starts_with(char::is_alphabetic);
    // "Note: 10:30" or "http://" are not labels.
    let after_ok =
        !line[colon + 1..].starts_with(|c: char| c == '/' || c == ':' || c.is_ascii_digit());
    (words.iter().all(word_ok) && first_ok && after_ok)
        .then_some((start..start + label.len(), colon + 1))
}

/// Length of a timestamp opening `s` ("[00:01:07] ", "(0:42) ",
/// "00:01:07 - "), with the spaces and dash after it; 0 if none.
fn timestamp_len(s: &str) -> usize {
    let (open, close) = match s.chars().next() {
        Some('[') => (1, Some(']')),
        Some('(') => (1, Some(')')),
        _ => (0, None),
    };
    let body = &s[open..];
    let digits = body
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, ':' | '.' | ',')))
        .unwrap_or(body.len());
    let stamp = &body[..digits];
    if !stamp.contains(':') || !stamp.starts_with(|c: char| c.is_ascii_digit()) {
        return 0;
    }
    let mut end = open + digits;
    if let Some(close) = close {
        if !s[end..].starts_with(close) {
            return 0;
        }
        end += 1;
    }
    let rest = &s[end..];
    let gap = rest.len() - rest.trim_start_matches([' ', '\t', '-', '–']).len();
    if gap == 0 {
        return 0;
    }
    end + gap
}

/// Reads the turns of a labelled transcript; `None` when it is not labelled.
pub fn read(text: &str) -> Option<Dialogue> {
    let mut turns: Vec<Turn> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body_end = offset + line.trim_end().len();
        if let Some((label, after)) = label_of(line) {
            turns.push(Turn {
                label: line[label.clone()].to_string(),
                label_span: offset + label.start..offset + label.end,
                span: offset + after..body_end.max(offset + after),
            });
        } else if let Some(last) = turns.last_mut() {
            if body_end > last.span.end {
                last.span.end = body_end;
            }
        }
        offset += line.len();
    }
    let mut labels: Vec<String> = Vec::new();
    for t in &turns {
        if !labels.contains(&key(&t.label)) {
            labels.push(key(&t.label));
        }
    }
    if turns.len() < 2 || labels.len() < 2 {
        return None;
    }
    let words = |l: &str| -> usize {
        turns
            .iter()
            .filter(|t| key(&t.label) == l)
            .map(|t| text[t.span.clone()].split_whitespace().count())
            .sum()
    };
    let named = labels
        .iter()
        .find(|l| l.split(' ').any(|w| has(INTERVIEWER, w.trim_matches('.'))));
    let interviewer = named.cloned().or_else(|| {
        let share = |l: &str| question_share(text, &turns, l);
        let best = labels
            .iter()
            .max_by(|a, b| share(a).total_cmp(&share(b)))?
            .clone();
        let others_max = labels
            .iter()
            .filter(|l| **l != best)
            .map(|l| share(l))
            .fold(0.0, f64::max);
        (share(&best) > others_max).then_some(best)
    });
    let role_label = labels.iter().any(|l| {
        l.split(' ').next().is_some_and(|w| {
            has(ROLE_LABELS, w) || has(INTERVIEWER, w) || w.starts_with("speaker_")
        })
    });
    if interviewer.is_none() && !role_label {
        // "Challenge: ... Solution: ...": headings, not speakers
        return None;
    }
    let customer = labels
        .iter()
        .filter(|l| Some(*l) != interviewer.as_ref())
        .max_by_key(|l| words(l))
        .cloned();
    let original = |k: Option<String>| {
        k.and_then(|k| {
            turns
                .iter()
                .find(|t| key(&t.label) == k)
                .map(|t| t.label.clone())
        })
    };
    Some(Dialogue {
        interviewer: original(interviewer),
        customer: original(customer),
        turns,
    })
}

/// Share of the label's turns that ask a question.
fn question_share(text: &str, turns: &[Turn], label: &str) -> f64 {
    let mine: Vec<&Turn> = turns.iter().filter(|t| key(&t.label) == label).collect();
    let asks = mine
        .iter()
        .filter(|t| {
            let said = text[t.span.clone()].trim();
            let opener = said
                .split(|c: char| !c.is_alphanumeric() && c != '\'')
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .find(|w| !matches!(w.as_str(), "so" | "and" | "um" | "uh" | "okay" | "ok"));
            said.ends_with('?') || opener.is_some_and(|w| has(QUESTION_OPENERS, &w))
        })
        .count();
    asks as f64 / mine.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labelled_interview_finds_both_parts() {
        let t = "Moderator: Who are you?\nPaulo Reis: I'm Paulo, I fix boats.\n\
            Moderator: And why Keelhaul?\nPaulo Reis: It just works.";
        let d = read(t).unwrap();
        assert_eq!(d.interviewer.as_deref(), Some("Moderator"));
        assert_eq!(d.customer.as_deref(), Some("Paulo Reis"));
        assert_eq!(d.customer_name().map(|(n, _)| n), Some("Paulo Reis"));
        let said: Vec<&str> = d.customer_spans().into_iter().map(|r| &t[r]).collect();
        assert_eq!(said, [" I'm Paulo, I fix boats.", " It just works."]);
    }

    #[test]
    fn the_questioner_is_the_interviewer() {
        let t = "speaker 1: so what do you do\nspeaker 2: i bake bread for a living\n\
            speaker 1: how did you hear about us\nspeaker 2: a friend told me and i kept going";
        let d = read(t).unwrap();
        assert_eq!(d.interviewer.as_deref(), Some("speaker 1"));
        assert_eq!(d.customer.as_deref(), Some("speaker 2"));
        assert_eq!(d.customer_name(), None);
    }

    #[test]
    fn timestamps_and_diarisation_labels() {
        let t = "[00:00:02] SPEAKER_00: what do you do?\n\
            [00:00:05] SPEAKER_01: I'm a baker at Crumb & Co.\n\
            00:00:09 - SPEAKER_00: why Doughly?\n\
            (0:12) SPEAKER_01: It plans the bakes for me.";
        let d = read(t).unwrap();
        assert_eq!(d.turns.len(), 4);
        assert_eq!(d.interviewer.as_deref(), Some("SPEAKER_00"));
        assert_eq!(d.customer.as_deref(), Some("SPEAKER_01"));
        assert_eq!(d.customer_name(), None);
        let said: Vec<&str> = d.customer_spans().into_iter().map(|r| &t[r]).collect();
        assert_eq!(
            said,
            [" I'm a baker at Crumb & Co.", " It plans the bakes for me."]
        );
    }

    #[test]
    fn plain_text_and_times_are_not_labels() {
        assert_eq!(
            read("we met at 10:30 and again at 11:00\nit was fine"),
            None
        );
        assert_eq!(read("Note: this is one line only"), None);
        assert_eq!(read("see https://x.example\nand http://y.example"), None);
        assert_eq!(read(""), None);
        assert_eq!(read(":\n:\n"), None);
        assert_eq!(
            read("Challenge: paper forms.\nSolution: Formly.\nResults: two hours saved."),
            None
        );
    }
}
