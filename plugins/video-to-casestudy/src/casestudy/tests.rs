use super::units::split;
use super::*;

/// Realistic speech-recognition transcripts (lower case, unpunctuated)
/// from different industries, then a punctuated one.
const TRANSCRIPTS: &[&str] = &[
    // software / marketing analytics
    "hi um my name is sarah jones and i'm the head of marketing at bluefin analytics uh we \
     started using acme crm about two years ago and honestly it cut our reporting time by 40 \
     percent before that we used to spend like every friday pulling numbers out of five \
     different spreadsheets by hand and it was really frustrating um the setup took a week \
     and our account manager tom was amazing and now the whole team gets the dashboard every \
     monday morning so yeah i would definitely recommend acme crm to any marketing team",
    // dental clinic
    "um hi this is mike torres from harbor dental group uh so before we used to spend like \
     three hours every day on the phone confirming appointments and it was honestly really \
     frustrating for the front desk team and then we switched to smilebook and um set up \
     automated text reminders and now no shows dropped by 30 percent and we saved about 15 \
     hours a week so yeah i would definitely recommend it to any practice",
    // restaurant
    "yeah so i'm the owner of casa verde which is a family restaurant in austin um we were \
     struggling with online orders you know the tablets were a mess and we lost orders every \
     weekend so about a year ago we started using orderly and honestly the setup took one \
     afternoon now everything comes into one screen and our online sales grew 25 percent in \
     the first six months the staff loves it",
    // logistics
    "hi i'm priya patel i'm an operations manager at northwind logistics uh before we had \
     like five different spreadsheets to track shipments and people spent hours reconciling \
     them it was really difficult to know where anything was um so last spring we rolled out \
     trackpoint across our 3 warehouses and the onboarding was pretty painless and now we \
     reduced late deliveries by 18 percent and um our team has way more time for customers",
    // school
    "so um i teach eighth grade science at lincoln middle school and uh grading used to take \
     me every weekend it was exhausting and then our district rolled out gradewell last fall \
     and uh now i finish grading in like two hours instead of ten and my students get \
     feedback the next day which they love honestly it gave me my weekends back",
    // punctuated
    "Hi, I'm Dana Lee, VP of Operations at Greenfield Health. Before Acme Scheduler, our \
     nurses spent 6 hours a week building rosters by hand. It was slow and frustrating. We \
     switched to Acme Scheduler in March and rolled it out to all 12 clinics. Now rosters \
     take 20 minutes, and we cut overtime costs by 15%. Honestly, I'd recommend it to any \
     clinic that's struggling with scheduling.",
];

use super::unescape;

/// Checks tag balance, a single `<article>` root, known tags only,
/// quoted attributes and escaped text.
fn assert_well_formed(html: &str) {
    const TAGS: &[&str] = &["article", "h1", "h2", "p", "span", "section", "blockquote"];
    let mut stack: Vec<&str> = Vec::new();
    let (mut roots, mut i) = (0, 0);
    loop {
        let lt = html[i..].find('<').map_or(html.len(), |p| i + p);
        let text = &html[i..lt];
        assert!(!text.contains('>'), "stray '>' in {text:?}");
        assert!(
            !stack.is_empty() || text.trim().is_empty(),
            "text outside root: {text:?}"
        );
        for (p, _) in text.match_indices('&') {
            let ok = ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"];
            assert!(
                ok.iter().any(|e| text[p..].starts_with(e)),
                "bare & in {text:?}"
            );
        }
        if lt == html.len() {
            break;
        }
        let gt = lt + html[lt..].find('>').expect("unclosed tag");
        let inner = &html[lt + 1..gt];
        if let Some(name) = inner.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name), "mismatched </{name}>");
        } else {
            let name = inner.split(' ').next().unwrap_or("");
            assert!(TAGS.contains(&name), "unexpected tag <{inner}>");
            assert_eq!(
                inner.matches('"').count() % 2,
                0,
                "unquoted attribute <{inner}>"
            );
            roots += usize::from(stack.is_empty());
            stack.push(name);
        }
        i = gt + 1;
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1);
    assert!(html.starts_with("<article class=\"case-study\">"));
}

