//! The wall-of-love adapters against this plugin's samples (the
//! recorded Shapo wall and the documented shapes of the other products).

mod shapo {
    use gleaner_wall_of_love::shapo::{parse_wall, review};
    use serde_json::Value;

    const SAMPLE: &str =
        include_str!("../tests/samples/shapo-wall-of-love-testimonials-first30.json");

    const WALL: &str = "https://shapo.io/wall-of-love/c5cf604cf7";

    fn sample() -> Value {
        serde_json::from_str(SAMPLE).unwrap()
    }

    #[test]
    fn maps_every_real_testimonial() {
        let page = parse_wall(&sample(), WALL, "c5cf604cf7", None).unwrap();
        assert_eq!(page.reviews.len(), 30);
        assert_eq!(page.meta.total_reviews, Some(30));
        assert!(page.next_cursor.is_none());
        let first = &page.reviews[0];
        assert_eq!(first.id, "66ac0a54bcccaa3b98ff2a56");
        assert_eq!(first.rating, Some(5.0));
        assert_eq!(first.date.as_deref(), Some("2024-08-01T22:09:42.218Z"));
        assert_eq!(first.media.len(), 1);
        assert_eq!(first.media[0].media_type, "image");
        assert_eq!(first.review_url.as_deref(), Some(WALL));
    }

    #[test]
    fn maps_video_items_without_text_or_rating() {
        let all = sample();
        let video = &all["testimonials"][2];
        let r = review(video, WALL).unwrap();
        assert!(r.text.is_none());
        assert_eq!(r.rating, None);
        assert_eq!(r.author_title.as_deref(), Some("ნებისწერის ფიდბექი"));
        assert_eq!(
            r.media[0].url,
            "https://stream.mux.com/nv3eyDqEjTGqCdd6BNDPgOgzxV68VwJncbKl7wh3dBU.m3u8"
        );
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["source"], "importedVideo");
        assert_eq!(
            extra["video_thumbnail_url"],
            "https://image.mux.com/nv3eyDqEjTGqCdd6BNDPgOgzxV68VwJncbKl7wh3dBU/thumbnail.jpg"
        );
    }
}

mod senja {
    use gleaner_sdk::Text;
    use gleaner_wall_of_love::senja::parse_config;
    use serde_json::Value;

    const URL: &str =
        "https://widget.senja.io/api/widget-config/6a0c4b74-527a-4058-bded-8a358821c1a0";

    const SAMPLE: &str = include_str!("../tests/samples/senja-widget-config.json");

    #[test]
    fn maps_the_documented_shape() {
        let config: Value = serde_json::from_str(SAMPLE).unwrap();
        let page = parse_config(&config, "w", URL).unwrap();
        assert!(page.reviews.len() >= 3);
        let first = &page.reviews[0];
        assert!(matches!(first.text, Some(Text::Html(_))));
        assert!(first.author_name.is_some());
        assert!(first.review_url.is_some());
        let extra: Value = serde_json::from_str(&first.extra_json).unwrap();
        assert!(extra["integration"].is_string());
    }
}

mod endorsal {
    use gleaner_sdk::Text;
    use gleaner_wall_of_love::endorsal::parse_page;
    use gleaner_wall_of_love::Offset;
    use serde_json::Value;

    const ID: &str = "6170695a0ba50c5cda9f3337";

    const PAGE_1: &str = include_str!("../tests/samples/endorsal-wall-page-0.json");

    #[test]
    fn maps_a_full_page_and_continues() {
        let answer: Value = serde_json::from_str(PAGE_1).unwrap();
        let page = parse_page(&answer, ID, 0, "u").unwrap();
        assert_eq!(page.reviews.len(), 20);
        let next: Offset =
            gleaner_sdk::cursor::decode(page.next_cursor.as_deref().unwrap()).unwrap();
        assert_eq!(next.offset, 20);
        let first = &page.reviews[0];
        assert!(matches!(first.text, Some(Text::Plain(_))));
        assert!(first.rating.is_some());
        assert!(first.date.is_some());
    }
}

mod testimonial_to {
    use gleaner_sdk::Text;
    use gleaner_wall_of_love::testimonial_to::parse_embed;

    const PAGE: &str = include_str!("../tests/samples/testimonial-to-embed-20.html");

    #[test]
    fn maps_cards_of_the_documented_markup() {
        let page = parse_embed(PAGE, "acme-example", "all", 0, "https://e/").unwrap();
        assert_eq!(page.reviews.len(), 20);
        assert!(page.next_cursor.is_some());
        let first = &page.reviews[0];
        assert_eq!(first.id, "0b6c1c52-4f0e-4f43-9d36-6f1f3a0a0001");
        assert_eq!(first.author_name.as_deref(), Some("Ada Example"));
        assert_eq!(first.author_title.as_deref(), Some("CTO at Example Labs"));
        assert!(matches!(first.text, Some(Text::Html(ref h)) if h.contains("<br>")));
        assert_eq!(first.date.as_deref(), Some("2024-03-01"));
        assert_eq!(first.media.len(), 1);
        let video = page
            .reviews
            .iter()
            .find(|r| r.media.iter().any(|m| m.media_type == "video"))
            .unwrap();
        assert!(video.media[0].url.starts_with("https://stream.mux.com/"));
        let past = parse_embed(PAGE, "acme-example", "all", 20, "https://e/").unwrap();
        assert!(past.reviews.is_empty());
        assert!(past.next_cursor.is_none());
    }
}

mod common {
    use gleaner_sdk::http::Response;
    use gleaner_sdk::FetchError;
    use gleaner_wall_of_love::common::missing;

    const CHALLENGE: &str = include_str!("../tests/samples/bot-challenge.html");

    fn answer(status: u16, body: &str) -> Response {
        gleaner_sdk::testing::response(status, "https://shapo.io/wall-of-love/x", body)
    }

    #[test]
    fn a_2xx_page_is_blocked_only_when_it_is_a_wall() {
        let changed = || FetchError::Upstream("layout changed".into());
        let e = missing(&answer(200, CHALLENGE), "Shapo wall page", changed());
        assert!(
            matches!(&e, FetchError::Blocked(m) if m.contains("HTTP 200 with a Cloudflare bot challenge")),
            "{e:?}"
        );
        let sensor = "<html><title>Wall of Love</title><script src=\"/cdn-cgi/challenge-platform/scripts/jsd/main.js\"></script></html>";
        assert!(matches!(
            missing(&answer(200, sensor), "x", changed()),
            FetchError::Upstream(m) if m == "layout changed"
        ));
    }
}
