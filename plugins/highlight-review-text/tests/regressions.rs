//! One test per class of error the highlighter used to make.

use plugin_highlight_review_text::highlight::{acceptable, best_span};

fn marked(text: &str) -> Option<&str> {
    best_span(text).map(|h| &text[h.start..h.end])
}

#[test]
fn superlatives_outside_the_word_list_are_praise() {
    assert_eq!(
        marked("Honestly the slickest onboarding flow I've ever seen in a SaaS tool."),
        Some("Honestly the slickest onboarding flow I've ever seen in a SaaS tool.")
    );
    assert_eq!(
        marked("We moved over in March. It is the most dependable scheduler our clinic has used."),
        Some("It is the most dependable scheduler our clinic has used.")
    );
    assert_eq!(
        marked("The latest version ships with the manual in a box."),
        None
    );
}

#[test]
fn spelled_out_outcomes_are_found() {
    assert_eq!(
        marked("We set it up in April. Our payroll run went from nine hours to under two."),
        Some("Our payroll run went from nine hours to under two.")
    );
}

#[test]
fn value_statements_are_praise() {
    assert_eq!(
        marked("The reports alone are worth every penny for a team our size."),
        Some("The reports alone are worth every penny for a team our size.")
    );
    assert_eq!(
        marked("I pay for the pro plan. Easily worth the £12 a month for the hours it gives back."),
        Some("Easily worth the £12 a month for the hours it gives back.")
    );
}

#[test]
fn recommendations_and_denied_faults_are_praise() {
    assert_eq!(
        marked("If you run a small shop on a tight budget, give it a try."),
        Some("If you run a small shop on a tight budget, give it a try.")
    );
    assert_eq!(
        marked("I can't recommend this plumber enough to my neighbours."),
        Some("I can't recommend this plumber enough to my neighbours.")
    );
    assert_eq!(
        marked("We host four shops on it. It has never failed us in six years of daily use."),
        Some("It has never failed us in six years of daily use.")
    );
    assert_eq!(
        marked("Setup was quick and there were no hidden costs at any point."),
        Some("Setup was quick and there were no hidden costs at any point.")
    );
    // A denied fault is praise; a denied virtue is not.
    assert_eq!(
        marked("The support was not helpful at all and not fast either."),
        None
    );
}

#[test]
fn wishes_and_requests_after_not_perfect_are_hedges() {
    for text in [
        "It's not perfect. I'd love a dark mode and better keyboard shortcuts for power users.",
        "Not perfect, but I wish the mobile app had offline mode and faster sync.",
        "Not perfect yet. It would be nice if exports were faster and the charts were prettier.",
        "Not perfect. We would love to see a great calendar view added in the next release.",
        "Not perfect. Please add an easy way to export everything to CSV for our accountants.",
    ] {
        assert_eq!(marked(text), None, "{text}");
    }
    // The praise before the wish is still found.
    assert_eq!(
        marked("The editor is fast and reliable for our whole team. I wish it had a dark mode."),
        Some("The editor is fast and reliable for our whole team.")
    );
}

#[test]
fn spans_never_cross_an_emoji_or_a_line_break() {
    let text = "Checked in late 🌙 the staff were lovely and the room was spotless and quiet";
    assert_eq!(
        marked(text),
        Some("the staff were lovely and the room was spotless and quiet")
    );
    let text = "Great value for money\nthe staff were friendly and helpful all week long";
    assert_eq!(
        marked(text),
        Some("the staff were friendly and helpful all week long")
    );
    let text =
        "The tutorials are clear and really useful.Consistent performance across all regions.";
    let m = marked(text).expect("a span");
    assert!(!m.contains("useful.C"), "{m}");
    // A proposed span across the emoji is refused too.
    let text = "Best support team ever 🙌 they fixed our billing in an hour";
    assert!(!acceptable(text, 0..text.len()));
}

#[test]
fn a_whole_sentence_of_30_to_39_characters_may_be_the_span() {
    let text = "Support is friendly and helpful. Delivery took a week.";
    assert_eq!(marked(text), Some("Support is friendly and helpful."));
    let short = "Support is friendly and helpful.";
    assert!(acceptable(short, 0..short.len()));
    // A clause that short is not a sentence: refused.
    let text = "Support is friendly and helpful, and the delivery took a whole week.";
    assert!(!acceptable(text, 0..31));
}

#[test]
fn outcomes_measured_in_time_or_money_are_found() {
    assert_eq!(
        marked("We switched in May. It saves our team hours every week on invoicing."),
        Some("It saves our team hours every week on invoicing.")
    );
}

#[test]
fn inflected_praise_in_other_languages_is_found() {
    assert_eq!(
        marked("Excelentes productos y muy buena atención del vendedor."),
        Some("Excelentes productos y muy buena atención del vendedor.")
    );
}
