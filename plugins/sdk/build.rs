//! Writes [`__plugin_world!`], the macro that generates a plugin's export
//! bindings, with the absolute path of the WIT package this SDK was built
//! against: a plugin crate then builds wherever it lives, in this repository
//! or on its own. (`wit_bindgen::generate!` reads its `path` as a literal,
//! relative to the crate that invokes it.)

use std::path::PathBuf;

fn main() {
    let sdk = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    // A copy packaged inside the SDK first, then the repository's.
    let wit = [sdk.join("wit"), sdk.join("../../wit")]
        .into_iter()
        .find(|dir| dir.join("gleaner.wit").is_file())
        .expect("the SDK needs the WIT package: wit/gleaner.wit beside it or two folders up");
    let wit = wit.canonicalize().expect("the WIT folder resolves");
    println!("cargo:rerun-if-changed=build.rs");
    let path = wit.to_str().expect("the WIT folder's path is UTF-8");
    let source = format!(
        r#"/// [`plugin_bindings!`]'s generator, given the shared interfaces' list.
#[doc(hidden)]
#[macro_export]
macro_rules! __plugin_world {{
    ({{ $world:tt }} $($key:tt => $interface:ident,)*) => {{
        wit_bindgen::generate!({{
            world: $world,
            path: {path:?},
            with: {{
                $($key: gleaner_sdk::wit::gleaner::plugin::$interface,)*
            }},
        }});
    }};
}}
"#
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("plugin_world.rs"), source).expect("OUT_DIR is writable");
}
