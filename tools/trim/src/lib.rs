//! Removes, from a plugin component, the WASI imports that only the Rust
//! standard library's console, environment and exit code reach: every
//! `wasi:cli` function, and the `wasi:io` streams, errors and pollables that
//! only serve them.
//!
//! Why: those imports take strings or lists, so wit-component lowers them
//! through its shim and fixup core modules. Every instantiation of such a
//! component instantiates three core modules and links thirteen WASI
//! instances, for functions a plugin never calls (the server gives plugins no
//! console and no environment). Without them a processor is one core
//! instance.
//!
//! How: the component's main core module is taken out, each removed import
//! becomes a function of the module whose body traps (`unreachable`), and the
//! module is encoded again as a component of the same world with
//! wit-component. A plugin that prints or reads its environment traps where it
//! used to write into the server's closed console; a panic traps as before.
//! Imports that do real work (clocks, random numbers, the server's own
//! interfaces) are kept.

use std::ops::Range;

use wasm_encoder::reencode::{self, Reencode};
use wasmparser::{Parser, Payload, TypeRef};
use wit_component::{ComponentEncoder, DecodedWasm, StringEncoding};

/// Why a component cannot be trimmed.
#[derive(Debug, thiserror::Error)]
pub enum TrimError {
    /// The bytes do not parse as a WebAssembly component.
    #[error("not a WebAssembly component ({0}); give the .wasm a plugin build writes")]
    NotAComponent(String),
    /// The component is laid out other than wit-component lays out a
    /// wasm32-wasip2 build (for example, a preview 1 adapter inside).
    #[error("{0}; it is left as it is")]
    Unsupported(String),
    /// Re-encoding failed.
    #[error("the trimmed component could not be encoded: {0}")]
    Encode(String),
}

/// What [`trim`] did.
#[derive(Debug)]
pub enum Trimmed {
    /// The component imports nothing to remove; use it as it is.
    Unchanged,
    /// The new component, and the removed imports as `module#name`.
    Component {
        /// The component's bytes.
        bytes: Vec<u8>,
        /// Each removed import, as `wasi:cli/stdout@0.2.0#get-stdout`.
        removed: Vec<String>,
    },
}

/// Removes the unused console, environment and exit imports from `component`.
pub fn trim(component: &[u8]) -> Result<Trimmed, TrimError> {
    let (resolve, world) = match wit_component::decode(component) {
        Ok(DecodedWasm::Component(resolve, world)) => (resolve, world),
        Ok(DecodedWasm::WitPackage(..)) => {
            return Err(TrimError::NotAComponent(
                "it is a WIT package, not a component".into(),
            ))
        }
        Err(e) => return Err(TrimError::NotAComponent(format!("{e:#}"))),
    };
    let main = main_module(component)?;
    let plan = Plan::of(main)?;
    if plan.removed.is_empty() {
        return Ok(Trimmed::Unchanged);
    }
    let mut module = wasm_encoder::Module::new();
    let mut reencoder = Stubs::new(&plan);
    reencoder
        .parse_core_module(&mut module, Parser::new(0), main)
        .map_err(|e| TrimError::Encode(e.to_string()))?;
    let mut bytes = module.finish();
    wit_component::embed_component_metadata(&mut bytes, &resolve, world, StringEncoding::UTF8)
        .map_err(|e| TrimError::Encode(format!("{e:#}")))?;
    let bytes = ComponentEncoder::default()
        .validate(true)
        .module(&bytes)
        .and_then(|mut encoder| encoder.encode())
        .map_err(|e| TrimError::Encode(format!("{e:#}")))?;
    Ok(Trimmed::Component {
        bytes,
        removed: plan.removed,
    })
}

/// Largest a module beside the main one may be: wit-component's shim and
/// fixup modules are a few hundred bytes; an adapter is tens of KiB.
const GLUE_MODULE_MAX: usize = 4096;

/// The component's main core module: its largest, when every other one is
/// wit-component's glue.
fn main_module(component: &[u8]) -> Result<&[u8], TrimError> {
    let mut depth = 0usize;
    let mut modules: Vec<Range<usize>> = Vec::new();
    for payload in Parser::new(0).parse_all(component) {
        match payload.map_err(|e| TrimError::NotAComponent(e.to_string()))? {
            Payload::Version { encoding, .. } => {
                if depth == 0 && encoding != wasmparser::Encoding::Component {
                    return Err(TrimError::NotAComponent("it is a core module".into()));
                }
                depth += 1;
            }
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ModuleSection {
                unchecked_range, ..
            } if depth == 1 => modules.push(unchecked_range),
            _ => {}
        }
    }
    let largest = modules
        .iter()
        .max_by_key(|r| r.len())
        .cloned()
        .ok_or_else(|| TrimError::Unsupported("the component holds no core module".into()))?;
    if let Some(other) = modules
        .iter()
        .find(|r| **r != largest && r.len() > GLUE_MODULE_MAX)
    {
        return Err(TrimError::Unsupported(format!(
            "the component holds a second core module of {} bytes (an adapter?)",
            other.len()
        )));
    }
    Ok(&component[largest])
}

/// Which function imports of the main module become trapping functions.
struct Plan {
    /// Per function import, in order: whether it is removed.
    function_imports: Vec<bool>,
    /// The type index of each removed import, in order.
    stub_types: Vec<u32>,
    /// Each removed import, as `module#name`.
    removed: Vec<String>,
}

