//! `GET /docs`: the API reference, rendered in the browser by Swagger UI from the
//! server's own `/openapi.json`. Every asset is embedded in the binary, so the
//! page works offline and always matches the server that serves it.
//!
//! The page is public, like `/healthz`: it holds no data of its own. The
//! document it loads is guarded as `/openapi.json` is; when that answers 401 the
//! page asks for a key and sends it with the document request and with every
//! "Try it out" call.
//!
//! Text assets are sent gzipped to clients that accept it (Swagger UI: 1.9 MB,
//! 0.5 MB gzipped), each compressed once per process on first use.
//!
//! Asset URLs are relative (`docs/...`), so the page also works behind a proxy
//! that serves the API under a path prefix; `/docs/` redirects to `/docs` for
//! the same reason.

use std::io::Write;
use std::sync::OnceLock;

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use flate2::write::GzEncoder;
use flate2::Compression;
use sha2::{Digest, Sha256};

use crate::error::ApiError;

/// What the page may load: its own assets, and requests to this origin only.
/// Swagger UI sets inline styles and uses `data:` images for its icons.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; \
     connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// One embedded file.
struct Asset {
    /// The name under `/docs/`.
    name: &'static str,
    /// Its `Content-Type`.
    content_type: &'static str,
    /// Its bytes.
    bytes: &'static [u8],
    /// Its entity tag, computed on first use.
    etag: OnceLock<String>,
    /// Its gzip encoding, made on first use.
    gzip: OnceLock<Vec<u8>>,
}

/// Assets smaller than this are sent as they are.
const GZIP_MIN_BYTES: usize = 4096;

impl Asset {
    const fn new(name: &'static str, content_type: &'static str, bytes: &'static [u8]) -> Asset {
        Asset {
            name,
            content_type,
            bytes,
            etag: OnceLock::new(),
            gzip: OnceLock::new(),
        }
    }

    /// A weak entity tag (the plain and the gzipped answer are the same
    /// content): the first 128 bits of the content's SHA-256.
    fn etag(&self) -> &str {
        self.etag.get_or_init(|| {
            let digest = Sha256::digest(self.bytes);
            format!("W/\"{}\"", hex::encode(&digest[..16]))
        })
    }

    /// Whether the asset is worth compressing.
    fn compressible(&self) -> bool {
        self.content_type.starts_with("text/") && self.bytes.len() >= GZIP_MIN_BYTES
    }

