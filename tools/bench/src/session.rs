//! What a session adds to each request: merging the browser profile into the
//! plugin's headers, finding the cookies for the URL, and storing the cookies
//! the response sets, with a jar of 20 cookies over 4 hosts.

use std::time::{Duration, Instant};

use gleaner::capabilities::http::profile;
use gleaner::capabilities::http::session::Session;
use url::Url;

use crate::report;

/// Times the session's work for one request, `n` times.
pub fn overhead_per_request(n: usize) {
    let session = Session::new();
    let hosts = [
        "www.example.com",
        "api.example.com",
        "cdn.example.com",
        "example.org",
    ];
    for (i, host) in hosts.iter().cycle().take(20).enumerate() {
        let url = Url::parse(&format!("https://{host}/")).expect("valid URL");
        let set = vec![(
            "set-cookie".to_owned(),
            format!("c{i}=value-{i}-abcdefghijklmnop; Path=/; Secure; SameSite=Lax"),
        )];
        session.store(&url, &set);
    }
    let url = Url::parse("https://www.example.com/api/reviews?page=2").expect("valid URL");
    let plugin_headers = vec![("x-csrf".to_owned(), "token".to_owned())];
    let response_headers = vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        (
            "set-cookie".to_owned(),
            "c0=renewed; Path=/; Secure".to_owned(),
        ),
    ];
    let mut samples: Vec<Duration> = Vec::with_capacity(n);
    for _ in 0..n {
        let started = Instant::now();
        let headers = profile::apply(session.profile, Some(profile::Kind::Json), &plugin_headers);
        let cookies = session.cookie_header(&url);
        session.store(&url, &response_headers);
        std::hint::black_box((headers, cookies));
        samples.push(started.elapsed());
    }
    report(
        "session work per request (profile headers, cookie lookup, Set-Cookie store; 20-cookie jar)",
        samples,
    );
}