/// Texts between `open` and the next `close`.
fn between<'a>(html: &'a str, open: &str, close: &str) -> Vec<&'a str> {
    html.split(open)
        .skip(1)
        .filter_map(|rest| rest.split(close).next())
        .collect()
}

fn assert_grounded(transcript: &str, html: &str) {
    for heading in ["Challenge", "Solution", "Results"] {
        assert!(
            html.contains(&format!("<section><h2>{heading}</h2>")),
            "{heading}"
        );
    }
    let quotes = between(html, "<blockquote class=\"pull-quote\"><p>", "</p>");
    assert!(quotes.len() <= 3);
    for q in quotes {
        assert!(
            transcript.contains(&unescape(q)),
            "quote not verbatim: {q:?}"
        );
    }
    for section in between(html, "<section>", "</section>") {
        for p in between(section, "<p>", "</p>") {
            let p = unescape(p);
            assert!(p == "Not described in the interview." || transcript.contains(&p));
        }
    }
    // every digit run of the text content occurs in the transcript
    let mut text = String::new();
    for (n, part) in html.split('<').enumerate() {
        text.push(' ');
        text.push_str(if n == 0 {
            part
        } else {
            part.split_once('>').map_or("", |p| p.1)
        });
    }
    let text = unescape(&text);
    for run in text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|r| !r.is_empty())
    {
        assert!(transcript.contains(run), "number {run} not in transcript");
    }
    // title words beyond the template occur in the transcript
    let title = unescape(between(html, "<h1>", "</h1>")[0]).to_lowercase();
    let lower = transcript.to_lowercase();
    for w in title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        assert!(
            ["how", "with", "customer", "story"].contains(&w) || lower.contains(w),
            "{w}"
        );
    }
}

#[test]
fn transcripts_give_grounded_well_formed_case_studies() {
    for t in TRANSCRIPTS {
        let html = case_study_html(t);
        println!("{html}");
        assert_well_formed(&html);
        assert_grounded(t, &html);
        assert!(html.contains("<p class=\"summary\">"));
        assert!(html.contains("<blockquote class=\"pull-quote\">"), "{t:?}");
        assert_eq!(html, case_study_html(t), "deterministic");
    }
}

#[test]
fn customer_fields_come_from_the_speaker() {
    let html = case_study_html(TRANSCRIPTS[0]);
    assert!(html.contains("<span class=\"customer-name\">Sarah Jones</span>"));
    assert!(html.contains("<span class=\"customer-position\">Head of Marketing</span>"));
    assert!(html.contains("<span class=\"customer-organisation\">Bluefin Analytics</span>"));
    assert!(html
        .contains("<h1>How Bluefin Analytics cut reporting time by 40 percent with Acme CRM</h1>"));
    let html = case_study_html(TRANSCRIPTS[2]);
    assert!(html.contains("<h1>Customer story: Casa Verde</h1>"));
    assert!(!html.contains("customer-name"));
    let html = case_study_html(TRANSCRIPTS[4]);
    assert!(html.contains("<h1>Customer story</h1>") && !html.contains("class=\"customer\""));
}

#[test]
fn case_study_names_the_customer_not_the_interviewer() {
    let labelled = "Host: Hi, I'm Mia Novak from Crateful. Who are you?\n\
        Guest: I'm Arjun Das, purchasing manager at Saffron Street Kitchens.\n\
        Host: What was hard before?\n\
        Guest: We used to lose two days a week to paper orders. Now it takes an hour.";
    let unlabelled = "hi i'm leo park from crateful and i'm here with zoe adams the owner \
        of zest bakery zoe what changed we used to order by phone and now it takes minutes";
    for (t, name, org) in [
        (labelled, "Arjun Das", "Saffron Street Kitchens"),
        (unlabelled, "Zoe Adams", "Zest Bakery"),
    ] {
        let html = case_study_html(t);
        assert_well_formed(&html);
        assert_grounded(t, &html);
        assert!(
            html.contains(&format!("<span class=\"customer-name\">{name}</span>"))
                && html.contains(&format!(
                    "<span class=\"customer-organisation\">{org}</span>"
                )),
            "{html}"
        );
        assert!(
            !html.contains("Mia Novak") && !html.contains("Leo Park"),
            "{html}"
        );
    }
    let html = case_study_html(labelled);
    assert!(
        !html.contains("Host:") && !html.contains("Who are you"),
        "{html}"
    );
}

