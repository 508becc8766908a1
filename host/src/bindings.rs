//! Host-side bindings generated from `wit/` with wasmtime's `bindgen!`.
//!
//! The import interfaces are generated once (world `sdk`) and shared by the three
//! plugin worlds through `with`. The bindings are the ground floor: the
//! capabilities, the contract checks, the review record and the errors use
//! their types without reaching up into [`crate::runtime`].

/// The host interfaces (http, config, cache, log) and shared types.
pub mod sdk {
    wasmtime::component::bindgen!({
        world: "sdk",
        path: "../wit",
        imports: { default: async | trappable },
    });
}

/// Generates the bindings of one plugin world, sharing the `sdk` interfaces.
macro_rules! world {
    ($(#[$doc:meta])* $module:ident, $world:tt) => {
        $(#[$doc])*
        pub mod $module {
            wasmtime::component::bindgen!({
                world: $world,
                path: "../wit",
                imports: { default: async | trappable },
                exports: { default: async },
                with: {
                    "gleaner:plugin/http": super::sdk::gleaner::plugin::http,
                    "gleaner:plugin/config": super::sdk::gleaner::plugin::config,
                    "gleaner:plugin/cache": super::sdk::gleaner::plugin::cache,
                    "gleaner:plugin/log": super::sdk::gleaner::plugin::log,
                    "gleaner:plugin/llm": super::sdk::gleaner::plugin::llm,
                    "gleaner:plugin/session": super::sdk::gleaner::plugin::session,
                    "gleaner:plugin/types": super::sdk::gleaner::plugin::types,
                },
            });
        }
    };
}

world!(
    /// World `source`: review sources.
    source,
    "source"
);
world!(
    /// World `post-source`: single-post sources.
    post,
    "post-source"
);
world!(
    /// World `processor`: JSON in, JSON out.
    processor,
    "processor"
);

pub use sdk::gleaner::plugin::types;
