//! Which product serves a wall: the URL's host picks the adapter, and the path
//! must be one of that product's wall URL forms.

use gleaner_sdk::{cursor, FetchError, Page};
use url::Url;

use crate::common::Offset;
use crate::{endorsal, senja, shapo, testimonial_to};

/// One product: its name, the hosts its walls are read from and the wall URL forms it accepts.
pub struct Product {
    /// Product name, as users know it.
    pub name: &'static str,
    /// Hosts (lower case) that belong to the product.
    pub hosts: &'static [&'static str],
    /// The accepted wall URL forms, for error messages.
    pub forms: &'static str,
}

/// The host table: every host this plugin dispatches on.
pub const PRODUCTS: &[Product] = &[
    Product {
        name: "Shapo",
        hosts: &["shapo.io", "www.shapo.io"],
        forms: "https://shapo.io/wall-of-love/<10-hex wall id>",
    },
    Product {
        name: "Testimonial.to",
        hosts: &[
            "testimonial.to",
            "www.testimonial.to",
            "embed-v2.testimonial.to",
        ],
        forms: "https://testimonial.to/<space>/all, https://testimonial.to/<space> or the embed \
                https://embed-v2.testimonial.to/w/<space>",
    },
    Product {
        name: "Senja",
        hosts: &["senja.io", "www.senja.io", "widget.senja.io"],
        forms: "the widget URL https://widget.senja.io/widget/<widget id>[/platform.js] or \
                https://widget.senja.io/api/widget-config/<widget id>",
    },
    Product {
        name: "Endorsal",
        hosts: &["endorsal.io", "www.endorsal.io", "api.endorsal.io"],
        forms: "https://api.endorsal.io/wall-of-love/testimonials/<24-hex wall id>",
    },
];

/// First path segments of testimonial.to that are the product's own pages, not spaces.
const TESTIMONIAL_TO_RESERVED: &[&str] = &[
    "about",
    "affiliates",
    "api",
    "blog",
    "customers",
    "dashboard",
    "docs",
    "embed",
    "features",
    "help",
    "integrations",
    "js",
    "login",
    "pricing",
    "privacy",
    "register",
    "resources",
    "signin",
    "signup",
    "static",
    "terms",
];

/// A wall, resolved from the user's URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wall {
    /// A Shapo wall of love by its 10-hex id.
    Shapo {
        /// The wall id (lower case).
        id: String,
    },
    /// A Testimonial.to space's wall.
    TestimonialTo {
        /// The space slug.
        slug: String,
        /// The embed's tag (`all` unless the embed URL names one).
        tag: String,
    },
    /// A Senja widget.
    Senja {
        /// The widget id (a UUID).
        widget_id: String,
    },
    /// An Endorsal wall of love.
    Endorsal {
        /// The wall id (24 hex digits).
        wall_id: String,
    },
}

impl Wall {
    /// The product that serves this wall.
    pub fn product(&self) -> &'static Product {
        let name = match self {
            Wall::Shapo { .. } => "Shapo",
            Wall::TestimonialTo { .. } => "Testimonial.to",
            Wall::Senja { .. } => "Senja",
            Wall::Endorsal { .. } => "Endorsal",
        };
        PRODUCTS
            .iter()
            .find(|p| p.name == name)
            .unwrap_or(&PRODUCTS[0])
    }
}

/// Reads the page of `wall` that starts `offset` items in (0 for the first).
/// Shapo and Senja walls arrive whole, so their offset is always 0; the other
/// two products page by offset, and a page's `next_cursor` is an encoded
/// [`Offset`].
/// A wall that holds nothing answers its first page with no reviews and a
/// notice saying so.
pub fn fetch_page(wall: &Wall, offset: u32) -> Result<Page, FetchError> {
    let mut page = match wall {
        Wall::Shapo { id } => shapo::fetch(id),
        Wall::TestimonialTo { slug, tag } => testimonial_to::fetch(slug, tag, offset),
        Wall::Senja { widget_id } => senja::fetch(widget_id),
        Wall::Endorsal { wall_id } => endorsal::fetch(wall_id, offset),
    }?;
    if offset == 0 && page.reviews.is_empty() {
        let mut extra: serde_json::Value =
            serde_json::from_str(&page.meta.extra_json).unwrap_or(serde_json::json!({}));
        if extra.get("notice").is_none() {
            extra["notice"] = serde_json::json!(format!(
                "this {} wall has no testimonials yet",
                wall.product().name
            ));
            page.meta.extra_json = extra.to_string();
        }
    }
    Ok(page)
}

