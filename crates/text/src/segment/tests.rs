use super::*;

fn quotes(text: &str) -> Vec<&str> {
    quote_spans(text).into_iter().map(|r| &text[r]).collect()
}

#[test]
fn quote_spans_cut_at_emoji_line_breaks_and_glued_stops() {
    assert_eq!(
        quotes("🚀🚀 best app ever 👍🏽👍🏽 — seriously the easiest tool I have used!!!"),
        [
            "best app ever",
            "— seriously the easiest tool I have used!!!"
        ]
    );
    assert_eq!(
        quotes("Love it ❤️ so much. Great\nteam"),
        ["Love it", "so much.", "Great", "team"]
    );
    assert_eq!(
        quotes("really useful.Consistent performance: yes"),
        ["really useful.", "Consistent performance: yes"]
    );
    for unchanged in [
        "Her email is Jane.Doe@example.com and she replied.",
        "We run ASP.NET and the site www.example.Com works.",
        "Plain sentence. Another one!",
    ] {
        assert_eq!(quotes(unchanged), sentences(unchanged), "{unchanged}");
    }
    assert!(quote_spans("👍🏽 ✅ ⭐").is_empty());
    assert!(quote_spans("").is_empty());
}

/// The 48 English Golden Rules of the Pragmatic Segmenter (as in pySBD).
const GOLDEN_RULES: &[(&str, &[&str])] = &[
    ("Hello World. My name is Jonas.", &["Hello World.", "My name is Jonas."]),
    ("What is your name? My name is Jonas.", &["What is your name?", "My name is Jonas."]),
    ("There it is! I found it.", &["There it is!", "I found it."]),
    ("My name is Jonas E. Smith.", &["My name is Jonas E. Smith."]),
    ("Please turn to p. 55.", &["Please turn to p. 55."]),
    ("Were Jane and co. at the party?", &["Were Jane and co. at the party?"]),
    (
        "They closed the deal with Pitt, Briggs & Co. at noon.",
        &["They closed the deal with Pitt, Briggs & Co. at noon."],
    ),
    ("Let's ask Jane and co. They should know.", &["Let's ask Jane and co.", "They should know."]),
    (
        "They closed the deal with Pitt, Briggs & Co. It closed yesterday.",
        &["They closed the deal with Pitt, Briggs & Co.", "It closed yesterday."],
    ),
    ("I can see Mt. Fuji from here.", &["I can see Mt. Fuji from here."]),
    (
        "St. Michael's Church is on 5th st. near the light.",
        &["St. Michael's Church is on 5th st. near the light."],
    ),
    ("That is JFK Jr.'s book.", &["That is JFK Jr.'s book."]),
    ("I visited the U.S.A. last year.", &["I visited the U.S.A. last year."]),
    ("I live in the E.U. How about you?", &["I live in the E.U.", "How about you?"]),
    ("I live in the U.S. How about you?", &["I live in the U.S.", "How about you?"]),
    (
        "I work for the U.S. Government in Virginia.",
        &["I work for the U.S. Government in Virginia."],
    ),
    ("I have lived in the U.S. for 20 years.", &["I have lived in the U.S. for 20 years."]),
    (
        "At 5 a.m. Mr. Smith went to the bank. He left the bank at 6 P.M. Mr. Smith then went to the store.",
        &[
            "At 5 a.m. Mr. Smith went to the bank.",
            "He left the bank at 6 P.M.",
            "Mr. Smith then went to the store.",
        ],
    ),
    ("She has $100.00 in her bag.", &["She has $100.00 in her bag."]),
    ("She has $100.00. It is in her bag.", &["She has $100.00.", "It is in her bag."]),
    (
        "He teaches science (He previously worked for 5 years as an engineer.) at the local University.",
        &["He teaches science (He previously worked for 5 years as an engineer.) at the local University."],
    ),
    (
        "Her email is Jane.Doe@example.com. I sent her an email.",
        &["Her email is Jane.Doe@example.com.", "I sent her an email."],
    ),
    (
        "The site is: https://www.example.50.com/new-site/awesome_content.html. Please check it out.",
        &[
            "The site is: https://www.example.50.com/new-site/awesome_content.html.",
            "Please check it out.",
        ],
    ),
    (
        "She turned to him, 'This is great.' she said.",
        &["She turned to him, 'This is great.' she said."],
    ),
    (
        "She turned to him, \"This is great.\" she said.",
        &["She turned to him, \"This is great.\" she said."],
    ),
    (
        "She turned to him, \"This is great.\" She held the book out to show him.",
        &["She turned to him, \"This is great.\"", "She held the book out to show him."],
    ),
    ("Hello!! Long time no see.", &["Hello!!", "Long time no see."]),
    ("Hello?? Who is there?", &["Hello??", "Who is there?"]),
    ("Hello!? Is that you?", &["Hello!?", "Is that you?"]),
    ("Hello?! Is that you?", &["Hello?!", "Is that you?"]),
    ("1.) The first item 2.) The second item", &["1.) The first item", "2.) The second item"]),
    (
        "1.) The first item. 2.) The second item.",
        &["1.) The first item.", "2.) The second item."],
    ),
    ("1) The first item 2) The second item", &["1) The first item", "2) The second item"]),
    ("1) The first item. 2) The second item.", &["1) The first item.", "2) The second item."]),
    ("1. The first item 2. The second item", &["1. The first item", "2. The second item"]),
    ("1. The first item. 2. The second item.", &["1. The first item.", "2. The second item."]),
    (
        "• 9. The first item • 10. The second item",
        &["• 9. The first item", "• 10. The second item"],
    ),
    ("⁃9. The first item ⁃10. The second item", &["⁃9. The first item", "⁃10. The second item"]),
    (
        "a. The first item b. The second item c. The third list item",
        &["a. The first item", "b. The second item", "c. The third list item"],
    ),
    (
        "You can find it at N°. 1026.253.553. That is where the treasure is.",
        &["You can find it at N°. 1026.253.553.", "That is where the treasure is."],
    ),
    (
        "She works at Yahoo! in the accounting department.",
        &["She works at Yahoo! in the accounting department."],
    ),
    (
        "We make a good team, you and I. Did you see Albert I. Jones yesterday?",
        &["We make a good team, you and I.", "Did you see Albert I. Jones yesterday?"],
    ),
    (
        "Thoreau argues that by simplifying one’s life, “the laws of the universe will appear less complex. . . .”",
        &["Thoreau argues that by simplifying one’s life, “the laws of the universe will appear less complex. . . .”"],
    ),
    (
        "\"Bohr [...] used the analogy of parallel stairways [...]\" (Smith 55).",
        &["\"Bohr [...] used the analogy of parallel stairways [...]\" (Smith 55)."],
    ),
    (
        "If words are left off at the end of a sentence, and that is all that is omitted, indicate the omission with ellipsis marks (preceded and followed by a space) and then indicate the end of the sentence with a period . . . . Next sentence.",
        &[
            "If words are left off at the end of a sentence, and that is all that is omitted, indicate the omission with ellipsis marks (preceded and followed by a space) and then indicate the end of the sentence with a period . . . .",
            "Next sentence.",
        ],
    ),
    ("I never meant that.... She left the store.", &["I never meant that....", "She left the store."]),
    (
        "I wasn’t really ... well, what I mean...see . . . what I'm saying, the thing is . . . I didn’t mean it.",
        &["I wasn’t really ... well, what I mean...see . . . what I'm saying, the thing is . . . I didn’t mean it."],
    ),
    (
        "One further habit which was somewhat weakened . . . was that of combining words into self-interpreting compounds. . . . The practice was not abandoned. . . .",
        &[
            "One further habit which was somewhat weakened . . . was that of combining words into self-interpreting compounds.",
            ". . . The practice was not abandoned. . . .",
        ],
    ),
];

