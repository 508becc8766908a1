//! Speaker metadata from video-testimonial transcripts.
//!
//! Transcripts are speech-recognition output: often all lower case, with
//! little punctuation and with fillers ("um", "uh", "you know"). [`speaker`]
//! reports only what the speaker states, found with a small set of phrase
//! patterns matched case-insensitively over word tokens; fillers between the
//! words of a pattern are skipped. A value never spans punctuation, a line
//! break or a filler, so "at bluefin analytics uh we started" yields the
//! organisation "Bluefin Analytics". Nothing is guessed: a field without a
//! matching statement stays `None`.
//!
//! A transcript counts as *lower case* when fewer than 3 % of its words are
//! capitalised (ignoring "I", "I'm", ... and all-capital acronyms); its values
//! are then title-cased with [`title_case`]. In a cased transcript values are
//! returned as written unless they have no capital letter at all ("the
//! founder" gives "Founder"), and names, organisations and products must be
//! capitalised, except the name after "my name is".

use std::ops::Range;

pub mod dialogue;
mod interview;
pub mod lang;
mod phrases;
mod product;
mod roles;
mod statements;

/// Single-word fillers, skipped inside patterns and ending every value.
const FILLERS: &str = "um umm uh uhh uhm erm er ah ahh eh hmm hm mm mmm mhm like";
/// Two-word fillers.
const FILLER_PAIRS: &str = "you know|i mean|so yeah|kind of|sort of";
/// Function words, frequent verbs and time words: never part of a name, an
/// organisation or a product.
const STOP: &str = "a an the and or nor but so if then than because as at by for from in into \
    of off on onto out over to up with without about above after before below between during \
    through under until upon via since while across around within throughout per i i'm i've \
    i'd i'll me my mine myself we we're we've we'd we'll us our ours you you're your yours he \
    he's him his she she's her hers it it's its they they're them their this that that's these \
    those there there's here here's what which who whom whose where when why how is am are was \
    were be been being do does did done have has had having will would can could should shall \
    may might must not no yes yeah yep ok okay oh well just also very really too quite pretty \
    such only even still already again always never ever now today currently actually \
    basically honestly literally definitely totally absolutely probably maybe all any some \
    every each both either neither one two three four five six seven eight nine ten twenty \
    thirty forty fifty hundred thousand first last next other another more most less much many \
    few lot lots thing things something anything nothing everything someone anyone everyone \
    everybody somebody nobody hi hello hey thanks thank please sure right said says say told \
    tell love loves loved likes liked help helps helped made makes make went go goes got get \
    gets use uses used using set showed took take takes came come comes gave give gives want \
    wants wanted need needs needed ask asked asks call called calls found find saw see knows \
    know knew start started starts signed decided ran run runs keep keeps kept brought built \
    handled answered walked explained recommended mentioned worked work works based located \
    years year months month weeks week days day ago time";
/// Words that follow "I'm" or a role without being a name.
const NOT_NAME: &str = "happy glad excited thrilled proud pleased grateful thankful lucky certain \
    going gonna trying looking originally part member fan huge big small super kind sort new old \
    good great fine bad busy free able ready available interested involved familiar curious \
    confident convinced impressed amazed blown surprised obsessed hooked sold tired worried \
    afraid sorry late early talking speaking calling joining leading running managing \
    overseeing responsible charge exactly back honored honoured delighted stoked blessed psyched \
    pumped humbled relieved satisfied comfortable alright home down folks guys team company \
    business people customer customers client clients course moment point way job role place \
    user users massive everyone";
/// Role head nouns.
const HEADS: &str = "ceo cto coo cfo cmo cio cpo cro ciso cso vp svp evp founder cofounder \
    co-founder owner co-owner president director manager head engineer developer designer \
    consultant lead specialist coordinator analyst teacher doctor nurse administrator officer \
    executive supervisor architect accountant lawyer attorney physician dentist therapist \
    pharmacist recruiter strategist scientist researcher editor writer producer chef instructor \
    professor coach agent broker realtor technician assistant associate representative rep \
    buyer planner controller treasurer secretary chair chairman chairwoman chairperson partner \
    principal superintendent librarian veterinarian vet surgeon paramedic mechanic electrician \
    plumber contractor freelancer entrepreneur advisor adviser counselor counsellor trainer \
    marketer programmer operator clerk receptionist dispatcher foreman pastor psychologist \
    physiotherapist optometrist pilot boss bookkeeper cashier barista baker farmer photographer \
    caterer stylist hairdresser florist carpenter tutor midwife cleaner";
