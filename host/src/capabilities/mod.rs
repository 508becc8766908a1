//! Host capabilities offered to plugins, one module each, with its policy beside it.
//!
//! State is split by lifetime: server-wide pools (the [`http::HttpService`], the
//! [`cache::CacheStore`]), per-plugin policy from the manifest ([`http::policy::Policy`],
//! [`settings::Settings`]) and per-call deadline and budget (in [`crate::runtime`]).

pub mod cache;
pub mod http;
pub mod llm;
pub mod log;
pub mod settings;