    /// The gzip encoding, compressed off the async threads on first use;
    /// `None` if compression failed (the asset is then sent as it is).
    async fn gzipped(&'static self) -> Option<&'static [u8]> {
        if let Some(done) = self.gzip.get() {
            return Some(done);
        }
        let bytes = self.bytes;
        let encoded = tokio::task::spawn_blocking(move || {
            let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
            encoder.write_all(bytes)?;
            encoder.finish()
        })
        .await
        .ok()?
        .ok()?;
        Some(self.gzip.get_or_init(|| encoded))
    }
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";

/// The page itself.
static PAGE: Asset = Asset::new("", HTML, include_bytes!("../../assets/docs/index.html"));

/// The files the page loads, and the licence of the embedded Swagger UI.
static ASSETS: [Asset; 7] = [
    Asset::new("docs.js", JS, include_bytes!("../../assets/docs/docs.js")),
    Asset::new(
        "docs.css",
        CSS,
        include_bytes!("../../assets/docs/docs.css"),
    ),
    Asset::new(
        "swagger-ui-bundle.js",
        JS,
        include_bytes!("../../assets/docs/swagger-ui/swagger-ui-bundle.js"),
    ),
    Asset::new(
        "swagger-ui.css",
        CSS,
        include_bytes!("../../assets/docs/swagger-ui/swagger-ui.css"),
    ),
    Asset::new(
        "favicon-32x32.png",
        "image/png",
        include_bytes!("../../assets/docs/swagger-ui/favicon-32x32.png"),
    ),
    Asset::new(
        "swagger-ui-LICENSE.txt",
        TEXT,
        include_bytes!("../../assets/docs/swagger-ui/LICENSE"),
    ),
    Asset::new(
        "swagger-ui-NOTICE.txt",
        TEXT,
        include_bytes!("../../assets/docs/swagger-ui/NOTICE"),
    ),
];

/// The `/docs` routes. They need no state, so they merge into any router.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/docs", get(page))
        .route("/docs/", get(|| async { Redirect::permanent("../docs") }))
        .route("/docs/{file}", get(asset))
}

async fn page(headers: HeaderMap) -> Response {
    serve(&PAGE, &headers, "no-cache").await
}

async fn asset(Path(file): Path<String>, headers: HeaderMap) -> Response {
    match ASSETS.iter().find(|a| a.name == file) {
        // Revalidated after an hour: a new server version may embed new files.
        Some(asset) => serve(asset, &headers, "public, max-age=3600").await,
        None => ApiError::NotFound(format!(
            "no file /docs/{file}; the API reference is at /docs"
        ))
        .into_response(),
    }
}

/// Answers with `asset` (gzipped when the client accepts it and it is worth
/// it), or 304 when the client already holds this version.
async fn serve(
    asset: &'static Asset,
    request: &HeaderMap,
    cache_control: &'static str,
) -> Response {
    let etag = asset.etag();
    let fresh = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == etag.trim_start_matches("W/") || t == "*")
        });
    let gzipped = match asset.compressible() && accepts_gzip(request) && !fresh {
        true => asset.gzipped().await,
        false => None,
    };
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let body = gzipped.unwrap_or(asset.bytes);
        (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static(asset.content_type),
            )],
            body,
        )
            .into_response()
    };
    let headers = response.headers_mut();
    if asset.compressible() {
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    if gzipped.is_some() {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    if let Ok(v) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, v);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(cache_control),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if asset.content_type == HTML {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        );
    }
    response
}

