//! Light, conservative clean-up of English review text.
//!
//! # Supported languages
//!
//! Only English. [`is_english`] decides; any other text (or text too short
//! or too ambiguous to tell) is returned byte-identical with language
//! `"unsupported"` and no changes.
//!
//! # Rules
//!
//! The rules below run in this order, and the whole sequence is repeated
//! until the text stops changing (at most four rounds), which makes
//! [`enhance`] idempotent in practice. No rule changes anything inside the
//! spans of `protect.rs`: URLs, e-mail addresses, domains and paths with
//! or without a scheme (`shop.example.com/path-with-tpyo`), code between
//! backticks, hashtags and @handles.
//!
//! 1. **Spacing**: a run of two or more spaces/tabs between two non-blank
//!    characters on the same line becomes one space. Line breaks, blank
//!    lines, indentation and trailing blanks are kept as they are.
//! 2. **Repeated punctuation**: `!!!` → `!`, `??` → `?`, `,,` → `,`, `;;` →
//!    `;`; in a mixed run of `!`/`?` only adjacent duplicates go, so `?!`
//!    stays. Periods are never touched, so `...` (and `..`) stay as they are.
//! 3. **Space before punctuation**: blanks between a word (or a closing
//!    quote/bracket) and `,` `.` `!` `?` `;` `:` are removed, unless that
//!    would glue a decimal (`.5`), a name (`.NET`), an ellipsis (` ...`) or an
//!    emoticon (`:)`, `;P`). A ` .` between a lower-case word and a
//!    capitalised one (`clean .The`) is a sentence end and is attached too.
//! 4. **Space after punctuation**: one space is inserted when `,` `!` `?` is
//!    directly followed by a letter, when `;` or `:` is followed by a word of
//!    two or more letters (so `;P` stays), and when `.` ends a lower-case word
//!    of two or more letters and is followed by a capitalised word
//!    (`great.The` → `great. The`; `others.the` is left alone, as it could be
//!    a file or domain name). Digits
//!    after punctuation never get a space, so `3.5`, `1,000`, `10:30`
//!    stay, nor do dotted abbreviations (`e.g.`, `U.S.`, `Ph.D`).
//! 5. **Contractions** written without an apostrophe get it back (`dont`,
//!    `doesnt`, `didnt`, `isnt`, `wouldnt`, `thats`, `youre`, `Im` → `I'm`,
//!    `Ive` → `I've`; see `context.rs`).
//! 6. **Spelling**: whole ASCII words found in a built-in table of common
//!    misspellings are replaced (`recieve` → `receive`, `alot` → `a lot`),
//!    keeping the word's case pattern: lower, Title or UPPER case. Words in
//!    mixed case (`ReCieve`) are left alone. Other lower-case words that the
//!    English word list does not know are replaced by its most frequent word
//!    one edit away (two for long words) with the same first letter, when that
//!    candidate clearly wins (`words.rs`); capitalised words (names) and
//!    words inside paths, numbers or hyphenations are never replaced.
//! 7. **Repeated words**: a word immediately repeated after a single space
//!    (case-insensitively, e.g. `the the`, `The the`) is written once.
//!    Legitimate or emphatic doubles (`had had`, `that that`, `very very`,
//!    `no no`, ...), negations, and repeats whose second word is capitalised
//!    (`Bora Bora`) are kept.
//! 8. **Homophones** decided by the neighbouring words: their/there/they're,
//!    your/you're, its/it's, whole/hole, great/grate, lose/loose, each only
//!    where the other spelling cannot be right (`their is` → `there is`,
//!    `its a` → `it's a`, `will loose your` → `will lose your`).
//! 9. **Agreement**: `we/they/you was` → `were`, `he/she/it don't` →
//!    `doesn't`, `I is` → `I am`, `they/we is` → `are`, `there is many` →
//!    `there are many`, `could/should/would/might/must of` → `… have` (not
//!    before `course`). `I is` is left alone after a capitalised word
//!    (`World War I is`).
//!    A verb after a determiner and a regular plural noun agrees with it
//!    (`the dashboards is` → `are`, `was` → `were`, `has` → `have`), unless the
//!    noun ends a longer subject (`the quality of the products is`).
//! 10. **Capitalisation**: a standalone `i` (also `i'm`, `i've`, `i'll`,
//!     `i'd`) becomes `I` (not in `i.e.` or a `(i)` list label), and the first
//!     letter of each sentence is upper-cased. Sentence starts are those of
//!     [`crate::segment::sentence_spans`] plus any word after a token ending in
//!     `.` `!` `?` (as informal reviews often continue in lower case), except
//!     after an ellipsis, a known abbreviation (`etc.`, `vs.`, `Dr.`), a dotted
//!     abbreviation (`e.g.`, `a.m.`) or a single letter. A word is only
//!     capitalised when it is all lower-case ASCII letters (so `iPhone` stays),
//!     is not itself dotted (`e.g.`) and is not a list label (`(i)`, `b)`).
//!
//! Nothing else is changed: numbers (digit runs), negations (`not`, `never`,
//! `no`, `n't`, also written `dont`) and capitalised words that are not in the
//! misspelling table are never altered, and no words are added except by the
//! spelling and agreement fixes listed above. Every change is reported in
//! [`Enhanced::changes`] as `"<rule>: <before> → <after>"`.

