//! The website processors against recorded-style sites (HAR fixtures) and local
//! servers: /features/domain-to-asset and /public/v1/wol-meta-info.

use crate::common;

use serde_json::{json, Value};

const ASSET: &str = "/features/domain-to-asset";
const WOL: &str = "/public/v1/wol-meta-info";

fn contrast(a: &str, b: &str) -> f64 {
    let lum = |hex: &str| {
        let c = |i: usize| {
            let v = u8::from_str_radix(&hex[i..i + 2], 16).unwrap() as f64 / 255.0;
            if v <= 0.04045 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * c(1) + 0.7152 * c(3) + 0.0722 * c(5)
    };
    let (x, y) = (lum(a), lum(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

fn is_hex(v: &Value) -> bool {
    v.as_str().is_some_and(|s| {
        s.len() == 7 && s.starts_with('#') && s[1..].chars().all(|c| c.is_ascii_hexdigit())
    })
}

#[tokio::test]
async fn domain_to_asset_finds_logo_favicon_and_colours() {
    let s = common::start(&["domain-to-asset"], |_| {}).await;
    let (status, body) = s
        .post(ASSET, json!({"query": "bluefin-analytics.com"}))
        .await;
    assert_eq!(
        status, 400,
        "the bare domain has no recording, www. has: {body}"
    );

    let (status, body) = s
        .post(
            ASSET,
            json!({"query": "https://www.bluefin-analytics.com/"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["logo_url"], "https://www.bluefin-analytics.com/brand/logo.svg",
        "schema.org logo before header logos"
    );
    assert_eq!(
        body["favicon_url"], "https://www.bluefin-analytics.com/favicon-32x32.png",
        "the apple-touch-icon declared 180x180 is really 16x16: real sizes rank"
    );
    let (bg, button) = (
        body["widget_page_background_color"].as_str().unwrap(),
        body["widget_button_color"].as_str().unwrap(),
    );
    assert_eq!(button, "#0b5fff", "theme-color");
    assert!(contrast(bg, button) >= 3.0);
    assert_eq!(body.as_object().unwrap().len(), 4);

    let (status, body) = s
        .post(ASSET, json!({"query": "corner-bakery.example"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["logo_url"],
        "https://corner-bakery.example/images/corner-bakery.png"
    );
    assert_eq!(
        body["favicon_url"],
        "https://corner-bakery.example/favicon.ico"
    );
    assert_eq!(
        body["logo_url"],
        "https://corner-bakery.example/images/corner-bakery.png"
    );
    assert!(
        is_hex(&body["widget_button_color"]),
        "colour from the logo's dominant colour: {body}"
    );
    assert!(
        contrast(
            body["widget_page_background_color"].as_str().unwrap(),
            body["widget_button_color"].as_str().unwrap()
        ) >= 3.0
    );

    let (status, body) = s
        .post(ASSET, json!({"query": "https://studio-nine.example"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["favicon_url"],
        Value::Null,
        "a 404 icon and a 1-pixel /favicon.ico are both discarded: {body}"
    );
}

#[tokio::test]
async fn website_processors_read_the_page_given() {
    let s = common::start(&["domain-to-asset", "wol-meta-info"], |_| {}).await;
    let post = "https://www.bluefin-analytics.com/blog/weekly-digests";
    let (status, body) = s.post(ASSET, json!({ "query": post })).await;
    assert_eq!(status, 200, "the article itself is read: {body}");
    assert_eq!(
        body["logo_url"], "https://www.bluefin-analytics.com/brand/logo-header.svg",
        "the lazy-loaded header logo, not its data: stand-in, the 1x1 GIF before it, \
         the tracking pixel, the press badge or the article's og:image"
    );
    assert_eq!(
        body["favicon_url"], "https://www.bluefin-analytics.com/favicon-32x32.png",
        "the Safari mask icon is not a favicon"
    );

    let (status, body) = s
        .post(
            WOL,
            json!({"email": "ops@bluefin-analytics.com", "website": post}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    assert_eq!(data["website"], post);
    assert_eq!(
        data["site_title"], "Weekly digests, rewritten",
        "og:title without the site name"
    );
    assert_eq!(
        data["source_title"],
        "Weekly digests, rewritten – Bluefin Analytics"
    );
    assert!(
        data["site_description"]
            .as_str()
            .unwrap()
            .starts_with("Weekly digests now lead with"),
        "og:description before the meta description: {data}"
    );
    assert_eq!(
        data["brand_name"], "Bluefin Analytics",
        "the brand from the home page, not the blog's title"
    );
}

#[tokio::test]
async fn domain_to_asset_favicon_only_and_errors() {
    let s = common::start(&["domain-to-asset"], |_| {}).await;
    let (status, body) = s
        .post(
            ASSET,
            json!({"query": "https://www.bluefin-analytics.com", "favicon_only": true}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["favicon_url"],
        "https://www.bluefin-analytics.com/favicon-32x32.png"
    );
    assert!(
        body["logo_url"].is_null()
            && body["widget_button_color"].is_null()
            && body["widget_page_background_color"].is_null()
    );

    let (status, body) = s
        .post(ASSET, json!({"query": "https://moved.example"}))
        .await;
    assert_eq!(status, 200, "redirects are followed: {body}");

    for (query, needle) in [
        (
            json!({"query": "https://api.json-only.example/"}),
            "did not answer with an HTML page",
        ),
        (json!({"query": "not a domain"}), "is not a website"),
        (
            json!({"query": "https://unreachable.example/"}),
            "could not be read",
        ),
        (json!({"query": ""}), "`query` is empty"),
        (json!({"favicon_only": true}), "`query` is required"),
        (
            json!({"query": "x.com", "favicon_only": "yes"}),
            "`favicon_only` must be a boolean, not a string",
        ),
    ] {
        let (status, body) = s.post(ASSET, query.clone()).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains(needle),
            "{query}: {body}"
        );
    }
}

#[tokio::test]
async fn website_processors_refuse_private_addresses_and_redirects_to_them() {
    let router = axum::Router::new().route(
        "/",
        axum::routing::get(|| async {
            (
                axum::http::StatusCode::FOUND,
                [("location", "http://127.0.0.1:1/admin")],
            )
        }),
    );
    let addr = common::upstream(router).await;
    let s = common::start(&["domain-to-asset", "wol-meta-info"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert("redirects-inside.example".into(), format!("http://{addr}"));
    })
    .await;
    for target in [
        "http://127.0.0.1:8080",
        "http://169.254.169.254",
        "http://[::1]",
        "http://10.0.0.8",
        "http://redirects-inside.example",
    ] {
        let (status, body) = s.post(ASSET, json!({"query": target})).await;
        assert_eq!(status, 400, "{target}: {body}");
        let e = body["error"].as_str().unwrap();
        assert!(
            e.contains("denied") && e.contains("public"),
            "{target}: {e}"
        );
        let (status, body) = s
            .post(WOL, json!({"email": "a@b.co", "website": target}))
            .await;
        assert_eq!(status, 400);
        assert_eq!(body["success"], false);
        assert!(
            body["message"].as_str().unwrap().contains("denied"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn wol_meta_info_optimises_titles_and_descriptions() {
    let s = common::start(&["wol-meta-info"], |_| {}).await;
    let (status, body) = s.post(WOL, json!({"email": "ops@bluefin-analytics.com", "website": "https://www.bluefin-analytics.com"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], 200);
    assert_eq!(body["success"], true);
    assert!(body["message"].is_string());
    let data = &body["data"];
    assert_eq!(data["brand_name"], "Bluefin Analytics");
    for (field, max) in [
        ("site_title", 60),
        ("wol_title", 60),
        ("site_description", 155),
        ("wol_description", 155),
    ] {
        let v = data[field].as_str().unwrap();
        assert!(!v.is_empty() && v.chars().count() <= max, "{field}: {v}");
        assert!(!v.ends_with(' '), "{field}");
    }
    assert!(data["wol_title"]
        .as_str()
        .unwrap()
        .contains("Bluefin Analytics"));
    let description = data["site_description"].as_str().unwrap();
    let source = data["source_description"].as_str().unwrap();
    assert!(
        source.starts_with(description.trim_end_matches(['.', ','])),
        "cut at a word boundary of the source"
    );

    let (status, body) = s
        .post(
            WOL,
            json!({"email": "hello@corner-bakery.example", "website": "corner-bakery.example"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["brand_name"], "Corner Bakery");
}

#[tokio::test]
async fn wol_meta_info_errors_are_structured() {
    let s = common::start(&["wol-meta-info"], |_| {}).await;
    for (req, needle) in [
        (
            json!({"email": "not-an-email", "website": "https://www.bluefin-analytics.com"}),
            "`email`",
        ),
        (json!({"email": "a@b.co"}), "`website` is required"),
        (
            json!({"email": "a@b.co", "website": "https://api.json-only.example/"}),
            "HTML",
        ),
        (
            json!({"email": "a@b.co", "website": "ftp://x"}),
            "not a website",
        ),
    ] {
        let (status, body) = s.post(WOL, req.clone()).await;
        assert_eq!(status, 400, "{req}: {body}");
        assert_eq!(body["status"], 400);
        assert_eq!(body["success"], false);
        assert_eq!(body["data"], json!({}));
        assert!(
            body["message"].as_str().unwrap().contains(needle),
            "{req}: {body}"
        );
        assert!(body.get("error").is_none(), "structured shape only");
    }
}

#[tokio::test]
async fn favicon_only_makes_fewer_requests() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let hits = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let (log, counter) = (hits.clone(), count.clone());
    let page = r#"<html><head><title>Shop</title><link rel="icon" href="/icon.png"><link rel="manifest" href="/m.json"></head>
        <body><header><img class="logo" src="/logo.png"></header></body></html>"#;
    let png = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAALUlEQVR42u3OIQEAAAgDsHeiNSUhxs3E/LKTa4qAgICAgICAgICAgICAgEA78PuocGrQt40XAAAAAElFTkSuQmCC",
    )
    .unwrap();
    let router = axum::Router::new().fallback(move |uri: axum::http::Uri| {
        let (log, counter, png) = (log.clone(), counter.clone(), png.clone());
        async move {
            counter.fetch_add(1, Ordering::SeqCst);
            log.lock().unwrap().push(uri.path().to_owned());
            let ok = axum::http::StatusCode::OK;
            match uri.path() {
                "/" => (
                    ok,
                    [("content-type", "text/html")],
                    page.as_bytes().to_vec(),
                ),
                "/m.json" => (
                    ok,
                    [("content-type", "application/json")],
                    br##"{"name":"Shop","theme_color":"#aa3300"}"##.to_vec(),
                ),
                "/icon.png" | "/logo.png" => (ok, [("content-type", "image/png")], png),
                _ => (
                    axum::http::StatusCode::NOT_FOUND,
                    [("content-type", "text/html")],
                    b"not found".to_vec(),
                ),
            }
        }
    });
    let addr = common::upstream(router).await;
    let s = common::start(&["domain-to-asset"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert("shop.example".into(), format!("http://{addr}"));
    })
    .await;
    let (status, body) = s
        .post(
            ASSET,
            json!({"query": "shop.example", "favicon_only": true}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["favicon_url"], "https://shop.example/icon.png");
    let mut seen = hits.lock().unwrap().clone();
    seen.sort();
    assert_eq!(
        seen,
        [
            "/",
            "/apple-touch-icon-precomposed.png",
            "/apple-touch-icon.png",
            "/favicon.ico",
            "/icon.png"
        ],
        "the page and the favicon candidates only, each once"
    );
    let before = count.load(Ordering::SeqCst);
    let (_, body) = s.post(ASSET, json!({"query": "shop.example"})).await;
    assert_eq!(
        body["widget_button_color"], "#aa3300",
        "manifest theme colour: {body}"
    );
    assert!(
        count.load(Ordering::SeqCst) - before > 2,
        "the full answer also reads the manifest"
    );
}
