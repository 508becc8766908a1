//! One test per class of error the rules fix or must avoid, each on its own
//! examples (the benchmark sets are never used to tune the rules).

use crate::enhance::enhance;

fn check(cases: &[(&str, &str)]) {
    for (input, expected) in cases {
        let e = enhance(input);
        assert_eq!(e.text, *expected, "{input:?}\n{:#?}", e.changes);
        let again = enhance(&e.text);
        assert_eq!(again.text, e.text, "not idempotent: {input:?}");
    }
}

fn unchanged(cases: &[&str]) {
    for input in cases {
        let e = enhance(input);
        assert_eq!(e.text, *input, "{:#?}", e.changes);
    }
}

#[test]
fn contractions_without_apostrophes_are_restored() {
    check(&[
        (
            "i dont like it and it doesnt charge. we didnt get a refund",
            "I don't like it and it doesn't charge. We didn't get a refund",
        ),
        (
            "Im happy but Ive seen better. It isnt cheap and it wouldnt fit.",
            "I'm happy but I've seen better. It isn't cheap and it wouldn't fit.",
        ),
        (
            "thats the best part, youre going to love it",
            "That's the best part, you're going to love it",
        ),
        (
            "he dont care about the customers",
            "He doesn't care about the customers",
        ),
    ]);
    unchanged(&[
        "We met Jony Ive at the launch and the IM client was fine.",
        "The cant of the roof was steep, as is his wont.",
    ]);
}

#[test]
fn homophones_are_decided_by_context() {
    check(&[
        (
            "their is a problem with the app",
            "There is a problem with the app",
        ),
        ("their not open on Sundays", "They're not open on Sundays"),
        (
            "they did it there own way and we loved there food",
            "They did it their own way and we loved their food",
        ),
        (
            "your going to love it, your welcome",
            "You're going to love it, you're welcome",
        ),
        (
            "you're order will ship tomorrow",
            "Your order will ship tomorrow",
        ),
        (
            "its a great phone and its not expensive",
            "It's a great phone and it's not expensive",
        ),
        ("i love it, its great!", "I love it, it's great!"),
        ("the case has it's own stand", "The case has its own stand"),
        ("the hole family loved it", "The whole family loved it"),
        (
            "there was a whole in the sleeve",
            "There was a hole in the sleeve",
        ),
        (
            "grate service and grate food",
            "Great service and great food",
        ),
        ("the food was grate!", "The food was great!"),
        ("use it to great the cheese", "Use it to grate the cheese"),
        ("you will loose your data", "You will lose your data"),
        (
            "i dont want to loose my money",
            "I don't want to lose my money",
        ),
        (
            "the handle is lose and it came lose again",
            "The handle is loose and it came loose again",
        ),
    ]);
    unchanged(&[
        "Their prices are fair and there is free parking.",
        "Is there staff on site at night?",
        "Your welcome pack was missing, so please check your order.",
        "We appreciate your being patient and your doing the survey.",
        "It's worth it. Its battery is great and its screen is sharp.",
        "The whole team was helpful, even as a whole in the end.",
        "The grate in the fireplace was clean and the cheese was grated.",
        "You won't lose track of time. The screws came loose.",
        "I lose my keys often, and loose tea is sold here.",
    ]);
}

#[test]
fn verbs_agree_with_plural_nouns() {
    check(&[
        ("the dashboards is slow", "The dashboards are slow"),
        (
            "My parents was happy. The rooms has a view",
            "My parents were happy. The rooms have a view",
        ),
        ("these batteries doesnt last", "These batteries don't last"),
    ]);
    unchanged(&[
        "The quality of the products is great.",
        "One of my friends is a chef.",
        "The news is good and the series is fun.",
        "The glass is thick, the bus is late and the lens is clean.",
        "This is why his work is great.",
    ]);
}

