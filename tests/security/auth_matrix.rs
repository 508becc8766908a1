//! The auth matrix: missing, wrong, differently cased, misplaced and borrowed
//! keys, path and method variants, for the API keys and the admin keys. Nothing
//! but the right key in the right place gets past.

use base64::Engine;

use super::common;

const API_KEY: &str = "api-Key-7f3a";
const ADMIN_KEY: &str = "adm-Key-91c2";
const ROUTE: &str = "/features/review-chunk";

/// One attempt: method, path (with query), headers.
struct Attempt {
    method: &'static str,
    path: String,
    headers: Vec<(&'static str, String)>,
}

fn attempt(method: &'static str, path: &str, headers: &[(&'static str, &str)]) -> Attempt {
    Attempt {
        method,
        path: path.to_owned(),
        headers: headers.iter().map(|(k, v)| (*k, v.to_string())).collect(),
    }
}

/// Key placements and forms that must all be refused for a route guarded by `key`,
/// given the other kind of key `other`.
fn bad_credentials(key: &str, other: &str) -> Vec<Vec<(&'static str, String)>> {
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("user:{key}"));
    let h = |k: &'static str, v: String| vec![(k, v)];
    vec![
        vec![],
        h("x-api-key", String::new()),
        h("x-api-key", "wrong".into()),
        h("x-api-key", key.to_uppercase()),
        h("x-api-key", key.to_lowercase()),
        h("x-api-key", format!("{key}x")),
        h("x-api-key", key[..key.len() - 1].to_owned()),
        h("x-api-key", other.to_owned()),
        h("x-api-key", format!("{key},{key}")),
        h("x-api-key", format!("Bearer {key}")),
        h("x-api-key", format!("{key}\0")),
        h("api-key", key.to_owned()),
        h("x-api_key", key.to_owned()),
        h("x-apikey", key.to_owned()),
        h("authorization", key.to_owned()),
        h("authorization", format!("Basic {basic}")),
        h("authorization", format!("Bearer {}", key.to_uppercase())),
        h("authorization", format!("Bearer {other}")),
        h("authorization", "Bearer".into()),
        h("authorization", format!("Token {key}")),
        h("cookie", format!("x-api-key={key}")),
        h("proxy-authorization", format!("Bearer {key}")),
        vec![
            ("x-api-key", "wrong".into()),
            ("authorization", format!("Bearer {key}")),
        ],
    ]
}

async fn send(s: &common::Server, a: &Attempt) -> u16 {
    let method = reqwest::Method::from_bytes(a.method.as_bytes()).unwrap();
    let mut request = s
        .client
        .request(method, format!("http://{}{}", s.addr, a.path))
        .header("content-type", "application/json")
        .body(r#"{"review_text":"Kind staff."}"#);
    for (k, v) in &a.headers {
        request = request.header(*k, v.as_str());
    }
    match request.send().await {
        Ok(r) => r.status().as_u16(),
        // A header value the client library itself refuses never reaches the server.
        Err(_) => 401,
    }
}

#[tokio::test]
async fn only_the_right_key_in_the_right_place_gets_through() {
    let s = common::start(&["review-chunk"], |c| {
        c.api_keys = vec![API_KEY.into()];
        c.admin_keys = vec![ADMIN_KEY.into()];
    })
    .await;
    let mut attempts = Vec::new();
    for creds in bad_credentials(API_KEY, ADMIN_KEY) {
        attempts.push(Attempt {
            method: "POST",
            path: ROUTE.into(),
            headers: creds,
        });
    }
    for query in [
        format!("?api_key={API_KEY}"),
        format!("?x-api-key={API_KEY}"),
        format!("?key={API_KEY}&token={API_KEY}"),
    ] {
        attempts.push(attempt("POST", &format!("{ROUTE}{query}"), &[]));
    }
    for path in [
        "/features/review-chunk/",
        "//features/review-chunk",
        "/features//review-chunk",
        "/features/./review-chunk",
        "/features/x/../review-chunk",
        "/FEATURES/review-chunk",
        "/features/review-chunk%2F",
        "/features%2Freview-chunk",
        "/%66eatures/review-chunk",
        "/healthz/../features/review-chunk",
        "/nonexistent",
    ] {
        attempts.push(attempt("POST", path, &[]));
    }
    for method in ["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"] {
        attempts.push(attempt(method, ROUTE, &[]));
    }
    for creds in bad_credentials(ADMIN_KEY, API_KEY) {
        attempts.push(Attempt {
            method: "GET",
            path: "/admin/plugins".into(),
            headers: creds,
        });
    }
    for (method, path) in [
        ("GET", "/admin/plugins/"),
        ("GET", "/admin//plugins"),
        ("GET", "/ADMIN/plugins"),
        ("GET", "/admin/./plugins"),
        ("POST", "/admin/reload"),
        ("DELETE", "/admin/plugins/review-chunk"),
        ("PUT", "/admin/plugins/review-chunk"),
        ("GET", &format!("/admin/plugins?x-api-key={ADMIN_KEY}")),
    ] {
        attempts.push(attempt(method, path, &[]));
        attempts.push(attempt(method, path, &[("x-api-key", API_KEY)]));
    }

    let mut refused = 0;
    for a in &attempts {
        let status = send(&s, a).await;
        assert!(
            status == 401 || status == 404 || status == 405,
            "{} {} {:?} got {status}",
            a.method,
            a.path,
            a.headers
        );
        assert!(
            status != 404 || !a.path.starts_with(ROUTE),
            "{} {}",
            a.method,
            a.path
        );
        refused += 1;
    }
    // The right keys in the right places work.
    let good = [
        attempt("POST", ROUTE, &[("x-api-key", API_KEY)]),
        attempt(
            "POST",
            ROUTE,
            &[("authorization", &format!("Bearer {API_KEY}"))],
        ),
        attempt("GET", "/admin/plugins", &[("x-api-key", ADMIN_KEY)]),
    ];
    for a in &good {
        assert_eq!(send(&s, a).await, 200, "{} {}", a.method, a.path);
    }
    eprintln!(
        "auth matrix: {refused} bad attempts refused, {} good ones accepted",
        good.len()
    );
    assert!(refused >= 60);
}

/// An API key on an admin route is refused with a message that says an admin
/// key is needed; no key at all keeps the plain message.
#[tokio::test]
async fn an_api_key_on_an_admin_route_is_told_an_admin_key_is_needed() {
    let s = common::start(&["review-chunk"], |c| {
        c.api_keys = vec![API_KEY.into()];
        c.admin_keys = vec![ADMIN_KEY.into()];
    })
    .await;
    let answer = |key: Option<&'static str>| {
        let mut request = s.client.get(s.url("/admin/plugins"));
        if let Some(key) = key {
            request = request.header("x-api-key", key);
        }
        async move {
            let r = request.send().await.unwrap();
            let status = r.status().as_u16();
            (status, r.json::<serde_json::Value>().await.unwrap())
        }
    };
    let (status, body) = answer(Some(API_KEY)).await;
    assert_eq!(status, 401, "{body}");
    let error = body["error"].as_str().unwrap_or_default();
    assert!(error.contains("needs an admin key"), "{body}");
    assert!(error.contains("GLEANER_ADMIN_KEYS"), "{body}");
    let (status, body) = answer(None).await;
    assert_eq!(status, 401, "{body}");
    assert!(
        !body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("needs an admin key"),
        "{body}"
    );
    let (status, _) = answer(Some(ADMIN_KEY)).await;
    assert_eq!(status, 200);
}