use crate::chars::{capitalise, edited, is_apostrophe, match_case, runs};
use crate::context::{contractions, homophones, is_bare_negation, plural_agreement};
use crate::lexicon;
use crate::segment::sentence_spans;
use crate::text::{Text, Word};
use crate::words;

mod language;
mod punctuation;

pub use language::is_english;
use punctuation::{
    collapse_spaces, repeated_punctuation, space_after_punctuation, space_before_punctuation,
    CLOSERS, OPENERS,
};

/// What the enhancer did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enhanced {
    /// The enhanced text; the input unchanged when the language is unsupported.
    pub text: String,
    /// `"en"` when the text was treated as English, `"unsupported"` otherwise.
    pub language: &'static str,
    /// Human-readable list of the fixes applied, e.g. `"spelling: recieve → receive"`.
    pub changes: Vec<String>,
}

const MAX_ROUNDS: usize = 4;

/// One rule over the text: its changes are described in the list, and the new
/// text is returned, or `None` when the rule changes nothing.
type Pass = fn(&Text, &mut Vec<String>) -> Option<String>;

/// Enhances English review text; other languages are returned unchanged.
pub fn enhance(text: &str) -> Enhanced {
    if !is_english(text) {
        return Enhanced {
            text: text.to_string(),
            language: "unsupported",
            changes: Vec::new(),
        };
    }
    let passes: [Pass; 11] = [
        collapse_spaces,
        repeated_punctuation,
        space_before_punctuation,
        space_after_punctuation,
        contractions,
        spelling,
        repeated_words,
        homophones,
        agreement,
        plural_agreement,
        capitalisation,
    ];
    // A pass that changes nothing returns `None`, and the next pass reads the
    // same `Text`: it is built again only when the text changes.
    let mut current = Text::new(text.to_string());
    let mut changes = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let before = current.s.clone();
        for pass in passes {
            if let Some(next) = pass(&current, &mut changes) {
                if next != current.s {
                    current = Text::new(next);
                }
            }
        }
        if current.s == before {
            break;
        }
    }
    Enhanced {
        text: current.s,
        language: "en",
        changes,
    }
}

/// The runs of digits in `s`, sorted: what "numbers never change" compares.
pub(crate) fn digit_runs(s: &str) -> Vec<String> {
    let mut d: Vec<String> = s
        .split(|c: char| !c.is_ascii_digit())
        .filter(|r| !r.is_empty())
        .map(str::to_owned)
        .collect();
    d.sort();
    d
}

