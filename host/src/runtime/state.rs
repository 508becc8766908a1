//! Per-call store data, and the linking of every host capability to it.
//!
//! A fresh [`CallState`] is made for every plugin call, so no state is shared
//! between requests except what the capabilities keep on purpose (the cache).
//! Each capability reaches the store through its own view (see
//! [`crate::capabilities`]); this module only says where each view's parts live.

use wasmtime::component::{HasSelf, Linker, ResourceTable};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::memory::MemoryBudget;
use crate::bindings::sdk::gleaner::plugin::types;
use crate::capabilities::{self, CallContext, CallParts, Services};

/// Store data of one plugin call.
pub struct CallState {
    wasi: WasiCtx,
    table: ResourceTable,
    /// Memory limits: the plugin's cap and its share of the server-wide pool.
    pub memory: MemoryBudget,
    /// Request id, deadline, grant and host-data meter.
    pub call: CallContext,
    services: Services,
}

impl CallState {
    /// State for one call. WASI gets no sockets and no name lookup: plugins reach
    /// the network only through the http capability.
    pub fn new(call: CallContext, services: Services, memory: MemoryBudget) -> CallState {
        let mut wasi = WasiCtx::builder();
        wasi.allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false);
        CallState {
            wasi: wasi.build(),
            table: ResourceTable::new(),
            memory,
            call,
            services,
        }
    }
}

impl WasiView for CallState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl types::Host for CallState {}

impl CallParts for CallState {
    fn parts(&mut self) -> (&mut CallContext, &Services) {
        (&mut self.call, &self.services)
    }
}

/// Links WASI, the shared types and every host capability.
pub fn link(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    wasmtime_wasi::p2::add_to_linker_async(linker)?;
    types::add_to_linker::<CallState, HasSelf<CallState>>(linker, |s| s)?;
    capabilities::link(linker)
}
