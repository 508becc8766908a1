//! Tests of page parsing.

use super::css::*;
use super::url::*;
use super::*;

const SAAS: &str = r##"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Acme — Customer feedback &amp; reviews for SaaS teams | Acme</title>
<meta name="description" content="Collect, manage and share   customer reviews.&#10;Acme turns happy customers into social proof.">
<meta property="og:title" content="Acme: Social proof on autopilot">
<meta property="og:description" content="Turn customer love into growth.">
<meta property="og:site_name" content="Acme">
<meta property="og:image" content="/static/og-card.png">
<meta property="og:logo" content="https://cdn.acme.io/brand/logo.svg">
<meta name="twitter:title" content="Acme on Twitter">
<meta name="application-name" content="Acme App">
<meta name="theme-color" media="(prefers-color-scheme: dark)" content="#0b1020">
<meta name="theme-color" content="#4F46E5">
<meta name="msapplication-TileColor" content="#da532c">
<link rel="icon" type="image/x-icon" href="/favicon.ico">
<link rel="icon" type="image/png" sizes="32x32" href="/favicon-32x32.png">
<link rel="icon" type="image/png" sizes="16x16" href="/favicon-16x16.png">
<link rel="apple-touch-icon" sizes="180x180" href="/apple-touch-icon.png">
<link rel="mask-icon" href="/safari-pinned-tab.svg" color="#5bbad5">
<link rel="manifest" href="/site.webmanifest">
<script type="application/ld+json">
{"@context":"https://schema.org","@type":"Organization","name":"Acme Inc.","url":"https://acme.io",
 "logo":{"@type":"ImageObject","url":"https://acme.io/images/acme-logo.png","width":512}}
