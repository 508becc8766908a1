//! Answers for plugins' unit tests: a [`Response`] as the host would hand it
//! over, without a host, its wall verdict given by the classifier the host
//! runs.

use crate::http::Response;
use gleaner_botwall::Wall;

/// An answer of `status` with `body`, no headers, from `final_url`.
pub fn response(status: u16, final_url: &str, body: &str) -> Response {
    let mut response = Response {
        status,
        headers: Vec::new(),
        body: body.as_bytes().to_vec(),
        final_url: final_url.to_owned(),
        wall: None,
    };
    response.wall = verdict(&response);
    response
}

/// What the host would say the answer is.
fn verdict(response: &Response) -> Option<Wall> {
    gleaner_botwall::classify(&gleaner_botwall::Response {
        status: response.status,
        headers: &response.headers,
        final_url: &response.final_url,
        body: &response.body,
    })
}

impl Response {
    /// The same answer with these headers (and the verdict they lead to).
    pub fn with_headers(mut self, headers: &[(&str, &str)]) -> Response {
        self.headers = headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
        self.wall = verdict(&self);
        self
    }

    /// The same answer with this verdict of the host.
    pub fn with_wall(mut self, wall: Option<Wall>) -> Response {
        self.wall = wall;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_an_answer() {
        let r = response(403, "https://example.test/a", "denied")
            .with_headers(&[("cf-mitigated", "challenge")]);
        assert_eq!((r.status, &*r.text()), (403, "denied"));
        assert_eq!(r.header("CF-Mitigated"), Some("challenge"));
        assert_eq!(r.final_url, "https://example.test/a");
    }
}