/// Whether `candidate` (a rewrite proposed elsewhere, e.g. by an LLM) keeps the
/// meaning of `original` by the same rules the enhancer follows: the same digit
/// runs, the same number of negations, every capitalised name mid-sentence kept, no
/// more than a few words added or removed, and already a fixed point of
/// [`enhance`] (so enhancing its result again changes nothing).
pub fn preserves_meaning(original: &str, candidate: &str) -> bool {
    let digits = digit_runs;
    let negations = |s: &str| {
        s.split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                    .to_lowercase()
            })
            .filter(|w| {
                matches!(
                    w.as_str(),
                    "not" | "no" | "never" | "nothing" | "nobody" | "none"
                ) || w.ends_with("n't")
                    || is_bare_negation(w)
            })
            .count()
    };
    let names = |s: &str| -> Vec<String> {
        let words: Vec<&str> = s.split_whitespace().collect();
        words
            .windows(2)
            .filter(|w| !w[0].ends_with(['.', '!', '?']))
            .map(|w| w[1].trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| w.chars().next().is_some_and(char::is_uppercase) && *w != "I")
            .map(str::to_owned)
            .collect()
    };
    let (a, b) = (
        original.split_whitespace().count(),
        candidate.split_whitespace().count(),
    );
    !candidate.trim().is_empty()
        && digits(original) == digits(candidate)
        && negations(original) == negations(candidate)
        && names(original)
            .iter()
            .all(|n| candidate.contains(n.as_str()))
        && b <= a + a / 10 + 2
        && a <= b + b / 10 + 2
        && enhance(candidate).text == candidate
}

