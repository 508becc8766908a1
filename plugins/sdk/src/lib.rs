//! Guest SDK for Gleaner plugins.
//!
//! Every plugin uses it instead of re-implementing helpers:
//!
//! | module | what it holds |
//! |---|---|
//! | [`http`], [`config`], [`cache`], [`log`], [`llm`], [`session`], [`browser`] | the host calls |
//! | [`botwall`] | recognising a bot challenge (Cloudflare, DataDome, Akamai, PerimeterX, CAPTCHA) |
//! | [`request`] | a processor's typed input; a page request's filter, sort and cursor |
//! | [`review`] | the review builder (the host checks every review again) |
//! | [`cursor`] | opaque cursor state |
//! | [`address`] | the user's query as an address on the source's site: its hosts, the accepted URL forms, the refusals that list them |
//! | [`testing`] | answers for plugins' unit tests (`testing::response`) |
//! | [`html`] | HTML with CSS selectors |
//! | [`json`] | reading loose JSON values (a trimmed, non-empty string; one a site sent HTML-escaped) |
//! | [`entities`] | decoding text a site sent HTML-escaped, once |
//! | [`listing`] | telling a listing with no reviews from a changed layout |
//! | [`embedded`] | JSON embedded in pages: `__NEXT_DATA__`, JSON-LD, `window.__INITIAL_STATE__`, Next.js flight chunks |
//! | [`date`], [`rating`], [`number`] | dates, ratings and numbers as sites write them |
//! | [`webpage`] | parsing a web page: meta tags, icons, logos, JSON-LD, CSS colours, the web app manifest, URLs |
//! | [`website`] | fetching a website's home page and manifest |
//!
//! A plugin exports itself with [`export_source!`] (or [`export_post!`],
//! [`export_processor!`]): it generates the world's bindings, mapping the
//! shared interfaces onto this crate's, reports the crate's identity from its
//! `Cargo.toml` ([`plugin_info!`]) and forwards the call, so `lib.rs` begins
//! with the plugin's own logic:
//!
//! ```no_run
//! use gleaner_sdk::{FetchError, Order, Page, PageRequest, SourceMeta};
//!
//! gleaner_sdk::export_source!(fetch_page);
//!
//! fn fetch_page(req: PageRequest) -> Result<Page, FetchError> {
//!     let page = req.cursor_state::<u32>()?.unwrap_or(1);
//!     let url = format!("https://reviews.example.com/{}?page={page}", req.query);
//!     let _data: serde_json::Value = gleaner_sdk::http::get_json(&url, &[], "the reviews API")?;
//!     Ok(Page {
//!         ahead: Vec::new(),
//!         reviews: Vec::new(),
//!         next_cursor: None,
//!         order: Order::NewestFirst,
//!         meta: SourceMeta {
//!             resolved_url: Some(url),
//!             name: None,
//!             average_rating: None,
//!             total_reviews: None,
//!             extra_json: String::new(),
//!         },
//!     })
//! }
//! # fn main() {}
//! ```

/// Generates the export bindings of a plugin world (`"source"`, `"post-source"` or
/// `"processor"`) from `wit/`, reusing this crate's bindings of the host interfaces.
/// Call it once at the root of a plugin crate, wherever it lives.
#[macro_export]
macro_rules! plugin_bindings {
    ($world:tt) => {
        $crate::with_imports!($crate::__plugin_world! { $world });
    };
}

/// Generates a source plugin's bindings and exports it: `info()` reports the
/// crate's identity, `fetch-page` calls `$fetch_page`, any
/// `Fn(PageRequest) -> Result<Page, FetchError>`. A plugin's `lib.rs` then
/// begins with its own logic:
///
/// ```ignore
/// gleaner_sdk::export_source!(|req| fetch_page(&req));
/// ```
///
/// With `prepare = f`, the plugin is built for world `prepared-source`: the
/// host runs `f` once before compiling the component and keeps the memory it
/// leaves, so what `f` builds (selectors parsed with [`html::prepare`]) is
/// ready in every call. `f` may not call the host.
#[macro_export]
macro_rules! export_source {
    ($fetch_page:expr) => {
        $crate::plugin_bindings!("source");
        $crate::__export_source!($fetch_page);
    };
    ($fetch_page:expr, prepare = $prepare:expr) => {
        $crate::plugin_bindings!("prepared-source");
        $crate::__export_source!($fetch_page);
        $crate::__export_prepare!($prepare);
    };
}

