//! Unit tests of [`super`]: spans, bounds, languages, markup and noisy input.

use super::*;

fn marked(text: &str) -> Option<&str> {
    best_span(text).map(|h| &text[h.start..h.end])
}

const REVIEWS: &[&str] = &[
    "We switched our whole team to this tool last spring. Honestly the onboarding was painless and support answered every question within minutes. Would use again.",
    "The dashboard looks nice and the support team is helpful. Within a month we saved 3 hours a week on reporting and cut errors by 40%.",
    "The delivery was slow and the box arrived damaged. However, the sound quality is excellent and I would recommend it to anyone who travels.",
    "Terrible experience. The app crashed twice and support never answered my emails.",
    "It might be okay for some people, I guess. Maybe it works on other phones, I think it's probably fine.",
    "ok",
    "Livraison rapide. Le service client est vraiment génial, je recommande cette boutique à tous mes amis !",
    "Compré estos auriculares para el gimnasio y la calidad del sonido es increíble, los recomiendo a todos.",
    "Die Lieferung kam pünktlich an. Die Kamera ist einfach toll und die Bildqualität ist ausgezeichnet, ich kann sie nur empfehlen.",
    "素晴らしい製品です！😀👍 とても速い。配送も早かったです。",
    "🚀🚀🚀 best app ever 👍🏽👍🏽 — seriously the easiest invoicing tool I have used in ten years!!!",
    "“This is the best purchase I have made all year,” my wife said. I agree.",
    "Pros:\n- setup took five minutes and everything worked perfectly out of the box\n- cheap",
    "I love it",
    "The room was clean, the staff were friendly, the breakfast was fantastic, the pool was great, the view was amazing, and the location was perfect for exploring the old town on foot every single day of our stay.",
    "",
    "   \n\n  ",
    "Price was $49 and I got 3 extra licences for the team within 2 days of asking.",
];

#[test]
fn english_praise_sentence_is_marked() {
    assert_eq!(
        marked(REVIEWS[0]),
        Some("Honestly the onboarding was painless and support answered every question within minutes.")
    );
    assert_eq!(
        highlight("Great app. I love how easy it is to share reports with my whole team!"),
        "Great app. <mark>I love how easy it is to share reports with my whole team!</mark>"
    );
}

#[test]
fn numeric_outcome_sentence_wins() {
    assert_eq!(
        marked(REVIEWS[1]),
        Some("Within a month we saved 3 hours a week on reporting and cut errors by 40%.")
    );
    assert_eq!(
        marked("Support is friendly and helpful. The new version is 40% faster than the old one on our big files."),
        Some("The new version is 40% faster than the old one on our big files.")
    );
}

#[test]
fn positive_clause_wins_in_mixed_review() {
    let m = marked(REVIEWS[2]).unwrap();
    assert_eq!(
        m,
        "the sound quality is excellent and I would recommend it to anyone who travels."
    );
}

#[test]
fn negative_hedged_and_short_reviews_are_unchanged() {
    for text in [
        REVIEWS[3],
        REVIEWS[4],
        REVIEWS[5],
        REVIEWS[13],
        REVIEWS[15],
        REVIEWS[16],
    ] {
        assert_eq!(best_span(text), None, "{text:?}");
        assert_eq!(highlight(text), text);
    }
    let hedged = "The app is kind of great for small teams, and the design seems excellent to me.";
    assert_eq!(best_span(hedged), None);
    let negated = "The support was not helpful at all and I would never recommend it to anyone.";
    assert_eq!(best_span(negated), None);
}

#[test]
fn french_spanish_and_german_praise_is_recognised() {
    assert_eq!(
        marked(REVIEWS[6]),
        Some("Le service client est vraiment génial, je recommande cette boutique à tous mes amis")
    );
    assert_eq!(marked(REVIEWS[7]), Some(REVIEWS[7]));
    assert_eq!(
        marked(REVIEWS[8]),
        Some("Die Kamera ist einfach toll und die Bildqualität ist ausgezeichnet, ich kann sie nur empfehlen.")
    );
    assert!(
        marked("Produit parfait, livré en deux jours, super qualité et prix correct.").is_some()
    );
}

#[test]
fn spans_trim_emoji_quotes_and_list_markers() {
    assert_eq!(
        marked(REVIEWS[10]),
        Some("seriously the easiest invoicing tool I have used in ten years!!!")
    );
    assert_eq!(
        marked(REVIEWS[11]),
        Some("“This is the best purchase I have made all year,” my wife said.")
    );
    assert_eq!(
        marked(REVIEWS[12]),
        Some("setup took five minutes and everything worked perfectly out of the box")
    );
    assert_eq!(
        marked(REVIEWS[17]),
        Some("Price was $49 and I got 3 extra licences for the team within 2 days of asking.")
    );
}

#[test]
fn ties_go_to_the_earliest_span() {
    let text = "The support team was great with every request. The billing team was great with every request.";
    assert_eq!(
        marked(text),
        Some("The support team was great with every request.")
    );
    // Several runs of clauses reach the praise cap; the earliest wins.
    assert_eq!(
        marked(REVIEWS[14]),
        Some("The room was clean, the staff were friendly, the breakfast was fantastic, the pool was great")
    );
}