/// Heads that take an "of DEPARTMENT" complement ("head of marketing").
const OF_HEADS: &str = "head director manager vp svp evp president lead officer chief chair";
/// Role modifiers ("senior", "chief", "co").
const MODS: &str = "senior sr junior jr lead chief principal associate assistant deputy executive \
    operating information commercial academic \
    staff head managing general regional global national interim acting founding co technical \
    registered certified licensed freelance independent vice team store branch office practice \
    school high elementary middle primary";
/// Departments and fields ("marketing", "customer success").
const DEPTS: &str = "marketing sales product products engineering software hardware operations \
    ops finance financial hr human resources people it data design growth customer success \
    support service services experience communications content brand digital social media \
    business development research strategy technology tech partnerships account accounts \
    project projects program programme community events public relations pr field client \
    creative innovation security quality supply chain procurement logistics training learning \
    talent recruiting recruitment analytics revenue demand web frontend backend full-stack \
    mobile cloud devops network systems infrastructure qa ux ui graphic art legal compliance \
    clinical medical nursing dental education science math english history payroll facilities \
    admin administration editorial video ecommerce e-commerce retail kitchen patient care \
    insights office";
/// Words naming a team after its department ("the data team").
const TEAM_WORDS: &str = "team teams department dept group division function org side unit";
/// Name particles allowed inside a name ("ludwig van beethoven").
const PARTICLES: &str = "van von de der den da di du del della la le bin ibn al";
/// Nouns that alone do not name an organisation or a product.
const GENERIC: &str = "company business startup agency firm organization organisation team \
    group school hospital clinic practice store shop office department platform tool tools \
    software system systems app apps product products solution solutions service services \
    spreadsheet spreadsheets email emails paper crm program programs website site stuff";
/// Names ending in "-ed" or "-ly", which otherwise mark verbs and adverbs.
const NAME_EXCEPTIONS: &str = "ahmed mohammed mohamed muhammad fred ted ned jared reed ed emily \
    kelly holly lily sally molly polly shelly beverly kimberly";
/// Acronyms kept upper-case by [`title_case`].
const ACRONYMS: &str = "ceo cto coo cfo cmo cio cpo cro ciso cso vp svp evp hr it ai ml qa ux ui \
    crm erp pr seo api bi kpi roi smb b2b b2c usa uk eu llc llp plc nhs ngo cpa rn md gm sdr bdr \
    ibm aws hvac";
/// Words kept lower-case by [`title_case`] except at the start.
const SMALL: &str = "a an and as at but by for from in into nor of on or the to via with de da \
    del der van von du la le";
/// Frequent English words for the language heuristic.
const ENGLISH: &str = "the and to of a i it we is was that in my our for you this with on so \
    have be are but they just at";
/// Honorifics kept with the name that follows ("Dr. Fatima ...").
const HONORIFICS: &str = "dr mr mrs ms mx miss prof professor doctor sir dame rev reverend";
/// Adverbs skipped after "I'm" ("I'm currently the head of ...").
const ADVERBS: &str = "currently also now actually just still basically officially proudly";

/// Whether the space-separated word list `list` contains `word`.
fn has(list: &str, word: &str) -> bool {
    !word.is_empty() && list.split(' ').any(|w| w == word)
}

/// A value found in the transcript with the words that state it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The value, title-cased when the transcript is lower case.
    pub value: String,
    /// The verbatim substring of the transcript that states the value.
    pub evidence: String,
    /// Byte offset of `evidence` in the transcript.
    pub start: usize,
}

/// What a transcript says about its speaker.
#[derive(Debug, Clone, PartialEq)]
pub struct Speaker {
    /// The speaker's name ("my name is ...", "I'm ...", "this is ... from ...").
    pub name: Option<Found>,
    /// The organisation the speaker works for or runs.
    pub organisation: Option<Found>,
    /// The speaker's position or role.
    pub position: Option<Found>,
    /// How much was stated, 0..=1: `min(1, n + 0.3·[organisation] + 0.3·[position])`
    /// where `n` is 0.4 for "my name is X", 0.35 for "this is X from ..." and
    /// "X here from ...", 0.25 for "I'm X", and 0 without a name.
    pub confidence: f64,
    /// Other people named with their role ("our account manager Sarah").
    pub other_people: Vec<String>,
    /// A product or tool mentioned as being used ("we started using Acme CRM").
    pub product: Option<String>,
    /// `"en"` when English stop words are frequent, else `"unknown"`.
    pub language: &'static str,
}