impl Plan {
    fn of(module: &[u8]) -> Result<Plan, TrimError> {
        let mut imports = Vec::new();
        for payload in Parser::new(0).parse_all(module) {
            if let Payload::ImportSection(section) =
                payload.map_err(|e| TrimError::NotAComponent(e.to_string()))?
            {
                for import in section.into_imports() {
                    let import = import.map_err(|e| TrimError::NotAComponent(e.to_string()))?;
                    if let TypeRef::Func(ty) = import.ty {
                        imports.push((import.module.to_owned(), import.name.to_owned(), ty));
                    }
                }
            }
        }
        let interfaces: Vec<&str> = imports.iter().map(|(m, _, _)| m.as_str()).collect();
        let mut plan = Plan {
            function_imports: Vec::new(),
            stub_types: Vec::new(),
            removed: Vec::new(),
        };
        for (module, name, ty) in &imports {
            let remove = removable(module, &interfaces);
            plan.function_imports.push(remove);
            if remove {
                plan.stub_types.push(*ty);
                plan.removed.push(format!("{module}#{name}"));
            }
        }
        Ok(plan)
    }
}

/// Whether an import from `module` serves only the console, the environment
/// or exit, given every module the core module imports from.
fn removable(module: &str, all: &[&str]) -> bool {
    let package = |m: &str| m.split('/').next().unwrap_or(m).to_owned();
    // These hand out streams and pollables of their own.
    let streams_elsewhere = all.iter().any(|m| {
        matches!(
            package(m).as_str(),
            "wasi:filesystem" | "wasi:sockets" | "wasi:http"
        )
    });
    let pollables_elsewhere = streams_elsewhere || all.iter().any(|m| package(m) == "wasi:clocks");
    let interface = module.split('@').next().unwrap_or(module);
    match interface {
        i if i.starts_with("wasi:cli/") => true,
        "wasi:io/streams" | "wasi:io/error" => !streams_elsewhere,
        "wasi:io/poll" => !pollables_elsewhere,
        _ => false,
    }
}

/// Re-encodes the main module with each removed import turned into a function
/// that traps. Kept imports keep their order at the front of the function
/// index space; the traps follow them, then the module's own functions.
struct Stubs<'a> {
    plan: &'a Plan,
    /// The new index of each old function index.
    map: Vec<u32>,
}

impl<'a> Stubs<'a> {
    fn new(plan: &'a Plan) -> Stubs<'a> {
        let kept = plan.function_imports.iter().filter(|r| !**r).count() as u32;
        let (mut next_kept, mut next_stub) = (0u32, kept);
        let map = plan
            .function_imports
            .iter()
            .map(|removed| {
                let slot = if *removed {
                    &mut next_stub
                } else {
                    &mut next_kept
                };
                *slot += 1;
                *slot - 1
            })
            .collect();
        Stubs { plan, map }
    }
}

impl Reencode for Stubs<'_> {
    type Error = std::convert::Infallible;

    fn function_index(&mut self, func: u32) -> Result<u32, reencode::Error<Self::Error>> {
        // Functions past the imports keep their place after them.
        Ok(self.map.get(func as usize).copied().unwrap_or(func))
    }

    fn parse_import_section(
        &mut self,
        imports: &mut wasm_encoder::ImportSection,
        section: wasmparser::ImportSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        let mut function = 0usize;
        for import in section.into_imports() {
            let import = import?;
            if matches!(import.ty, TypeRef::Func(_)) {
                function += 1;
                if self.plan.function_imports[function - 1] {
                    continue;
                }
            }
            self.parse_import(imports, import)?;
        }
        Ok(())
    }

    fn parse_function_section(
        &mut self,
        functions: &mut wasm_encoder::FunctionSection,
        section: wasmparser::FunctionSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        for ty in &self.plan.stub_types {
            functions.function(*ty);
        }
        reencode::utils::parse_function_section(self, functions, section)
    }

    fn parse_code_section(
        &mut self,
        code: &mut wasm_encoder::CodeSection,
        section: wasmparser::CodeSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        for _ in &self.plan.stub_types {
            let mut trap = wasm_encoder::Function::new([]);
            trap.instruction(&wasm_encoder::Instruction::Unreachable);
            trap.instruction(&wasm_encoder::Instruction::End);
            code.function(&trap);
        }
        reencode::utils::parse_code_section(self, code, section)
    }
}

#[cfg(test)]
mod tests {
    use super::removable;

    #[test]
    fn console_imports_go_and_real_work_stays() {
        let processor = [
            "wasi:cli/stderr@0.2.0",
            "wasi:io/streams@0.2.0",
            "wasi:io/poll@0.2.0",
        ];
        assert!(removable("wasi:cli/stderr@0.2.0", &processor));
        assert!(removable("wasi:cli/environment@0.2.0", &processor));
        assert!(removable("wasi:io/streams@0.2.0", &processor));
        assert!(removable("wasi:io/poll@0.2.0", &processor));
        assert!(!removable("gleaner:plugin/http@0.4.0", &processor));

        let timed = [
            "wasi:cli/stderr@0.2.0",
            "wasi:clocks/monotonic-clock@0.2.0",
            "wasi:io/poll@0.2.0",
        ];
        assert!(!removable("wasi:clocks/monotonic-clock@0.2.0", &timed));
        assert!(!removable("wasi:random/insecure-seed@0.2.0", &timed));
        assert!(
            !removable("wasi:io/poll@0.2.0", &timed),
            "a clock's pollable must still be waited on and dropped"
        );
        assert!(removable("wasi:io/streams@0.2.0", &timed));

        let files = ["wasi:filesystem/types@0.2.0", "wasi:io/streams@0.2.0"];
        assert!(!removable("wasi:io/streams@0.2.0", &files));
        assert!(!removable("wasi:io/error@0.2.0", &files));
    }
}