/// Common misspellings and their corrections (lower case), sorted by the
/// misspelling (the build checks it) and searched as keys (`lexicon.rs`).
#[rustfmt::skip]
const MISSPELLINGS: &[(&str, &str)] = &[
    ("absense", "absence"), ("acceptible", "acceptable"), ("accidently", "accidentally"),
    ("accomodate", "accommodate"), ("accomodation", "accommodation"), ("acheive", "achieve"),
    ("acheived", "achieved"), ("acknowlege", "acknowledge"), ("actualy", "actually"),
    ("acually", "actually"), ("adn", "and"), ("adress", "address"), ("agian", "again"),
    ("agressive", "aggressive"), ("allready", "already"), ("alot", "a lot"), ("anwser", "answer"),
    ("apparantly", "apparently"), ("appearence", "appearance"), ("arguement", "argument"),
    ("arround", "around"), ("assistence", "assistance"), ("aswell", "as well"),
    ("atleast", "at least"), ("availible", "available"), ("avaliable", "available"),
    ("awsome", "awesome"), ("basicly", "basically"), ("beacuse", "because"),
    ("beatiful", "beautiful"), ("beautifull", "beautiful"), ("becasue", "because"),
    ("becuase", "because"), ("begining", "beginning"), ("beleive", "believe"),
    ("beleived", "believed"), ("belive", "believe"), ("bizzare", "bizarre"),
    ("buisness", "business"), ("calender", "calendar"), ("catagory", "category"),
    ("cemetary", "cemetery"), ("changable", "changeable"), ("cheif", "chief"),
    ("choosen", "chosen"), ("collegue", "colleague"), ("collegues", "colleagues"),
    ("comfortible", "comfortable"), ("comitted", "committed"), ("comming", "coming"),
    ("commited", "committed"), ("completly", "completely"), ("concious", "conscious"),
    ("confortable", "comfortable"), ("convienient", "convenient"), ("convinient", "convenient"),
    ("curiousity", "curiosity"), ("decieve", "deceive"), ("definately", "definitely"),
    ("definatly", "definitely"), ("definetly", "definitely"), ("definitly", "definitely"),
    ("defintely", "definitely"), ("delivary", "delivery"), ("deliverd", "delivered"),
    ("diffrence", "difference"), ("diffrent", "different"), ("dilema", "dilemma"),
    ("disapointed", "disappointed"), ("dissapoint", "disappoint"), ("dissapointed", "disappointed"),
    ("dissapointing", "disappointing"), ("dissappointed", "disappointed"),
    ("embarass", "embarrass"), ("embarassed", "embarrassed"), ("enviroment", "environment"),
    ("equiped", "equipped"), ("especialy", "especially"), ("everytime", "every time"),
    ("exagerate", "exaggerate"), ("excelent", "excellent"), ("excellant", "excellent"),
    ("excercise", "exercise"), ("existance", "existence"), ("experiance", "experience"),
    ("experince", "experience"), ("expirience", "experience"), ("familar", "familiar"),
    ("finaly", "finally"), ("fourty", "forty"), ("foward", "forward"), ("freind", "friend"),
    ("freindly", "friendly"), ("freinds", "friends"), ("garantee", "guarantee"),
    ("gaurantee", "guarantee"), ("goverment", "government"), ("grammer", "grammar"),
    ("greatful", "grateful"), ("happend", "happened"), ("harrass", "harass"),
    ("helpfull", "helpful"), ("hieght", "height"), ("hopefuly", "hopefully"), ("hte", "the"),
    ("humourous", "humorous"), ("immediatley", "immediately"), ("immediatly", "immediately"),
    ("independant", "independent"), ("infomation", "information"), ("interresting", "interesting"),
    ("intresting", "interesting"), ("knowlege", "knowledge"), ("lenght", "length"),
    ("liason", "liaison"), ("libary", "library"), ("lisence", "license"),
    ("litterally", "literally"), ("maintainance", "maintenance"), ("maintenence", "maintenance"),
    ("millenium", "millennium"), ("mischievious", "mischievous"), ("mispell", "misspell"),
    ("neccessary", "necessary"), ("necesary", "necessary"), ("nessesary", "necessary"),
    ("ninty", "ninety"), ("noticable", "noticeable"), ("occasionaly", "occasionally"),
    ("occassion", "occasion"), ("occurance", "occurrence"), ("occured", "occurred"),
    ("occurence", "occurrence"), ("occurrance", "occurrence"), ("ocurred", "occurred"),
    ("ofcourse", "of course"), ("offical", "official"), ("oppinion", "opinion"),
    ("oppurtunity", "opportunity"), ("packege", "package"), ("pakage", "package"),
    ("peice", "piece"), ("perfomance", "performance"), ("persistant", "persistent"),
    ("pleasent", "pleasant"), ("posession", "possession"), ("posible", "possible"),
    ("possable", "possible"), ("potatos", "potatoes"), ("prefered", "preferred"),
    ("privelege", "privilege"), ("priviledge", "privilege"), ("probaly", "probably"),
    ("profesional", "professional"), ("proffesional", "professional"),
    ("pronounciation", "pronunciation"), ("publically", "publicly"), ("quaility", "quality"),
    ("realy", "really"), ("reccomend", "recommend"), ("reccomended", "recommended"),
    ("reccommend", "recommend"), ("reciept", "receipt"), ("recieve", "receive"),
    ("recieved", "received"), ("recieves", "receives"), ("recieving", "receiving"),
    ("recived", "received"), ("recomend", "recommend"), ("recomended", "recommended"),
    ("recommed", "recommend"), ("refered", "referred"), ("relevent", "relevant"),
    ("religous", "religious"), ("remeber", "remember"), ("reponse", "response"),
    ("resistence", "resistance"), ("responce", "response"), ("responsable", "responsible"),
    ("restaraunt", "restaurant"), ("resturant", "restaurant"), ("rythm", "rhythm"),
    ("scedule", "schedule"), ("secratary", "secretary"), ("seperate", "separate"),
    ("seperated", "separated"), ("seperately", "separately"), ("servise", "service"),
    ("sieze", "seize"), ("similiar", "similar"), ("sincerly", "sincerely"),
    ("somthing", "something"), ("speach", "speech"), ("stoped", "stopped"),
    ("strenght", "strength"), ("succesful", "successful"), ("successfull", "successful"),
    ("sucess", "success"), ("sucessful", "successful"), ("supercede", "supersede"),
    ("suprise", "surprise"), ("suprised", "surprised"), ("tatoo", "tattoo"), ("teh", "the"),
    ("tendancy", "tendency"), ("theif", "thief"), ("thier", "their"), ("threshhold", "threshold"),
    ("togehter", "together"), ("tommorow", "tomorrow"), ("tomorow", "tomorrow"),
    ("tounge", "tongue"), ("truely", "truly"), ("truley", "truly"), ("twelth", "twelfth"),
    ("tyrany", "tyranny"), ("unbeleivable", "unbelievable"), ("underate", "underrate"),
    ("unecessary", "unnecessary"), ("unfortunatly", "unfortunately"),
    ("unneccessary", "unnecessary"), ("untill", "until"), ("usefull", "useful"),
    ("useing", "using"), ("vaccum", "vacuum"), ("waranty", "warranty"), ("warrenty", "warranty"),
    ("wellcome", "welcome"), ("whereever", "wherever"), ("whith", "with"), ("wich", "which"),
    ("wierd", "weird"), ("withdrawl", "withdrawal"), ("wonderfull", "wonderful"),
    ("writting", "writing"), ("yeild", "yield"),
];

