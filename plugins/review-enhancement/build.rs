//! Indexes the word lists at compile time, so that no call of the plugin
//! scans them: the restart offsets of `data/words.txt` and `data/extra.txt`
//! become static arrays in the component's data segment.

use std::fmt::Write as _;

include!("src/restarts.rs");

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let mut code = String::new();
    for (name, file) in [("WORDS", "data/words.txt"), ("EXTRA", "data/extra.txt")] {
        println!("cargo:rerun-if-changed={file}");
        let data = std::fs::read_to_string(file).expect("the word lists are in data/");
        let offsets = restarts(&data);
        let _ = write!(
            code,
            "/// The restarts of `{file}`.\npub(crate) static {name}_RESTARTS: [u32; {}] = [",
            offsets.len()
        );
        for o in offsets {
            let _ = write!(code, "{o},");
        }
        code.push_str("];\n");
    }
    println!("cargo:rerun-if-changed=src/restarts.rs");
    std::fs::write(std::path::Path::new(&out).join("restarts.rs"), code)
        .expect("OUT_DIR is writable");
}
