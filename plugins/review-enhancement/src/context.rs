//! Word fixes decided by the neighbouring words: contractions written without
//! their apostrophe, homophones (their/there/they're, your/you're, its/it's,
//! whole/hole, great/grate, lose/loose) and verbs that must agree with a
//! plural noun (`the dashboards is` → `are`).
//!
//! Every rule looks only at words joined by blanks: a comma, a full stop or a
//! line break between two words ends the context. Each rule fires only in
//! contexts where the other spelling cannot be right, so correct text is left
//! alone, and no rule undoes another (enhancing twice equals enhancing once).

use crate::chars::{edited, match_case};
use crate::text::{Text, Word};
use crate::words;

/// Contractions written without an apostrophe, lower case, and their spelling.
#[rustfmt::skip]
const CONTRACTIONS: &[(&str, &str)] = &[
    ("dont", "don't"), ("doesnt", "doesn't"), ("didnt", "didn't"), ("isnt", "isn't"),
    ("wasnt", "wasn't"), ("arent", "aren't"), ("werent", "weren't"), ("wouldnt", "wouldn't"),
    ("couldnt", "couldn't"), ("shouldnt", "shouldn't"), ("havent", "haven't"),
    ("hasnt", "hasn't"), ("hadnt", "hadn't"), ("wont", "won't"), ("cant", "can't"),
    ("mustnt", "mustn't"), ("neednt", "needn't"), ("im", "I'm"), ("ive", "I've"),
    ("youre", "you're"), ("theyre", "they're"), ("youve", "you've"), ("theyve", "they've"),
    ("weve", "we've"), ("youll", "you'll"), ("theyll", "they'll"), ("thats", "that's"),
    ("whats", "what's"), ("theres", "there's"), ("heres", "here's"), ("shes", "she's"),
];

/// Whether `lower` is a negation, with or without its apostrophe (`dont`).
pub(crate) fn is_bare_negation(lower: &str) -> bool {
    CONTRACTIONS
        .iter()
        .any(|(bare, full)| *bare == lower && full.ends_with("n't"))
}

const DETERMINERS: &[&str] = &[
    "the", "a", "an", "his", "her", "their", "its", "my", "our", "your",
];

/// A word and its blank-joined neighbours.
struct Ctx<'a> {
    t: &'a Text,
    words: &'a [Word],
    i: usize,
}

impl Ctx<'_> {
    /// The word `k` places away, lower case, if only blanks lie between.
    fn at(&self, k: isize) -> Option<&Word> {
        let target = self.i.checked_add_signed(k)?;
        let (lo, hi) = (self.i.min(target), self.i.max(target));
        let ws = self.words.get(lo..=hi)?;
        let joined = ws.windows(2).all(|p| {
            p[1].start > p[0].end
                && self.t.c[p[0].end..p[1].start]
                    .iter()
                    .all(|c| *c == ' ' || *c == '\t')
        });
        joined.then(|| &self.words[target])
    }

    fn lower(&self, k: isize) -> Option<&str> {
        self.at(k).map(|w| w.lower.as_str())
    }

    fn is(&self, k: isize, list: &[&str]) -> bool {
        self.lower(k).is_some_and(|w| list.contains(&w))
    }

    /// The word `k` places away is missing: punctuation or the end is there.
    fn none(&self, k: isize) -> bool {
        self.at(k).is_none()
    }
}

/// Rewrites each word for which `decide` gives a replacement (lower case or
/// fixed case such as `I'm`), keeping the word's case pattern.
fn rewrite(
    t: &Text,
    changes: &mut Vec<String>,
    rule: &str,
    decide: impl Fn(&Ctx) -> Option<&'static str>,
) -> Option<String> {
    let words = t.words();
    let mut edits = Vec::new();
    for i in 0..words.len() {
        let w = &words[i];
        let Some(to) = decide(&Ctx { t, words, i }) else {
            continue;
        };
        let to = if w.text.contains('’') {
            to.replace('\'', "’")
        } else {
            to.to_owned()
        };
        let fixed = if to.starts_with('I') {
            Some(to)
        } else {
            match_case(&w.text, &to)
        };
        if let Some(fixed) = fixed.filter(|f| *f != w.text) {
            changes.push(format!("{rule}: {} → {fixed}", w.text));
            edits.push((w.start..w.end, fixed));
        }
    }
    edited(&t.c, &edits)
}

/// `dont` → `don't`, `Im` → `I'm`, `thats` → `that's`.
pub(crate) fn contractions(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    rewrite(t, changes, "contraction", |x| {
        let w = &x.words[x.i];
        let (_, full) = CONTRACTIONS.iter().find(|(bare, _)| *bare == w.lower)?;
        let upper = w.text.len() > 1 && w.text.chars().all(|c| c.is_uppercase());
        let after_name = x
            .at(-1)
            .is_some_and(|p| p.text.starts_with(char::is_uppercase) && p.lower != "i");
        match w.lower.as_str() {
            // "IM", "Jony Ive".
            "im" | "ive" if upper || after_name => None,
            // "the cant of", "as is his wont".
            "cant" | "wont" if x.is(-1, DETERMINERS) => None,
            _ => Some(*full),
        }
    })
}

