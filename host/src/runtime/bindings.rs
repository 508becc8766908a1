//! Host-side bindings generated from `wit/` with wasmtime's `bindgen!`.
//!
//! The import interfaces are generated once (world `sdk`) and shared by the three
//! plugin worlds through `with`.

/// The host interfaces (http, config, cache, log) and shared types.
pub mod sdk {
    wasmtime::component::bindgen!({
        world: "sdk",
        path: "../wit",
        imports: { default: async | trappable },
    });
}

/// World `source`: review sources.
pub mod source {
    wasmtime::component::bindgen!({
        world: "source",
        path: "../wit",
        imports: { default: async | trappable },
        exports: { default: async },
        with: {
            "gleaner:plugin/http": super::sdk::gleaner::plugin::http,
            "gleaner:plugin/config": super::sdk::gleaner::plugin::config,
            "gleaner:plugin/cache": super::sdk::gleaner::plugin::cache,
            "gleaner:plugin/log": super::sdk::gleaner::plugin::log,
            "gleaner:plugin/types": super::sdk::gleaner::plugin::types,
        },
    });
}

/// World `post-source`: single-post sources.
pub mod post {
    wasmtime::component::bindgen!({
        world: "post-source",
        path: "../wit",
        imports: { default: async | trappable },
        exports: { default: async },
        with: {
            "gleaner:plugin/http": super::sdk::gleaner::plugin::http,
            "gleaner:plugin/config": super::sdk::gleaner::plugin::config,
            "gleaner:plugin/cache": super::sdk::gleaner::plugin::cache,
            "gleaner:plugin/log": super::sdk::gleaner::plugin::log,
            "gleaner:plugin/types": super::sdk::gleaner::plugin::types,
        },
    });
}

/// World `processor`: JSON in, JSON out.
pub mod processor {
    wasmtime::component::bindgen!({
        world: "processor",
        path: "../wit",
        imports: { default: async | trappable },
        exports: { default: async },
        with: {
            "gleaner:plugin/http": super::sdk::gleaner::plugin::http,
            "gleaner:plugin/config": super::sdk::gleaner::plugin::config,
            "gleaner:plugin/cache": super::sdk::gleaner::plugin::cache,
            "gleaner:plugin/log": super::sdk::gleaner::plugin::log,
            "gleaner:plugin/types": super::sdk::gleaner::plugin::types,
        },
    });
}

pub use sdk::gleaner::plugin::types;