#[test]
fn misspellings_are_corrected_from_the_word_list() {
    check(&[
        (
            "the shiping was fast becouse the resturant is close",
            "The shipping was fast because the restaurant is close",
        ),
        (
            "a beautful view and diffrent dishes",
            "A beautiful view and different dishes",
        ),
    ]);
    unchanged(&[
        "Sooo good, tbh the best wifi we had.",
        "Ask Kenji or Mrs. Okonkwo about the Zanzibar tour.",
        "Open config.yaml and read README first.",
    ]);
}

#[test]
fn space_before_punctuation_is_removed_everywhere() {
    check(&[
        (
            "the room was clean .The staff was kind",
            "The room was clean. The staff was kind",
        ),
        (
            "great hotel , nice staff ; good food : yes !",
            "Great hotel, nice staff; good food: yes!",
        ),
        (
            "it was ok .I would go again .",
            "It was ok. I would go again.",
        ),
        ("really ?The price was fair", "Really? The price was fair"),
    ]);
    unchanged(&[
        "We used .NET and paid .5 more... fine :)",
        "It runs on .Net and the shop is on .Com domains.",
    ]);
}

#[test]
fn urls_domains_code_tags_and_handles_are_never_edited() {
    unchanged(&[
        "I bought it at shop.example.com/path-with-tpyo and it arrived fast.",
        "The page https://example.com/recieve-teh-goods loaded fine.",
        "Run `teh dont --recieve` and it works.",
        "Loved it #definately #teh and thanks to @teh_recieve for the tip.",
        "Write to dont.recieve@example.com for help.",
        "Visit teh-shop.io today.",
    ]);
}

/// Pseudo-random review-like strings over the words the new rules react to.
fn generated() -> Vec<String> {
    #[rustfmt::skip]
    const PALETTE: &[&str] = &[
        "the", "dashboards", "is", "was", "has", "dont", "doesnt", "Im", "ive", "their", "there",
        "they're", "your", "you're", "its", "it's", "a", "not", "own", "great", "grate", "whole",
        "hole", "in", "loose", "lose", "to", "my", "data", "becouse", "recieve", "shiping", "Dave",
        "Kenji", "Zanzibar", "42", "3.5", "never", "no", " .", " ,", "!", "?", ".The", "\n",
        "shop.example.com/a-tpyo", "`teh dont`", "#teh", "@dont_loose", "x@y.io", "of", "welcome",
        "going", "family", "cheese", "fit", "batteries", "doesn't", "isnt", "grated",
    ];
    let mut rng = fastrand::Rng::with_seed(0x1234_5678_9ABC_DEF1);
    (0..400)
        .map(|_| {
            let mut s = String::new();
            for _ in 0..rng.usize(3..33) {
                if !s.is_empty() && rng.u8(..5) != 0 {
                    s.push(' ');
                }
                s.push_str(PALETTE[rng.usize(..PALETTE.len())]);
            }
            s
        })
        .collect()
}

#[test]
fn numbers_negations_names_and_protected_spans_survive_and_enhancing_is_idempotent() {
    let digits = crate::enhance::digit_runs;
    let negations = |s: &str| {
        s.split(|c: char| !(c.is_alphabetic() || c == '\''))
            .filter(|w| crate::enhance::is_negation(&w.to_lowercase()))
            .count()
    };
    let count = |s: &str, needle: &str| s.matches(needle).count();
    for input in generated() {
        let once = enhance(&input).text;
        assert_eq!(digits(&once), digits(&input), "{input:?} → {once:?}");
        assert_eq!(negations(&once), negations(&input), "{input:?} → {once:?}");
        for kept in [
            "Dave",
            "Kenji",
            "Zanzibar",
            "shop.example.com/a-tpyo",
            "`teh dont`",
            "#teh",
            "@dont_loose",
            "x@y.io",
        ] {
            assert_eq!(
                count(&once, kept),
                count(&input, kept),
                "{kept} in {input:?} → {once:?}"
            );
        }
        assert_eq!(enhance(&once).text, once, "{input:?}");
    }
}