#[rustfmt::skip]
const THEIR_NOUNS: &[&str] = &[
    "own", "staff", "team", "customers", "customer", "service", "products", "product", "food",
    "prices", "website", "store", "shop", "house", "home", "family", "kids", "children",
    "friends", "parents", "employees", "app", "menu", "office", "manager", "owner", "support",
    "rooms", "car", "dog",
];
#[rustfmt::skip]
const YOUR_NOUNS: &[&str] = &[
    "own", "order", "money", "phone", "car", "account", "kids", "children", "business", "stay",
    "experience", "room", "food", "feedback", "purchase", "team", "review", "website",
];
#[rustfmt::skip]
const ITS_NOUNS: &[&str] = &[
    "own", "price", "battery", "screen", "size", "design", "color", "colour", "weight", "lid",
    "handle", "features", "owner", "owners",
];
/// Words after which "its" can only be "it's" (`its a`, `its not`).
#[rustfmt::skip]
const AFTER_ITS_IS: &[&str] = &[
    "a", "an", "the", "not", "very", "so", "really", "too", "been", "just", "still", "always",
    "never", "getting", "going", "worth", "ok", "okay", "also", "pretty", "quite", "definitely",
    "probably", "my", "our", "your", "their", "like",
];
/// Adjectives that make "its" "it's" when nothing follows them (`its great.`).
#[rustfmt::skip]
const ADJECTIVES: &[&str] = &[
    "great", "good", "amazing", "awesome", "nice", "perfect", "easy", "hard", "fine", "bad",
    "terrible", "cheap", "expensive", "beautiful", "fantastic", "excellent", "wonderful",
    "horrible", "awful", "fast", "slow", "small", "big", "huge", "clean", "quiet", "noisy",
    "comfortable", "fun", "cute", "lovely", "simple", "useful", "useless", "broken",
];
/// Words that may follow a predicate adjective (`it's easy to use`).
const AFTER_PREDICATE: &[&str] = &[
    "and", "but", "to", "for", "if", "when", "because", "so", "though", "as", "enough",
];
/// Words after which "your" can only be "you're" (not gerunds: "your
/// being here" is right).
const AFTER_YOURE: &[&str] = &[
    "going", "gonna", "not", "the", "a", "an", "very", "so", "really", "always", "never",
];
const WHOLE_NOUNS: &[&str] = &[
    "day",
    "week",
    "thing",
    "time",
    "family",
    "team",
    "experience",
    "process",
    "lot",
    "world",
    "year",
    "month",
    "night",
    "place",
    "house",
    "staff",
    "trip",
    "stay",
    "meal",
    "package",
    "point",
    "bunch",
    "new",
];
const GREAT_NOUNS: &[&str] = &[
    "job",
    "service",
    "food",
    "place",
    "experience",
    "time",
    "value",
    "price",
    "product",
    "staff",
    "customer",
    "support",
    "quality",
    "deal",
    "team",
    "location",
    "stay",
    "view",
];
const MODALS: &[&str] = &[
    "to", "will", "would", "could", "can", "might", "may", "not", "never", "gonna", "shall",
    "should", "must",
];
#[rustfmt::skip]
const LOSE_OBJECTS: &[&str] = &[
    "my", "your", "the", "a", "an", "our", "their", "his", "her", "it", "them", "weight",
    "money", "time", "interest", "track", "data", "everything", "all", "any", "some", "hope",
    "customers", "sleep", "patience", "control", "me", "us",
];
const LOOSE_BEFORE: &[&str] = &[
    "is", "are", "was", "were", "too", "bit", "came", "come", "comes", "coming", "become",
    "became", "becomes", "feels", "felt", "feel", "been", "slightly", "very", "quite", "fairly",
];
const PREPOSITIONS: &[&str] = &[
    "of",
    "with",
    "for",
    "on",
    "about",
    "by",
    "to",
    "from",
    "in",
    "at",
    "love",
    "loved",
    "like",
    "liked",
    "enjoyed",
    "recommend",
];