fn misspelling(lower: &str) -> Option<&'static str> {
    const KEYS: [u128; MISSPELLINGS.len()] = lexicon::first_keys(MISSPELLINGS);
    lexicon::find(&KEYS, lower).map(|i| MISSPELLINGS[i].1)
}

/// Doubled words that are legitimate or deliberate emphasis.
#[rustfmt::skip]
const KEEP_DOUBLE: &[&str] = &[
    "had", "that", "very", "really", "so", "ha", "haha", "bye", "far", "many", "much", "more",
    "blah", "bla", "knock", "yes", "well", "no", "not", "never", "la", "ho", "he", "hip", "tut",
];

/// Agreement fixes: lower-case word sequences and their replacements.
const AGREEMENT: &[(&[&str], &[&str])] = &[
    (&["we", "was"], &["we", "were"]),
    (&["they", "was"], &["they", "were"]),
    (&["you", "was"], &["you", "were"]),
    (&["he", "don't"], &["he", "doesn't"]),
    (&["she", "don't"], &["she", "doesn't"]),
    (&["it", "don't"], &["it", "doesn't"]),
    (&["i", "is"], &["i", "am"]),
    (&["they", "is"], &["they", "are"]),
    (&["we", "is"], &["we", "are"]),
    (&["there", "is", "many"], &["there", "are", "many"]),
    (&["could", "of"], &["could", "have"]),
    (&["should", "of"], &["should", "have"]),
    (&["would", "of"], &["would", "have"]),
    (&["might", "of"], &["might", "have"]),
    (&["must", "of"], &["must", "have"]),
];

/// Abbreviations whose final period does not end a sentence (lower case, no final period).
#[rustfmt::skip]
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "inc", "ltd", "co", "corp",
    "approx", "dept", "est", "fig", "no", "vol", "cf", "viz", "al", "ca", "min", "mins", "hr",
    "hrs", "sec", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec", "mon", "tue", "wed", "thu", "fri", "sat", "sun", "ave", "rd", "blvd", "mt", "ft", "oz",
    "lb", "lbs", "incl", "excl",
];

