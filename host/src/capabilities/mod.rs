//! Host capabilities offered to plugins, one module each, with its policy beside it.
//!
//! State is split by lifetime, as in Spin's host:
//! - server-wide: [`Services`] (connection pools, sessions, the cache store, the LLM client, the browser);
//! - per plugin: [`PluginGrant`] (policy and settings from its manifest);
//! - per call: [`CallContext`] (request id, deadline, the host-data meter).
//!
//! Each capability links its WIT interface itself (`add_to_linker`), through a
//! small view type that borrows only what it needs from the call, as wasmtime's
//! wasi-http does with its context view. Adding a capability is one module here
//! and one line in [`link`]; the runtime's store data only hands out its parts.

pub mod browser;
pub mod cache;
pub mod http;
pub mod llm;
pub mod log;
pub mod session;
pub mod settings;

use std::sync::Arc;
use std::time::Instant;

/// Server-wide services every call shares.
#[derive(Clone)]
pub struct Services {
    /// Outbound HTTP.
    pub http: Arc<http::HttpService>,
    /// Webhook deliveries' HTTP: never replayed or recorded (a receiver is
    /// real even in the demo), and reaching loopback and private receivers
    /// only where `webhook_allow_private` is on.
    pub webhooks: Arc<http::HttpService>,
    /// The live sessions of review fetches.
    pub sessions: Arc<http::session::Sessions>,
    /// The plugin cache.
    pub cache: Arc<cache::CacheStore>,
    /// The optional LLM.
    pub llm: Arc<llm::LlmService>,
    /// The optional headless browser.
    pub browser: Arc<browser::BrowserService>,
    /// The secrets kept out of everything the server sends: answers, logs,
    /// traces and recordings.
    pub secrets: Arc<crate::secrets::Secrets>,
    /// The key review receipts are signed with.
    pub receipts: Arc<crate::receipts::ReceiptKey>,
}

/// What a plugin is allowed, fixed when it is loaded from its manifest.
pub struct PluginGrant {
    /// Plugin name.
    pub name: String,
    /// Plugin version.
    pub version: String,
    /// Outbound network policy.
    pub policy: http::policy::Policy,
    /// Operator settings.
    pub settings: settings::Settings,
    /// Whether the manifest declares `uses_llm`.
    pub uses_llm: bool,
    /// Whether the manifest declares `uses_browser`.
    pub uses_browser: bool,
    /// Linear memory one instance may have, in bytes.
    pub memory_bytes: usize,
    /// Bytes one call may pass through host calls.
    pub max_host_data_bytes: usize,
}

/// The per-call state every capability sees.
pub struct CallContext {
    /// The plugin's grant.
    pub grant: Arc<PluginGrant>,
    /// The session the call's requests are made in: the fetch's, for a page
    /// of a review fetch; a new one otherwise.
    pub session: Arc<http::session::Session>,
    /// The request this call serves.
    pub request_id: String,
    /// When the call must end.
    pub deadline: Instant,
    host_data: usize,
}

/// A plugin passed more data through host calls than its limit allows; raised
/// from a host call to stop the guest.
#[derive(Debug, thiserror::Error)]
#[error("plugin passed more than {limit} bytes through host calls in one call; raise limits.max_host_data_bytes in its manifest if this is expected")]
pub struct HostDataExceeded {
    /// The limit in bytes.
    pub limit: usize,
}

impl CallContext {
    /// The context of one call that must finish by `deadline`, made in
    /// `session` (a new session when none is given).
    pub fn new(
        grant: Arc<PluginGrant>,
        request_id: String,
        deadline: Instant,
        session: Option<Arc<http::session::Session>>,
    ) -> CallContext {
        CallContext {
            grant,
            session: session.unwrap_or_default(),
            request_id,
            deadline,
            host_data: 0,
        }
    }

    /// Counts `bytes` passed through a host call; traps the guest past its limit.
    pub fn charge(&mut self, bytes: usize) -> wasmtime::Result<()> {
        self.host_data += bytes;
        let limit = self.grant.max_host_data_bytes;
        if self.host_data > limit {
            return Err(wasmtime::Error::new(HostDataExceeded { limit }));
        }
        Ok(())
    }
}

/// What store data gives the capabilities: the call's context and the services.
pub trait CallParts: Send + 'static {
    /// The per-call context and the server-wide services, borrowed together.
    fn parts(&mut self) -> (&mut CallContext, &Services);
}

/// Links every capability's interface, each through its own view.
pub fn link<T: CallParts>(linker: &mut wasmtime::component::Linker<T>) -> wasmtime::Result<()> {
    http::guest::add_to_linker(linker, |s| {
        let (call, services) = s.parts();
        http::guest::HttpView {
            call,
            service: &services.http,
        }
    })?;
    cache::add_to_linker(linker, |s| {
        let (call, services) = s.parts();
        cache::CacheView {
            call,
            store: &services.cache,
        }
    })?;
    settings::add_to_linker(linker, |s| settings::SettingsView { call: s.parts().0 })?;
    log::add_to_linker(linker, |s| log::LogView { call: s.parts().0 })?;
    session::add_to_linker(linker, |s| session::SessionView { call: s.parts().0 })?;
    browser::add_to_linker(linker, |s| {
        let (call, services) = s.parts();
        browser::BrowserView {
            call,
            service: &services.browser,
            http: &services.http,
        }
    })?;
    llm::add_to_linker(linker, |s| {
        let (call, services) = s.parts();
        llm::LlmView {
            call,
            service: &services.llm,
        }
    })?;
    Ok(())
}

/// Declares how a capability links its WIT interface: a `HasData` marker for its
/// view type, and `add_to_linker`, which takes the function that borrows the
/// view from the store data.
macro_rules! view_link {
    ($marker:ident, $view:ident, $interface:ident) => {
        /// Links this capability's WIT interface to its view type.
        struct $marker;

        impl wasmtime::component::HasData for $marker {
            type Data<'a> = $view<'a>;
        }

        /// Links the interface; `view` borrows the call's view from the store data.
        pub fn add_to_linker<T: Send + 'static>(
            linker: &mut wasmtime::component::Linker<T>,
            view: fn(&mut T) -> $view<'_>,
        ) -> wasmtime::Result<()> {
            $interface::add_to_linker::<T, $marker>(linker, view)
        }
    };
}
pub(crate) use view_link;
