//! The word lists the highlighter scores with (see [`crate::highlight`]).
//! Words are lower-case, with `’` read as `'`. The lists a word is looked
//! up in are perfect-hash sets built at compile time: one hash per lookup,
//! and nothing built when an instance starts.

use phf::{phf_set, Set};

/// Strong praise: 2 points each.
#[rustfmt::skip]
pub static PRAISE: Set<&str> = phf_set! {
    // English
    "love", "loved", "loves", "lovely", "amazing", "amazed", "excellent", "best", "recommend",
    "recommended", "recommending", "recommends", "great", "fantastic", "helpful", "easy", "fast",
    "reliable", "awesome", "perfect", "perfectly", "wonderful", "brilliant", "outstanding",
    "superb", "incredible", "incredibly", "impressive", "impressed", "friendly", "intuitive",
    "seamless", "seamlessly", "smooth", "flawless", "flawlessly", "exceptional", "delighted",
    "happy", "pleased", "efficient", "quick", "quickly", "beautiful", "lifesaver", "favorite",
    "favourite", "terrific", "stellar", "top-notch", "game-changer", "gamechanger", "painless",
    "effortless", "good", "nice", "10/10", "phenomenal", "fabulous", "spectacular", "remarkable",
    "thrilled", "kudos", "worth", "hassle-free", "user-friendly", "rock-solid", "exceeded",
    "exceeds", "gorgeous", "stunning", "superbly", "wow", "heavenly",
    // French
    "génial", "géniale", "excellente", "parfait", "parfaite", "parfaitement", "recommande",
    "recommandé", "recommandons", "super", "magnifique", "formidable", "incroyable", "rapide",
    "efficace", "facile", "fiable", "adore", "top", "merveilleux", "merveilleuse", "sympa",
    "meilleur", "meilleure", "ravi", "ravie", "impeccable", "bravo",
    // Spanish
    "increíble", "excelente", "recomiendo", "recomendado", "recomendable", "genial", "perfecto",
    "perfecta", "fantástico", "fantástica", "maravilloso", "maravillosa", "rápido", "rápida",
    "fácil", "encanta", "encantó", "mejor", "buenísimo", "estupendo", "eficaz", "excelentes",
    "perfectos", "perfectas", "rápidos", "rápidas", "increíbles",
    // German
    "ausgezeichnet", "toll", "tolle", "empfehlen", "empfehle", "empfehlenswert", "hervorragend",
    "perfekt", "schnell", "zuverlässig", "großartig", "fantastisch", "beste", "besten", "klasse",
    "prima", "begeistert", "wunderbar", "hilfreich", "nützlich",
};

/// Plain praise, weaker on its own: 1 point each.
#[rustfmt::skip]
pub static MILD_PRAISE: Set<&str> = phf_set! {
    "useful", "handy", "convenient", "straightforward", "simple", "clean", "affordable",
    "reasonable", "fair", "stable", "solid", "secure", "flexible", "powerful", "elegant",
    "responsive", "prompt", "promptly", "knowledgeable", "professional", "courteous", "attentive",
    "patient", "thorough", "trusted", "trustworthy", "accurate", "transparent", "informative",
    "productive", "valuable", "comfortable", "enjoy", "enjoyed", "enjoyable", "appreciate",
    "appreciated", "satisfied", "glad", "grateful", "thankful", "pleasure", "pleasant",
    "cheerfully", "neat", "slick", "snappy", "spotless", "delicious", "welcoming", "kind",
    "recommendation", "works", "worked", "nicely", "smoothly", "easily", "satisfying",
    "simplicity", "reliability", "flexibility", "ease", "free", "polite", "respectful",
    "punctual", "skilled", "clear", "calm",
    // French, Spanish, German
    "bien", "bon", "bonne", "bons", "bonnes", "pratique", "buen", "buena", "buenos", "buenas",
    "bueno", "gut", "gute", "guter", "gutes", "praktisch",
};

/// Words that make the mild praise after them strong ("very useful").
pub const INTENSIFIERS: &[&str] = &[
    "very",
    "really",
    "extremely",
    "super",
    "so",
    "truly",
    "incredibly",
    "absolutely",
    "highly",
];

/// Multi-word praise (values, recommendations, idioms); 2 points each. A
/// negation inside one of these ("look no further") is not a negation.
pub const PRAISE_PHRASES: &[&[&str]] = &[
    &["game", "changer"],
    &["highly", "recommend"],
    &["must", "have"],
    &["every", "penny"],
    &["every", "cent"],
    &["five", "stars"],
    &["5", "stars"],
    &["value", "for", "money"],
    &["bang", "for"],
    &["pays", "for", "itself"],
    &["paid", "for", "itself"],
    &["money", "well", "spent"],
    &["give", "it", "a", "try"],
    &["give", "them", "a", "try"],
    &["go", "for", "it"],
    &["look", "no", "further"],
    &["do", "yourself", "a", "favour"],
    &["do", "yourself", "a", "favor"],
    &["check", "it", "out"],
    &["second", "to", "none"],
    &["nothing", "short", "of"],
    &["no", "brainer"],
    &["no-brainer"],
    &["can't", "go", "wrong"],
    &["cannot", "go", "wrong"],
    &["couldn't", "be", "happier"],
    &["could", "not", "be", "happier"],
    &["couldn't", "be", "better"],
    &["buy", "again"],
    &["use", "again"],
    &["order", "again"],
    &["be", "back"],
    &["thumbs", "up"],
    &["i", "like"],
    &["i", "liked"],
    &["we", "like"],
    &["we", "liked"],
    &["really", "like"],
    &["works", "fine"],
    &["worked", "fine"],
    &["works", "well"],
    &["worked", "well"],
];

