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

/// Generates the bindings of one plugin world, sharing the `sdk` interfaces
/// (their list comes from [`gleaner_contract::with_imports`]).
macro_rules! world_with {
    ({ $(#[$doc:meta])* $module:ident, $world:tt } $($key:tt => $interface:ident,)*) => {
        $(#[$doc])*
        pub mod $module {
            wasmtime::component::bindgen!({
                world: $world,
                path: "../wit",
                imports: { default: async | trappable },
                exports: { default: async },
                with: {
                    $($key: super::sdk::gleaner::plugin::$interface,)*
                },
            });
        }
    };
}

macro_rules! world {
    ($($args:tt)*) => {
        gleaner_contract::with_imports!(world_with! { $($args)* });
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
