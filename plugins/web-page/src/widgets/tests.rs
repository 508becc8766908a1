//! Detection on the fixture pages, and the hosts a widget may reach.

use super::*;

fn detected(html: &str) -> Vec<Widget> {
    detect(html, &Html::parse_document(html))
}

const SAMPLES: &[(&str, &str)] = &[
    (
        "yotpo",
        include_str!("../../tests/samples/widgets/yotpo.html"),
    ),
    (
        "judge.me",
        include_str!("../../tests/samples/widgets/judgeme.html"),
    ),
    (
        "trustpilot",
        include_str!("../../tests/samples/widgets/trustpilot.html"),
    ),
    (
        "reviews.io",
        include_str!("../../tests/samples/widgets/reviewsio.html"),
    ),
    (
        "stamped",
        include_str!("../../tests/samples/widgets/stamped.html"),
    ),
    (
        "okendo",
        include_str!("../../tests/samples/widgets/okendo.html"),
    ),
];

#[test]
fn each_vendor_is_detected_with_its_ids_and_no_other() {
    for (vendor, html) in SAMPLES {
        let found = detected(html);
        assert_eq!(found.len(), 1, "{vendor}: {found:?}");
        assert_eq!(found[0].vendor().name(), *vendor);
    }
    assert_eq!(
        detected(SAMPLES[0].1)[0],
        Widget::Yotpo {
            app_key: "Kx7TqP2mWvR9aZ4bNc1D".into(),
            product: "7406592065583".into()
        }
    );
    assert_eq!(
        detected(SAMPLES[5].1)[0].first(),
        Position::Url(
            "https://api.okendo.io/v1/stores/3f9c2a1e-5b7d-4c8e-9a0b-1c2d3e4f5a6b/products/shopify-7788990011223/reviews?limit=25"
                .into()
        )
    );
}

#[test]
fn a_marker_without_ids_is_no_widget() {
    // Script mentions alone (as other apps' scripts make them) are not widgets.
    let page = r#"<html><script src="https://static.klaviyo.com/onsite.js">var probe = ["yotpo", "okendo", "judge.me", "stamped.io"];</script>
<div class="trustpilot-widget" data-businessunit-id="not-an-id"></div></html>"#;
    assert!(detected(page).is_empty());
}

#[test]
fn a_widget_reaches_its_vendor_alone() {
    for url in [
        "https://evil.example/v1/widget/k/products/1/reviews.json",
        "http://api-cdn.yotpo.com/v1/widget/k/products/1/reviews.json",
        "https://api-cdn.yotpo.com.evil.example/x",
    ] {
        let e = get(Vendor::Yotpo, url).unwrap_err();
        assert!(
            matches!(&e, FetchError::Upstream(m) if m.contains("not on yotpo's endpoint")),
            "{url}: {e:?}"
        );
    }
}

#[test]
fn pages_end_at_the_vendor_total() {
    assert_eq!(next_page(1, 20, Some(23), 20, 1), Some(Position::Page(2)));
    assert_eq!(next_page(2, 20, Some(23), 3, 1), None);
    assert_eq!(next_page(1, 20, None, 20, 1), Some(Position::Page(2)));
    assert_eq!(
        next_page(3, 20, None, 0, 1),
        None,
        "an empty page ends the walk"
    );
    assert_eq!(next_page(0, 50, Some(60), 50, 0), Some(Position::Page(1)));
}