/// Reads a whole wall in one call, following its pages (at most `max_pages`),
/// for callers that sort or filter the wall themselves. The answer is the first
/// page's metadata with every page's reviews and no next cursor;
/// `truncated` says whether pages were left unread.
pub fn fetch_whole(wall: &Wall, max_pages: u32) -> Result<(Page, bool), FetchError> {
    let mut whole = fetch_page(wall, 0)?;
    let mut pages = 1;
    while let Some(next) = whole.next_cursor.take() {
        if pages >= max_pages {
            whole.next_cursor = Some(next);
            break;
        }
        let offset = cursor::decode::<Offset>(&next)?.offset;
        let page = fetch_page(wall, offset)?;
        whole.reviews.extend(page.reviews);
        whole.next_cursor = page.next_cursor;
        pages += 1;
    }
    let truncated = whole.next_cursor.take().is_some();
    Ok((whole, truncated))
}

/// The product whose hosts include the query's host, if any: lets a plugin
/// that also reads other sites tell a wall URL from theirs.
pub fn product_of(query: &str) -> Option<&'static Product> {
    let host = host_of(query)?;
    PRODUCTS.iter().find(|p| p.hosts.contains(&host.as_str()))
}

/// The lower-case host of a pasted URL (scheme optional).
fn host_of(query: &str) -> Option<String> {
    parse_url(query.trim())?
        .host_str()
        .map(str::to_ascii_lowercase)
}

/// A pasted http(s) URL, `https://` assumed when the scheme is missing (the
/// SDK's reading of a pasted address).
pub fn parse_url(q: &str) -> Option<Url> {
    gleaner_sdk::address::web_url(q).ok()
}

/// Every product with its wall URL forms, for the unknown-host message.
pub fn supported() -> String {
    PRODUCTS
        .iter()
        .map(|p| format!("{} ({})", p.name, p.forms))
        .collect::<Vec<_>>()
        .join("; ")
}

fn not_a_wall(query: &str, product: &Product, why: &str) -> String {
    format!(
        "{query:?} is a {} page but not a wall of love{why}; a {} wall URL looks like {}",
        product.name, product.name, product.forms
    )
}

