//! Answers for plugins' unit tests: a [`Response`] as the host would hand it
//! over, without a host.

use crate::http::Response;

/// An answer of `status` with `body`, no headers, from `final_url`.
pub fn response(status: u16, final_url: &str, body: &str) -> Response {
    Response {
        status,
        headers: Vec::new(),
        body: body.as_bytes().to_vec(),
        final_url: final_url.to_owned(),
    }
}

impl Response {
    /// The same answer with these headers.
    pub fn with_headers(mut self, headers: &[(&str, &str)]) -> Response {
        self.headers = headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
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
        assert_eq!((r.status, r.text().as_str()), (403, "denied"));
        assert_eq!(r.header("CF-Mitigated"), Some("challenge"));
        assert_eq!(r.final_url, "https://example.test/a");
    }
}
