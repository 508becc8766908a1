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

/// English function words (and a few very common review words) that are not
/// also common French, Spanish or German words. This list and the three below
/// are sorted (the build checks it) and searched as keys (`lexicon.rs`).
#[rustfmt::skip]
const EN_WORDS: &[&str] = &[
    "about", "after", "all", "also", "and", "any", "are", "as", "at", "awesome", "be", "because",
    "been", "but", "by", "can", "could", "did", "didn't", "do", "don't", "for", "from", "get",
    "good", "got", "great", "had", "has", "have", "he", "her", "highly", "his", "how", "i", "i'm",
    "i've", "if", "is", "it", "it's", "its", "just", "love", "loved", "more", "much", "my", "not",
    "of", "only", "or", "our", "out", "really", "recommend", "she", "so", "some", "than", "thank",
    "thanks", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
    "to", "too", "up", "very", "was", "we", "well", "were", "what", "when", "which", "who", "will",
    "with", "would", "you", "your",
];
#[rustfmt::skip]
const FR_WORDS: &[&str] = &[
    "au", "aux", "avec", "bien", "c'est", "ce", "cette", "dans", "des", "du", "elle", "est", "et",
    "il", "ils", "j'ai", "je", "le", "les", "ma", "mais", "mes", "mon", "ne", "nous", "on", "ont",
    "pas", "pour", "qui", "sont", "sur", "tout", "très", "une", "vous", "ça", "été",
];
#[rustfmt::skip]
const ES_WORDS: &[&str] = &[
    "al", "como", "con", "del", "el", "es", "esta", "este", "está", "fue", "ha", "han", "las", "lo",
    "los", "mi", "muy", "más", "nos", "para", "pero", "por", "que", "sin", "su", "también", "todo",
    "una", "y", "yo",
];
#[rustfmt::skip]
const DE_WORDS: &[&str] = &[
    "aber", "alles", "auch", "auf", "bei", "das", "dem", "den", "der", "die", "ein", "eine", "es",
    "für", "haben", "hat", "ich", "ist", "kann", "mein", "mir", "mit", "nicht", "noch", "nur",
    "sehr", "sich", "sind", "und", "vom", "war", "wie", "wir", "zu", "zum",
];

const EN_KEYS: [u128; EN_WORDS.len()] = lexicon::keys(EN_WORDS);
const FR_KEYS: [u128; FR_WORDS.len()] = lexicon::keys(FR_WORDS);
const ES_KEYS: [u128; ES_WORDS.len()] = lexicon::keys(ES_WORDS);
const DE_KEYS: [u128; DE_WORDS.len()] = lexicon::keys(DE_WORDS);

/// Whether the text looks English (stop-word ratio heuristic); document the method.
///
/// Method: if the text has no letters, or more letters outside the Latin
/// script than inside it, it is not English. Otherwise it is split into words
/// (runs of letters and apostrophes, lower-cased, `’` read as `'`) and the
/// words are counted against four small lists of function words: English
/// (plus the keys of the misspelling table and a few very common English
/// review words such as "great" and "recommend"), French, Spanish and German.
/// The text is English when at least 15% of its words are English markers
/// and English markers outnumber each of the other languages' markers. Very
/// short texts without any marker ("Gracias", "ok") are therefore not
/// English, which errs on the side of leaving text alone.
pub fn is_english(text: &str) -> bool {
    let (mut latin, mut other) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        if c.is_ascii_alphabetic()
            || ('\u{C0}'..='\u{24F}').contains(&c)
            || ('\u{1E00}'..='\u{1EFF}').contains(&c)
        {
            latin += 1;
        } else {
            other += 1;
        }
    }
    if latin == 0 || other > latin {
        return false;
    }
    let (mut words, mut en, mut fr, mut es, mut de) = (0, 0, 0, 0, 0);
    let mut lower = String::new();
    for word in text.split(|c: char| !(c.is_alphabetic() || c == '\'' || c == '’')) {
        let word = word.trim_matches(['\'', '’']);
        if word.is_empty() {
            continue;
        }
        lower.clear();
        lower.extend(word.chars().flat_map(char::to_lowercase).map(|c| {
            if c == '’' {
                '\''
            } else {
                c
            }
        }));
        words += 1;
        let listed = |keys: &[u128]| lexicon::find(keys, &lower).is_some();
        en += usize::from(listed(&EN_KEYS) || misspelling(&lower).is_some());
        fr += usize::from(listed(&FR_KEYS));
        es += usize::from(listed(&ES_KEYS));
        de += usize::from(listed(&DE_KEYS));
    }
    en > 0 && en * 100 >= words * 15 && en > fr && en > es && en > de
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

