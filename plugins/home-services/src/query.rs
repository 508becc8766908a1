//! The `query`: an Angi pro profile URL in any form a user pastes.
//!
//! A profile is `https://www.angi.com/companylist/us/{state}/{city}/{slug}-reviews-{id}.htm`.
//! Accepted around it: `http://` or no scheme, the bare `angi.com`, `www.` and
//! `m.` hosts, the old Angie's List hosts (`www.angieslist.com`, which now
//! redirect to angi.com with the same path), any query string (tracking
//! parameters, a review page number), a fragment, a trailing slash, a missing
//! `.htm` and any letter case. The page requested is always the canonical
//! lower-case `https://www.angi.com/…-reviews-{id}.htm`.
//!
//! A bare id is refused: the profile URL carries the state, city and name
//! slug, which the id alone cannot rebuild without a search of the site.

use gleaner_sdk::address::{Refusal, Site};

/// The site's canonical origin.
pub const ORIGIN: &str = "https://www.angi.com";

/// Angi's hosts and the older Angie's List hosts, and what a valid query looks like.
const SITE: Site = Site {
    name: "an Angi URL",
    hosts: &["angi.com", "m.angi.com", "angieslist.com", "m.angieslist.com"],
    forms: "use an Angi profile URL such as \
https://www.angi.com/companylist/us/il/barrington/all-affordable-plumbing-inc-reviews-6480784.htm, that is \
https://www.angi.com/companylist/us/<state>/<city>/<name>-reviews-<id>.htm",
};

/// A pro's profile to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The numeric profile id, the digits after `-reviews-`.
    pub id: String,
    /// The canonical profile page URL.
    pub url: String,
}

/// Reads a query into a profile, or says what a valid query looks like.
pub fn parse(query: &str) -> Result<Profile, String> {
    let q = query.trim();
    if !q.is_empty() && q.chars().all(|c| c.is_ascii_digit()) {
        return Err(SITE.refuse(
            q,
            "is a bare id: Angi's profile URL also holds the state, city and name, which an id \
             alone cannot be resolved to without a search, so the profile URL is needed",
        ));
    }
    let address = SITE.parse(q).map_err(|refusal| match refusal {
        Refusal::Elsewhere(other) if is_homeadvisor(&other.host) => SITE.refuse(
            q,
            "is a HomeAdvisor page, whose id is not Angi's profile id; open the pro on angi.com \
             and paste that profile URL instead",
        ),
        refusal => SITE.refusal(q, &refusal),
    })?;
    profile_from_path(address.url.path())
        .ok_or_else(|| SITE.refuse(q, "is not an Angi pro's profile page"))
}

fn is_homeadvisor(host: &str) -> bool {
    host == "homeadvisor.com" || host.ends_with(".homeadvisor.com")
}

/// The profile a URL path names: `/companylist/us/{st}/{city}/{slug}-reviews-{id}[.htm]`.
fn profile_from_path(path: &str) -> Option<Profile> {
    let lower = path.to_ascii_lowercase();
    let segments: Vec<&str> = lower.split('/').filter(|s| !s.is_empty()).collect();
    let ["companylist", country, state, city, last] = segments.as_slice() else {
        return None;
    };
    let page = last
        .strip_suffix(".htm")
        .or_else(|| last.strip_suffix(".html"))
        .unwrap_or(last);
    let (slug, id) = page.rsplit_once("-reviews-")?;
    let valid = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    };
    if !(valid(country) && valid(state) && valid(city) && valid(slug))
        || id.is_empty()
        || !id.chars().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    Some(Profile {
        id: id.to_owned(),
        url: format!("{ORIGIN}/companylist/{country}/{state}/{city}/{slug}-reviews-{id}.htm"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANONICAL: &str =
        "https://www.angi.com/companylist/us/il/barrington/all-affordable-plumbing-inc-reviews-6480784.htm";

    #[test]
    fn every_pasted_form_gives_the_canonical_page() {
        for q in [
            CANONICAL,
            "http://www.angi.com/companylist/us/il/barrington/all-affordable-plumbing-inc-reviews-6480784.htm",
            "www.angi.com/companylist/us/il/barrington/all-affordable-plumbing-inc-reviews-6480784.htm",
            "angi.com/companylist/us/il/barrington/all-affordable-plumbing-inc-reviews-6480784.htm",
            "https://m.angi.com/companylist/us/il/barrington/all-affordable-plumbing-inc-reviews-6480784.htm",
            "https://www.angieslist.com/companylist/us/il/barrington/all-affordable-plumbing-inc-reviews-6480784.htm",
            "https://www.angi.com/companylist/us/il/barrington/all-affordable-plumbing-inc-reviews-6480784.htm?utm_source=google&page=3#reviews",
            "https://www.angi.com/companylist/us/il/barrington/all-affordable-plumbing-inc-reviews-6480784.htm/",
            "https://www.angi.com/companylist/us/il/barrington/all-affordable-plumbing-inc-reviews-6480784",
            "https://WWW.ANGI.COM/companylist/us/IL/Barrington/All-Affordable-Plumbing-Inc-reviews-6480784.htm",
            "  https://www.angi.com/companylist/us/il/barrington/all-affordable-plumbing-inc-reviews-6480784.htm  ",
        ] {
            let p = parse(q).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert_eq!(p.url, CANONICAL, "{q}");
            assert_eq!(p.id, "6480784");
        }
    }

    #[test]
    fn bare_ids_other_sites_and_other_pages_are_refused() {
        let e = parse("6480784").unwrap_err();
        assert!(
            e.contains("bare id") && e.contains("profile URL is needed"),
            "{e}"
        );
        let e = parse("https://www.homeadvisor.com/rated.AllAffordablePlumbing.158720676.html")
            .unwrap_err();
        assert!(e.contains("HomeAdvisor"), "{e}");
        for q in [
            "https://www.yelp.com/biz/all-affordable-plumbing-barrington",
            "https://angi.com.example.org/companylist/us/il/x/y-reviews-1.htm",
            "https://www.angi.com/companylist/us/il/barrington/plumbing.htm",
            "https://www.angi.com/articles/how-much-does-a-plumber-cost.htm",
            "https://www.angi.com/companylist/us/il/barrington/x-reviews-abc.htm",
            "ftp://www.angi.com/companylist/us/il/barrington/x-reviews-1.htm",
            "",
        ] {
            let e = parse(q).unwrap_err();
            assert!(
                e.contains("/companylist/us/<state>/<city>/<name>-reviews-<id>.htm"),
                "{q}: {e}"
            );
        }
    }

    #[test]
    fn the_manifest_agrees_with_the_site() {
        SITE.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