/// The `gleaner-prepare` export of a prepared world, calling `$prepare` and
/// then [`after_preparation`].
#[doc(hidden)]
#[macro_export]
macro_rules! __export_prepare {
    ($prepare:expr) => {
        impl Guest for Exported {
            fn gleaner_prepare() {
                ($prepare)();
                $crate::after_preparation();
            }
        }
    };
}

/// What every prepared plugin does when its preparation ends: calls start
/// their small blocks in chunks of their own (see
/// [`allocator::Allocator::start_afresh`]).
#[doc(hidden)]
pub fn after_preparation() {
    #[cfg(target_arch = "wasm32")]
    ALLOCATOR.start_afresh();
}

/// [`export_source!`]'s exports, the same in both worlds.
#[doc(hidden)]
#[macro_export]
macro_rules! __export_source {
    ($fetch_page:expr) => {
        #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
        struct Exported;

        impl exports::gleaner::plugin::source_plugin::Guest for Exported {
            fn info() -> $crate::PluginInfo {
                $crate::plugin_info!()
            }

            fn fetch_page(req: $crate::PageRequest) -> Result<$crate::Page, $crate::FetchError> {
                ($fetch_page)(req)
            }
        }

        // Only the WebAssembly build exports: a native build is a library
        // (its unit tests, the benchmarks' in-process calls), and several
        // plugins linked into one binary must not export the same symbols.
        #[cfg(target_arch = "wasm32")]
        export!(Exported);
    };
}

/// [`export_source!`] for a single-post source: `fetch-post` calls
/// `$fetch_post`, any `Fn(String) -> Result<String, FetchError>`.
#[macro_export]
macro_rules! export_post {
    ($fetch_post:expr) => {
        $crate::plugin_bindings!("post-source");

        #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
        struct Exported;

        impl exports::gleaner::plugin::post_plugin::Guest for Exported {
            fn info() -> $crate::PluginInfo {
                $crate::plugin_info!()
            }

            fn fetch_post(query: String) -> Result<String, $crate::FetchError> {
                ($fetch_post)(query)
            }
        }

        #[cfg(target_arch = "wasm32")]
        export!(Exported);
    };
}

/// [`export_source!`] for a processor: `process` calls `$process`, any
/// `Fn(String) -> Result<Output, ProcessError>` with the types of
/// `exports::gleaner::plugin::processor_plugin`. `prepare = f` builds it for
/// world `prepared-processor`, as [`export_source!`] does for a source.
#[macro_export]
macro_rules! export_processor {
    ($process:expr) => {
        $crate::plugin_bindings!("processor");
        $crate::__export_processor!($process);
    };
    ($process:expr, prepare = $prepare:expr) => {
        $crate::plugin_bindings!("prepared-processor");
        $crate::__export_processor!($process);
        $crate::__export_prepare!($prepare);
    };
}

/// [`export_processor!`]'s exports, the same in both worlds.
#[doc(hidden)]
#[macro_export]
macro_rules! __export_processor {
    ($process:expr) => {
        #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
        struct Exported;

        impl exports::gleaner::plugin::processor_plugin::Guest for Exported {
            fn info() -> $crate::PluginInfo {
                $crate::plugin_info!()
            }

            fn process(
                input: String,
            ) -> Result<
                exports::gleaner::plugin::processor_plugin::Output,
                exports::gleaner::plugin::processor_plugin::ProcessError,
            > {
                ($process)(input)
            }
        }

        #[cfg(target_arch = "wasm32")]
        export!(Exported);
    };
}

// `__plugin_world!`, written by build.rs with the WIT package's absolute path.
include!(concat!(env!("OUT_DIR"), "/plugin_world.rs"));

#[doc(hidden)]
pub use gleaner_contract::with_imports;

