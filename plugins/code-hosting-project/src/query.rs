//! The user's query: a SourceForge project URL in any of the forms users paste,
//! or the bare project slug. Anything else is refused with what a valid query
//! looks like.

use gleaner_sdk::address::{Refusal, Site};

use crate::site;

/// SourceForge's hosts, and what a valid query looks like, for every refusal.
const SITE: Site = Site {
    name: "a SourceForge address",
    hosts: &["*.sourceforge.net", "*.sourceforge.io", "sf.net"],
    forms: "give a SourceForge project: its page \
    https://sourceforge.net/projects/<slug>/ (or any page under it, such as /reviews or \
    /files), https://sourceforge.net/p/<slug>/, its website https://<slug>.sourceforge.io, \
    or the bare slug, such as \"openproj\"",
};

/// The project slug of a query (lower case), or why the query is not one.
pub fn parse(query: &str) -> Result<String, String> {
    let q = query.trim();
    if let Some(slug) = slug(q) {
        return Ok(slug);
    }
    let address = SITE.parse(q).map_err(|refusal| match refusal {
        Refusal::Elsewhere(_) => format!(
            "{q:?} is not a SourceForge address; this source reads the reviews of SourceForge \
             projects: {}",
            SITE.forms
        ),
        refusal => SITE.refusal(q, &refusal),
    })?;
    let host = address.host.as_str();
    let segments = address.segments();
    if site::SITE_HOSTS.contains(&host) {
        return from_site_path(q, &segments);
    }
    if site::DOWNLOAD_HOSTS.contains(&host) {
        return match segments.as_slice() {
            ["project", s, ..] => slug(s).ok_or_else(|| bad_slug(q, s)),
            _ => Err(not_a_project(q)),
        };
    }
    match project_web_subdomain(host) {
        Some(sub) if !site::SERVICE_SUBDOMAINS.contains(&sub) => {
            slug(sub).ok_or_else(|| bad_slug(q, sub))
        }
        _ => Err(not_a_project(q)),
    }
}

/// A path on sourceforge.net: `/projects/<slug>/…` or `/p/<slug>/…`.
fn from_site_path(q: &str, segments: &[&str]) -> Result<String, String> {
    match segments {
        [first, s, ..] if site::PROJECT_PATHS.contains(first) => {
            slug(s).ok_or_else(|| bad_slug(q, s))
        }
        [first, ..] if *first == site::SOFTWARE_DIRECTORY_PATH => Err(SITE.refuse(
            q,
            "is in SourceForge's business software directory, whose reviews are a \
             different catalogue that this source does not read",
        )),
        _ => Err(not_a_project(q)),
    }
}

/// `<slug>` of `<slug>.sourceforge.io` or `<slug>.sourceforge.net`.
fn project_web_subdomain(host: &str) -> Option<&str> {
    site::PROJECT_WEB_DOMAINS.iter().find_map(|domain| {
        let sub = host.strip_suffix(domain)?.strip_suffix('.')?;
        (!sub.is_empty() && !sub.contains('.')).then_some(sub)
    })
}

/// A project slug: 2 to 63 letters, digits, `-` or `_`, starting with a letter
/// or digit; returned in lower case.
fn slug(s: &str) -> Option<String> {
    let ok = (2..=63).contains(&s.len())
        && s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then(|| s.to_ascii_lowercase())
}

fn not_a_project(q: &str) -> String {
    SITE.refuse(q, "is a SourceForge address but not a project's")
}

fn bad_slug(q: &str, s: &str) -> String {
    SITE.refuse(
        q,
        format_args!("names {s:?}, which is not a SourceForge project slug"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_every_project_form() {
        let forms = [
            "openproj",
            "OpenProj",
            "https://sourceforge.net/projects/openproj/",
            "https://sourceforge.net/projects/openproj",
            "https://sourceforge.net/projects/openproj/reviews",
            "https://sourceforge.net/projects/openproj/reviews/?source=navbar&stars=5#reviews",
            "https://sourceforge.net/projects/openproj/files/OpenProj%20Binaries/1.4/",
            "https://sourceforge.net/projects/openproj/?utm_source=newsletter&utm_medium=email",
            "http://www.sourceforge.net/projects/openproj/support",
            "https://m.sourceforge.net/projects/openproj/",
            "sourceforge.net/projects/openproj/",
            "https://sf.net/projects/openproj",
            "https://sourceforge.net/p/openproj/discussion/",
            "https://downloads.sourceforge.net/project/openproj/OpenProj%20Binaries/1.4/openproj-1.4.zip",
            "https://openproj.sourceforge.io/",
            "http://openproj.sourceforge.net/index.html",
            "OPENPROJ.SourceForge.io.",
            "  https://sourceforge.net/projects/openproj/  ",
        ];
        for form in forms {
            assert_eq!(parse(form).as_deref(), Ok("openproj"), "{form}");
        }
        assert_eq!(parse("eclipse-cs").as_deref(), Ok("eclipse-cs"));
    }

    #[test]
    fn refuses_other_sites_with_the_valid_forms() {
        for q in [
            "https://github.com/projectlibre/projectlibre",
            "https://www.openhub.net/p/openproj/reviews",
            "example.com",
        ] {
            let e = parse(q).unwrap_err();
            assert!(e.contains("is not a SourceForge address"), "{q}: {e}");
            assert!(
                e.contains("https://sourceforge.net/projects/<slug>/"),
                "{e}"
            );
        }
        assert!(parse("").unwrap_err().contains("the query is empty"));
        assert!(parse("ftp://sourceforge.net/projects/x")
            .unwrap_err()
            .contains("not a web address"));
    }

    #[test]
    fn refuses_sourceforge_pages_that_are_not_projects() {
        for q in [
            "https://sourceforge.net/",
            "https://sourceforge.net/directory/os:windows/",
            "https://sourceforge.net/u/carias/profile/",
            "https://sourceforge.net/projects/",
            "https://www.sourceforge.net/blog/",
            "https://downloads.sourceforge.net/",
            "https://www.sourceforge.io/",
            "https://a.b.sourceforge.io/",
        ] {
            let e = parse(q).unwrap_err();
            assert!(e.contains("but not a project's"), "{q}: {e}");
        }
        let e = parse("https://sourceforge.net/software/product/Jira/reviews").unwrap_err();
        assert!(e.contains("business software directory"), "{e}");
        let e = parse("https://sourceforge.net/projects/bad%20slug/").unwrap_err();
        assert!(e.contains("not a SourceForge project slug"), "{e}");
        assert!(parse("a").is_err());
        assert!(parse("-leading").is_err());
    }

    #[test]
    fn the_manifest_agrees_with_the_site() {
        SITE.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