const OPENERS: &str = "\"'“‘([«";
const CLOSERS: &str = "\"'”’)]»";

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn collapse_spaces(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let c = &t.c;
    let mut edits = Vec::new();
    for run in runs(c, is_blank) {
        let inner = run.start > 0
            && !c[run.start - 1].is_whitespace()
            && c.get(run.end).is_some_and(|n| !n.is_whitespace());
        if inner && run.len() >= 2 {
            edits.push((run, " ".to_string()));
        }
    }
    if !edits.is_empty() {
        changes.push(format!(
            "spacing: collapsed {} run(s) of spaces",
            edits.len()
        ));
    }
    edited(c, &edits)
}

fn repeated_punctuation(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let mut edits = Vec::new();
    let mut i = 0;
    while i < t.c.len() {
        let ch = t.c[i];
        let same_class = |x: char| match ch {
            '!' | '?' => x == '!' || x == '?',
            ',' | ';' => x == ch,
            _ => false,
        };
        let start = i;
        i += 1;
        if !same_class(ch) {
            continue;
        }
        while i < t.c.len() && same_class(t.c[i]) {
            i += 1;
        }
        if t.is_protected(start..i) {
            continue;
        }
        let mut fixed: Vec<char> = t.c[start..i].to_vec();
        fixed.dedup();
        if fixed.len() < i - start {
            let before: String = t.c[start..i].iter().collect();
            let after: String = fixed.into_iter().collect();
            changes.push(format!("punctuation: {before} → {after}"));
            edits.push((start..i, after));
        }
    }
    edited(&t.c, &edits)
}

fn space_before_punctuation(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let mut edits = Vec::new();
    for run in runs(&t.c, is_blank) {
        let i = run.end;
        let Some(p) = t.at(i) else { break };
        let after_word = t
            .before(run.start)
            .is_some_and(|b| b.is_alphanumeric() || CLOSERS.contains(b));
        if after_word && ",.!?;:".contains(p) && !t.is_protected(i..i + 1) && may_attach(t, i) {
            changes.push(format!("punctuation: removed space before '{p}'"));
            edits.push((run, String::new()));
        }
    }
    edited(&t.c, &edits)
}

/// Whether the punctuation at `i` may be attached to the word before it.
fn may_attach(t: &Text, i: usize) -> bool {
    let p = t.c[i];
    let mut k = i + 1;
    if p == '!' || p == '?' {
        while t.at(k).is_some_and(|c| c == '!' || c == '?') {
            k += 1;
        }
    }
    let next = t.at(k);
    let ends = next.is_none_or(|c| c.is_whitespace() || CLOSERS.contains(c));
    // " .The" ends a sentence when a lower-case word precedes the blanks.
    let mut b = i;
    while b > 0 && is_blank(t.c[b - 1]) {
        b -= 1;
    }
    let word_before = t.before(b).is_some_and(char::is_lowercase);
    let after: String = t.c[k.min(t.c.len())..]
        .iter()
        .take_while(|c| c.is_alphabetic())
        .flat_map(|c| c.to_lowercase())
        .collect();
    let sentence_after = next.is_some_and(char::is_uppercase)
        && t.at(k + 1)
            .is_none_or(|c| c.is_lowercase() || (next == Some('I') && !c.is_alphanumeric()))
        // `.Net`, `.Com` are names.
        && !matches!(after.as_str(), "net" | "com" | "org");
    match p {
        '.' => ends || (word_before && sentence_after),
        // Not before a closing bracket, so emoticons such as ":)" stay.
        ':' | ';' => {
            next.is_none_or(char::is_whitespace)
                || next.is_some_and(char::is_alphabetic)
                    && t.at(k + 1).is_some_and(char::is_alphabetic)
        }
        _ => ends || next.is_some_and(char::is_alphabetic),
    }
}

fn space_after_punctuation(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let mut edits = Vec::new();
    for i in 0..t.c.len() {
        if needs_space_after(t, i) {
            changes.push(format!("punctuation: added space after '{}'", t.c[i]));
            edits.push((i + 1..i + 1, " ".to_string()));
        }
    }
    edited(&t.c, &edits)
}