#[test]
fn golden_rules() {
    assert_eq!(GOLDEN_RULES.len(), 48);
    let failures: Vec<_> = GOLDEN_RULES
        .iter()
        .enumerate()
        .filter(|(_, (input, expected))| sentences(input) != *expected)
        .map(|(n, (input, _))| format!("#{}: {input:?} -> {:?}", n + 1, sentences(input)))
        .collect();
    assert!(
        failures.is_empty(),
        "failing golden rules:\n{}",
        failures.join("\n")
    );
}

#[test]
fn abbreviations_numbers_urls_and_emails_do_not_split() {
    let cases: &[(&str, &[&str])] = &[
        (
            "Dr. Smith met Prof. Jones of Acme Inc. in the U.S. on Jan. 5 at 10 a.m. and paid $5.99 for 3.14 kg. It was fine.",
            &[
                "Dr. Smith met Prof. Jones of Acme Inc. in the U.S. on Jan. 5 at 10 a.m. and paid $5.99 for 3.14 kg.",
                "It was fine.",
            ],
        ),
        (
            "Mrs. Lee, Ms. Park and Mr. Cho (i.e. the board, e.g. Sr. staff) met Smith Jr. vs. Ltd. firms etc. at St. Paul's.",
            &["Mrs. Lee, Ms. Park and Mr. Cho (i.e. the board, e.g. Sr. staff) met Smith Jr. vs. Ltd. firms etc. at St. Paul's."],
        ),
        (
            "See https://example.com/a.b?c=d or www.example.com now. Mail john.doe@example.com today.",
            &["See https://example.com/a.b?c=d or www.example.com now.", "Mail john.doe@example.com today."],
        ),
        (
            "We met at No. 7 Corp. headquarters on Mon. Feb. 3. It rained.",
            &["We met at No. 7 Corp. headquarters on Mon. Feb. 3.", "It rained."],
        ),
        ("Well... maybe later… or not. Fine.", &["Well... maybe later… or not.", "Fine."]),
    ];
    for (input, expected) in cases {
        assert_eq!(sentences(input), *expected, "{input:?}");
    }
}

