//! `gleaner-trim IN OUT`: writes the component `IN` to `OUT` without the
//! console, environment and exit imports no plugin uses (see the library).
//! A component with nothing to remove, or laid out in a way this tool does
//! not recognise, is copied unchanged, with the reason.

use anyhow::Context;
use gleaner_trim::{trim, TrimError, Trimmed};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        anyhow::bail!("usage: gleaner-trim IN.wasm OUT.wasm");
    };
    let bytes = std::fs::read(input).with_context(|| format!("cannot read {input}"))?;
    let out = match trim(&bytes) {
        Ok(Trimmed::Component { bytes, removed }) => {
            println!("{input}: {} unused WASI imports removed", removed.len());
            bytes
        }
        Ok(Trimmed::Unchanged) => bytes,
        Err(e @ TrimError::Unsupported(_)) => {
            println!("{input}: {e}");
            bytes
        }
        Err(e) => return Err(anyhow::anyhow!("{input}: {e}")),
    };
    std::fs::write(output, out).with_context(|| format!("cannot write {output}"))
}