#[test]
fn cjk_and_emoji_do_not_panic() {
    for text in [
        REVIEWS[9],
        "👍",
        "é",
        "日本語 の テキスト です よ ね 😀😀",
        "a\u{301} b\u{200D} c",
    ] {
        let _ = highlight(text);
    }
}

/// Deterministic pseudo-random strings over awkward characters.
fn noisy_inputs() -> Vec<String> {
    #[rustfmt::skip]
    const PALETTE: &[&str] = &[
        "great", " ", "\n\n", ".", "!", "?", ",", " — ", " - ", "and", "but", "not", "best",
        "saved", "40%", "3", "é", "日本", "😀", "👍🏽", "\u{301}", "$", "“", "”", "1.", "love", "we",
        "the", "team", "excellent", "。", "：", "•", "\n", "🙌", "❤️", "useful.Great", "from", "to",
        "nine", "never", "failed", "I'd love", "would be nice", "the slickest", "ever seen", "worth",
    ];
    let mut rng = fastrand::Rng::with_seed(0x2545_F491_4F6C_DD1D);
    (0..400)
        .map(|_| {
            (0..rng.usize(..60))
                .map(|_| format!("{} ", PALETTE[rng.usize(..PALETTE.len())]))
                .collect()
        })
        .collect()
}

#[test]
fn removing_the_tags_restores_the_text_and_spans_obey_bounds() {
    let mut inputs: Vec<String> = REVIEWS.iter().map(|s| s.to_string()).collect();
    inputs.extend(noisy_inputs());
    let mut marked_count = 0;
    for text in &inputs {
        let out = highlight(text);
        let restored = out.replacen("<mark>", "", 1).replacen("</mark>", "", 1);
        assert_eq!(&restored, text);
        if let Some(h) = best_span(text) {
            marked_count += 1;
            assert!(text.is_char_boundary(h.start) && text.is_char_boundary(h.end));
            let span = &text[h.start..h.end];
            assert_eq!(
                out,
                format!("{}<mark>{span}</mark>{}", &text[..h.start], &text[h.end..])
            );
            assert_eq!(span, span.trim());
            let words = span
                .split(|c: char| c.is_whitespace() || DASHES.contains(&c))
                .filter(|w| w.chars().any(char::is_alphanumeric))
                .count();
            assert!((MIN_WORDS..=MAX_WORDS).contains(&words), "{span:?}");
            assert!(
                (MIN_WHOLE_CHARS..=MAX_CHARS).contains(&span.chars().count()),
                "{span:?}"
            );
            // Shorter than 40 characters only as a whole sentence, which
            // the same rules as a proposed span check.
            assert!(acceptable(text, h.start..h.end), "{span:?}");
            let first = span.chars().next().unwrap_or(' ');
            assert!(
                first.is_alphanumeric()
                    || CURRENCIES.contains(&first)
                    || OPENERS.iter().any(|&(o, _)| o == first),
                "{span:?}"
            );
            assert!(h.score >= MIN_SCORE);
        } else {
            assert_eq!(&out, text);
        }
    }
    assert!(marked_count >= 10, "only {marked_count} inputs were marked");
}

#[test]
fn deterministic() {
    for text in REVIEWS {
        assert_eq!(best_span(text), best_span(text));
    }
}

#[test]
fn proposed_spans_are_checked_by_the_same_rules() {
    let text =
        "We cut our month-end close from 10 days to 3 days with this tool. Support was not great.";
    let good = "We cut our month-end close from 10 days to 3 days with this tool.";
    let start = text.find(good).unwrap();
    assert!(acceptable(text, start..start + good.len()));
    let bad = "Support was not great.";
    let start = text.find(bad).unwrap();
    assert!(
        !acceptable(text, start..start + bad.len()),
        "negated and too short"
    );
    assert!(!acceptable(text, 0..text.len()), "spans two sentences");
    assert!(!acceptable(text, 1..3000), "out of range");
}

#[test]
fn markup_is_never_cut() {
    let text = "<b>Great</b> service &amp; the team resolved our billing issue within two days. \
                Highly recommended to every small business owner we know.";
    let marked = highlight(text);
    let start = marked.find("<mark>").expect("a span is marked");
    let end = marked.find("</mark>").unwrap();
    let inside = &marked[start + 6..end];
    assert!(!inside.contains('<') && !inside.contains('&'), "{marked}");
    assert!(marked.starts_with("<b>Great</b>"), "{marked}");
    assert_eq!(marked.replace("<mark>", "").replace("</mark>", ""), text);
    for (i, _) in text.match_indices(['<', '&']) {
        assert!(
            !acceptable(text, i..i + 45),
            "a span starting in markup at {i}"
        );
    }
}

#[test]
fn a_sentence_after_a_leading_conjunction_is_whole_for_both_checks() {
    // 34 characters: long enough only as a whole sentence, which the span
    // is once the leading "But" is left out, for `acceptable` as for `best_span`.
    let text = "But the support team was very helpful.";
    let start = text.find("the").unwrap();
    assert!(acceptable(text, start..text.len()));
    assert!(!acceptable(text, start..text.find(" helpful").unwrap()));
}