/// Resolves a pasted URL (scheme optional; `www.`, tracking parameters, fragments
/// and trailing slashes ignored) to a wall.
pub fn parse_query(query: &str) -> Result<Wall, String> {
    let q = query.trim();
    let url = parse_url(q);
    let host = url
        .as_ref()
        .and_then(Url::host_str)
        .unwrap_or_default()
        .to_ascii_lowercase();
    let Some((url, product)) = url.as_ref().and_then(|u| {
        PRODUCTS
            .iter()
            .find(|p| p.hosts.contains(&host.as_str()))
            .map(|p| (u, p))
    }) else {
        return Err(format!(
            "{q:?} is not the URL of a wall of love on a supported product; supported: {}",
            supported()
        ));
    };
    let segments: Vec<&str> = url
        .path_segments()
        .map(|s| s.filter(|p| !p.is_empty()).collect())
        .unwrap_or_default();
    let param = |name: &str| {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let wall = match product.name {
        "Shapo" => match segments.as_slice() {
            ["wall-of-love", id] if is_hex(id, 10) => Some(Wall::Shapo {
                id: id.to_ascii_lowercase(),
            }),
            _ => None,
        },
        "Testimonial.to" => testimonial_to_wall(&host, &segments, param("tag")),
        "Senja" => match segments.as_slice() {
            ["widget", id, ..] | ["api", "widget-config", id] if is_uuid(id) => Some(Wall::Senja {
                widget_id: id.to_ascii_lowercase(),
            }),
            ["p", ..] => {
                return Err(not_a_wall(
                    q,
                    product,
                    " this plugin can read (how a senja.io/p/… wall maps to its widget is not \
                     known; the wall's embed code holds the widget id)",
                ))
            }
            _ => None,
        },
        _ => match segments.as_slice() {
            ["wall-of-love", "testimonials", id, ..]
                if host == "api.endorsal.io" && is_hex(id, 24) =>
            {
                Some(Wall::Endorsal {
                    wall_id: id.to_ascii_lowercase(),
                })
            }
            _ => None,
        },
    };
    wall.ok_or_else(|| not_a_wall(q, product, ""))
}

fn testimonial_to_wall(host: &str, segments: &[&str], tag: Option<String>) -> Option<Wall> {
    let slug_ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    let (slug, tag) = if host == "embed-v2.testimonial.to" {
        match segments {
            ["w", slug] => (*slug, tag),
            ["carousel", segment_tag, slug] => (*slug, tag.or(Some((*segment_tag).to_owned()))),
            _ => return None,
        }
    } else {
        match segments {
            [slug] | [slug, "all"] => (*slug, None),
            _ => return None,
        }
    };
    let reserved = TESTIMONIAL_TO_RESERVED.contains(&slug.to_ascii_lowercase().as_str());
    (slug_ok(slug) && !reserved).then(|| Wall::TestimonialTo {
        slug: slug.to_owned(),
        tag: tag.unwrap_or_else(|| "all".to_owned()),
    })
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.chars().all(|c| c.is_ascii_hexdigit())
}

fn is_uuid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| is_hex(p, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapo(id: &str) -> Wall {
        Wall::Shapo { id: id.into() }
    }

    #[test]
    fn shapo_forms() {
        for q in [
            "https://shapo.io/wall-of-love/c5cf604cf7",
            "http://www.shapo.io/wall-of-love/C5CF604CF7/?utm_source=x#top",
            "shapo.io/wall-of-love/c5cf604cf7",
            "  https://SHAPO.IO/wall-of-love/c5cf604cf7  ",
        ] {
            assert_eq!(parse_query(q), Ok(shapo("c5cf604cf7")), "{q}");
        }
        for q in [
            "https://shapo.io/",
            "https://shapo.io/wall-of-love/c5cf",
            "https://shapo.io/widget/c5cf604cf7",
        ] {
            let e = parse_query(q).unwrap_err();
            assert!(
                e.contains("https://shapo.io/wall-of-love/<10-hex wall id>"),
                "{e}"
            );
        }
    }

    #[test]
    fn testimonial_to_forms() {
        let wall = |slug: &str, tag: &str| Wall::TestimonialTo {
            slug: slug.into(),
            tag: tag.into(),
        };
        assert_eq!(
            parse_query("https://testimonial.to/acme-co/all"),
            Ok(wall("acme-co", "all"))
        );
        assert_eq!(
            parse_query("https://www.testimonial.to/acme-co/"),
            Ok(wall("acme-co", "all"))
        );
        assert_eq!(
            parse_query("https://embed-v2.testimonial.to/w/acme-co?theme=dark&tag=web"),
            Ok(wall("acme-co", "web"))
        );
        assert_eq!(
            parse_query(
                "https://embed-v2.testimonial.to/carousel/all/acme-co?id=18515f72-5509-4309-8a4f-cb37ce8b672c"
            ),
            Ok(wall("acme-co", "all"))
        );
        assert!(parse_query("https://testimonial.to/pricing").is_err());
        assert!(parse_query("https://testimonial.to/").is_err());
        assert!(parse_query("https://testimonial.to/acme/edit").is_err());
    }

    #[test]
    fn senja_and_endorsal_forms() {
        let id = "6a0c4b74-527a-4058-bded-8a358821c1a0";
        let senja = Wall::Senja {
            widget_id: id.into(),
        };
        for q in [
            format!("https://widget.senja.io/widget/{id}/platform.js"),
            format!("https://widget.senja.io/widget/{id}"),
            format!("https://widget.senja.io/api/widget-config/{id}"),
        ] {
            assert_eq!(parse_query(&q), Ok(senja.clone()), "{q}");
        }
        let e = parse_query("https://senja.io/r/acme").unwrap_err();
        assert!(e.contains("not a wall of love"), "{e}");
        assert!(e.contains("widget.senja.io/widget/<widget id>"), "{e}");
        let e = parse_query("https://senja.io/p/acme/abc123?embed=true").unwrap_err();
        assert!(e.contains("embed code holds the widget id"), "{e}");
        let endorsal = Wall::Endorsal {
            wall_id: "6170695a0ba50c5cda9f3337".into(),
        };
        for q in [
            "https://api.endorsal.io/wall-of-love/testimonials/6170695a0ba50c5cda9f3337/0/100",
            "https://api.endorsal.io/wall-of-love/testimonials/6170695a0ba50c5cda9f3337",
        ] {
            assert_eq!(parse_query(q), Ok(endorsal.clone()), "{q}");
        }
        assert!(parse_query("https://endorsal.io/").is_err());
    }

    #[test]
    fn unknown_hosts_name_every_product() {
        for q in ["https://www.trustpilot.com/review/x.com", "not a url", ""] {
            let e = parse_query(q).unwrap_err();
            for p in PRODUCTS {
                assert!(e.contains(p.name), "{e}");
            }
        }
    }
}
