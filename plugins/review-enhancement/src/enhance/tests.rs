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
            c.starts_with("spelling") || c.starts_with("grammar") || c.starts_with("repeated word")
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
    let mut rng = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15);
    (0..300)
        .map(|_| {
            let mut s = String::new();
            for _ in 0..rng.usize(..40) {
                s.push_str(PALETTE[rng.usize(..PALETTE.len())]);
                if rng.u8(..3) == 0 {
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

#[test]
fn a_correction_never_makes_or_drops_a_negation() {
    for text in ["The nota is fine.", "It was a noy toy."] {
        assert_eq!(enhance(text).text, text);
    }
}
