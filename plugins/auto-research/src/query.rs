//! The `query`: a Cars.com vehicle in any form a user pastes.
//!
//! Consumer reviews belong to one model year, named by the research slug
//! `{make}-{model}-{year}` (words of a make or model joined with underscores:
//! `land_rover-range_rover_sport-2019`, `mazda-cx_5-2021`). Accepted:
//! - the consumer-reviews page `https://www.cars.com/research/{slug}/consumer-reviews/`,
//!   with `http://` or no scheme, the bare `cars.com` or the mobile host, paging
//!   (`?page=2`, the older `?pg=2&nr=50`), tracking parameters, a fragment, with
//!   or without the trailing slash;
//! - any other research page of the same model year (its overview
//!   `/research/{slug}/`, `/trims/`, `/specs/…`, `/consumer-reviews/write-a-review/`);
//! - the bare identifier `{make}-{model}-{year}`, in any case.
//!
//! The page requested is always the canonical
//! `https://www.cars.com/research/{slug}/consumer-reviews/`.

use gleaner_sdk::address::Site;

/// The site's canonical origin.
pub const ORIGIN: &str = "https://www.cars.com";

/// Cars.com (canonical, bare or mobile host) and what a valid query looks like.
const SITE: Site = Site {
    name: "a Cars.com address",
    hosts: &["cars.com", "m.cars.com"],
    forms: "use a Cars.com consumer-reviews URL such as \
https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/, that is \
https://www.cars.com/research/<make>-<model>-<year>/consumer-reviews/, or the identifier \
<make>-<model>-<year> (e.g. mazda-cx_5-2021; the words of a make or model joined with underscores)",
};

/// The oldest and newest model years a slug may name.
const YEARS: std::ops::RangeInclusive<u16> = 1900..=2100;

/// A vehicle model year whose consumer reviews are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vehicle {
    /// The research slug, lower case: `mazda-cx_5-2021`.
    pub slug: String,
    /// The make part of the slug: `mazda`.
    pub make: String,
    /// The model part of the slug: `cx_5`.
    pub model: String,
    /// The model year.
    pub year: u16,
}

impl Vehicle {
    /// The canonical consumer-reviews page.
    pub fn reviews_url(&self) -> String {
        format!("{ORIGIN}{}", self.reviews_path())
    }

    /// The path of the consumer-reviews page, with its trailing slash.
    pub fn reviews_path(&self) -> String {
        format!("/research/{}/consumer-reviews/", self.slug)
    }

    /// The model year's research overview page.
    pub fn research_url(&self) -> String {
        format!("{ORIGIN}/research/{}/", self.slug)
    }
}

/// Whether `host` is Cars.com's (canonical, bare or mobile).
pub fn is_site_host(host: &str) -> bool {
    SITE.owns(host)
}

/// Reads a research slug `{make}-{model}-{year}`; none for anything else.
pub fn parse_slug(slug: &str) -> Option<Vehicle> {
    let slug = slug.trim().to_ascii_lowercase();
    let parts: Vec<&str> = slug.split('-').collect();
    let [make, model @ .., year] = parts.as_slice() else {
        return None;
    };
    let word = |w: &&str| {
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    };
    let year: u16 = (year.len() == 4 && year.bytes().all(|b| b.is_ascii_digit()))
        .then(|| year.parse().ok())
        .flatten()
        .filter(|y| YEARS.contains(y))?;
    if model.is_empty() || !word(make) || !model.iter().all(word) {
        return None;
    }
    Some(Vehicle {
        make: (*make).to_owned(),
        model: model.join("-"),
        year,
        slug,
    })
}

/// The vehicle of a consumer-reviews page path (`/research/{slug}/consumer-reviews[/]`).
pub fn reviews_page_vehicle(path: &str) -> Option<Vehicle> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        ["research", slug, "consumer-reviews"] => parse_slug(slug),
        _ => None,
    }
}

