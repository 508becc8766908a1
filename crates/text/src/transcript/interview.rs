//! Interviews: which words are the customer's.
//!
//! With speaker labels ([`super::dialogue`]) the customer's turns are read
//! and the interviewer's are not; the customer's label stands for the name
//! when the turns state none. Without labels, an interviewer who introduces
//! the guest ("I'm here with NAME, ROLE at ORG", "today I'm talking to NAME
//! from ORG", "we're joined by NAME") is read up to that introduction only
//! for the guest; and when a first speaker introduces themselves, asks a
//! question and a second person introduces themselves, the first is the
//! interviewer.

use super::{dialogue, has, Ctx, Found, State, HONORIFICS};

/// Phrases an interviewer uses to introduce the guest.
const GUEST: &str = "here with|talking with|talking to|speaking with|speaking to|joined by|\
    sitting down with|sat down with|chatting with|i'm with|i am with|we're with";
/// Words that must come right before a [`GUEST`] phrase.
const GUEST_BEFORE: &str = "i'm am we're are today now currently";
/// Words asking a question, between two introductions.
const ASKING: &str = "what how why tell could can would";

impl Ctx<'_> {
    /// Runs the self-statement patterns from every token set in `mask`.
    pub(super) fn run(&self, mask: &[bool], st: &mut State) {
        for i in 0..self.toks.len() {
            if mask.get(i) == Some(&true) {
                self.match_at(i, st);
            }
        }
    }

    /// Tokens within one of `spans` (byte ranges, such as a speaker's turns).
    fn mask_of(&self, spans: &[std::ops::Range<usize>]) -> Vec<bool> {
        super::within(self.toks.iter().map(|t| t.start..t.end), spans)
    }

    /// What the customer states, and the mask of the interviewer's tokens.
    pub(super) fn customer(&self) -> (State, Vec<bool>) {
        let n = self.toks.len();
        let mut st = State::default();
        if let Some(d) = dialogue::read(self.text) {
            let interviewer = self.mask_of(&d.interviewer_spans());
            self.run(&self.mask_of(&d.customer_spans()), &mut st);
            if st.name.is_none() {
                if let Some((_, span)) = d.customer_name() {
                    st.set_name(self.found(span.clone(), span), 0.3);
                }
            }
            if let Some((guest, _)) = self.guest(&interviewer) {
                st.merge(guest);
            }
            return (st, interviewer);
        }
        let all = vec![true; n];
        if let Some((guest, end)) = self.guest(&all) {
            let customer: Vec<bool> = (0..n).map(|i| i >= end).collect();
            self.run(&customer, &mut st);
            st.merge(guest);
            return (st, customer.iter().map(|c| !c).collect());
        }
        self.run(&all, &mut st);
        if let Some(cut) = self.second_introduction(&st) {
            let customer: Vec<bool> = (0..n).map(|i| i >= cut).collect();
            let mut second = State::default();
            self.run(&customer, &mut second);
            return (second, customer.iter().map(|c| !c).collect());
        }
        (st, vec![false; n])
    }

    /// The guest introduced by the interviewer in the first third of the
    /// transcript (at least its first 60 words), from tokens in `mask`: the
    /// fields stated and the token after the introduction.
    fn guest(&self, mask: &[bool]) -> Option<(State, usize)> {
        let limit = self.toks.len().min(60.max(self.toks.len() / 3));
        for i in (0..limit).filter(|&i| mask.get(i) == Some(&true)) {
            for phrase in GUEST.split('|') {
                let Some(j) = self.seq(i, phrase) else {
                    continue;
                };
                let subject = ["i'm ", "i am ", "we're "]
                    .iter()
                    .any(|p| phrase.starts_with(p));
                let prev = if i > 0 { self.w(i - 1) } else { "" };
                let placed = if subject {
                    matches!(prev, "today" | "now")
                } else {
                    has(GUEST_BEFORE, prev)
                };
                if !placed {
                    continue;
                }
                let j = self.skip(j);
                let Some(e) = self.name_at(j, false, 3) else {
                    continue;
                };
                let mut g = State::default();
                self.named(&mut g, i, (j, e), e, 0.2);
                if g.pos.is_none() && g.org.is_none() {
                    self.guest_role(&mut g, i, e);
                }
                if let (Some((name, _)), Some(org)) = (&g.name, &mut g.org) {
                    drop_vocative(org, &name.value);
                }
                let stated_end = [&g.org, &g.pos]
                    .iter()
                    .filter_map(|f| f.as_ref().map(|f| f.start + f.evidence.len()))
                    .max()
                    .unwrap_or(self.toks[e - 1].end);
                let end = self
                    .toks
                    .iter()
                    .position(|t| t.start >= stated_end)
                    .unwrap_or(self.toks.len());
                return Some((g, end));
            }
        }
        None
    }

    /// The token where a second person introduces themselves after the first
    /// asked a question, if that happens.
    fn second_introduction(&self, st: &State) -> Option<usize> {
        let (first_at, first) = st.names.first()?;
        let (second_at, _) = st.names.iter().find(|(_, v)| v != first)?;
        if second_at <= first_at {
            return None;
        }
        let between = self.text.get(*first_at..*second_at)?;
        let asks = between.contains('?')
            || self
                .toks
                .iter()
                .filter(|t| *first_at <= t.start && t.start < *second_at)
                .any(|t| has(ASKING, &t.lower));
        if !asks {
            return None;
        }
        self.toks.iter().position(|t| t.start >= *second_at)
    }
}

/// Drops from an organisation a final word that is the guest's first name,
/// said as the interviewer turns to them ("... noodles grace how did it").
fn drop_vocative(org: &mut Found, name: &str) {
    let Some(first) = name
        .split_whitespace()
        .find(|w| !has(HONORIFICS, &w.trim_end_matches('.').to_lowercase()))
    else {
        return;
    };
    let last_is_name = |s: &str| {
        s.split_whitespace()
            .last()
            .is_some_and(|w| w.eq_ignore_ascii_case(first))
    };
    let cut = |s: &str| {
        s.rfind(char::is_whitespace)
            .map(|p| s[..p].trim_end().to_owned())
    };
    if org.value.split_whitespace().count() > 1
        && last_is_name(&org.value)
        && last_is_name(&org.evidence)
    {
        if let (Some(value), Some(evidence)) = (cut(&org.value), cut(&org.evidence)) {
            org.value = value;
            org.evidence = evidence;
        }
    }
}

impl State {
    /// Fills what is still missing from `other`; its name only when none was found.
    fn merge(&mut self, other: State) {
        if self.name.is_none() {
            self.name = other.name;
        }
        if self.org.is_none() {
            self.org = other.org;
        }
        if self.pos.is_none() {
            self.pos = other.pos;
        }
    }
}
