//! The host builds nothing at build time. This script exists so that its
//! build dependency `gleaner-unify-build` gives proc macros and build scripts one
//! feature set across `make run`, `make demo` and `make test` (see
//! `crates/unify-build/Cargo.toml`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}