/// Extracts who is speaking. Each field is None unless stated, never guessed.
///
/// In an interview the fields describe the customer, not the interviewer:
/// with speaker labels only the customer's turns are read (see
/// [`dialogue`]); without them, an interviewer's own introduction before
/// "I'm here with NAME ..." or before a question and a second introduction
/// is skipped. A transcript in another language ([`lang::foreign`]) gives no
/// fields at all.
pub fn speaker(transcript: &str) -> Speaker {
    if lang::foreign(transcript) {
        return Speaker {
            name: None,
            organisation: None,
            position: None,
            confidence: 0.0,
            other_people: Vec::new(),
            product: None,
            language: "unknown",
        };
    }
    let cx = Ctx::new(transcript);
    let (st, interviewer) = cx.customer();
    let mut vendor = State::default();
    cx.run(&interviewer, &mut vendor);
    let (name, strength) = st.name.map_or((None, 0.0), |(f, s)| (Some(f), s));
    let bonus = |f: &Option<Found>| if f.is_some() { 0.3 } else { 0.0 };
    let confidence = f64::min(1.0, strength + bonus(&st.org) + bonus(&st.pos));
    let own: Vec<String> = [&name, &st.org]
        .iter()
        .filter_map(|f| f.as_ref().map(|f| f.value.to_lowercase()))
        .collect();
    let vendor = vendor.org.map(|f| f.value);
    Speaker {
        other_people: cx.other_people(name.as_ref().map(|f| f.value.as_str())),
        product: cx.product(vendor.as_deref(), &own),
        language: cx.language(),
        name,
        organisation: st.org,
        position: st.pos,
        confidence,
    }
}

/// Byte ranges the interviewer speaks in an interview: their labelled turns,
/// or, without labels, the opening up to the end of their introduction of
/// the guest (see [`speaker`]). Empty for a monologue.
pub fn interviewer_spans(transcript: &str) -> Vec<Range<usize>> {
    if lang::foreign(transcript) {
        return Vec::new();
    }
    let cx = Ctx::new(transcript);
    let (_, interviewer) = cx.customer();
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut prev_on = false;
    for (t, &on) in cx.toks.iter().zip(&interviewer) {
        match out.last_mut() {
            Some(r) if on && prev_on => r.end = t.end,
            _ if on => out.push(t.start..t.end),
            _ => {}
        }
        prev_on = on;
    }
    out
}

/// For each of `tokens` (byte ranges in text order), whether it lies wholly
/// within one of `spans`: one pass over both, so a transcript of thousands of
/// turns costs no more per token than one of two.
fn within(tokens: impl Iterator<Item = Range<usize>>, spans: &[Range<usize>]) -> Vec<bool> {
    let mut merged: Vec<Range<usize>> = spans.to_vec();
    merged.sort_by_key(|r| (r.start, r.end));
    merged.dedup_by(|next, kept| {
        let overlaps = next.start <= kept.end;
        if overlaps {
            kept.end = kept.end.max(next.end);
        }
        overlaps
    });
    let mut k = 0;
    tokens
        .map(|t| {
            while merged.get(k).is_some_and(|r| r.end < t.end) {
                k += 1;
            }
            merged
                .get(k)
                .is_some_and(|r| r.start <= t.start && t.end <= r.end)
        })
        .collect()
}

/// Fixes the casing of a name/organisation as found in lower-case transcripts
/// ("sarah jones" -> "Sarah Jones", "acme corp" -> "Acme Corp"), keeping known
/// acronyms like CEO/CTO/VP/HR/IT/AI upper-case and small words ("of", "and")
/// lower-case after the first word. Words that already contain a capital
/// letter are kept as written; whitespace is preserved.
pub fn title_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut first = true;
    for piece in s.split_inclusive(char::is_whitespace) {
        let word = piece.trim_end_matches(char::is_whitespace);
        if !word.is_empty() {
            out.push_str(&case_word(word, first));
            first = false;
        }
        out.push_str(&piece[word.len()..]);
    }
    out
}

fn case_word(word: &str, first: bool) -> String {
    if word.chars().any(char::is_uppercase) || (!first && has(SMALL, word)) {
        return word.to_string();
    }
    word.split('-').map(case_part).collect::<Vec<_>>().join("-")
}

