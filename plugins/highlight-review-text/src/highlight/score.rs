//! The points a run of tokens earns, or its rejection (see the module
//! documentation's table).

use super::tokens::{Class, Token};
use super::*;

/// What a run of tokens says; None when it is negated, hedged, wishful or a complaint.
#[derive(Default)]
pub(super) struct Signals {
    pub(super) praise: usize,
    pub(super) mild: usize,
    pub(super) denied_faults: usize,
    pub(super) superlatives: usize,
    pub(super) outcomes: usize,
    pub(super) numbers: usize,
    pub(super) quantified: bool,
    pub(super) first_person: bool,
    pub(super) words: usize,
}

pub(super) fn signals(run: &[Token]) -> Option<Signals> {
    let words: Vec<Class> = run
        .iter()
        .filter(|t| !t.word.is_empty())
        .map(|t| t.class)
        .collect();
    let n = words.len();
    // Negations that deny a fault ("never failed"), and the faults they deny.
    let mut denied = vec![false; n];
    let mut s = Signals {
        words: n,
        ..Signals::default()
    };
    for (k, c) in words.iter().enumerate() {
        if !c.negation || c.in_phrase || denied[k] {
            continue;
        }
        if words.get(k + 1).is_some_and(|w| w.only) {
            denied[k] = true;
            continue;
        }
        let reach = if c.modal_negation { 5 } else { 4 };
        let target = (k + 1..n.min(k + reach))
            .find(|&t| words[t].target || c.modal_negation && words[t].modal_target);
        if let Some(t) = target {
            denied[k] = true;
            denied[t] = true;
            s.denied_faults += 1;
        }
    }
    let mut multiplier = false;
    for (k, c) in words.iter().enumerate() {
        if denied[k] {
            continue;
        }
        if c.bad || c.negation && !c.in_phrase {
            return None;
        }
        match c.praise {
            2 => s.praise += 1,
            1 => s.mild += 1,
            _ => {}
        }
        if c.phrase > 0 && k + usize::from(c.phrase) <= n {
            s.praise += 1;
        }
        if c.range > 0 && k + usize::from(c.range) <= n {
            s.outcomes += 1;
            s.quantified = true;
        }
        s.superlatives += usize::from(c.superlative);
        s.outcomes += usize::from(c.outcome);
        s.numbers += usize::from(c.number);
        multiplier |= c.multiplier;
        let subject = words[k.saturating_sub(2)..k].iter().any(|p| p.first_person);
        s.first_person |= (c.outcome || c.first_person_verb) && subject;
    }
    if s.superlatives > 0 && words.iter().any(|c| c.experience) {
        s.superlatives += 1;
    }
    s.quantified |= s.numbers > 0 && (s.outcomes > 0 || multiplier);
    // An outcome with what it is measured in: "saves us time".
    s.quantified |= words
        .iter()
        .enumerate()
        .any(|(k, c)| c.outcome && words[k + 1..n.min(k + 4)].iter().any(|w| w.outcome_object));
    Some(s)
}

/// Scores a run, or None when it is rejected or has no signal.
pub(super) fn score(run: &[Token], raw: &str, whole: bool) -> Option<f64> {
    let s = signals(run)?;
    let numbered_result = s.numbers > 0 && s.first_person;
    if s.praise + s.mild + s.denied_faults + s.superlatives + s.outcomes == 0 && !numbered_result {
        return None;
    }
    let mut points = 2.0 * s.praise.min(3) as f64
        + s.mild.min(2) as f64
        + 1.5 * s.denied_faults.min(2) as f64
        + 1.5 * s.superlatives.min(2) as f64
        + 1.5 * s.outcomes.min(2) as f64
        + s.numbers.min(2) as f64;
    if s.quantified || s.numbers > 0 && raw.contains('%') {
        points += 1.5;
    }
    if s.first_person {
        points += 1.0;
    }
    // A short span is admitted only as a whole sentence: no bonus for that.
    if whole && raw.chars().count() >= MIN_CHARS {
        points += 0.5;
    }
    points -= 0.25 * s.words.saturating_sub(20) as f64;
    Some(points)
}