/// Whether `Accept-Encoding` allows gzip (`gzip` or `*`, with a quality above 0).
fn accepts_gzip(request: &HeaderMap) -> bool {
    request
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';');
            let name = parts.next().unwrap_or_default().trim();
            let quality = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            (name.eq_ignore_ascii_case("gzip") || name == "*") && quality > 0.0
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    async fn get(path: &str, etag: Option<&str>) -> Response {
        get_with(path, etag, None).await
    }

    async fn get_with(path: &str, etag: Option<&str>, encoding: Option<&str>) -> Response {
        let mut request = Request::get(path);
        if let Some(etag) = etag {
            request = request.header(header::IF_NONE_MATCH, etag);
        }
        if let Some(encoding) = encoding {
            request = request.header(header::ACCEPT_ENCODING, encoding);
        }
        router::<()>()
            .oneshot(request.body(Body::empty()).unwrap())
            .await
            .unwrap()
    }

    async fn text(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[tokio::test]
    async fn the_page_is_html_with_a_strict_policy() {
        let r = get("/docs", None).await;
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.headers()[header::CONTENT_TYPE], HTML);
        let csp = r.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(csp.contains("script-src 'self';"), "{csp}");
        assert!(!csp.contains("unsafe-eval"), "{csp}");
        assert_eq!(r.headers()[header::CACHE_CONTROL], "no-cache");
        let html = text(r).await;
        assert!(html.contains("<div id=\"swagger-ui\""), "{html}");
    }

    #[tokio::test]
    async fn every_file_the_page_links_is_served_with_its_type() {
        let html = text(get("/docs", None).await).await;
        let linked: Vec<&str> = html
            .split(['"', '\''])
            .filter_map(|s| s.strip_prefix("docs/"))
            .collect();
        assert!(linked.len() >= 5, "the page links {linked:?}");
        for name in linked {
            let asset = ASSETS
                .iter()
                .find(|a| a.name == name)
                .unwrap_or_else(|| panic!("the page links docs/{name}, which is not embedded"));
            let r = get(&format!("/docs/{name}"), None).await;
            assert_eq!(r.status(), StatusCode::OK, "{name}");
            assert_eq!(r.headers()[header::CONTENT_TYPE], asset.content_type);
            assert_eq!(r.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
            let body = axum::body::to_bytes(r.into_body(), usize::MAX)
                .await
                .unwrap();
            assert_eq!(body.len(), asset.bytes.len(), "{name}");
        }
    }

    #[tokio::test]
    async fn a_client_holding_the_current_version_gets_304() {
        let r = get("/docs/swagger-ui.css", None).await;
        let etag = r.headers()[header::ETAG].to_str().unwrap().to_owned();
        assert_eq!(etag.len(), 36, "{etag}");
        assert!(etag.starts_with("W/\""), "{etag}");
        let r = get("/docs/swagger-ui.css", Some(&etag)).await;
        assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
        assert!(text(r).await.is_empty());
        let r = get("/docs/swagger-ui.css", Some("\"stale\"")).await;
        assert_eq!(r.status(), StatusCode::OK);
    }

    #[tokio::test]
    async fn text_assets_are_gzipped_for_clients_that_accept_it() {
        let plain = get("/docs/swagger-ui-bundle.js", None).await;
        assert!(plain.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(plain.headers()[header::VARY], "accept-encoding");
        let r = get_with(
            "/docs/swagger-ui-bundle.js",
            None,
            Some("br;q=1.0, gzip;q=0.8"),
        )
        .await;
        assert_eq!(r.headers()[header::CONTENT_ENCODING], "gzip");
        assert_eq!(r.headers()[header::ETAG], plain.headers()[header::ETAG]);
        let body = axum::body::to_bytes(r.into_body(), usize::MAX)
            .await
            .unwrap();
        let asset = ASSETS
            .iter()
            .find(|a| a.name == "swagger-ui-bundle.js")
            .unwrap();
        assert!(body.len() < asset.bytes.len() / 2, "{} bytes", body.len());
        let mut decoded = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&body[..]), &mut decoded)
            .unwrap();
        assert_eq!(decoded, asset.bytes);

        let refused = get_with("/docs/swagger-ui-bundle.js", None, Some("gzip;q=0")).await;
        assert!(refused.headers().get(header::CONTENT_ENCODING).is_none());
        let small = get_with("/docs", None, Some("gzip")).await;
        assert!(small.headers().get(header::CONTENT_ENCODING).is_none());
        let image = get_with("/docs/favicon-32x32.png", None, Some("gzip")).await;
        assert!(image.headers().get(header::CONTENT_ENCODING).is_none());
    }

    #[tokio::test]
    async fn an_unknown_file_is_a_json_404_naming_the_page() {
        let r = get("/docs/../Cargo.toml", None).await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        let r = get("/docs/nope.js", None).await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        let body: serde_json::Value = serde_json::from_str(&text(r).await).unwrap();
        assert_eq!(
            body["error"],
            "no file /docs/nope.js; the API reference is at /docs"
        );
    }

    #[tokio::test]
    async fn the_trailing_slash_redirects_to_the_page() {
        let r = get("/docs/", None).await;
        assert_eq!(r.status(), StatusCode::PERMANENT_REDIRECT);
        assert_eq!(r.headers()[header::LOCATION], "../docs");
    }

    #[test]
    fn the_licence_of_the_embedded_renderer_travels_with_it() {
        let licence = ASSETS
            .iter()
            .find(|a| a.name == "swagger-ui-LICENSE.txt")
            .unwrap();
        let text = std::str::from_utf8(licence.bytes).unwrap();
        assert!(text.contains("Apache License"), "{text}");
        let version = include_str!("../../assets/docs/swagger-ui/VERSION");
        assert!(semver::Version::parse(version.trim()).is_ok(), "{version}");
    }
}
