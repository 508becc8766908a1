use super::*;
use crate::webpage::page_meta;

const SAAS: &str = r#"<html><head>
<title>Acme — Customer feedback &amp; reviews for SaaS teams | Acme</title>
<meta name="description" content="Collect, manage and share customer reviews in one place. Acme turns happy customers into social proof with embeddable widgets, a wall of love and review imports from every major platform.">
<meta property="og:site_name" content="Acme"></head><body><h1>Social proof on autopilot</h1></body></html>"#;

const SMALL: &str = "<title>Joe&#39;s Plumbing - Reliable plumbers in Springfield</title><h1>Plumbing done right</h1>";

fn chars(s: &str) -> usize {
    s.chars().count()
}

#[test]
fn cuts_at_word_boundaries() {
    assert_eq!(cut("Hello world foo", 11), "Hello world");
    assert_eq!(cut("Hello world foo", 10), "Hello");
    assert_eq!(cut("Hello, world", 8), "Hello");
    assert_eq!(cut("Acme | Reviews", 7), "Acme");
    assert_eq!(cut("Acme — the best - of all", 8), "Acme");
    assert_eq!(cut("Tools & more", 8), "Tools");
    assert_eq!(cut("Collect and share reviews", 12), "Collect");
    assert_eq!(cut("Proof in minutes, or at once", 14), "Proof");
    assert_eq!(cut("and more", 4), "and");
    assert_eq!(cut("  short \n text ", 60), "short text");
    assert_eq!(cut("ends with a pipe |", 60), "ends with a pipe |");
    assert_eq!(cut("Supercalifragilistic", 5), "");
    assert_eq!(cut("anything", 0), "");
    assert_eq!(cut("Café crème brûlée à la carte", 12), "Café crème");
    assert_eq!(cut("日本語のテキストです", 5), "日本語のテ");
    assert_eq!(cut("🚀 Launch faster today", 8), "🚀 Launch");
}

#[test]
fn cut_respects_max_and_words() {
    let text =
        "Ünïcode wörds, with – dashes | pipes: colons, and 日本語 mixed-in 🚀 emoji text here";
    let collapsed = collapse(text);
    for max in 0..=chars(text) + 2 {
        let out = cut(text, max);
        assert!(chars(&out) <= max, "{max}: {out}");
        assert!(collapsed.starts_with(&out), "{max}: {out}");
        let next = collapsed[out.len()..].chars().next();
        let last = out.chars().last();
        let boundary = out.is_empty()
            || next.is_none_or(|c| !c.is_alphanumeric() || is_cjk(c) || last.is_some_and(is_cjk));
        assert!(boundary, "mid-word at {max}: {out:?}");
        assert!(
            !out.ends_with(DANGLING) && out == out.trim(),
            "{max}: {out:?}"
        );
    }
}

#[test]
fn finds_brands() {
    let meta = page_meta(SAAS, "https://acme.io/");
    assert_eq!(brand(&meta, None, "acme.io").as_deref(), Some("Acme"));
    let small = page_meta(SMALL, "https://joesplumbing.com/");
    assert_eq!(
        brand(&small, None, "www.joesplumbing.com").as_deref(),
        Some("Joe's Plumbing")
    );
    assert_eq!(
        brand(&small, Some("Joe's App"), "joesplumbing.com").as_deref(),
        Some("Joe's App")
    );
    let titled = |t: &str| PageMeta {
        title: Some(t.to_owned()),
        ..PageMeta::default()
    };
    assert_eq!(
        brand(&titled("Pricing – Zapp"), None, "example.com").as_deref(),
        Some("Zapp")
    );
    assert_eq!(
        brand(&titled("Home | Zed Editor"), None, "example.com").as_deref(),
        Some("Zed Editor")
    );
    assert_eq!(
        brand(&titled("Get started: GetAcme CRM"), None, "getacme.com").as_deref(),
        Some("GetAcme CRM")
    );
    assert_eq!(
        brand(&titled("Linear"), None, "linear.app").as_deref(),
        Some("Linear")
    );
    assert_eq!(
        brand(&titled("Welcome"), None, "https://www.shop-kit.co.uk/x").as_deref(),
        Some("Shop-kit")
    );
    let site_name = PageMeta {
        og_site_name: Some(" Home ".into()),
        jsonld_name: Some("Acme GmbH".into()),
        ..PageMeta::default()
    };
    assert_eq!(
        brand(&site_name, None, "acme.de").as_deref(),
        Some("Acme GmbH")
    );
    assert_eq!(brand(&PageMeta::default(), None, "127.0.0.1"), None);
    assert_eq!(brand(&PageMeta::default(), None, ""), None);
}