#[test]
fn terminators_quotes_cjk_and_paragraphs() {
    let cases: &[(&str, &[&str])] = &[
        ("Really?! Yes.", &["Really?!", "Yes."]),
        (
            "He said, “Stop!” Then he left.",
            &["He said, “Stop!”", "Then he left."],
        ),
        (
            "(This is a test.) Next one.",
            &["(This is a test.)", "Next one."],
        ),
        (
            "今日は晴れです。明日は雨です！本当？",
            &["今日は晴れです。", "明日は雨です！", "本当？"],
        ),
        (
            "「行こう。」と彼は言った。",
            &["「行こう。」", "と彼は言った。"],
        ),
        (
            "Title\n\nThe body follows\nacross lines",
            &["Title", "The body follows\nacross lines"],
        ),
        ("Pros:\n- fast\n- cheap", &["Pros:", "- fast", "- cheap"]),
    ];
    for (input, expected) in cases {
        assert_eq!(sentences(input), *expected, "{input:?}");
    }
}

#[test]
fn empty_and_whitespace_input() {
    assert!(sentence_spans("").is_empty());
    assert!(sentences(" \n\t\u{3000} ").is_empty());
    assert!(chunk("  \n ", 10).is_empty());
}

/// Deterministic pseudo-random strings over awkward characters.
fn noisy_inputs() -> Vec<String> {
    const PALETTE: &[&str] = &[
        "a", "Z", " ", "\n", "\n\n", ".", "...", "…", "!", "?", "。", "！", "\"", "”", "(", ")",
        "[", "]", "é", "ж", "日本", "😀", "👍🏽", "Mr.", "U.S.", "1.", "2)", "•", "⁃", ",", "、",
        " - ", "\u{301}", "\u{200D}", "\u{FEFF}", "١", "।", "b.",
    ];
    let mut rng = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15);
    (0..300)
        .map(|_| {
            (0..rng.usize(..40))
                .map(|_| PALETTE[rng.usize(..PALETTE.len())])
                .collect()
        })
        .collect()
}