fn needs_space_after(t: &Text, i: usize) -> bool {
    let (Some(p), Some(prev), Some(next)) = (t.at(i), t.before(i), t.at(i + 1)) else {
        return false;
    };
    if !next.is_alphabetic() || t.is_protected(i..i + 1) {
        return false;
    }
    let word_before = prev.is_alphanumeric() || CLOSERS.contains(prev);
    match p {
        ',' | '!' | '?' => word_before || prev == '!' || prev == '?',
        ';' => word_before && t.at(i + 2).is_some_and(char::is_alphabetic),
        ':' => prev.is_alphabetic() && t.at(i + 2).is_some_and(char::is_alphabetic),
        '.' => {
            let run_before = t.c[..i]
                .iter()
                .rev()
                .take_while(|c| c.is_alphabetic())
                .count();
            let before_run = i.checked_sub(run_before + 1).and_then(|j| t.at(j));
            let run_after = t.c[i + 1..]
                .iter()
                .take_while(|c| c.is_alphabetic())
                .count();
            let after_run = t.at(i + 1 + run_after);
            let domain_like = after_run == Some('.')
                && t.at(i + 2 + run_after).is_some_and(char::is_alphanumeric);
            prev.is_lowercase()
                && run_before >= 2
                && before_run != Some('.')
                && next.is_uppercase()
                && (run_after >= 2 || next == 'I')
                && !domain_like
        }
        _ => false,
    }
}

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
mod tests {
    use super::*;

    /// Informal English reviews and the expected enhanced text.
    const FIXED: &[(&str, &str)] = &[
        (
            "i recieved it teh next day!!! the packaging was great , and i'm definately ordering again",
            "I received it the next day! The packaging was great, and I'm definitely ordering again",
        ),
        ("we was very happy , the staff was great", "We were very happy, the staff was great"),
        (
            "The the room was clean but the wifi was  slow.I would of stayed longer if it was cheaper.",
            "The room was clean but the wifi was slow. I would have stayed longer if it was cheaper.",
        ),
        (
            "he don't answer emails and they was late twice. there is many better options tbh",
            "He doesn't answer emails and they were late twice. There are many better options tbh",
        ),
        (
            "RECIEVED IT TEH NEXT DAY, ALOT FASTER THAN EXPECTED. Recieve your order and you will love it",
            "RECEIVED IT THE NEXT DAY, A LOT FASTER THAN EXPECTED. Receive your order and you will love it",
        ),
        (
            "great hotel.\n\nthe breakfast was  amazing\nand the pool too",
            "Great hotel.\n\nThe breakfast was amazing\nand the pool too",
        ),
        (
            "wow!!! really?? yes,, it works?! ... i guess i is just lucky",
            "Wow! Really? Yes, it works?! ... I guess I am just lucky",
        ),
        (
            "this is is a really really good app,my team uses it daily:love it.Highly recommend",
            "This is a really really good app, my team uses it daily: love it. Highly recommend",
        ),
        (
            "check https://example.com/deals?x=1,,y=2 or mail help@shop.example.com , the battery lasts 3.5 hours and charging at 10:30 took 1,5h",
            "Check https://example.com/deals?x=1,,y=2 or mail help@shop.example.com, the battery lasts 3.5 hours and charging at 10:30 took 1,5h",
        ),
        (
            "the staff was great. (i) fast (ii) cheap",
            "The staff was great. (i) fast (ii) cheap",
        ),
        (
            "we ordered from Bob's Bakery and Maria was sooo helpful , the the cake was excellant. she don't miss",
            "We ordered from Bob's Bakery and Maria was sooo helpful, the cake was excellent. She doesn't miss",
        ),
    ];

    /// English text that needs no fixes.
    const CLEAN: &[&str] = &[
        "We stayed three nights at the Grand Hotel in Lisbon. The staff were friendly, e.g. they upgraded our room for free, and breakfast started at 7:30 a.m. every day. Highly recommended!",
        "I had had enough of that that old phone, so so glad I switched. It's not perfect... but it's never let me down.",
        "Bought it in the U.S. for $49.99 and it works great :) Our iPhone 15 syncs fine; no complaints so far.",
        "Pros:\n- fast\n- cheap\n\nCons:\n  - the app is slow at 3 p.m. when everyone is online",
        "We could of course have asked for a refund. Ph.D students at MIT.Edu love it? Yes!",
    ];

    /// Non-English reviews, which must come back untouched.
    const FOREIGN: &[&str] = &[
        "le produit est arrivé vite , je recommande !!! c'est génial et très pratique",
        "el envío fue muy rápido , lo recomiendo a todos !!! la calidad es excelente",
        "das produkt ist sehr gut , ich bin zufrieden und kann es nur empfehlen !!!",
        "とても良い商品でした。配送も早くて、また買いたいです！！",
        "Gracias",
        "ok",
        "",
    ];

