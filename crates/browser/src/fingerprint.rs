//! The browser builds whose fingerprints a browser request can carry.

/// The browser build whose TLS ClientHello and HTTP/2 settings a browser
/// request goes out with (over BoringSSL, with the `tls` feature).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fingerprint {
    /// Chrome 149.
    Chrome149,
    /// Firefox 151.
    Firefox151,
}