#[test]
fn spans_are_trimmed_ordered_and_on_char_boundaries() {
    for text in noisy_inputs() {
        let spans = sentence_spans(&text);
        let mut previous_end = 0;
        for span in &spans {
            assert!(
                span.start < span.end && span.start >= previous_end,
                "{text:?}"
            );
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            let s = &text[span.clone()];
            assert_eq!(s, s.trim());
            previous_end = span.end;
        }
        let all: String = spans.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(strip_whitespace(&all), strip_whitespace(&text));
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn strip_whitespace(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

const SPACED_TEXTS: &[&str] = &[
    "Short one. Another short one! And a question? Yes.",
    "This sentence is rather long, with several clauses; it keeps going: on and on — until it stops. Then a short one.",
    "Café crème brûlée was délicieux, naïve façade aside. Señor Muñoz agreed – très bien!",
    "Привет, мир. Это очень длинное предложение, которое нужно разбить на части. Да!",
    "Great product 😀👍🏽 would buy again!!! 10/10, no complaints, 🚀🚀🚀 fast shipping.",
    "これはペンです。 それは本です。 日本語の 文章 も 空白 で 区切れる。",
    "Supercalifragilisticexpialidocious is long. https://example.com/a/very/long/path?query=1",
    "Line one\nline two\n\nNew paragraph here, with a comma.",
];

#[test]
fn chunks_reproduce_the_text_with_whitespace_collapsed() {
    for text in SPACED_TEXTS {
        // Words of unspaced scripts longer than `max` are cut between
        // characters, which joining with spaces cannot undo.
        let longest_unspaced = text
            .split_whitespace()
            .filter(|w| w.chars().any(is_unspaced))
            .map(char_len)
            .max()
            .unwrap_or(0);
        for max in [0, 1, 5, 8, 12, 25, 40, 1000] {
            let chunks = chunk(text, max);
            let joined = chunks.join(" ");
            if max >= longest_unspaced {
                assert_eq!(collapse(&joined), collapse(text), "{text:?} max={max}");
            }
            assert_eq!(strip_whitespace(&joined), strip_whitespace(text));
            for c in &chunks {
                assert!(!c.is_empty() && c.as_str() == c.trim());
                assert!(
                    char_len(c) <= max.max(1) || !c.contains(char::is_whitespace),
                    "{c:?} exceeds {max} but could have been split"
                );
            }
        }
    }
}

#[test]
fn unspaced_scripts_are_split_between_characters_as_a_last_resort() {
    let text = "吾輩は猫である名前はまだ無いどこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所で泣いていた事だけは記憶している。";
    for max in [1, 4, 10, 30] {
        let chunks = chunk(text, max);
        assert_eq!(strip_whitespace(&chunks.concat()), strip_whitespace(text));
        assert!(chunks.iter().all(|c| char_len(c) <= max), "{chunks:?}");
    }
    assert_eq!(
        chunk("今日は、晴れ。明日は雨。", 9),
        ["今日は、晴れ。", "明日は雨。"]
    );
    assert_eq!(
        chunk("今日は、晴れ。明日は雨。", 12),
        ["今日は、晴れ。明日は雨。"]
    );
    assert_eq!(chunk("今日は、晴れ。", 4), ["今日は、", "晴れ。"]);
    for text in noisy_inputs() {
        for max in [0, 3, 8] {
            assert_eq!(
                strip_whitespace(&chunk(&text, max).concat()),
                strip_whitespace(&text)
            );
        }
    }
}

#[test]
fn chunk_packing_and_splitting() {
    assert_eq!(chunk("One. Two. Three.", 10), ["One. Two.", "Three."]);
    assert_eq!(chunk("One. Two. Three.", 100), ["One. Two. Three."]);
    assert_eq!(
        chunk("Alpha beta, gamma delta; epsilon. Short.", 20),
        ["Alpha beta,", "gamma delta;", "epsilon.", "Short."]
    );
    assert_eq!(chunk("aa, bb, cc, dd.", 8), ["aa, bb,", "cc, dd."]);
    assert_eq!(
        chunk("one two three four five", 9),
        ["one two", "three", "four five"]
    );
    assert_eq!(
        chunk("Hi. Incomprehensibilities abound.", 10),
        ["Hi.", "Incomprehensibilities", "abound."]
    );
    assert_eq!(chunk("yes - no — maybe", 6), ["yes -", "no —", "maybe"]);
    assert_eq!(chunk("1,000,000 dollars", 5), ["1,000,000", "dollars"]);
    assert_eq!(chunk("Ab. Cd.", 0), ["Ab.", "Cd."]);
}
