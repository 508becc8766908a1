//! One visit, as plugins ask for it and get it: the page, the condition
//! that ends it, what it leaves, and the host's egress its requests go
//! through. [`super::drive`] carries it out in Chromium (the `browser`
//! feature); [`super::record`] answers it from a recording.

use std::sync::Arc;

use url::Url;

use crate::capabilities::http::session::Session;
use crate::capabilities::http::HttpService;
use crate::capabilities::PluginGrant;

/// Where the bot-wall vendors serve the scripts of their JavaScript
/// challenges from, when not from the protected site itself: a page open in
/// the browser may load them whatever the plugin's allowlist says, so a
/// challenge can finish (the SSRF guard and everything else still apply).
/// CAPTCHAs are left out: they want a person, not a browser.
pub const CHALLENGE_ORIGINS: &[&str] = &[
    // Cloudflare's Turnstile and managed challenge.
    "https://challenges.cloudflare.com",
    // DataDome's device check and its tags.
    "https://*.captcha-delivery.com",
    "https://js.datadome.co",
    "https://api-js.datadome.co",
    // PerimeterX (HUMAN): the sensor, its CDN and collectors.
    "https://client.perimeterx.net",
    "https://*.px-cdn.net",
    "https://*.px-cloud.net",
];

/// When a visit is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wait {
    /// An element matching the CSS selector is in the document.
    Selector(String),
    /// A response whose URL contains the text has answered.
    Response(String),
    /// The page has loaded and its network has been quiet for half a second.
    Idle,
}

/// A page to open.
#[derive(Debug, Clone)]
pub struct VisitRequest {
    /// The page.
    pub url: Url,
    /// When it is done.
    pub wait: Wait,
    /// Keep the responses whose URL contains one of these.
    pub keep: Vec<String>,
}

/// A response a page's script received, kept as asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// Its URL.
    pub url: String,
    /// Its status.
    pub status: u16,
    /// Its body.
    pub body: Vec<u8>,
}

/// What a visit left.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The status of the last main document.
    pub status: u16,
    /// The page's URL at the end.
    pub final_url: String,
    /// The document as the scripts left it.
    pub document: String,
    /// The kept responses, in the order they answered.
    pub kept: Vec<Kept>,
}

/// The host's egress as the visit's requests use it.
#[derive(Clone)]
pub struct Egress {
    /// Outbound HTTP.
    pub http: Arc<HttpService>,
    /// The plugin's grant (its policy).
    pub grant: Arc<PluginGrant>,
    /// The call's session.
    pub session: Arc<Session>,
    /// The request being served, for logs.
    pub request_id: String,
}