/// Capitalises one hyphen-free part, keeping surrounding punctuation.
fn case_part(part: &str) -> String {
    let rest = part.trim_start_matches(|c: char| !c.is_alphanumeric());
    let core = rest.trim_end_matches(|c: char| !c.is_alphanumeric());
    if core.is_empty() {
        return part.to_string();
    }
    let (before, after) = (&part[..part.len() - rest.len()], &rest[core.len()..]);
    let cased = if has(ACRONYMS, core) {
        core.to_uppercase()
    } else if let Some(rest) = core.strip_prefix("mc").filter(|r| r.chars().count() > 1) {
        format!("Mc{}", capitalise(rest))
    } else if let Some((head @ ("o" | "d" | "l"), rest)) = core.split_once('\'') {
        format!("{}'{}", head.to_uppercase(), capitalise(rest))
    } else {
        capitalise(core)
    };
    format!("{before}{cased}{after}")
}

/// Whitespace runs collapsed to single spaces.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// Combining marks, kept inside a word.
fn is_mark(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// A word of the transcript.
struct Tok {
    start: usize,
    end: usize,
    /// Lower-cased, with ’ as ' and "im" as "i'm".
    lower: String,
    /// Punctuation, a line break or the start of the text precedes it.
    brk: bool,
    /// Starts with an upper-case letter.
    cap: bool,
    /// Contains an upper-case letter or a digit.
    marked: bool,
    /// Number of tokens of the filler starting here (0 if none).
    filler: usize,
}

fn tokenize(text: &str) -> Vec<Tok> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let core = |c: char| c.is_alphanumeric() || c == '&';
    let mut toks: Vec<Tok> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !core(chars[i].1) {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while let Some(&(_, c)) = chars.get(j) {
            let joins = matches!(c, '\'' | '’' | '-' | '.')
                && chars[j - 1].1.is_alphanumeric()
                && chars.get(j + 1).is_some_and(|&(_, n)| n.is_alphanumeric());
            if !(core(c) || is_mark(c) || joins) {
                break;
            }
            j += 1;
        }
        let (start, end) = (chars[i].0, chars.get(j).map_or(text.len(), |&(b, _)| b));
        let gap = &text[toks.last().map_or(0, |t| t.end)..start];
        let word = &text[start..end];
        let mut lower = word.to_lowercase().replace('’', "'");
        if lower == "im" {
            lower = "i'm".to_string();
        }
        toks.push(Tok {
            start,
            end,
            lower,
            brk: toks.is_empty() || gap.chars().any(|c| c == '\n' || !c.is_whitespace()),
            cap: word.starts_with(char::is_uppercase),
            marked: word.chars().any(|c| c.is_uppercase() || c.is_numeric()),
            filler: 0,
        });
        i = j;
    }
    toks
}

/// Fields found so far; the name keeps the strongest statement.
#[derive(Default)]
struct State {
    name: Option<(Found, f64)>,
    org: Option<Found>,
    pos: Option<Found>,
    /// Every name stated, in order: (byte offset of the statement, value).
    names: Vec<(usize, String)>,
}

impl State {
    fn set_name(&mut self, found: Found, strength: f64) {
        self.names.push((found.start, found.value.to_lowercase()));
        if self.name.as_ref().is_none_or(|(_, old)| strength > *old) {
            self.name = Some((found, strength));
        }
    }
}

/// The tokenised transcript and the pattern matchers.
struct Ctx<'a> {
    text: &'a str,
    toks: Vec<Tok>,
    cased: bool,
}

impl<'a> Ctx<'a> {
    fn new(text: &'a str) -> Self {
        let toks = tokenize(text);
        // Speaker labels ("Interviewer:") say nothing about the casing of speech.
        let labels: Vec<Range<usize>> = dialogue::read(text)
            .map(|d| d.turns.into_iter().map(|t| t.label_span).collect())
            .unwrap_or_default();
        let in_label = within(toks.iter().map(|t| t.start..t.end), &labels);
        let capitalised = toks
            .iter()
            .zip(in_label)
            .filter(|(_, labelled)| !labelled)
            .map(|(t, _)| t)
            .filter(|t| t.cap && t.lower != "i" && !t.lower.starts_with("i'"))
            .filter(|t| text[t.start..t.end].chars().any(char::is_lowercase))
            .count();
        let cased = capitalised > 0 && capitalised * 100 >= toks.len() * 3;
        let mut cx = Ctx { text, toks, cased };
        for i in 0..cx.toks.len() {
            let pair =
                |p: &str| p.split_once(' ') == Some((cx.w(i), cx.w(i + 1))) && !cx.brk(i + 1);
            cx.toks[i].filler = if has(FILLERS, cx.w(i)) {
                1
            } else {
                2 * usize::from(FILLER_PAIRS.split('|').any(pair))
            };
        }
        cx
    }