#[test]
fn optimises_a_saas_site() {
    let seo = optimise(&page_meta(SAAS, "https://acme.io/"), None, None, "acme.io");
    assert_eq!(seo.brand.as_deref(), Some("Acme"));
    assert_eq!(seo.site_title, "Customer feedback & reviews for SaaS teams");
    assert!(chars(&seo.site_description) <= DESCRIPTION_MAX);
    assert!(seo
        .site_description
        .starts_with("Collect, manage and share customer reviews in one place."));
    assert_eq!(seo.wol_title, "Acme Reviews & Testimonials | Wall of Love");
    assert!(seo
        .wol_description
        .starts_with("See what customers say about Acme. Collect, manage"));
    assert!(chars(&seo.wol_description) <= DESCRIPTION_MAX);
    assert!(seo
        .source_description
        .unwrap()
        .ends_with("every major platform."));
    assert_eq!(
        seo.source_title.as_deref(),
        Some("Acme — Customer feedback & reviews for SaaS teams | Acme"),
        "the source text is kept beside the result"
    );
}

#[test]
fn optimises_sparse_and_long_pages() {
    let seo = optimise(
        &page_meta(SMALL, "https://joesplumbing.com/"),
        None,
        None,
        "joesplumbing.com",
    );
    assert_eq!(seo.site_title, "Reliable plumbers in Springfield");
    assert_eq!(seo.site_description, "Joe's Plumbing: Plumbing done right");
    assert_eq!(seo.source_description, None);
    assert_eq!(
        seo.wol_title,
        "Joe's Plumbing Reviews & Testimonials | Wall of Love"
    );
    assert_eq!(
        seo.wol_description,
        "See what customers say about Joe's Plumbing. Plumbing done right"
    );

    let long = PageMeta {
        title: Some(
            "The all-in-one platform to collect, manage and publish testimonials - Acme".into(),
        ),
        og_site_name: Some("Acme".into()),
        ..PageMeta::default()
    };
    let seo = optimise(&long, None, None, "acme.io");
    assert_eq!(
        seo.site_title,
        "The all-in-one platform to collect, manage and publish"
    );
    let long = PageMeta {
        title: Some("Testimonials made simple and beautiful for teams | Acme | Home".into()),
        ..long
    };
    assert_eq!(
        optimise(&long, None, None, "acme.io").site_title,
        "Testimonials made simple and beautiful for teams"
    );

    let first = PageMeta {
        title: Some(
            "Acme | Collect testimonials and turn them into social proof in minutes".into(),
        ),
        ..long.clone()
    };
    let seo = optimise(&first, None, None, "acme.io");
    assert_eq!(
        seo.site_title,
        "Collect testimonials and turn them into social proof"
    );
    let b45 = "A".repeat(40) + " Corp";
    let seo = optimise(
        &PageMeta {
            og_site_name: Some(b45.clone()),
            ..PageMeta::default()
        },
        None,
        None,
        "",
    );
    assert_eq!(seo.wol_title, format!("{b45} Wall of Love"));
    assert_eq!(seo.site_title, b45);
    let b50 = "B".repeat(45) + " Corp";
    let seo = optimise(
        &PageMeta {
            og_site_name: Some(b50),
            ..PageMeta::default()
        },
        None,
        None,
        "",
    );
    assert_eq!(seo.wol_title, "Wall of Love");

    let seo = optimise(&PageMeta::default(), None, None, "");
    assert_eq!(
        (
            seo.brand,
            seo.site_title.as_str(),
            seo.site_description.as_str()
        ),
        (None, "", "")
    );
    assert_eq!(seo.wol_title, "Reviews & Testimonials | Wall of Love");
    assert_eq!(seo.wol_description, "See what customers say.");
    let dotted = PageMeta {
        og_site_name: Some("Acme Inc.".into()),
        ..PageMeta::default()
    };
    assert_eq!(
        optimise(&dotted, None, None, "").wol_description,
        "See what customers say about Acme Inc."
    );
}