/// Superlatives that need no article ("best app ever").
#[rustfmt::skip]
pub static SUPERLATIVES: Set<&str> = phf_set! {
    "best", "greatest", "easiest", "fastest", "quickest", "simplest", "smoothest", "nicest",
    "finest", "friendliest", "coolest", "cleanest", "meilleur", "meilleure", "mejor", "beste",
    "besten",
};

/// Words ending in "-est" that are no superlative, or a superlative that is no
/// praise ("the slowest"); any other "the/my/our … -est" word is a superlative.
#[rustfmt::skip]
pub static NOT_SUPERLATIVES: Set<&str> = phf_set! {
    "honest", "interest", "request", "suggest", "latest", "modest", "forest", "harvest",
    "manifest", "protest", "invest", "digest", "contest", "arrest", "earnest",
    "biggest", "slowest", "hardest", "weakest", "poorest", "dumbest", "ugliest", "saddest",
    "harshest", "messiest", "buggiest", "laziest", "rudest", "dirtiest", "loudest", "costliest",
    "priciest", "longest", "oldest", "smallest", "largest", "worst", "least", "rest", "test",
    "guest", "quest", "west", "chest", "nest", "pest", "vest", "zest", "lowest", "highest",
};

/// Words before which a "-est" word reads as a superlative.
pub const DETERMINERS: &[&str] = &["the", "my", "our", "its", "their", "his", "her", "your"];

/// "… I've ever used": the experience that makes a superlative.
pub const EVER_PHRASES: &[&[&str]] = &[
    &["ever", "seen"],
    &["ever", "used"],
    &["ever", "had"],
    &["ever", "tried"],
    &["ever", "owned"],
    &["ever", "bought"],
    &["ever", "experienced"],
    &["ever", "worked"],
    &["ever", "made"],
    &["ever", "stayed"],
];

/// "… I've used": with a superlative, the experience that backs it.
pub const EXPERIENCE_PHRASES: &[&[&str]] = &[
    &["i've", "seen"],
    &["i've", "used"],
    &["i've", "tried"],
    &["i've", "had"],
    &["we've", "used"],
    &["we've", "had"],
    &["i", "have", "seen"],
    &["i", "have", "used"],
    &["have", "used"],
    &["has", "used"],
    &["has", "seen"],
];

#[rustfmt::skip]
pub static OUTCOMES: Set<&str> = phf_set! {
    "saved", "save", "saves", "saving", "increased", "increase", "boosted", "doubled", "tripled",
    "halved", "reduced", "cut", "improved", "grew", "gained", "solved", "eliminated", "streamlined",
    "transformed", "achieved", "won", "faster", "quicker", "cheaper", "easier", "better",
    "smoother", "simplifies", "simplified",
};

/// What an outcome is measured in: "saves us time", "cut our costs".
#[rustfmt::skip]
pub static OUTCOME_OBJECTS: Set<&str> = phf_set! {
    "time", "hours", "minutes", "days", "weeks", "money", "cost", "costs", "effort", "stress",
    "headaches", "work", "clicks",
};

/// Numbers written out (a "one" is too often a pronoun to count).
#[rustfmt::skip]
pub static NUMBER_WORDS: Set<&str> = phf_set! {
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "fifteen", "twenty", "thirty", "forty", "fifty", "sixty", "hundred", "hundreds", "thousand",
    "thousands", "million", "millions", "half", "dozen", "dozens", "deux", "trois", "dix", "dos",
    "tres", "diez", "zwei", "drei", "zehn",
};

/// Words between "from/to" and its number ("to under two").
pub const RANGE_FILLERS: &[&str] = &[
    "under", "over", "about", "around", "just", "only", "less", "than", "a", "an",
];

pub const FIRST_PERSON: &[&str] = &["i", "we", "our", "my", "i've", "we've"];

/// Verbs that signal an outcome only right after a first-person subject.
#[rustfmt::skip]
pub static FIRST_PERSON_VERBS: Set<&str> = phf_set! {
    "got", "made", "found", "finished", "reached", "landed", "hit",
};