fn spelling(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let mut edits = Vec::new();
    for w in t.words() {
        if !w.text.is_ascii() || w.text.contains(is_apostrophe) {
            continue;
        }
        let Some(right) = misspelling(&w.lower)
            .map(str::to_owned)
            .or_else(|| dictionary_fix(t, w))
        else {
            continue;
        };
        // A correction never adds or drops a negation: "nota" is a word of
        // its own, not a typo of "not".
        if is_negation(&right) != is_negation(&w.lower) {
            continue;
        }
        if let Some(fixed) = match_case(&w.text, &right) {
            changes.push(format!("spelling: {} → {fixed}", w.text));
            edits.push((w.start..w.end, fixed));
        }
    }
    edited(&t.c, &edits)
}

pub(crate) fn is_negation(lower: &str) -> bool {
    matches!(lower, "not" | "never" | "no") || lower.ends_with("n't") || is_bare_negation(lower)
}

/// The word list's correction of a lower-case word standing alone between
/// blanks or sentence punctuation (not part of a path, number or name).
fn dictionary_fix(t: &Text, w: &Word) -> Option<String> {
    let plain = |c: Option<char>| {
        c.is_none_or(|c| c.is_whitespace() || ",;:!?\"()".contains(c))
            || c == Some('.') && t.at(w.end + 1).is_none_or(char::is_whitespace)
    };
    let before_ok = t
        .before(w.start)
        .is_none_or(|c| c.is_whitespace() || "\"(".contains(c));
    if w.text != w.lower || !before_ok || !plain(t.at(w.end)) {
        return None;
    }
    words::correction(&w.lower)
}

fn repeated_words(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let words = t.words();
    let mut edits = Vec::new();
    // `anchor` is the last kept word; removed repeats of it may follow.
    let mut anchor = 0;
    let mut prev_removed = false;
    for j in 1..words.len() {
        let (a, prev, w) = (&words[anchor], &words[j - 1], &words[j]);
        let doubled = (anchor == j - 1 || prev_removed)
            && t.single_space(prev, w)
            && a.lower == w.lower
            && !w.text.starts_with(char::is_uppercase)
            && !KEEP_DOUBLE.contains(&a.lower.as_str())
            && !is_negation(&a.lower);
        if doubled {
            changes.push(format!("repeated word: {} {} → {}", a.text, w.text, a.text));
            edits.push((prev.end..w.end, String::new()));
        } else {
            anchor = j;
        }
        prev_removed = doubled;
    }
    edited(&t.c, &edits)
}

fn agreement(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let words = t.words();
    let mut edits = Vec::new();
    let mut i = 0;
    'outer: while i < words.len() {
        for (from, to) in AGREEMENT {
            let Some(run) = words.get(i..i + from.len()) else {
                continue;
            };
            let matches = run.iter().zip(from.iter()).all(|(w, f)| w.lower == *f)
                && run.windows(2).all(|p| t.single_space(&p[0], &p[1]));
            if !matches {
                continue;
            }
            let next = words.get(i + from.len());
            if from[1] == "of"
                && next.is_some_and(|n| n.lower == "course" && t.single_space(&run[1], n))
            {
                continue;
            }
            let prev = i.checked_sub(1).map(|p| &words[p]);
            if from[0] == "i" && prev.is_some_and(|p| p.text.starts_with(char::is_uppercase)) {
                continue;
            }
            let mut replaced = Vec::new();
            for (w, r) in run.iter().zip(to.iter()) {
                let fixed = if w.lower == *r {
                    w.text.clone()
                } else {
                    let r = if w.text.contains('’') {
                        r.replace('\'', "’")
                    } else {
                        r.to_string()
                    };
                    match_case(&w.text, &r).unwrap_or(r)
                };
                replaced.push(fixed);
            }
            let before: Vec<&str> = run.iter().map(|w| w.text.as_str()).collect();
            let after = replaced.join(" ");
            changes.push(format!("grammar: {} → {after}", before.join(" ")));
            edits.push((run[0].start..run[run.len() - 1].end, after));
            i += from.len();
            continue 'outer;
        }
        i += 1;
    }
    edited(&t.c, &edits)
}