/// The plugin's identity, from its `Cargo.toml`: the package name without its
/// `plugin-` prefix, and the package version. The host checks both against the
/// manifest at load. `plugin_info!("name")` names a plugin whose crate is named
/// otherwise (two versions of one plugin side by side, say).
#[macro_export]
macro_rules! plugin_info {
    () => {
        $crate::PluginInfo {
            name: $crate::plugin_name(env!("CARGO_PKG_NAME")).into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    };
    ($name:expr) => {
        $crate::PluginInfo {
            name: ($name).into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    };
}

/// A plugin's name from its crate's package name: `plugin-<name>` → `<name>`.
pub fn plugin_name(package: &str) -> &str {
    package.strip_prefix("plugin-").unwrap_or(package)
}

/// Bindings of the host interfaces (world `sdk`).
#[allow(missing_docs, clippy::all)]
pub mod wit {
    wit_bindgen::generate!({
        world: "sdk",
        path: "../../wit",
    });
}

pub mod address;
pub mod allocator;
pub mod botwall;
pub mod browser;
pub mod cursor;
pub mod date;
pub mod embedded;
pub mod entities;
pub mod html;
pub mod http;
pub mod image_size;
pub mod json;
pub mod listing;
pub mod number;
pub mod rating;
pub mod request;
pub mod review;
pub mod testing;
pub mod webpage;
pub mod website;

/// Every plugin's allocator on WebAssembly (see [`allocator`]).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator::new();

pub use wit::gleaner::plugin::types;
pub use wit::gleaner::plugin::types::{
    FetchError, Order, Page, PageRequest, PluginInfo, SourceMeta, Text,
};

/// Operator settings declared in the manifest.
pub mod config {
    /// The value of `key`, or none when the operator has not set it.
    pub fn get(key: &str) -> Option<String> {
        crate::wit::gleaner::plugin::config::get(key).filter(|v| !v.is_empty())
    }
}

/// The fetch's session: cookies the sites set, kept by the host across the
/// fetch's requests and continuation tokens, and sent with every request.
pub mod session {
    /// The value of cookie `name` that a request to `url` would send (a CSRF
    /// token a site wants echoed in a header, say).
    pub fn cookie(url: &str, name: &str) -> Option<String> {
        crate::wit::gleaner::plugin::session::cookie(url, name)
    }
}

/// The per-plugin cache, for tokens and keys that outlive a request.
pub mod cache {
    /// The cached value of `key`.
    pub fn get(key: &str) -> Option<String> {
        crate::wit::gleaner::plugin::cache::get(key)
    }
    /// Caches `value` for `ttl_seconds`.
    pub fn set(key: &str, value: &str, ttl_seconds: u32) {
        crate::wit::gleaner::plugin::cache::set(key, value, ttl_seconds)
    }
    /// Forgets `key`.
    pub fn delete(key: &str) {
        crate::wit::gleaner::plugin::cache::delete(key)
    }
}

/// Logging into the host's log, tagged with plugin and request id.
pub mod log {
    use crate::wit::gleaner::plugin::log::{log, Level};
    /// Logs at debug level.
    pub fn debug(message: &str) {
        log(Level::Debug, message)
    }
    /// Logs at info level.
    pub fn info(message: &str) {
        log(Level::Info, message)
    }
    /// Logs at warn level.
    pub fn warn(message: &str) {
        log(Level::Warn, message)
    }
}

/// The optional LLM, when the operator configured one and the manifest declares
/// `uses_llm = true`. Always validate what it returns.
pub mod llm {
    use crate::wit::gleaner::plugin::llm as host;

    /// Whether the LLM may be used.
    pub fn enabled() -> bool {
        host::enabled()
    }

    /// Asks with a system and a user message; returns the answer text or why not.
    /// Answers wrapped in a Markdown code fence are unwrapped.
    pub fn ask(system: &str, user: &str, max_tokens: u32) -> Result<String, String> {
        let messages = [
            host::Message {
                role: "system".into(),
                content: system.into(),
            },
            host::Message {
                role: "user".into(),
                content: user.into(),
            },
        ];
        host::chat(&messages, max_tokens, 0.0)
            .map(|answer| unfence(&answer))
            .map_err(|e| format!("{e:?}"))
    }

    /// Strips a surrounding Markdown code fence (```json ... ```), which models often add.
    pub fn unfence(answer: &str) -> String {
        let t = answer.trim();
        match t.strip_prefix("```") {
            Some(rest) => {
                let body = rest.split_once('\n').map_or("", |(_, b)| b);
                body.trim_end().trim_end_matches("```").trim().to_owned()
            }
            None => t.to_owned(),
        }
    }
}

/// Metadata with only the resolved URL and name known.
pub fn meta(resolved_url: Option<String>, name: Option<String>) -> SourceMeta {
    SourceMeta {
        resolved_url,
        name,
        average_rating: None,
        total_reviews: None,
        extra_json: String::new(),
    }
}
