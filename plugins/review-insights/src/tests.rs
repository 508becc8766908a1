use super::*;

fn input(text: &str) -> Input {
    Input {
        review_text: text.into(),
        ..Input::default()
    }
}

#[test]
fn an_english_review_gets_every_insight() {
    let found = insights(&Input {
        review_id: Some("r-1".into()),
        review_rating: Some(5.0),
        ..input("The staff were wonderful and the room was spotless. We loved every minute of our stay.")
    })
    .unwrap();
    assert_eq!(found.review_id, "r-1");
    assert_eq!(found.language.as_deref(), Some("en"));
    assert!(found.language_confidence.unwrap() > 0.5);
    let sentiment = found.sentiment.unwrap();
    assert_eq!(sentiment.label, Label::Positive);
    assert!(sentiment.score > 0.5);
    assert_eq!(found.rating_mismatch, Some(false));
    assert!(!found.keywords.is_empty());
    assert!(found.notices.is_empty(), "{:?}", found.notices);
}

#[test]
fn five_stars_on_a_clearly_negative_text_is_a_mismatch() {
    let found = insights(&Input {
        review_rating: Some(5.0),
        ..input("Terrible service, rude staff and a filthy room. The worst hotel I have ever stayed in.")
    })
    .unwrap();
    assert_eq!(found.sentiment.unwrap().label, Label::Negative);
    assert_eq!(found.rating_mismatch, Some(true));
}

#[test]
fn a_rating_above_its_scale_names_the_field() {
    let err = insights(&Input {
        review_rating: Some(6.0),
        ..input("Fine.")
    })
    .unwrap_err();
    assert!(err.contains("`review_rating`"), "{err}");
    assert!(insights(&Input {
        review_rating: Some(9.0),
        rating_scale_max: Some(10.0),
        ..input("Fine.")
    })
    .is_ok());
}

#[test]
fn a_short_text_has_no_language_unless_given() {
    let found = insights(&input("Great stay!")).unwrap();
    assert_eq!(found.language, None);
    assert_eq!(found.sentiment, None);
    assert_eq!(found.notices.len(), 1, "{:?}", found.notices);
    let given = insights(&Input {
        language: Some("EN-gb".into()),
        review_rating: Some(1.0),
        ..input("Great stay!")
    })
    .unwrap();
    assert_eq!(given.language.as_deref(), Some("en"));
    assert_eq!(given.language_confidence, Some(1.0));
    assert_eq!(given.sentiment.unwrap().label, Label::Positive);
    assert_eq!(given.rating_mismatch, Some(true));
}

#[test]
fn a_language_without_a_model_answers_null_with_notices() {
    let found = insights(&Input {
        review_rating: Some(5.0),
        ..input("호텔 방은 매우 깨끗했고 직원들은 아주 친절했습니다. 다시 오고 싶어요.")
    })
    .unwrap();
    assert_eq!(found.language.as_deref(), Some("ko"));
    assert_eq!(found.sentiment, None);
    assert_eq!(found.rating_mismatch, None);
    assert!(found.keywords.is_empty());
    assert_eq!(found.notices.len(), 2, "{:?}", found.notices);
}

#[test]
fn chinese_and_japanese_are_scored_without_keywords() {
    for (text, tag, label) in [
        (
            "房间非常干净，服务员也很热情，下次还会再来。",
            "zh",
            Label::Positive,
        ),
        (
            "质量太差了，用了两天就坏了，非常失望，不推荐。",
            "zh",
            Label::Negative,
        ),
        (
            "部屋はとても清潔で、スタッフの対応も素晴らしかったです。",
            "ja",
            Label::Positive,
        ),
    ] {
        let found = insights(&Input {
            review_rating: Some(3.0),
            ..input(text)
        })
        .unwrap();
        assert_eq!(found.language.as_deref(), Some(tag), "{text}");
        assert_eq!(found.sentiment.unwrap().label, label, "{text}");
        // Decided in Chinese, not in Japanese.
        let decided = (tag == "zh").then_some(false);
        assert_eq!(found.rating_mismatch, decided, "{text}");
        // YAKE's stop words cover no language written without spaces.
        assert!(found.keywords.is_empty());
        let notices = if tag == "zh" { 1 } else { 2 };
        assert_eq!(found.notices.len(), notices, "{:?}", found.notices);
    }
}

#[test]
fn other_languages_are_scored_in_their_own_lexicon() {
    for (text, tag, label) in [
        (
            "Das Hotel war wirklich toll und das Personal immer sehr freundlich zu uns.",
            "de",
            Label::Positive,
        ),
        (
            "La chambre était sale et le personnel désagréable.",
            "fr",
            Label::Negative,
        ),
        (
            "La comida fue excelente y el servicio muy amable.",
            "es",
            Label::Positive,
        ),
    ] {
        let found = insights(&input(text)).unwrap();
        assert_eq!(found.language.as_deref(), Some(tag), "{text}");
        assert_eq!(found.sentiment.unwrap().label, label, "{text}");
    }
}

#[test]
fn a_mismatch_is_not_decided_on_one_scorer() {
    let found = insights(&Input {
        review_rating: Some(1.0),
        ..input("Das Hotel war wirklich toll und das Personal immer sehr freundlich zu uns.")
    })
    .unwrap();
    assert_eq!(found.sentiment.unwrap().label, Label::Positive);
    assert_eq!(found.rating_mismatch, None);
    assert_eq!(found.notices.len(), 1, "{:?}", found.notices);
    assert!(found.notices[0].contains("rating_mismatch is decided in en, es, zh only"));
}

#[test]
fn praise_then_the_defect_is_mixed_not_a_mismatch() {
    for (text, mismatch) in [
        (
            "I love it, it is adorable and the perfect size! But the glass part arrived cracked.",
            false,
        ),
        (
            "Love this drink. Does give me energy when needed and no crash. Will be ordering more.",
            true,
        ),
    ] {
        let found = insights(&Input {
            review_rating: Some(1.0),
            ..input(text)
        })
        .unwrap();
        assert_eq!(found.rating_mismatch, Some(mismatch), "{text}");
    }
}

#[test]
fn english_is_the_mean_of_its_sentences() {
    let text = "The box is blue and the manual has forty pages. Don't buy!";
    let parts = [
        "The box is blue and the manual has forty pages.",
        "Don't buy!",
    ];
    let mean = parts
        .iter()
        .map(|part| sentiment::scores("en", part).unwrap().sentiment.score)
        .sum::<f64>()
        / 2.0;
    let answered = sentiment::score("en", text).unwrap();
    assert!(
        (answered.score - mean).abs() < 1e-4,
        "{answered:?} against {mean}"
    );
    assert_eq!(answered.label, Label::Negative);
    // Other languages answer the whole text's score.
    let text = "Das Hotel war toll. Das Frühstück war leider kalt.";
    let whole = sentiment::scores("de", text).unwrap();
    assert_eq!(sentiment::score("de", text), Some(whole.sentiment));
}
