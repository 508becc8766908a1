//! The query: a G2 product URL or a testimonial wall URL, told apart by host.

use gleaner_sdk::address::{Address, Site};
use gleaner_wall_of_love::{self as walls, Wall};

/// The G2 URL form, for messages.
pub const G2_FORM: &str = "https://www.g2.com/products/<product>/reviews";

/// G2's hosts and its URL form.
const G2: Site = Site {
    name: "a G2 address",
    hosts: &["g2.com"],
    forms: G2_FORM,
};

/// What a query points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A G2 product, by its slug.
    G2 {
        /// The product slug (the path segment after `/products/`).
        slug: String,
    },
    /// A testimonial wall on one of the wall products.
    Wall(Wall),
}

/// Resolves a pasted URL (scheme optional; tracking parameters, fragments and
/// trailing slashes ignored). Another site gets a message naming every
/// supported one with its URL form.
pub fn parse(query: &str) -> Result<Target, String> {
    let q = query.trim();
    if walls::product_of(q).is_some() {
        return walls::parse_query(q).map(Target::Wall);
    }
    match G2.parse(q) {
        Ok(address) => g2_slug(&address)
            .map(|slug| Target::G2 { slug })
            .ok_or_else(|| {
                format!(
                    "{q:?} is a G2 page but not a product's reviews; a G2 query looks like {G2_FORM}"
                )
            }),
        Err(_) => Err(format!(
            "{q:?} is not a G2 product page or a wall of love this source reads; supported: \
             G2 ({G2_FORM}); {}",
            walls::dispatch::supported()
        )),
    }
}

/// The product slug of a G2 URL: `/products/<slug>` and any page under it
/// (`/reviews`, a review's permalink, `/features` …).
fn g2_slug(address: &Address) -> Option<String> {
    let ["products", slug, ..] = address.segments()[..] else {
        return None;
    };
    let ok = slug
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
    ok.then(|| slug.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g2(slug: &str) -> Result<Target, String> {
        Ok(Target::G2 { slug: slug.into() })
    }

    #[test]
    fn g2_forms() {
        for q in [
            "https://www.g2.com/products/digitalocean/reviews",
            "https://www.g2.com/products/digitalocean/reviews?order=most_recent&page=2#reviews",
            "www.g2.com/products/digitalocean/reviews/",
            "https://g2.com/products/DigitalOcean",
            "https://www.g2.com/products/digitalocean/reviews/digitalocean-review-11900001",
            "  https://www.g2.com/products/digitalocean/reviews?utm_source=x  ",
        ] {
            assert_eq!(parse(q), g2("digitalocean"), "{q}");
        }
        for q in [
            "https://www.g2.com/categories/cloud-platform",
            "https://www.g2.com/",
        ] {
            let e = parse(q).unwrap_err();
            assert!(
                e.contains("not a product's reviews") && e.contains(G2_FORM),
                "{e}"
            );
        }
    }

    #[test]
    fn walls_go_to_the_sdk_adapters() {
        assert_eq!(
            parse("https://shapo.io/wall-of-love/c5cf604cf7"),
            Ok(Target::Wall(Wall::Shapo {
                id: "c5cf604cf7".into()
            }))
        );
        let e = parse("https://shapo.io/widget/c5cf604cf7").unwrap_err();
        assert!(e.contains("not a wall of love"), "{e}");
    }

    #[test]
    fn the_manifest_agrees_with_the_site() {
        G2.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn other_sites_name_every_supported_one() {
        for q in ["https://www.capterra.com/p/211559/Trello/", "not a url", ""] {
            let e = parse(q).unwrap_err();
            for name in ["G2", "Shapo", "Testimonial.to", "Senja", "Endorsal"] {
                assert!(e.contains(name), "{e}");
            }
        }
    }
}