/// Reads a query into the vehicle it names, or says what a valid query looks like.
pub fn parse(query: &str) -> Result<Vehicle, String> {
    let q = query.trim();
    if !q.contains(['/', '.', ':']) {
        return parse_slug(q).ok_or_else(|| {
            SITE.refuse(
                q,
                "is neither a Cars.com URL nor a <make>-<model>-<year> identifier",
            )
        });
    }
    match SITE.read(q)?.segments().as_slice() {
        ["research", slug, ..] => parse_slug(slug).ok_or_else(|| {
            SITE.refuse(
                q,
                "names no model year (consumer reviews are per model year, \
                 as in /research/<make>-<model>-<year>/consumer-reviews/)",
            )
        }),
        _ => Err(SITE.refuse(
            q,
            "is not a Cars.com vehicle research page (its path is not \
             /research/<make>-<model>-<year>/…)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANONICAL: &str = "https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/";

    #[test]
    fn reads_every_url_form_and_the_identifier() {
        for q in [
            CANONICAL,
            " https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews ",
            "http://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/",
            "www.cars.com/research/mazda-cx_5-2021/consumer-reviews/",
            "cars.com/research/mazda-cx_5-2021/consumer-reviews/",
            "//www.cars.com/research/mazda-cx_5-2021/consumer-reviews/",
            "https://m.cars.com/research/mazda-cx_5-2021/consumer-reviews/",
            "https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/?page=3&page_size=200",
            "https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/?pg=2&nr=50",
            "https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/?utm_source=google&utm_medium=cpc#reviews",
            "https://www.cars.com/research/mazda-cx_5-2021/",
            "https://www.cars.com/research/mazda-cx_5-2021/trims/",
            "https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/write-a-review/",
            "HTTPS://WWW.CARS.COM/research/Mazda-CX_5-2021/consumer-reviews/",
            "https://www.cars.com./research/mazda-cx_5-2021/consumer-reviews/",
            "mazda-cx_5-2021",
            " Mazda-CX_5-2021 ",
        ] {
            let v = parse(q).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert_eq!(v.reviews_url(), CANONICAL, "{q}");
            assert_eq!((v.make.as_str(), v.model.as_str(), v.year), ("mazda", "cx_5", 2021));
        }
        let v = parse("land_rover-range_rover_sport-2019").unwrap();
        assert_eq!(v.model, "range_rover_sport");
        assert_eq!(
            v.research_url(),
            "https://www.cars.com/research/land_rover-range_rover_sport-2019/"
        );
    }

    #[test]
    fn refuses_other_sites_and_pages_saying_what_is_valid() {
        for q in [
            "https://www.edmunds.com/mazda/cx-5/2021/consumer-reviews/",
            "https://www.cars.com.evil.example/research/mazda-cx_5-2021/consumer-reviews/",
            "https://notcars.com/research/mazda-cx_5-2021/consumer-reviews/",
            "https://www.cars.com/research/mazda-cx_5/consumer-reviews/",
            "https://www.cars.com/research/mazda/",
            "https://www.cars.com/research/",
            "https://www.cars.com/vehicledetail/5e1c9a1b-0000/",
            "https://www.cars.com/shopping/results/?makes[]=mazda",
            "https://www.cars.com/dealers/123456/acme-motors/reviews/",
            "https://www.cars.com/research/mazda-cx_5-1850/consumer-reviews/",
            "mazda-cx_5",
            "mazda cx-5 2021",
            "2021",
            "",
        ] {
            let e = parse(q).unwrap_err();
            assert!(
                e.contains("https://www.cars.com/research/<make>-<model>-<year>/consumer-reviews/"),
                "{q}: {e}"
            );
        }
        assert!(parse("https://www.cars.com/research/mazda-cx_5/")
            .unwrap_err()
            .contains("names no model year"));
        assert!(parse("https://www.edmunds.com/mazda/cx-5/2021/")
            .unwrap_err()
            .contains("is not a Cars.com address"));
    }

    #[test]
    fn knows_review_page_paths() {
        let v = reviews_page_vehicle("/research/mazda-cx_5-2021/consumer-reviews/").unwrap();
        assert_eq!(v.slug, "mazda-cx_5-2021");
        assert_eq!(
            v.reviews_path(),
            "/research/mazda-cx_5-2021/consumer-reviews/"
        );
        assert!(reviews_page_vehicle("/research/mazda-cx_5-2021/consumer-reviews").is_some());
        assert!(reviews_page_vehicle("/research/mazda-cx_5-2021/").is_none());
        assert!(reviews_page_vehicle("/research/mazda-cx_5/consumer-reviews/").is_none());
        assert!(is_site_host("WWW.Cars.com"));
        assert!(!is_site_host("images.cars.com"));
    }

    #[test]
    fn the_manifest_agrees_with_the_site() {
        SITE.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
