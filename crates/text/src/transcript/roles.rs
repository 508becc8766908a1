//! Further self-statements: "I've been the ROLE at ORG", "my role is ROLE",
//! "I serve as ROLE", "I work in DEPT at ORG", and "NAME here." opening a
//! sentence in cased text.

use super::{has, Ctx, State, DEPTS};

/// Phrases followed by the speaker's role.
const ROLE_OPENERS: &str = "i've been|i have been|my role is|my title is|my job title is|\
    i serve as|i'm serving as|i act as";

impl Ctx<'_> {
    /// Tries the statements of this module at token `i`.
    pub(super) fn more_statements(&self, st: &mut State, i: usize) {
        for opener in ROLE_OPENERS.split('|') {
            if let Some(j) = self.seq(i, opener) {
                if let Some(role) = self.role_at(self.skip(j)) {
                    self.role_and_org(st, i, role, false);
                }
            }
        }
        if let Some(mut m) = self.seq(i, "i work in") {
            let first = self.skip(m);
            m = first;
            while m < first + 3 && has(DEPTS, self.w(m)) {
                m += 1;
            }
            if m > first {
                if let Some(org) = self.org_after(self.skip(m), "at for") {
                    self.fill(&mut st.org, i, org);
                }
            }
        }
        // "Dana Lee here." / "Dr. Ines Vidal here, ..." at a sentence start,
        // two words at least
        if self.cased && self.w(i) == "here" && self.brk(i + 1) {
            let a = self.name_before(i, 3, false);
            if a + 1 < i && self.brk(a) {
                self.named(st, a, (a, i), i + 1, 0.3);
            }
        }
    }

    /// After a guest's name: "she's / he's / who is the ROLE at ORG".
    pub(super) fn guest_role(&self, st: &mut State, ev: usize, k: usize) {
        let k = self.skip(k);
        let j = [
            "she's", "he's", "they're", "who's", "she is", "he is", "who is",
        ]
        .iter()
        .find_map(|p| self.seq(k, p));
        if let Some(role) = j.and_then(|j| self.role_at(self.skip(j))) {
            self.role_and_org(st, ev, role, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::speaker;

    fn get(t: &str) -> [String; 3] {
        let s = speaker(t);
        [s.name, s.organisation, s.position].map(|f| f.map_or("-".to_owned(), |f| f.value))
    }

    #[test]
    fn further_role_statements() {
        let cases = [
            (
                "i've been the cto at ferncliff games for three years",
                ["-", "Ferncliff Games", "CTO"],
            ),
            (
                "My role is director of research at Oakmere Institute.",
                ["-", "Oakmere Institute", "Director of Research"],
            ),
            (
                "i work in marketing at juniper candles",
                ["-", "Juniper Candles", "-"],
            ),
            (
                "Tomas Ruiz here. I run the front desk.",
                ["Tomas Ruiz", "-", "-"],
            ),
            (
                "today we're joined by kim lee she's the owner of lantern books",
                ["Kim Lee", "Lantern Books", "Owner"],
            ),
            ("I've been a customer for years.", ["-", "-", "-"]),
            ("Life here. Is good.", ["-", "-", "-"]),
        ];
        for (t, want) in cases {
            assert_eq!(get(t), want.map(String::from), "{t}");
        }
    }
}