</script>
<style>
:root { --brand-hue: 243; --color-primary: #4f46e5; --color-primary-foreground: #fff; --accent: var(--pink, #ec4899); }
/* .btn { background: red } */
@media (min-width: 640px) { .btn-primary { background-color: var(--color-primary) !important; } }
.btn-primary:hover { background: #4338ca; }
body { background: #FAFAFA url(/bg.png) no-repeat; }
</style></head><body>
<header class="site-header"><a href="https://acme.io/"><img src="/img/acme-wordmark.svg" alt="Acme"></a>
<nav><a href="/pricing">Pricing</a></nav></header>
<main><h1>  Social proof,
 on autopilot </h1>
<section class="customer-logos"><img src="/logos/stripe.svg" alt="Stripe logo"></section>
<button style="background-color: rgb(79, 70, 229)">Start free</button></main>
<footer><img class="footer-logo" src="/img/acme-mono.png"></footer>
</body></html>"##;

const SMALL: &str = r#"<html><head><title>Joe&#39;s Plumbing - Reliable plumbers in Springfield</title>
<link rel="shortcut icon" href="favicon.ico"></head>
<body><div class="top"><a href="/"><img src="images/joes.jpg" width="200"></a></div>
<p>Call us</p><img src="images/van.jpg"></body></html>"#;

const GRAPH: &str = r#"<html><head><base href="https://static.shop.example/assets/">
<meta property="og:image" content="img/og.png">
<link rel="icon" href="//cdn.shop.example/fav.png" sizes="192x192 any">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
 {"@type":"WebPage","@id":"https://shop.example/#webpage","name":"Home"},
 {"@type":"WebSite","@id":"https://shop.example/#website","name":"Example Shop",
  "publisher":{"@id":"https://shop.example/#organization"}},
 {"@type":["Organization","Brand"],"@id":"https://shop.example/#organization",
  "name":"Example Shop GmbH","logo":{"@id":"https://shop.example/#logo"}},
 {"@type":"ImageObject","@id":"https://shop.example/#logo","contentUrl":"/wp-content/uploads/logo.png"}]}</script>
<script type="application/ld+json">{ not json</script>
<style>:root{--background:0 0% 100%;--primary:222.2 47.4% 11.2%;--primary-foreground:210 40% 98%;
--bs-primary-rgb: 13, 110, 253; --tw-ring-color: #f00}.dark{--primary:210 40% 98%}</style>
</head><body><div role="banner"><svg><title>Menu</title><image xlink:href="/img/mark.png"/></svg></div>
</body></html>"#;

/// Runs `f` on the left side of each `input => want` line; `-` means `None`.
fn table(cases: &str, f: impl Fn(&str) -> Option<String>) {
    for line in cases.lines().filter(|l| l.contains(" => ")) {
        let (input, want) = line.split_once(" => ").unwrap();
        let want = Some(want.trim()).filter(|w| *w != "-");
        assert_eq!(f(input.trim()).as_deref(), want, "{input}");
    }
}

#[test]
fn resolves_urls() {
    table(
        "logo.png => https://example.com/a/b/logo.png
        ./logo.png => https://example.com/a/b/logo.png
        ../img/logo.png => https://example.com/a/img/logo.png
        ../../../../x => https://example.com/x
        /favicon.ico => https://example.com/favicon.ico
        //cdn.example.net/i.png => https://cdn.example.net/i.png
        ?page=2 => https://example.com/a/b/page.html?page=2
        #top => https://example.com/a/b/page.html?x=1
        HTTPS://CDN.X.com:443/a/./b/../c.png?q=1#z => https://cdn.x.com/a/c.png?q=1
        http://x.com:8080 => http://x.com:8080/
        /my logo é.png => https://example.com/my%20logo%20%C3%A9.png
        /a/b/.. => https://example.com/a/
        \\img\\x.png => https://example.com/img/x.png
        javascript:alert(1) => -
        data:image/png;base64,AAAA => -
        mailto:a@b.c => -
        https:// => -
        ftp://x/y => -",
        |href| resolve("https://Example.com/a/b/page.html?x=1#f", href),
    );
    let pairs = [
        (
            "https://example.com",
            "logo.svg",
            Some("https://example.com/logo.svg"),
        ),
        (
            "http://localhost:8080/app/",
            "x",
            Some("http://localhost:8080/app/x"),
        ),
        ("http://[::1]:81/a", "b", Some("http://[::1]:81/b")),
        ("https://example.com/", " \n ", None),
        ("not a url", "/x", None),
        ("ftp://example.com/", "/x", None),
    ];
    for (base, href, want) in pairs {
        assert_eq!(resolve(base, href).as_deref(), want, "{base} {href}");
    }
}

/// One `field: value` line per extracted value.
fn dump(m: &PageMeta) -> String {
    let fields = [
        ("title", &m.title),
        ("description", &m.description),
        ("og_title", &m.og_title),
        ("og_description", &m.og_description),
        ("og_site_name", &m.og_site_name),
        ("og_image", &m.og_image),
        ("og_logo", &m.og_logo),
        ("twitter_title", &m.twitter_title),
        ("twitter_description", &m.twitter_description),
        ("application_name", &m.application_name),
        ("theme_color", &m.theme_color),
        ("tile_color", &m.tile_color),
        ("manifest_url", &m.manifest_url),
        ("jsonld_logo", &m.jsonld_logo),
        ("jsonld_name", &m.jsonld_name),
        ("h1", &m.h1),
    ];
    let mut lines: Vec<String> = fields
        .iter()
        .filter_map(|(k, v)| Some(format!("{k}: {}", v.as_ref()?)))
        .collect();
    for i in &m.icons {
        lines.push(format!(
            "icon: {} {} {:?} {:?}",
            i.rel, i.url, i.sizes, i.mime
        ));
    }
    lines.extend(m.header_logos.iter().map(|l| format!("logo: {l}")));
    lines.extend(m.css_colors.iter().map(|(k, c)| format!("css: {k} {c}")));
    lines.join("\n")
}

fn expect(html: &str, base: &str, want: &str) {
    let want: Vec<&str> = want
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(dump(&page_meta(html, base)), want.join("\n"));
}

#[test]
fn reads_a_saas_landing_page() {
    expect(
        SAAS,
        "https://acme.io/",
        r##"
        title: Acme — Customer feedback & reviews for SaaS teams | Acme
        description: Collect, manage and share customer reviews. Acme turns happy customers into social proof.
        og_title: Acme: Social proof on autopilot
        og_description: Turn customer love into growth.
        og_site_name: Acme
        og_image: https://acme.io/static/og-card.png
        og_logo: https://cdn.acme.io/brand/logo.svg
        twitter_title: Acme on Twitter
        application_name: Acme App
        theme_color: #4f46e5
        tile_color: #da532c
        manifest_url: https://acme.io/site.webmanifest
        jsonld_logo: https://acme.io/images/acme-logo.png
        jsonld_name: Acme Inc.
        h1: Social proof, on autopilot
        icon: icon https://acme.io/favicon.ico None Some("image/x-icon")
        icon: icon https://acme.io/favicon-32x32.png Some((32, 32)) Some("image/png")
        icon: icon https://acme.io/favicon-16x16.png Some((16, 16)) Some("image/png")
        icon: apple-touch-icon https://acme.io/apple-touch-icon.png Some((180, 180)) None
        icon: mask-icon https://acme.io/safari-pinned-tab.svg None None
        logo: https://acme.io/img/acme-wordmark.svg
        logo: https://acme.io/img/acme-mono.png
        css: primary-var #4f46e5
        css: accent-var #ec4899
        css: button #4f46e5
        css: background #fafafa"##,
    );
}

#[test]
fn reads_a_small_business_page() {
    expect(
        SMALL,
        "http://www.joesplumbing.com/index.html",
        "title: Joe's Plumbing - Reliable plumbers in Springfield
        icon: shortcut icon http://www.joesplumbing.com/favicon.ico None None
        logo: http://www.joesplumbing.com/images/joes.jpg",
    );
}

#[test]
fn reads_json_ld_graphs_base_and_channel_variables() {
    // No title: an SVG <title> is not the page's; <base href> applies to relative URLs.
    expect(
        GRAPH,
        "https://shop.example/",
        "og_image: https://static.shop.example/assets/img/og.png
        jsonld_logo: https://static.shop.example/wp-content/uploads/logo.png
        jsonld_name: Example Shop GmbH
        icon: icon https://cdn.shop.example/fav.png Some((192, 192)) None
        logo: https://static.shop.example/img/mark.png
        css: primary-var #0f172a
        css: primary-var #0d6efd
        css: primary-var #f8fafc",
    );
    let arr = r#"<script type="application/ld+json">[{"@type":"WebSite","name":"Site"},
        {"@type":"http://schema.org/LocalBusiness","name":" Bob's  Bakery ","logo":["", "/logo.jpg"]}]</script>"#;
    expect(
        arr,
        "https://bob.example/menu/",
        "jsonld_logo: https://bob.example/logo.jpg
        jsonld_name: Bob's Bakery",
    );
}

#[test]
fn reads_manifests() {
    let json = r##"{"name":"Acme Reviews","short_name":"Acme","theme_color":"#4F46E5","background_color":"white",
      "icons":[{"src":"icons/192.png","sizes":"192x192","type":"image/png"},
               {"src":"/icons/512.png","sizes":"512x512","type":"image/png","purpose":"maskable"},
               {"src":"javascript:x"},{"sizes":"1x1"},{"src":"icons/192.png"}]}"##;
    let m = web_manifest(json, "https://acme.io/static/site.webmanifest").unwrap();
    assert_eq!(m.name.as_deref(), Some("Acme Reviews"));
    assert_eq!(m.short_name.as_deref(), Some("Acme"));
    assert_eq!(m.theme_color.as_deref(), Some("#4f46e5"));
    assert_eq!(m.background_color.as_deref(), Some("#ffffff"));
    assert_eq!(m.icons.len(), 2);
    assert_eq!(m.icons[0].url, "https://acme.io/static/icons/192.png");
    assert_eq!(
        (m.icons[0].rel.as_str(), m.icons[0].sizes),
        ("manifest", Some((192, 192)))
    );
    assert_eq!(m.icons[1].url, "https://acme.io/icons/512.png");
    assert_eq!(m.icons[1].rel, "manifest maskable");
    assert_eq!(web_manifest("[]", "https://a.b/"), None);
    assert_eq!(web_manifest("<html>", "https://a.b/"), None);
    assert_eq!(
        web_manifest("\u{feff}{}", "https://a.b/"),
        Some(WebAppManifest::default())
    );
}

#[test]
fn parses_colors() {
    table(
        "#abc => #aabbcc
        #ABCDEF => #abcdef
        #11223344 => #112233
        #1234 => #112233
        #11223300 => -
        #12345 => -
        #ggg => -
        rgb(0,128,255) => #0080ff
        RGBA(0, 128, 255, 0.5) => #0080ff
        rgb(0 128 255 / 50%) => #0080ff
        rgb(100%, 0%, 0%) => #ff0000
        rgb(300,-5,0) => #ff0000
        rgba(0,0,0,0) => -
        rgb(1,2) => -
        rgb(NaN,0,0) => -
        hsl(120, 100%, 50%) => #00ff00
        hsl(240deg 100% 50%) => #0000ff
        hsl(0.5turn 100% 25%) => #008080
        hsla(-120, 100%, 50%, 1) => #0000ff
        hsl(0, 0%, 100%) => #ffffff
        Navy !important => #000080
        white => #ffffff
        grey => #808080
        whitesmoke => #f5f5f5
        transparent => -
        currentColor => -
        # => -
        rgb( => -
        hsl(10,20%) => -",
        parse_color,
    );
    assert_eq!(parse_color(""), None);
}

fn fuzz_inputs() -> Vec<String> {
    let tokens: Vec<&str> =
        "<¦>¦</¦<a href=\"/\">¦<img src=¦\"¦'¦<header>¦<style>¦{¦}¦;¦--primary:¦var(--¦)¦(¦\
        <script type=application/ld+json>¦[¦]¦{\"@type\":¦\"Organization\"¦\"logo\":¦é¦日本¦🚀¦\
        <meta name=theme-color content=¦#¦rgb(¦/*¦*/¦<link rel=icon href=¦//¦../¦?¦:¦@graph¦x¦ ¦\n¦\
        <svg><image href=¦<title>¦!important¦body{background:¦.btn{background:¦%"
            .split('¦')
            .collect();
    let mut rng = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15);
    let mut out = vec![String::new(), "[".repeat(5000), "{\"a\":".repeat(3000)];
    for _ in 0..300 {
        out.push(
            (0..rng.usize(..60))
                .map(|_| tokens[rng.usize(..tokens.len())])
                .collect(),
        );
    }
    out
}

#[test]
fn never_panics() {
    for input in fuzz_inputs() {
        let _ = page_meta(&input, "https://example.com/");
        let _ = page_meta(&input, &input);
        let _ = web_manifest(&input, "https://example.com/m.json");
        let _ = parse_color(&input);
        let _ = resolve("https://example.com/a/", &input);
        let _ = resolve(&input, "x");
        let _ = css_colors(&css_rules(&input));
    }
}