fn capitalisation(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let mut c = t.c.clone();
    // Standalone "i".
    for w in t.words() {
        let prev_ok = t
            .before(w.start)
            .is_none_or(|p| p.is_whitespace() || OPENERS.contains(p));
        let next = t.at(w.end);
        let next_ok = match next {
            None => true,
            Some('.') => !t.at(w.end + 1).is_some_and(char::is_alphanumeric),
            Some(n) => n.is_whitespace() || ",;:!?".contains(n) || CLOSERS.contains(n),
        };
        let label = t.before(w.start) == Some('(') && next == Some(')');
        if matches!(w.lower.as_str(), "i" | "i'm" | "i've" | "i'll" | "i'd")
            && c[w.start] == 'i'
            && prev_ok
            && next_ok
            && !label
        {
            c[w.start] = 'I';
            changes.push(format!("capitalisation: {} → I{}", w.text, &w.text[1..]));
        }
    }
    // Sentence starts.
    let mut starts: Vec<usize> = Vec::new();
    let byte_offsets: Vec<usize> = t.s.char_indices().map(|(b, _)| b).collect();
    for span in sentence_spans(&t.s) {
        if let Ok(idx) = byte_offsets.binary_search(&span.start) {
            starts.push(idx);
        }
    }
    starts.extend(informal_sentence_starts(t));
    starts.sort_unstable();
    starts.dedup();
    for start in starts {
        let mut p = start;
        while t.at(p).is_some_and(|ch| OPENERS.contains(ch)) {
            p += 1;
        }
        let run = t.c[p.min(t.c.len())..]
            .iter()
            .take_while(|ch| ch.is_alphanumeric())
            .count();
        let word: String = t.c[p.min(t.c.len())..p + run].iter().collect();
        // "e.g." and list labels such as "(i)" or "b)" stay as they are.
        let dotted =
            t.at(p + run) == Some('.') && t.at(p + run + 1).is_some_and(char::is_alphabetic);
        let label = t.at(p + run) == Some(')');
        if run > 0
            && !label
            && word.chars().all(|ch| ch.is_ascii_lowercase())
            && c[p] == t.c[p]
            && !dotted
            && !t.is_protected(p..p + run)
        {
            c[p] = c[p].to_ascii_uppercase();
            changes.push(format!("capitalisation: {word} → {}", capitalise(&word)));
        }
    }
    (c != t.c).then(|| c.into_iter().collect())
}

/// Starts of words following a token that ends in `.` `!` `?` (before any
/// closing quotes) and is not an ellipsis, abbreviation or initial.
fn informal_sentence_starts(t: &Text) -> Vec<usize> {
    let tokens = runs(&t.c, |ch| !ch.is_whitespace());
    let mut out = Vec::new();
    for pair in tokens.windows(2) {
        let token = &t.c[pair[0].clone()];
        let core_len = token.len()
            - token
                .iter()
                .rev()
                .take_while(|c| CLOSERS.contains(**c))
                .count();
        let core = &token[..core_len];
        let ends = match core.last() {
            Some('!' | '?') => true,
            Some('.') => {
                let stem: String = core[..core_len - 1]
                    .iter()
                    .skip_while(|c| OPENERS.contains(**c))
                    .collect::<String>()
                    .to_lowercase();
                let dotted = stem.contains('.')
                    && stem.split('.').all(|p| {
                        (1..=2).contains(&p.chars().count()) && p.chars().all(char::is_alphabetic)
                    });
                stem.chars().count() > 1
                    && !stem.ends_with('.')
                    && !stem.ends_with('…')
                    && !ABBREVIATIONS.contains(&stem.as_str())
                    && !dotted
            }
            _ => false,
        };
        if ends {
            out.push(pair[1].start);
        }
    }
    out
}

#[cfg(test)]
mod tests;