/// The homophone a word in context must be, if it is certainly the wrong one.
fn homophone(x: &Ctx) -> Option<&'static str> {
    let w = x.words[x.i].lower.as_str();
    let next_is = |list: &[&str]| x.is(1, list);
    match w {
        "their" if next_is(&["is", "are", "was", "were"]) => Some("there"),
        "their" if next_is(&["not", "the", "a", "an"]) => Some("they're"),
        "their" if next_is(&["going"]) && x.is(2, &["to"]) => Some("they're"),
        "there" if next_is(&["own"]) => Some("their"),
        "there" if next_is(THEIR_NOUNS) && x.is(-1, PREPOSITIONS) => Some("their"),
        "they're" if next_is(&["own"]) => Some("their"),
        "your" if next_is(&["welcome"]) && (x.none(2) || x.is(2, &["to"])) => Some("you're"),
        "your" if next_is(AFTER_YOURE) => Some("you're"),
        "you're" if next_is(YOUR_NOUNS) => Some("your"),
        "its" if next_is(AFTER_ITS_IS) => Some("it's"),
        "its" if next_is(ADJECTIVES) && (x.none(2) || x.is(2, AFTER_PREDICATE)) => Some("it's"),
        "it's" if next_is(ITS_NOUNS) => Some("its"),
        "hole" if next_is(WHOLE_NOUNS) => Some("whole"),
        "whole"
            if next_is(&["in"])
                && x.is(-1, &["a", "the", "big", "small", "little", "huge", "tiny"])
                && !x.is(-2, &["as"]) =>
        {
            Some("hole")
        }
        "grate" if next_is(GREAT_NOUNS) => Some("great"),
        "grate"
            if x.is(
                -1,
                &[
                    "very", "so", "really", "was", "is", "were", "are", "pretty", "super",
                ],
            ) && (x.none(1) || next_is(&["and", "but"])) =>
        {
            Some("great")
        }
        "great"
            if x.is(-1, &["to"])
                && next_is(&[
                    "the", "some", "cheese", "fresh", "parmesan", "garlic", "ginger",
                ]) =>
        {
            Some("grate")
        }
        "loose"
            if (x.is(-1, MODALS) || x.lower(-1).is_some_and(|p| p.ends_with("n't")))
                && next_is(LOSE_OBJECTS) =>
        {
            Some("lose")
        }
        "lose" if next_is(&["fitting", "fit"]) => Some("loose"),
        "lose" if x.is(-1, LOOSE_BEFORE) && !next_is(LOSE_OBJECTS) => Some("loose"),
        _ => None,
    }
}

/// their/there/they're, your/you're, its/it's, whole/hole, great/grate, lose/loose.
pub(crate) fn homophones(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    rewrite(t, changes, "homophone", homophone)
}

/// Plural-looking words that are singular (or either).
#[rustfmt::skip]
const NOT_PLURAL: &[&str] = &[
    "news", "series", "species", "means", "lens", "gas", "bus", "chaos", "canvas", "atlas",
    "alias", "bias", "yes", "plus", "thus", "this", "his", "hers", "its", "ours", "yours",
    "theirs", "kudos", "ethos", "pathos", "headquarters", "whereabouts", "corps", "diabetes",
    "measles", "mumps", "billiards", "darts", "thermos", "cosmos", "always", "perhaps",
    "towards", "afterwards", "sometimes", "less", "unless", "does", "was", "has", "is",
];
const PLURAL_DETERMINERS: &[&str] = &[
    "the", "these", "those", "my", "our", "your", "their", "his", "her", "its", "all", "both",
    "many", "some", "several", "few", "most",
];
/// Words before the determiner that make the noun part of a longer subject
/// (`the quality of the products is`).
const SUBJECT_CONTINUES: &[&str] = &[
    "of", "in", "on", "for", "with", "from", "about", "at", "by", "to", "among", "between", "like",
    "than", "as", "without", "under", "over", "into", "through", "per", "via", "and", "or",
];

/// Whether a lower-case word is a regular plural of a listed noun.
fn is_plural(w: &str) -> bool {
    if !w.ends_with('s')
        || ["ss", "us", "is", "ics"].iter().any(|s| w.ends_with(s))
        || NOT_PLURAL.contains(&w)
        || !words::is_known(w)
    {
        return false;
    }
    let listed = |s: &str| s.len() >= 3 && words::band(s).is_some();
    w.strip_suffix('s').is_some_and(listed)
        || w.strip_suffix("es").is_some_and(listed)
        || w.strip_suffix("ies")
            .is_some_and(|s| listed(&format!("{s}y")))
}

/// `the dashboards is` → `are`, `my parents was` → `were`, `has` → `have`.
pub(crate) fn plural_agreement(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    rewrite(t, changes, "grammar", |x| {
        let to = match x.words[x.i].lower.as_str() {
            "is" => "are",
            "was" => "were",
            "has" => "have",
            "does" => "do",
            "isn't" => "aren't",
            "wasn't" => "weren't",
            "doesn't" => "don't",
            "hasn't" => "haven't",
            _ => return None,
        };
        let noun = x.at(-1)?;
        let plural = noun.text == noun.lower && is_plural(&noun.lower);
        (plural && x.is(-2, PLURAL_DETERMINERS) && !x.is(-3, SUBJECT_CONTINUES)).then_some(to)
    })
}
