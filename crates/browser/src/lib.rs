//! The browser capability's two heavy, self-contained parts, each behind a
//! feature so that a lean server builds neither:
//!
//! - [`fingerprint`]: the browser builds a request can pass for (always
//!   built, so a server's browser profiles read the same in every build);
//!
//! With the `chromium` feature:
//! - [`chromium`]: the one headless Chromium process, started with no network
//!   of its own, measured and stopped;
//! - [`cdp`]: the DevTools protocol client over its pipe.
//!
//! With the `tls` feature:
//! - [`tls`]: a client with a browser's TLS ClientHello and HTTP/2 settings
//!   (BoringSSL through wreq), and one request sent over it.
//!
//! Policy stays in the server: which plugins may open pages, the SSRF guard
//! (this crate only takes the guarded resolver it is given), fetch sessions
//! and their browser contexts, pacing, recording and replay.

pub mod fingerprint;

#[cfg(feature = "chromium")]
pub mod cdp;
#[cfg(feature = "chromium")]
pub mod chromium;
#[cfg(feature = "tls")]
pub mod tls;

pub use fingerprint::Fingerprint;
