//! Statement patterns, casing, other people, language and robustness.

use super::*;

/// Value and evidence of `f`, after checking the evidence is verbatim at `start`.
fn get(t: &str, f: &Option<Found>) -> (String, String) {
    f.as_ref().map_or(("-".into(), "-".into()), |f| {
        assert_eq!(
            t.get(f.start..f.start + f.evidence.len()),
            Some(&*f.evidence)
        );
        (f.value.clone(), f.evidence.clone())
    })
}

fn pair(value: &str, evidence: &str) -> (String, String) {
    (value.into(), evidence.into())
}

#[test]
fn bluefin_example_with_evidence() {
    let t = "hi um my name is sarah jones and i'm the head of marketing at bluefin \
        analytics uh we started using acme crm about two years ago and honestly it cut our \
        reporting time by 40 percent";
    let s = speaker(t);
    assert_eq!(
        get(t, &s.name),
        pair("Sarah Jones", "my name is sarah jones")
    );
    assert_eq!(
        get(t, &s.position),
        pair("Head of Marketing", "i'm the head of marketing")
    );
    let org = pair(
        "Bluefin Analytics",
        "i'm the head of marketing at bluefin analytics",
    );
    assert_eq!(get(t, &s.organisation), org);
    assert_eq!(s.product.as_deref(), Some("Acme CRM"));
    assert_eq!(s.language, "en");
    assert!((s.confidence - 1.0).abs() < 1e-9 && s.other_people.is_empty());

    let t = "um this is mike torres from harbor dental group and we love it";
    let s = speaker(t);
    assert_eq!(get(t, &s.name), pair("Mike Torres", "this is mike torres"));
    let org = pair(
        "Harbor Dental Group",
        "this is mike torres from harbor dental group",
    );
    assert_eq!(get(t, &s.organisation), org);

    let t = "hey everyone dana lee here from northwind logistics";
    let s = speaker(t);
    assert_eq!(get(t, &s.name), pair("Dana Lee", "dana lee here"));
    assert!((s.confidence - 0.65).abs() < 1e-9);
}

#[test]
fn no_self_introduction_gives_none() {
    let t = "so um the tool is great we save a lot of time every week and honestly the \
        support team is really responsive i would recommend it";
    let s = speaker(t);
    assert_eq!((s.name, s.organisation, s.position), (None, None, None));
    assert_eq!(s.confidence, 0.0);
    assert!(s.other_people.is_empty());
}

/// transcript | name | organisation | position ("-": none).
const CASES: &str = "\
    i'm really happy with how it went | - | - | -
    honestly i'm so glad we switched | - | - | -
    i am super excited um about the new dashboard | - | - | -
    i'm the one who pushed for it | - | - | -
    yeah i'm stoked and i'm working on it | - | - | -
    hi i'm priya patel uh i'm an operations manager at northwind | Priya Patel | Northwind | Operations Manager
    my name's will and i'm a nurse | Will | - | Nurse
    my name is um sorry my name is carlos | Carlos | - | -
    my name is dr amanda cole i'm a dentist at bright smile dental | Dr Amanda Cole | Bright Smile Dental | Dentist
    i work at riverside clinic as a nurse | - | Riverside Clinic | Nurse
    i work as a product manager for orbit labs | - | Orbit Labs | Product Manager
    so i'm bluefin's ceo | - | Bluefin | CEO
    i lead the data team at orbit labs | - | Orbit Labs | Head of Data
    i founded green leaf bakery | - | Green Leaf Bakery | Founder
    as the vp of sales of acme corp i | - | Acme Corp | VP of Sales
    i'm the ceo and co-founder of lumen labs | - | Lumen Labs | CEO and Co-Founder
    i'm the owner of casa verde which is a restaurant | - | Casa Verde | Owner
    i'm the head of it at the home depot | - | Home Depot | Head of IT
    i work for a small company | - | - | -
    i run a bakery and i own the relationship | - | - | -";

#[test]
fn statement_patterns() {
    for line in CASES.lines() {
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        let s = speaker(f[0]);
        let got = [&s.name, &s.organisation, &s.position].map(|x| get(f[0], x).0);
        assert_eq!(got, [f[1], f[2], f[3]], "{:?}", f[0]);
    }
}