#[test]
fn transcript_text_is_escaped() {
    let t = "um so before we used to paste <script>alert(\"x\") & more</script> into every \
             report by hand and it was really slow and painful for the whole team. \
             i'm the ceo of o'brien & sons";
    let html = case_study_html(t);
    assert_well_formed(&html);
    assert_grounded(t, &html);
    assert!(!html.contains("<script"), "{html}");
    assert!(html.contains("&lt;script&gt;alert(&quot;x&quot;) &amp; more&lt;/script&gt;"));
    assert!(html.contains("O&#39;Brien &amp; Sons"), "{html}");
}

#[test]
fn empty_or_cue_less_transcripts_get_placeholders() {
    for t in ["", "  \n ", "hello there", "我们很喜欢这个产品。"] {
        let html = case_study_html(t);
        assert_well_formed(&html);
        assert_grounded(t, &html);
        assert!(html.contains("<h1>Customer story</h1>"));
        assert_eq!(
            html.matches("<p>Not described in the interview.</p>")
                .count(),
            3
        );
        assert!(!html.contains("blockquote"));
    }
}

#[test]
fn a_pull_quote_without_positive_sentences() {
    let t = "um so we used to track every job by hand in paper notebooks and the office \
             spent hours retyping them and it was slow and then last year we switched to \
             fieldpad for all of our crews";
    let html = case_study_html(t);
    assert_well_formed(&html);
    assert_grounded(t, &html);
    let quotes = between(&html, "<blockquote class=\"pull-quote\"><p>", "</p>");
    assert_eq!(quotes.len(), 1);
    assert!(quotes[0].ends_with("we switched to fieldpad for all of our crews"));
}

#[test]
fn long_sentences_are_split_into_verbatim_chunks() {
    let t = TRANSCRIPTS[0];
    let units = units(t);
    assert!(units.len() >= 6, "{units:?}");
    for r in units {
        let n = t[r.clone()].split_whitespace().count();
        assert!((1..=33).contains(&n), "{:?}", &t[r]);
    }
    let norm: Vec<String> = (0..70).map(|i| format!("w{i}")).collect();
    let pieces = split(&norm);
    assert!(
        pieces.iter().all(|p| p.len() <= 33 && !p.is_empty()),
        "{pieces:?}"
    );
    assert_eq!(pieces.first().map(|p| p.start), Some(0));
    assert_eq!(pieces.last().map(|p| p.end), Some(70));
}

#[test]
fn never_panics_on_noisy_input() {
    const PALETTE: &[&str] = &[
        "we ",
        "cut ",
        "our ",
        "time ",
        "by ",
        "40 ",
        "percent ",
        "% ",
        "saved ",
        "hours ",
        "from ",
        "to ",
        "my name is ",
        "i'm the ceo of ",
        "acme ",
        "um ",
        "so ",
        "and ",
        ". ",
        "<",
        ">",
        "&",
        "\"",
        "'",
        "\u{0}",
        "\u{7}",
        "\u{FFFF}",
        "é",
        "\u{301}",
        "😀",
        "日本",
        "\n",
        "  ",
        "love ",
        "started using ",
        "before ",
        "used to ",
        "1,000 ",
        "3.5",
    ];
    let mut rng = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15);
    for _ in 0..400 {
        let t: String = (0..rng.usize(..90))
            .map(|_| PALETTE[rng.usize(..PALETTE.len())])
            .collect();
        let html = case_study_html(&t);
        assert_well_formed(&html);
        assert_grounded(&t, &html);
    }
}
