//! One test per class of error fixed in [`super::speaker`].

use super::speaker;

/// Name, organisation, position and product, "-" for none.
fn fields(t: &str) -> [String; 4] {
    let s = speaker(t);
    let v = |f: &Option<super::Found>| f.as_ref().map_or("-".into(), |f| f.value.clone());
    [
        v(&s.name),
        v(&s.organisation),
        v(&s.position),
        s.product.unwrap_or_else(|| "-".into()),
    ]
}

fn check(cases: &[(&str, [&str; 4])]) {
    for (t, want) in cases {
        assert_eq!(fields(t), want.map(String::from), "{t:?}");
    }
}

#[test]
fn speaker_labels_pick_the_customer_not_the_interviewer() {
    check(&[
        (
            "Interviewer: Can you tell us who you are?\n\
             Hugo Lambert: I'm the IT manager at Rosewood Hotels.\n\
             Interviewer: Why did you switch to Keyloop?\n\
             Hugo Lambert: Keyloop was the only one our night staff could learn in a day.",
            ["Hugo Lambert", "Rosewood Hotels", "IT manager", "Keyloop"],
        ),
        (
            "Speaker 1: Hi, I'm Anna Kowalski, account manager here at Ledgerline.\n\
             Speaker 2: Thanks Anna. I'm Omar Haddad, controller at Dune Foods.\n\
             Speaker 1: What changed for you?\n\
             Speaker 2: We close the books in two days now.",
            ["Omar Haddad", "Dune Foods", "Controller", "Ledgerline"],
        ),
        (
            "q: so who are you\na: my name is li wei i'm a pharmacist at maple pharmacy\n\
             q: and how is it going\na: great",
            ["Li Wei", "Maple Pharmacy", "Pharmacist", "-"],
        ),
        (
            "Interviewer: so um who are you\n\
             Guest: uh i'm dr ken ito i'm a dentist at bright molar\n\
             Interviewer: and why toothly\n\
             Guest: we switched to toothly and the phones went quiet",
            ["Dr Ken Ito", "Bright Molar", "Dentist", "Toothly"],
        ),
    ]);
}

#[test]
fn interviewer_introducing_a_guest_is_not_the_customer() {
    check(&[
        (
            "Hi, I'm Carla Mendes from Tidewater, and today I'm talking with Felix Braun, \
             the finance director at Alpenglow Travel. Felix, what was the problem?",
            [
                "Felix Braun",
                "Alpenglow Travel",
                "Finance Director",
                "Tidewater",
            ],
        ),
        (
            "hi everyone i'm sam ortiz customer success lead at hopscotch and i'm here with \
             grace liu owner of liu family noodles grace how did it start",
            ["Grace Liu", "Liu Family Noodles", "Owner", "Hopscotch"],
        ),
    ]);
}

#[test]
fn first_speaker_asking_questions_is_the_interviewer() {
    check(&[(
        "I'm Theo Grant with the Brightloom team. So who are you? I'm Imani Cole, \
         the bookkeeper at Redfern Studios, and Brightloom saves me hours.",
        ["Imani Cole", "Redfern Studios", "Bookkeeper", "Brightloom"],
    )]);
}

#[test]
fn honorifics_stay_with_the_name() {
    check(&[
        (
            "Hello, I'm Dr. Nia Osei, chief of surgery at Lakeview General.",
            ["Dr. Nia Osei", "Lakeview General", "Chief of Surgery", "-"],
        ),
        (
            "um hi i'm doctor paul meyer i'm a dentist at oak street dental",
            ["Doctor Paul Meyer", "Oak Street Dental", "Dentist", "-"],
        ),
        (
            "Ms. Ruth Abara here, from Kestrel Academy.",
            ["Ms. Ruth Abara", "Kestrel Academy", "-", "-"],
        ),
        (
            "Dr. Ines Vidal: Our clinic runs on it.\nInterviewer: Which clinic?\n\
             Dr. Ines Vidal: Vidal Eye Care.",
            ["Dr. Ines Vidal", "-", "-", "-"],
        ),
    ]);
}

