//! What the Gleaner host and its plugins must agree on, written once for both
//! sides: the checks every review meets ([`review`]), the limits a plugin's
//! answer stays within, and the list of interfaces every plugin world imports.
//! The values that cross the WIT door (a request's browser profile, the
//! host's wall verdict on a response) are WIT types of `wit/gleaner.wit`.
//!
//! The host runs these checks on everything a plugin returns (it trusts no
//! guest); the SDK runs the same ones when a plugin builds a review, so a
//! review the SDK accepts is one the host accepts.

pub mod country;
pub mod date;
pub mod review;

/// The most cursors of later pages the host keeps from one page's `ahead`
/// list; a plugin lists no more.
pub const MAX_AHEAD: usize = 10_000;

/// Calls `callback!` with the interfaces of the WIT world `sdk`, which every
/// plugin world includes, as `"key" => module` pairs, after the arguments
/// given: the one list both sides' binding generators map onto the bindings
/// they already have (the host's `with:` and the SDK's).
#[macro_export]
macro_rules! with_imports {
    ($($callback:ident)::+ ! { $($args:tt)* }) => {
        $($callback)::+! {
            { $($args)* }
            "gleaner:plugin/http@0.4.0" => http,
            "gleaner:plugin/config@0.4.0" => config,
            "gleaner:plugin/cache@0.4.0" => cache,
            "gleaner:plugin/log@0.4.0" => log,
            "gleaner:plugin/llm@0.4.0" => llm,
            "gleaner:plugin/session@0.4.0" => session,
            "gleaner:plugin/browser@0.4.0" => browser,
            "gleaner:plugin/types@0.4.0" => types,
        }
    };
}
