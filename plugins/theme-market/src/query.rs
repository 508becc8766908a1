//! The query: an Envato Market item URL on any of the marketplace hosts, in the
//! forms a user pastes, or a bare numeric item id.

use gleaner_sdk::address::{Refusal, Site};

/// The Envato Market sites, all on one engine, in the order a bare item id is
/// looked up on them.
pub const MARKETS: &[&str] = &[
    "themeforest.net",
    "codecanyon.net",
    "videohive.net",
    "audiojungle.net",
    "graphicriver.net",
    "photodune.net",
    "3docean.net",
];

/// The Envato Market sites, and what a valid query looks like.
const SITE: Site = Site {
    name: "an Envato Market item URL",
    hosts: MARKETS,
    forms: "use an Envato Market item URL such as \
https://themeforest.net/item/<slug>/<item_id> or https://codecanyon.net/item/<slug>/reviews/<item_id> \
(themeforest.net, codecanyon.net, videohive.net, audiojungle.net, graphicriver.net, photodune.net \
or 3docean.net), or the bare numeric item id",
};

/// An item named by the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The marketplace host (`codecanyon.net`); none for a bare item id.
    pub host: Option<String>,
    /// The item's URL slug; none for a bare item id.
    pub slug: Option<String>,
    /// The numeric item id.
    pub id: String,
}

/// Whether `s` is a numeric item id.
pub fn is_item_id(s: &str) -> bool {
    (1..=12).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_digit())
        && s.bytes().any(|b| b != b'0')
}

/// Reads a query: `https://<market>/item/<slug>/<id>`, `…/item/<slug>/reviews/<id>`,
/// `…/item/<slug>/<id>/comments` (any tab), with or without scheme, `www.`,
/// tracking parameters, fragment or trailing slash; or a bare item id.
pub fn parse(query: &str) -> Result<Target, String> {
    let q = query.trim();
    if is_item_id(q) {
        return Ok(Target {
            host: None,
            slug: None,
            id: q.to_owned(),
        });
    }
    let address = SITE.parse(q).map_err(|refusal| match refusal {
        Refusal::Elsewhere(other)
            if other.host == "envato.com" || other.host.ends_with(".envato.com") =>
        {
            SITE.refuse(
                q,
                format_args!(
                    "is not {} (this source reads Envato Market item reviews; Envato \
                     Elements and the Envato home pages have none)",
                    SITE.name
                ),
            )
        }
        refusal => SITE.refusal(q, &refusal),
    })?;
    let segments = address.segments();
    let not_an_item = || SITE.refuse(q, "is an Envato Market page but not an item page");
    let rest = match segments.split_first() {
        Some((&"item", rest)) if !rest.is_empty() => rest,
        _ => return Err(not_an_item()),
    };
    let id_after_slug = rest[1..].iter().rev().find(|s| is_item_id(s));
    let (slug, id) = match (id_after_slug, rest) {
        (Some(id), _) => (Some(rest[0].to_owned()), (*id).to_owned()),
        (None, [only]) if is_item_id(only) => (None, (*only).to_owned()),
        _ => return Err(not_an_item()),
    };
    Ok(Target {
        host: Some(address.host),
        slug,
        id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(host: &str, slug: Option<&str>, id: &str) -> Target {
        Target {
            host: Some(host.into()),
            slug: slug.map(str::to_owned),
            id: id.into(),
        }
    }

    #[test]
    fn reads_every_pasted_form() {
        let want = item("codecanyon.net", Some("media-folders-manager"), "21715379");
        for q in [
            "https://codecanyon.net/item/media-folders-manager/21715379",
            "https://codecanyon.net/item/media-folders-manager/reviews/21715379",
            "https://codecanyon.net/item/media-folders-manager/reviews/21715379?utf8=%E2%9C%93&reviews_controls%5Bsort%5D=ratings_descending",
            "https://codecanyon.net/item/media-folders-manager/21715379/comments",
            "https://codecanyon.net/item/media-folders-manager/21715379/support?page=2",
            "https://codecanyon.net/item/media-folders-manager/21715379?s_rank=3",
            "https://codecanyon.net/item/media-folders-manager/21715379/?ref=someone#item-description",
            "codecanyon.net/item/media-folders-manager/21715379/",
            "http://www.codecanyon.net/item/media-folders-manager/21715379",
            "  HTTPS://CodeCanyon.net/item/media-folders-manager/21715379  ",
        ] {
            assert_eq!(parse(q), Ok(want.clone()), "{q}");
        }
        for (q, host) in [
            ("https://themeforest.net/item/x/23239259", "themeforest.net"),
            ("https://videohive.net/item/x/23239259", "videohive.net"),
            ("https://audiojungle.net/item/x/23239259", "audiojungle.net"),
            (
                "https://graphicriver.net/item/x/23239259",
                "graphicriver.net",
            ),
            ("https://photodune.net/item/x/23239259", "photodune.net"),
            ("https://3docean.net/item/x/23239259", "3docean.net"),
        ] {
            assert_eq!(parse(q), Ok(item(host, Some("x"), "23239259")), "{q}");
        }
        assert_eq!(
            parse("https://themeforest.net/item/23239259"),
            Ok(item("themeforest.net", None, "23239259"))
        );
        assert_eq!(
            parse("https://themeforest.net/item/2048-game/23239259"),
            Ok(item("themeforest.net", Some("2048-game"), "23239259"))
        );
    }

    #[test]
    fn reads_a_bare_id() {
        assert_eq!(
            parse(" 23239259 "),
            Ok(Target {
                host: None,
                slug: None,
                id: "23239259".into()
            })
        );
        assert!(parse("0").is_err());
        assert!(parse("1234567890123").is_err());
    }

    #[test]
    fn refuses_other_sites_and_pages_saying_what_is_valid() {
        for q in [
            "https://www.trustpilot.com/review/example.com",
            "https://elements.envato.com/some-template-ABC123",
            "https://themeforest.net/category/wordpress",
            "https://themeforest.net/user/qboxus",
            "https://themeforest.net/item/no-id-here",
            "https://themeforest.net/",
            "ftp://themeforest.net/item/x/1",
            "not a url",
            "",
        ] {
            let e = parse(q).unwrap_err();
            assert!(
                e.contains("https://themeforest.net/item/<slug>/<item_id>"),
                "{q}: {e}"
            );
        }
        assert!(parse("https://elements.envato.com/x")
            .unwrap_err()
            .contains("Envato Elements"));
        assert!(parse("https://themeforest.net/category/wordpress")
            .unwrap_err()
            .contains("not an item page"));
    }

    #[test]
    fn the_manifest_agrees_with_the_site() {
        SITE.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