#[test]
fn title_prefers_og_title_and_strips_the_site_name() {
    let html = r#"<title>Why we rebuilt our search | The Acme Blog</title>
            <meta property="og:title" content="Why we rebuilt our search - Acme">
            <meta property="og:site_name" content="The Acme Blog">"#;
    let seo = optimise(
        &page_meta(html, "https://acme.io/blog/search"),
        None,
        None,
        "acme.io",
    );
    assert_eq!(seo.site_title, "Why we rebuilt our search");
    assert_eq!(
        seo.source_title.as_deref(),
        Some("Why we rebuilt our search - Acme")
    );
    let strip = |t: &str, names: &[&str]| {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        strip_site_name(t, &names)
    };
    assert_eq!(strip("Home | Zed Editor", &["Zed"]), "Home");
    assert_eq!(
        strip("NYTimes.com: Sanctions lifted", &["nytimes"]),
        "Sanctions lifted"
    );
    assert_eq!(
        strip(
            "Fetch API » Mozilla Hacks",
            &["Mozilla Hacks – the Web developer blog"]
        ),
        "Fetch API"
    );
    assert_eq!(
        strip("Acme: the story of a name", &["Unrelated"]),
        "Acme: the story of a name",
        "no part names the site: kept whole"
    );
    assert_eq!(
        strip("Acme", &["Acme"]),
        "Acme",
        "a title that is only the name stays"
    );
    let home = r#"<title>Acme | Customer reviews on autopilot</title>
            <meta property="og:title" content="Acme"><meta property="og:site_name" content="Acme">"#;
    let seo = optimise(&page_meta(home, "https://acme.io/"), None, None, "acme.io");
    assert_eq!(
        seo.site_title, "Customer reviews on autopilot",
        "an og:title that only names the site gives way to the title"
    );
}

#[test]
fn description_prefers_og_description() {
    let html = r#"<meta name="description" content="Acme blog: news, tips and more.">
            <meta property="og:description" content="How we cut search latency by 80% with a new index.">"#;
    let seo = optimise(
        &page_meta(html, "https://acme.io/blog/search"),
        None,
        None,
        "acme.io",
    );
    assert_eq!(
        seo.site_description,
        "How we cut search latency by 80% with a new index."
    );
    assert_eq!(
        seo.source_description.as_deref(),
        Some(seo.site_description.as_str())
    );
}

#[test]
fn brand_comes_from_the_home_page_when_the_page_differs() {
    let article = page_meta(
        "<title>Ten tips for better reviews | Tips</title>",
        "https://acme.io/blog/tips",
    );
    let home = page_meta(
        r#"<title>Acme</title><meta property="og:site_name" content="Acme Reviews">"#,
        "https://acme.io/",
    );
    let seo = optimise(&article, Some(&home), None, "acme.io");
    assert_eq!(seo.brand.as_deref(), Some("Acme Reviews"));
    assert_eq!(seo.site_title, "Ten tips for better reviews | Tips");
    assert_eq!(
        optimise(&article, None, None, "acme.io").brand.as_deref(),
        Some("Tips"),
        "without the home page the brand comes from the page"
    );
}

#[test]
fn limits_hold_for_any_input() {
    let words = [
        "Acme",
        "|",
        "-",
        "—",
        ":",
        "reviews",
        "日本語",
        "🚀",
        "Supercalifragilisticexpialidocious",
        "&amp;",
        "",
        " ",
    ];
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..400 {
        let mut pick = |n: usize| {
            (0..rng.usize(..16) * n)
                .map(|_| words[rng.usize(..words.len())])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let meta = PageMeta {
            title: Some(pick(4)),
            description: Some(pick(8)),
            og_site_name: Some(pick(1)),
            h1: Some(pick(2)),
            ..PageMeta::default()
        };
        let domain = pick(1);
        let seo = optimise(&meta, None, Some(&domain), &domain);
        assert!(
            chars(&seo.site_title) <= TITLE_MAX && chars(&seo.wol_title) <= TITLE_MAX,
            "{seo:?}"
        );
        assert!(chars(&seo.site_description) <= DESCRIPTION_MAX, "{seo:?}");
        assert!(chars(&seo.wol_description) <= DESCRIPTION_MAX, "{seo:?}");
    }
}
