//! Every plugin links the stack the build asks for, below its data: a stack
//! that overflows runs out of linear memory (a trap) instead of into the
//! plugin's statics. The trap itself is in `containment`.

use std::path::PathBuf;

use wasmparser::{DataKind, Operator, Parser, Payload};

use crate::common;

/// The stack the build links every plugin with: `-zstack-size=` in
/// `.cargo/config.toml`.
fn configured_stack() -> u32 {
    let config = std::fs::read_to_string(common::root().join(".cargo/config.toml")).unwrap();
    let (_, rest) = config
        .split_once("-zstack-size=")
        .expect(".cargo/config.toml sets the plugins' stack with -zstack-size=");
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

/// The main module's stack top (the stack pointer's first value) and the
/// lowest address its data segments start at.
struct Layout {
    stack_top: u32,
    lowest_data: u32,
}

fn i32_const(reader: wasmparser::ConstExpr<'_>) -> Option<u32> {
    match reader.get_operators_reader().read().ok()? {
        Operator::I32Const { value } => u32::try_from(value).ok(),
        _ => None,
    }
}

/// The layout of the one core module in `wasm` that defines a memory.
fn layout(wasm: &[u8]) -> Layout {
    let mut found = None;
    // Per core module: whether it defines a memory, global 0's value, the
    // lowest data offset.
    let (mut memory, mut stack_top, mut lowest_data) = (false, None, u32::MAX);
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.unwrap() {
            Payload::MemorySection(section) => memory |= section.count() > 0,
            Payload::GlobalSection(section) => {
                if let Some(first) = section.into_iter().next() {
                    let global = first.unwrap();
                    if global.ty.mutable && global.ty.content_type == wasmparser::ValType::I32 {
                        stack_top = i32_const(global.init_expr);
                    }
                }
            }
            Payload::DataSection(section) => {
                for data in section {
                    if let DataKind::Active { offset_expr, .. } = data.unwrap().kind {
                        if let Some(offset) = i32_const(offset_expr) {
                            lowest_data = lowest_data.min(offset);
                        }
                    }
                }
            }
            Payload::End(_) => {
                if memory {
                    assert!(
                        found.is_none(),
                        "more than one core module defines a memory"
                    );
                    found = Some(Layout {
                        stack_top: stack_top.expect("the memory's module has a stack pointer"),
                        lowest_data,
                    });
                }
                (memory, stack_top, lowest_data) = (false, None, u32::MAX);
            }
            _ => {}
        }
    }
    found.expect("a core module defines the plugin's memory")
}

/// The plugin directories checked: the workspace's staged plugins, or the
/// one `GLEANER_STACK_CHECK_DIR` names instead (`make template-check` points
/// it at plugins `gleaner plugin build` built outside the workspace), and how
/// many plugins each check must find at least.
fn checked_dirs() -> (Vec<PathBuf>, usize) {
    match std::env::var_os("GLEANER_STACK_CHECK_DIR") {
        Some(dir) => (vec![PathBuf::from(dir)], 1),
        None => (
            ["target/plugins", "target/test-plugins"]
                .iter()
                .map(|d| common::root().join(d))
                .collect(),
            20,
        ),
    }
}

#[test]
fn every_plugin_links_the_configured_stack_below_its_data() {
    let stack = configured_stack();
    let (dirs, minimum) = checked_dirs();
    let mut checked = 0;
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            panic!(
                "{} is missing: make plugins stages the plugins",
                dir.display()
            );
        };
        for path in entries.map(|e| e.unwrap().path()) {
            if path.extension().is_none_or(|x| x != "wasm") {
                continue;
            }
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let layout = layout(&std::fs::read(&path).unwrap());
            assert_eq!(
                layout.stack_top, stack,
                "{name}: its stack is {} bytes, the build asks for {stack}",
                layout.stack_top
            );
            assert!(
                layout.lowest_data >= layout.stack_top,
                "{name}: data at {} lies inside the stack (top {})",
                layout.lowest_data,
                layout.stack_top
            );
            checked += 1;
        }
    }
    assert!(checked >= minimum, "only {checked} plugins were checked");
}