    fn w(&self, i: usize) -> &str {
        self.toks.get(i).map_or("", |t| t.lower.as_str())
    }

    fn brk(&self, i: usize) -> bool {
        self.toks.get(i).is_none_or(|t| t.brk)
    }

    /// Number of tokens of the filler starting at `i` (0 if none).
    fn filler(&self, i: usize) -> usize {
        self.toks.get(i).map_or(0, |t| t.filler)
    }

    fn skip(&self, mut i: usize) -> usize {
        while self.filler(i) > 0 {
            i += self.filler(i);
        }
        i
    }

    /// Matches the words of `phrase` at `i`, skipping fillers between them;
    /// returns the end.
    fn seq(&self, i: usize, phrase: &str) -> Option<usize> {
        let mut k = i;
        for (n, want) in phrase.split(' ').enumerate() {
            if n > 0 {
                k = self.skip(k);
            }
            if self.w(k) != want {
                return None;
            }
            k += 1;
        }
        Some(k)
    }

    /// Byte range of tokens `a..e` (`e > a`, both in range).
    fn bytes(&self, a: usize, e: usize) -> Range<usize> {
        self.toks[a].start..self.toks[e - 1].end
    }

    fn found(&self, evidence: Range<usize>, value: Range<usize>) -> Found {
        let raw = collapse(self.text.get(value).unwrap_or(""));
        let value = if !self.cased || !raw.chars().any(char::is_uppercase) {
            title_case(&raw)
        } else {
            raw
        };
        let start = evidence.start;
        let evidence = self.text.get(evidence).unwrap_or("").to_string();
        Found {
            value,
            evidence,
            start,
        }
    }

    /// Fills `slot` unless already set: the value is tokens `a..e` and the
    /// evidence runs from token `ev` to the end of the value.
    fn fill(&self, slot: &mut Option<Found>, ev: usize, (a, e): (usize, usize)) {
        if slot.is_none() {
            let evidence = self.toks[ev].start..self.toks[e - 1].end;
            *slot = Some(self.found(evidence, self.bytes(a, e)));
        }
    }

    /// Fills `slot` unless already set with a fixed value stated by tokens `ev..e`.
    fn fill_fixed(&self, slot: &mut Option<Found>, ev: usize, e: usize, value: &str) {
        if slot.is_none() {
            let start = self.toks[ev].start;
            let evidence = self.text[start..self.toks[e - 1].end].to_string();
            let value = value.to_string();
            *slot = Some(Found {
                value,
                evidence,
                start,
            });
        }
    }

    fn cased_value(&self, raw: &str) -> String {
        if self.cased {
            raw.to_string()
        } else {
            title_case(raw)
        }
    }

    /// "our account manager Sarah"; in cased text also "Sarah, our account manager".
    fn other_people(&self, speaker: Option<&str>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for i in 0..self.toks.len() {
            if !matches!(self.w(i), "our" | "my" | "their" | "his" | "her") {
                continue;
            }
            let Some((_, re)) = self.role_at(i + 1) else {
                continue;
            };
            let k = self.skip(re);
            let span = if let Some(e) = self.name_at(k, false, 2) {
                Some((k, e))
            } else if self.cased {
                let a = self.name_before(i, 2, true);
                (a < i).then_some((a, i))
            } else {
                None
            };
            if let Some((a, e)) = span {
                let name = self.cased_value(&self.text[self.bytes(a, e)]);
                let same = |n: &str| n.eq_ignore_ascii_case(&name);
                if !speaker.is_some_and(same) && !out.iter().any(|n| same(n)) {
                    out.push(name);
                }
            }
        }
        out
    }

    fn language(&self) -> &'static str {
        let hits = self.toks.iter().filter(|t| has(ENGLISH, &t.lower)).count();
        if hits >= 3 && hits * 100 >= self.toks.len() * 15 {
            "en"
        } else {
            "unknown"
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod regressions;