    fn all_inputs() -> Vec<&'static str> {
        FIXED
            .iter()
            .map(|(i, _)| *i)
            .chain(CLEAN.iter().copied())
            .chain(FOREIGN.iter().copied())
            .collect()
    }

    #[test]
    fn informal_reviews_are_fixed() {
        for (input, expected) in FIXED {
            let e = enhance(input);
            assert_eq!(e.language, "en", "{input:?}");
            assert_eq!(e.text, *expected, "{input:?}\n{:#?}", e.changes);
            assert!(!e.changes.is_empty());
        }
    }

    #[test]
    fn clean_english_is_unchanged() {
        for input in CLEAN {
            let e = enhance(input);
            assert_eq!(e.language, "en", "{input:?}");
            assert_eq!(e.text, *input, "{:#?}", e.changes);
            assert!(e.changes.is_empty(), "{:#?}", e.changes);
        }
    }

    #[test]
    fn non_english_is_returned_byte_identical() {
        for input in FOREIGN {
            let e = enhance(input);
            assert_eq!(e.text, *input);
            assert_eq!(e.language, "unsupported", "{input:?}");
            assert!(e.changes.is_empty());
            assert!(!is_english(input));
        }
    }

    #[test]
    fn changes_are_described() {
        let e = enhance("i recieved it teh next day!!! we was happy");
        for expected in [
            "spelling: recieved → received",
            "spelling: teh → the",
            "punctuation: !!! → !",
            "grammar: we was → we were",
            "capitalisation: i → I",
            "capitalisation: we → We",
        ] {
            assert!(
                e.changes.iter().any(|c| c == expected),
                "{expected:?} not in {:#?}",
                e.changes
            );
        }
    }

    #[test]
    fn spelling_keeps_the_case_pattern() {
        assert_eq!(match_case("recieve", "receive").as_deref(), Some("receive"));
        assert_eq!(match_case("Recieve", "receive").as_deref(), Some("Receive"));
        assert_eq!(match_case("RECIEVE", "receive").as_deref(), Some("RECEIVE"));
        assert_eq!(match_case("Alot", "a lot").as_deref(), Some("A lot"));
        assert_eq!(match_case("ReCieve", "receive"), None);
        assert_eq!(
            enhance("You will Recieve it, I promise").text,
            "You will Receive it, I promise"
        );
    }

    #[test]
    fn required_misspellings_are_listed() {
        #[rustfmt::skip]
        const REQUIRED: &[(&str, &str)] = &[
            ("recieve", "receive"), ("definately", "definitely"), ("seperate", "separate"),
            ("occured", "occurred"), ("accomodate", "accommodate"), ("wierd", "weird"),
            ("untill", "until"), ("alot", "a lot"), ("teh", "the"), ("becuase", "because"),
            ("begining", "beginning"), ("beleive", "believe"), ("calender", "calendar"),
            ("collegue", "colleague"), ("comming", "coming"), ("excellant", "excellent"),
            ("experiance", "experience"), ("goverment", "government"), ("happend", "happened"),
            ("immediatly", "immediately"), ("knowlege", "knowledge"), ("neccessary", "necessary"),
            ("occassion", "occasion"), ("profesional", "professional"), ("recomend", "recommend"),
            ("reccomend", "recommend"), ("responsable", "responsible"), ("sucess", "success"),
            ("tommorow", "tomorrow"), ("truely", "truly"), ("wich", "which"), ("thier", "their"),
        ];
        for &(wrong, right) in REQUIRED {
            assert_eq!(misspelling(wrong), Some(right), "{wrong}");
        }
    }

    #[test]
    fn misspelling_table_is_sound() {
        assert!(MISSPELLINGS.len() >= 150, "{}", MISSPELLINGS.len());
        for (wrong, right) in MISSPELLINGS {
            assert!(wrong.bytes().all(|b| b.is_ascii_lowercase()), "{wrong}");
            assert_ne!(wrong, right);
            assert!(
                right.split(' ').all(|r| misspelling(r).is_none()),
                "{right} is itself listed"
            );
        }
    }

    fn digit_runs(s: &str) -> Vec<String> {
        let mut runs: Vec<String> = s
            .split(|c: char| !c.is_ascii_digit())
            .filter(|r| !r.is_empty())
            .map(str::to_string)
            .collect();
        runs.sort();
        runs
    }

    fn negations(s: &str) -> usize {
        s.split(|c: char| !(c.is_alphabetic() || is_apostrophe(c)))
            .map(|w| w.to_lowercase().replace('’', "'"))
            .filter(|w| is_negation(w))
            .count()
    }

    /// Capitalised words that follow another word on the same sentence.
    fn mid_sentence_names(s: &str) -> Vec<String> {
        let words: Vec<&str> = s.split_whitespace().collect();
        words
            .windows(2)
            .filter(|p| !p[0].ends_with(['.', '!', '?']))
            .map(|p| {
                let w = p[1].trim_start_matches(|c: char| !c.is_alphanumeric());
                w.chars()
                    .take_while(|c| c.is_alphanumeric())
                    .collect::<String>()
            })
            .filter(|w| {
                w.starts_with(char::is_uppercase)
                    && w != "I"
                    && misspelling(&w.to_lowercase()).is_none()
            })
            .collect()
    }

    #[test]
    fn numbers_negations_and_names_are_preserved() {
        for input in all_inputs() {
            let out = enhance(input).text;
            assert_eq!(digit_runs(&out), digit_runs(input), "{input:?}");
            assert_eq!(negations(&out), negations(input), "{input:?}");
            for name in mid_sentence_names(input) {
                let count = |s: &str| {
                    s.split(|c: char| !c.is_alphanumeric())
                        .filter(|w| *w == name)
                        .count()
                };
                assert_eq!(count(&out), count(input), "{name} in {input:?}");
            }
        }
    }

    #[test]
    fn words_change_only_through_word_level_fixes() {
        let letters = |s: &str| {
            s.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect::<String>()
        };
        for input in all_inputs() {
            let e = enhance(input);
            let word_fix = e.changes.iter().any(|c| {
                c.starts_with("spelling")
                    || c.starts_with("grammar")
                    || c.starts_with("repeated word")
            });
            if !word_fix {
                assert_eq!(letters(&e.text), letters(input), "{input:?}");
            }
        }
    }

    #[test]
    fn enhance_is_idempotent() {
        for input in all_inputs()
            .into_iter()
            .map(str::to_string)
            .chain(noisy_inputs())
        {
            let once = enhance(&input);
            let twice = enhance(&once.text);
            assert_eq!(twice.text, once.text, "{input:?}");
        }
    }

    #[test]
    fn detects_english() {
        assert!(is_english("i recieved it teh next day!!!"));
        assert!(is_english(
            "Great product, fast shipping, highly recommend!"
        ));
        assert!(is_english("The staff was friendly and the room was clean."));
        assert!(!is_english("Das ist was ich wollte, sehr gut."));
        assert!(!is_english("Привет, это очень хороший магазин"));
        assert!(!is_english("12345 !!! 😀"));
    }

    /// Deterministic pseudo-random English-looking strings over awkward characters.
    fn noisy_inputs() -> Vec<String> {
        #[rustfmt::skip]
        const PALETTE: &[&str] = &[
            "the", "i", "we", "was", "teh", "alot", " ", "  ", "\n", ".", "!!", "?", ",", " ,", ":",
            ";", "3.5", "10:30", "é", "日本", "😀", "👍🏽", "\u{301}", "(", ")", "\"", "i.e.", "U.S.",
            "don't", "could", "of", "is", "many", "there", "Bob", "...", "’", "https://x.y/a,,b",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..300)
            .map(|_| {
                let mut s = String::new();
                for _ in 0..(state % 40) {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    s.push_str(PALETTE[(state >> 33) as usize % PALETTE.len()]);
                    if state.is_multiple_of(3) {
                        s.push(' ');
                    }
                }
                s
            })
            .collect()
    }

    #[test]
    fn noisy_input_does_not_panic_and_keeps_digits() {
        for input in noisy_inputs() {
            let e = enhance(&input);
            assert_eq!(digit_runs(&e.text), digit_runs(&input), "{input:?}");
            assert_eq!(negations(&e.text), negations(&input), "{input:?}");
        }
    }

    #[test]
    fn rewrites_must_keep_numbers_negations_and_names() {
        let original = "we was not happy with Dave , it took 3 days";
        let fixed = enhance(original).text;
        assert!(preserves_meaning(original, &fixed), "{fixed}");
        assert!(!preserves_meaning(
            original,
            "We were happy with Dave, it took 3 days."
        ));
        assert!(!preserves_meaning(
            original,
            "We were not happy with Dave, it took 4 days."
        ));
        assert!(!preserves_meaning(
            original,
            "We were not happy with him, it took 3 days."
        ));
        assert!(!preserves_meaning(
            original,
            "We were not happy with Dave, it took 3 days and the food was cold and bland too."
        ));
    }
}