#[test]
fn well_formed_role_statements_are_caught() {
    check(&[
        (
            "I'm the Chief Operating Officer at Harlow Mills.",
            ["-", "Harlow Mills", "Chief Operating Officer", "-"],
        ),
        (
            "i'm the chief information officer at vantage homes",
            ["-", "Vantage Homes", "Chief Information Officer", "-"],
        ),
        (
            "I lead support at Pebble Robotics.",
            ["-", "Pebble Robotics", "Head of Support", "-"],
        ),
        (
            "i'm head of partnerships for stone and spruce",
            ["-", "Stone and Spruce", "Head of Partnerships", "-"],
        ),
        (
            "As VP of Sales at Corvid Labs, I needed forecasts I could trust.",
            ["-", "Corvid Labs", "VP of Sales", "-"],
        ),
        (
            "I'm Jonas Holm, fleet manager for Nordic Haulage.",
            ["Jonas Holm", "Nordic Haulage", "Fleet Manager", "-"],
        ),
        (
            "i'm a lab supervisor at eastgate labs",
            ["-", "Eastgate Labs", "Lab Supervisor", "-"],
        ),
        (
            "i own a cafe called the daily grind",
            ["-", "Daily Grind", "Owner", "-"],
        ),
    ]);
}

#[test]
fn product_in_punctuated_and_lower_case_text() {
    check(&[
        (
            "Our reps live in DealDesk all day. DealDesk cut our quoting time in half.",
            ["-", "-", "-", "DealDesk"],
        ),
        (
            "we started using shelfwise scanners in june and stock counts are right",
            ["-", "-", "-", "Shelfwise"],
        ),
        (
            "we switched to acme crm last year",
            ["-", "-", "-", "Acme CRM"],
        ),
        (
            "We tried a few. With Quotient, we finally have one view of the pipeline.",
            ["-", "-", "-", "Quotient"],
        ),
        (
            "the booking tool from slotbird was easy to set up",
            ["-", "-", "-", "Slotbird"],
        ),
        (
            "thanks to Beacon's alerts we never miss a delivery",
            ["-", "-", "-", "Beacon"],
        ),
    ]);
}

#[test]
fn non_english_transcripts_give_no_fields() {
    for t in [
        "Hola, soy Marta Ruiz, gerente de ventas en Panadería Sol. Usamos Hornito desde 2021.",
        "hallo ich bin Tim Vogel und ich arbeite bei der Firma Nordlicht mit dem Tool seit Jahren",
        "안녕하세요, 저는 김민수이고 한빛상사의 대표입니다.",
    ] {
        let s = speaker(t);
        assert_eq!(fields(t), ["-", "-", "-", "-"].map(String::from), "{t}");
        assert_eq!(s.language, "unknown");
    }
}

#[test]
fn interviewer_spans_cover_the_interviewer_only() {
    let t = "Hi, I'm Ola Berg from Crateful, and I'm here with Ken Ito, owner of Ito Ramen. \
        We love it.";
    let spans: Vec<&str> = super::interviewer_spans(t)
        .into_iter()
        .map(|r| &t[r])
        .collect();
    assert_eq!(
        spans,
        ["Hi, I'm Ola Berg from Crateful, and I'm here with Ken Ito, owner of Ito Ramen"]
    );
    let t = "Q: Who are you?\nA: I'm Ken.\nQ: Why?\nA: It works.";
    let spans: Vec<&str> = super::interviewer_spans(t)
        .into_iter()
        .map(|r| &t[r])
        .collect();
    assert_eq!(spans, ["Who are you", "Why"]);
    assert!(super::interviewer_spans("I'm Ken Ito, owner of Ito Ramen.").is_empty());
}