#[test]
fn cased_transcript_keeps_values_as_written() {
    let t = "Hi, I'm Sarah Jones, VP of Sales at Northwind Traders. We switched to Zendesk \
        last year. Our account manager, Tom Reed, was great.";
    let s = speaker(t);
    assert_eq!(get(t, &s.name), pair("Sarah Jones", "I'm Sarah Jones"));
    assert_eq!(
        get(t, &s.position),
        pair("VP of Sales", "I'm Sarah Jones, VP of Sales")
    );
    let org = pair(
        "Northwind Traders",
        "I'm Sarah Jones, VP of Sales at Northwind Traders",
    );
    assert_eq!(get(t, &s.organisation), org);
    assert_eq!(s.product.as_deref(), Some("Zendesk"));
    assert_eq!(s.other_people, ["Tom Reed"]);
    assert!((s.confidence - 0.85).abs() < 1e-9);
}

#[test]
fn other_people_products_and_language() {
    let t = "um our account manager jessica was amazing and our ceo loves it we moved from \
        spreadsheets to shiftly last year";
    let s = speaker(t);
    assert_eq!(s.other_people, ["Jessica"]);
    assert_eq!(s.product.as_deref(), Some("Shiftly"));
    assert_eq!(
        speaker("we started using it and we use a lot of spreadsheets").product,
        None
    );
    assert_eq!(speaker("").language, "unknown");
    assert_eq!(
        speaker("hola me llamo ana y trabajo en una empresa").language,
        "unknown"
    );
    assert_eq!(speaker("我叫李华，我在一家公司工作").language, "unknown");
}

#[test]
fn title_case_examples() {
    let cases = [
        ("sarah jones", "Sarah Jones"),
        ("acme corp", "Acme Corp"),
        ("head of it", "Head of IT"),
        ("ceo and co-founder", "CEO and Co-Founder"),
        ("the home depot", "The Home Depot"),
        ("o'brien mcdonald", "O'Brien McDonald"),
        ("sarah's  iPhone", "Sarah's  iPhone"),
        ("éloïse ödegaard (uk)", "Éloïse Ödegaard (UK)"),
        ("", ""),
    ];
    for (input, expected) in cases {
        assert_eq!(title_case(input), expected);
    }
}

#[test]
fn never_panics_and_evidence_is_verbatim() {
    const PALETTE: &[&str] = &[
        "i'm ",
        "my name is ",
        "the ",
        "head of ",
        "ceo ",
        "at ",
        "of ",
        "’s ",
        "'s ",
        "um ",
        "sarah ",
        "É",
        "\u{301}",
        "😀",
        "日本 ",
        "-",
        ".",
        ",",
        "\n",
        "&",
        "here from ",
        "i ",
        "lead ",
        "acme ",
        "x",
        " ",
        "'",
        "founded ",
        "our rep ",
        "this is ",
        "as the ",
        "Interviewer: ",
        "\nSpeaker 2: ",
        "\nZoé Ng: ",
        "Dr. ",
        "doctor ",
        "here with ",
        "i'm talking to ",
        "? ",
        "called ",
        "HelpDesk ",
        "with ",
        "we ",
        "using ",
        "y ",
        "und ",
        "\n[00:01] ",
        "SPEAKER_01: ",
        "(0:",
        "she's the ",
        "my role is ",
    ];
    let mut rng = fastrand::Rng::with_seed(0x2545_F491_4F6C_DD1D);
    for _ in 0..2000 {
        let t: String = (0..rng.usize(..30))
            .map(|_| PALETTE[rng.usize(..PALETTE.len())])
            .collect();
        let s = speaker(&t);
        for f in [&s.name, &s.organisation, &s.position] {
            get(&t, f);
        }
        assert!((0.0..=1.0).contains(&s.confidence));
        let _ = title_case(&t);
    }
}

#[test]
fn tokens_within_spans_in_one_pass() {
    let tokens = [0..2, 3..5, 6..9, 10..12, 13..15];
    let spans = [10..15, 2..9, 3..6];
    assert_eq!(
        within(tokens.iter().cloned(), &spans),
        [false, true, true, true, true]
    );
    assert_eq!(within(tokens.iter().cloned(), &[]), [false; 5]);
}

#[test]
fn thousands_of_turns_keep_their_roles() {
    let text =
        "Interviewer: So how was it?\nDana Lee: It saved us ten hours a week.\n".repeat(3000);
    let spans = interviewer_spans(&text);
    assert_eq!(spans.len(), 3000, "every interviewer turn, and only those");
    // A span runs from the turn's first word to its last.
    assert!(spans.iter().all(|r| &text[r.clone()] == "So how was it"));
}