#[rustfmt::skip]
pub static NEGATIONS: Set<&str> = phf_set! {
    "not", "never", "no", "nothing", "nobody", "none", "nowhere", "neither", "nor", "hardly",
    "barely", "cannot", "dont", "didnt", "doesnt", "isnt", "wasnt", "cant", "wont", "wouldnt",
    "shouldnt", "couldnt", "arent", "werent", "havent", "hasnt", "pas", "jamais", "rien", "aucun",
    "aucune", "ne", "ni", "nunca", "nada", "ningún", "ninguna", "tampoco", "nicht", "nie",
    "niemals", "kein", "keine", "keinen", "nichts",
};

/// Negations that deny a possibility: "can't beat", "couldn't be happier".
pub const MODAL_NEGATIONS: &[&str] = &["can't", "cannot", "cant", "couldn't", "couldnt"];

/// What a negation may deny for the phrase to be praise: "never failed",
/// "no hidden costs", "haven't had any issues", "wouldn't hesitate".
#[rustfmt::skip]
pub static LITOTES_TARGETS: Set<&str> = phf_set! {
    "issue", "issues", "problem", "problems", "complaint", "complaints", "complain", "hassle",
    "hassles", "glitch", "glitches", "regret", "regrets", "hesitate", "hesitation", "fail",
    "fails", "failed", "disappoint", "disappoints", "disappointed", "wrong", "downtime", "bug",
    "bugs", "trouble", "troubles", "worry", "worries", "surprises", "hidden", "crash", "crashes",
    "crashed", "lag", "error", "errors", "fault", "hiccup", "hiccups", "headache", "headaches",
    "difficulty", "difficulties", "cluttered", "confusing", "complicated", "unnecessary",
    "misunderstand", "doubt", "down", "bad", "need", "mess",
};

/// What only a [`MODAL_NEGATIONS`] word may deny for praise: "can't recommend
/// it enough", "couldn't be happier", "can't beat the price".
pub const MODAL_LITOTES_TARGETS: &[&str] = &["enough", "happier", "better", "beat", "fault"];

#[rustfmt::skip]
pub static HEDGES: Set<&str> = phf_set! {
    "maybe", "might", "perhaps", "somewhat", "seems", "seem", "seemed", "probably", "possibly",
    "kinda", "sorta", "guess", "peut-être", "probablement", "quizás", "quizá", "probablemente",
    "vielleicht", "wahrscheinlich",
    // Wishes and requests: what is missing, not what is good.
    "wish", "wished", "wishes", "hopefully", "hoping", "please", "pls", "suggestion",
};

/// Hedges, wishes and requests of several words: every word of one makes a
/// span unfit.
pub const HEDGE_PHRASES: &[&[&str]] = &[
    &["kind", "of"],
    &["sort", "of"],
    &["i", "guess"],
    &["i", "think"],
    &["i", "suppose"],
    &["could", "be"],
    &["a", "bit"],
    &["un", "peu"],
    &["un", "poco"],
    &["tal", "vez"],
    &["ein", "bisschen"],
    &["i'd", "love"],
    &["i'd", "like"],
    &["i", "would", "love"],
    &["i", "would", "like"],
    &["would", "love"],
    &["would", "like"],
    &["we'd", "love"],
    &["love", "to", "see"],
    &["like", "to", "see"],
    &["would", "be", "nice"],
    &["would", "be", "great"],
    &["would", "be", "awesome"],
    &["would", "be", "good"],
    &["would", "be", "helpful"],
    &["would", "be", "better"],
    &["would", "be", "perfect"],
    &["would", "be", "a"],
    &["would", "have", "been"],
    &["if", "only"],
    &["needs", "to"],
    &["i", "hope"],
    &["we", "hope"],
];

#[rustfmt::skip]
pub static COMPLAINTS: Set<&str> = phf_set! {
    "however", "unfortunately", "disappointed", "disappointing", "disappointment", "terrible",
    "bad", "worst", "slow", "expensive", "broken", "rude", "awful", "horrible", "poor", "useless",
    "crashed", "crashes", "buggy", "waste", "refund", "overpriced", "annoying", "frustrating",
    "mediocre", "malheureusement", "déçu", "déçue", "décevant", "mauvais", "nul", "lent",
    "desafortunadamente", "lamentablemente", "decepcionado", "malo", "mala", "pésimo", "lento",
    "caro", "roto", "leider", "enttäuscht", "enttäuschend", "schlecht", "schrecklich", "langsam",
    "teuer", "kaputt",
};

pub const COMPLAINT_PHRASES: &[&[&str]] = &[
    &["but", "the"],
    &["too", "many"],
    &["too", "much"],
    &["too", "few"],
    &["too", "little"],
    &["too", "long"],
    &["too", "hard"],
    &["too", "complicated"],
];

/// Conjunctions before which a sentence is cut into clauses.
pub const SPLIT_CONJUNCTIONS: &[&str] = &["and", "but", "et", "mais", "y", "pero", "und", "aber"];

/// Conjunctions trimmed from the start of a span.
#[rustfmt::skip]
pub const LEADING_CONJUNCTIONS: &[&str] = &[
    "and", "but", "or", "yet", "plus", "et", "mais", "ou", "y", "pero", "o", "und", "aber", "oder",
];
