//! The request's sort and filter, as the manifest declares them.

use gleaner_sdk::{FetchError, PageRequest};

/// `sort_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// Newest first (the default).
    MostRecent,
    /// Best rated first.
    HighestRated,
}

/// `filter_by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// Reviews with at least one helpful vote, most helpful first.
    Helpful,
    /// Reviews of this many stars (half stars count with the star below).
    Stars(u8),
}

/// The sort and filter of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The order asked for.
    pub sort: Sort,
    /// The filter, if any.
    pub filter: Option<Filter>,
}

impl Options {
    /// Reads the validated sort and filter (the host has checked both against
    /// the manifest; anything else here is a host/manifest mismatch, told as a 400).
    pub fn from_request(req: &PageRequest) -> Result<Options, FetchError> {
        let sort = match req.sort_or("most_recent") {
            "most_recent" => Sort::MostRecent,
            "highest_rated" => Sort::HighestRated,
            other => {
                return Err(FetchError::BadQuery(format!(
                    "sort_type {other:?} is not accepted; use \"most_recent\" or \"highest_rated\""
                )))
            }
        };
        let filter = match req.filter_text().as_deref() {
            None => None,
            Some("helpful") => Some(Filter::Helpful),
            Some(s) => match s.parse::<u8>() {
                Ok(n @ 1..=5) => Some(Filter::Stars(n)),
                _ => {
                    return Err(FetchError::BadQuery(format!(
                        "filter_by {s:?} is not accepted; use \"helpful\", 5, 4, 3, 2, 1 or null"
                    )))
                }
            },
        };
        Ok(Options { sort, filter })
    }

    /// The request's values, for `extra_information.source`.
    pub fn describe(&self) -> (&'static str, Option<String>) {
        let sort = match self.sort {
            Sort::MostRecent => "most_recent",
            Sort::HighestRated => "highest_rated",
        };
        let filter = self.filter.map(|f| match f {
            Filter::Helpful => "helpful".to_owned(),
            Filter::Stars(n) => n.to_string(),
        });
        (sort, filter)
    }
}

/// The star a rating counts as for a star filter: its whole part (4.5 is a 4).
pub fn star_of(rating: f64) -> u8 {
    rating.floor().clamp(0.0, 5.0) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(sort: Option<&str>, filter: Option<&str>) -> PageRequest {
        PageRequest {
            query: "q".into(),
            sort: sort.map(str::to_owned),
            filter_json: filter.map(str::to_owned),
            cursor: None,
        }
    }

    #[test]
    fn reads_sorts_and_filters() {
        let o = Options::from_request(&req(None, None)).unwrap();
        assert_eq!((o.sort, o.filter), (Sort::MostRecent, None));
        let o = Options::from_request(&req(Some("highest_rated"), Some("\"helpful\""))).unwrap();
        assert_eq!(
            (o.sort, o.filter),
            (Sort::HighestRated, Some(Filter::Helpful))
        );
        for f in ["5", "\"5\""] {
            let o = Options::from_request(&req(None, Some(f))).unwrap();
            assert_eq!(o.filter, Some(Filter::Stars(5)));
        }
        assert_eq!(
            Options::from_request(&req(None, Some("null")))
                .unwrap()
                .filter,
            None
        );
        assert!(Options::from_request(&req(Some("oldest"), None)).is_err());
        assert!(Options::from_request(&req(None, Some("7"))).is_err());
        assert_eq!(star_of(4.5), 4);
        assert_eq!(star_of(5.0), 5);
    }
}
