//! The statements a speaker makes about themselves, matched at each token:
//! "my name is …", "I'm the … at …", "I lead the … team at …", "ORG's …".
//! Each fills what it states into the `State` and leaves a field already
//! set as it is.

use super::*;

impl Ctx<'_> {
    /// Sets the position `role` stated from token `ev`, then an organisation
    /// after "at/for/of/with" (`need_org`: only when one follows).
    pub(super) fn role_and_org(
        &self,
        st: &mut State,
        ev: usize,
        role: (usize, usize),
        need_org: bool,
    ) {
        let mut k = self.skip(role.1);
        if matches!(self.w(k), "here" | "over") {
            k = self.skip(k + 1);
        }
        let org = self.org_after(k, "at for of with");
        if need_org && org.is_none() {
            return;
        }
        self.fill(&mut st.pos, ev, role);
        if let Some(org) = org {
            self.fill(&mut st.org, ev, org);
        }
    }

    /// Records the name `n` stated by tokens `ev..end`, then a role or an
    /// organisation right after it ("sarah jones ceo of ...", "... from acme").
    pub(super) fn named(
        &self,
        st: &mut State,
        ev: usize,
        n: (usize, usize),
        end: usize,
        strength: f64,
    ) {
        let evidence = self.toks[ev].start..self.toks[end - 1].end;
        st.set_name(self.found(evidence, self.bytes(n.0, n.1)), strength);
        let k = self.skip(end);
        if let Some(role) = self.role_at_loose(k, true) {
            self.role_and_org(st, ev, role, false);
        } else if let Some(org) = self.org_after(k, "from with at") {
            self.fill(&mut st.org, ev, org);
        }
    }

    /// "ORG's ROLE" at `j`, stated from token `ev`.
    pub(super) fn possessive_role(&self, st: &mut State, ev: usize, j: usize) -> bool {
        for p in j..j + 3 {
            if (p > j && self.brk(p)) || !self.org_word(p) {
                return false;
            }
            let t = &self.text[self.toks[p].start..self.toks[p].end];
            let Some(stem) = t.strip_suffix("'s").or_else(|| t.strip_suffix("’s")) else {
                continue;
            };
            let Some((rs, re)) = self.role_at(p + 1).filter(|_| !self.brk(p + 1)) else {
                return false;
            };
            if stem.is_empty() || !(j..=p).any(|t| self.distinctive(t)) {
                return false;
            }
            let start = self.toks[ev].start;
            let org = self.toks[j].start..self.toks[p].start + stem.len();
            st.org
                .get_or_insert_with(|| self.found(start..org.end, org));
            self.fill(&mut st.pos, ev, (rs, re));
            return true;
        }
        false
    }

    /// Tries every pattern starting at token `i`.
    pub(super) fn match_at(&self, i: usize, st: &mut State) {
        if self.filler(i) > 0 {
            return;
        }
        // "my name is X"
        for trigger in ["my name is", "my name's", "my names"] {
            if let Some(j) = self.seq(i, trigger).map(|j| self.skip(j)) {
                if let Some(e) = self.name_at(j, true, 3) {
                    self.named(st, i, (j, e), e, 0.4);
                }
            }
        }
        // "this is X from Y"
        if let Some(j) = self.seq(i, "this is").map(|j| self.skip(j)) {
            if let Some(e) = self.name_at(j, false, 3) {
                if matches!(self.w(self.skip(e)), "from" | "with" | "at") {
                    self.named(st, i, (j, e), e, 0.35);
                }
            }
        }
        // "X here from Y"
        if self.w(i) == "here" && matches!(self.w(self.skip(i + 1)), "from" | "with" | "at") {
            let a = self.name_before(i, 3, false);
            if a < i {
                self.named(st, a, (a, i), i + 1, 0.35);
            }
        }
        // "I'm the ROLE at ORG", "I'm ORG's ROLE", "I'm X"
        if let Some(mut j) = self.seq(i, "i'm").or_else(|| self.seq(i, "i am")) {
            j = self.skip(j);
            while has(ADVERBS, self.w(j)) {
                j = self.skip(j + 1);
            }
            let titled = self
                .after_honorific(j)
                .and_then(|k| self.plain_name_at(k, false, 3));
            if let Some(e) = titled {
                self.named(st, i, (j, e), e, 0.25);
            } else if !self.possessive_role(st, i, j) {
                if let Some(role) = self.role_at(j) {
                    self.role_and_org(st, i, role, false);
                } else if let Some(e) = self.name_at(j, false, 3) {
                    self.named(st, i, (j, e), e, 0.25);
                }
            }
        }
        // "I work at/for ORG (as ROLE)", "I work as ROLE at ORG"
        let work = [
            "i work",
            "i'm working",
            "i currently work",
            "i've been working",
        ];
        for k in work.iter().filter_map(|t| self.seq(i, t)) {
            let k = self.skip(k);
            if self.w(k) == "as" {
                if let Some(role) = self.role_at(k + 1) {
                    self.role_and_org(st, i, role, false);
                }
            } else if let Some(org) = self.org_after(k, "at for") {
                self.fill(&mut st.org, i, org);
                let m = self.skip(org.1);
                if let Some(role) = self.role_at(m + 1).filter(|_| self.w(m) == "as") {
                    self.fill(&mut st.pos, i, role);
                }
            }
        }
        // "as the ROLE of ORG"
        if self.w(i) == "as" {
            if let Some(role) = self.role_at(i + 1) {
                self.role_and_org(st, i, role, true);
            }
        }
        if self.w(i) == "i" {
            self.verb_patterns(st, i);
        }
        self.more_statements(st, i);
    }

    /// "I lead/head/run (the) TEAM at ORG", "I run/own/founded ORG".
    pub(super) fn verb_patterns(&self, st: &mut State, i: usize) {
        let k = self.skip(i + 1);
        let verb = self.w(k);
        if matches!(verb, "lead" | "head" | "run") {
            let mut a = self.skip(k + 1);
            if self.w(a) == "up" {
                a = self.skip(a + 1);
            }
            if matches!(self.w(a), "the" | "our" | "my") {
                a += 1;
            }
            let mut b = a;
            while b < a + 3 && has(DEPTS, self.w(b)) && (b == a || !self.brk(b)) {
                b += 1;
            }
            if b > a {
                let end = b + usize::from(has(TEAM_WORDS, self.w(b)) && !self.brk(b));
                let dept = title_case(&collapse(&self.text[self.bytes(a, b)]));
                self.fill_fixed(&mut st.pos, i, end, &format!("Head of {dept}"));
                if let Some(org) = self.org_after(self.skip(end), "at for") {
                    self.fill(&mut st.org, i, org);
                }
                return;
            }
        }
        let title = match verb {
            "own" => "Owner",
            "founded" => "Founder",
            "co-founded" | "cofounded" => "Co-Founder",
            "run" => "",
            _ => return,
        };
        if let Some(org) = self.org_at(k + 1, false).or_else(|| self.called_at(k + 1)) {
            self.fill(&mut st.org, i, org);
            if !title.is_empty() {
                self.fill_fixed(&mut st.pos, i, org.1, title);
            }
        }
    }
}
