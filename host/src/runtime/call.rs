//! Calling plugin exports: a fresh store per call, the deadline, and the
//! classification of failures into timeout, crash and overload.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use tracing::Instrument;
use wasmtime::Store;

use super::memory::{MemoryBudget, MemoryCapExceeded, MemoryPoolExhausted};
use super::state::CallState;
use super::{LoadedPlugin, Prepared, Runtime};
use crate::bindings::processor::exports::gleaner::plugin::processor_plugin::{
    Output, ProcessError,
};
use crate::bindings::types::{FetchError, Page, PageRequest, PluginInfo};
use crate::capabilities::http::session::Session;
use crate::capabilities::{CallContext, HostDataExceeded};
use crate::telemetry::metrics::CallOutcome;

/// A plugin call that failed as a whole (as opposed to a typed error the plugin returned).
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The call ran past its deadline.
    #[error("plugin {plugin} did not finish within {after_ms} ms and was stopped")]
    Timeout {
        /// Plugin name.
        plugin: String,
        /// The deadline in ms.
        after_ms: u64,
    },
    /// The plugin trapped, exceeded its memory or host-data cap, or broke the contract.
    #[error("plugin {plugin} failed: {message}")]
    Crash {
        /// Plugin name.
        plugin: String,
        /// What happened.
        message: String,
    },
    /// No instance slot is free right now.
    #[error("too many plugin calls at once: {0}")]
    Overloaded(String),
}

impl Runtime {
    fn store(
        &self,
        plugin: &LoadedPlugin,
        request_id: &str,
        deadline: Instant,
        session: Option<Arc<Session>>,
    ) -> (Store<CallState>, Instant, Arc<Session>) {
        let limit = Instant::now()
            + std::time::Duration::from_millis(plugin.manifest.limits.call_timeout_ms);
        let deadline = deadline.min(limit);
        let memory = MemoryBudget::new(
            self.memory.clone(),
            plugin.meters.clone(),
            plugin.memory_held.clone(),
            plugin.grant.memory_bytes,
        );
        let session = session.unwrap_or_default();
        let call = CallContext::new(
            plugin.grant.clone(),
            request_id.to_owned(),
            deadline,
            Some(session.clone()),
        );
        let state = CallState::new(call, self.services.clone(), memory);
        let mut store = Store::new(&self.engine, state);
        store.limiter_async(|s| &mut s.memory);
        // Every epoch tick the guest yields to the executor, so a busy plugin never
        // holds a thread; at the deadline the tick traps instead.
        store.set_epoch_deadline(1);
        store.epoch_deadline_callback(move |_| {
            if Instant::now() >= deadline {
                Err(wasmtime::Trap::Interrupt.into())
            } else {
                Ok(wasmtime::UpdateDeadline::Yield(1))
            }
        });
        (store, deadline, session)
    }

    async fn finish<R>(
        &self,
        plugin: &LoadedPlugin,
        started: Instant,
        (deadline, session): (Instant, Arc<Session>),
        run: impl Future<Output = wasmtime::Result<R>>,
    ) -> Result<R, CallError> {
        let name = plugin.manifest.name.clone();
        let after_ms = deadline.saturating_duration_since(started).as_millis() as u64;
        let span = tracing::info_span!(
            "plugin_call",
            plugin = %name,
            version = %plugin.manifest.version,
            outcome = tracing::field::Empty,
        );
        let outcome = tokio::time::timeout_at(deadline.into(), run)
            .instrument(span.clone())
            .await;
        let (result, call_outcome) = match outcome {
            Err(_) => (
                Err(CallError::Timeout {
                    plugin: name,
                    after_ms,
                }),
                CallOutcome::Timeout,
            ),
            Ok(Ok(value)) => (Ok(value), CallOutcome::Ok),
            Ok(Err(e)) => {
                let (error, call_outcome) = classify(name, after_ms, e);
                (Err(error), call_outcome)
            }
        };
        span.record("outcome", call_outcome.code());
        plugin.meters.call(call_outcome, started.elapsed());
        // A trap's message is the plugin's text: it may quote a cookie.
        let result = result.map_err(|e| e.scrubbed(&session.scrubber()));
        if let Err(e) = &result {
            tracing::error!(plugin = %plugin.manifest.name, version = %plugin.manifest.version, error = %e, "plugin call failed");
        }
        result
    }

    /// Calls `info()`.
    pub async fn info(&self, plugin: &LoadedPlugin) -> Result<PluginInfo, CallError> {
        let started = Instant::now();
        let (mut store, deadline, session) = self.store(
            plugin,
            "load",
            started + std::time::Duration::from_secs(10),
            None,
        );
        let run = async {
            match &plugin.prepared {
                Prepared::Source(pre) => {
                    let i = pre.instantiate_async(&mut store).await?;
                    i.gleaner_plugin_source_plugin().call_info(&mut store).await
                }
                Prepared::Post(pre) => {
                    let i = pre.instantiate_async(&mut store).await?;
                    i.gleaner_plugin_post_plugin().call_info(&mut store).await
                }
                Prepared::Processor(pre) => {
                    let i = pre.instantiate_async(&mut store).await?;
                    i.gleaner_plugin_processor_plugin()
                        .call_info(&mut store)
                        .await
                }
            }
        };
        self.finish(plugin, started, (deadline, session), run).await
    }

    /// Calls `fetch-page` of a source plugin, in the fetch's `session` (a new
    /// one when none is given).
    pub async fn fetch_page(
        &self,
        plugin: &LoadedPlugin,
        request_id: &str,
        request: &PageRequest,
        deadline: Instant,
        session: Option<Arc<Session>>,
    ) -> Result<Result<Page, FetchError>, CallError> {
        let Prepared::Source(pre) = &plugin.prepared else {
            return Err(wrong_kind(plugin, "fetch-page"));
        };
        let started = Instant::now();
        let (mut store, deadline, session) = self.store(plugin, request_id, deadline, session);
        let run = async {
            let i = pre.instantiate_async(&mut store).await?;
            i.gleaner_plugin_source_plugin()
                .call_fetch_page(&mut store, request)
                .await
        };
        self.finish(plugin, started, (deadline, session), run).await
    }

    /// Calls `fetch-post` of a post-source plugin, in `session`.
    pub async fn fetch_post(
        &self,
        plugin: &LoadedPlugin,
        request_id: &str,
        query: &str,
        deadline: Instant,
        session: Arc<Session>,
    ) -> Result<Result<String, FetchError>, CallError> {
        let Prepared::Post(pre) = &plugin.prepared else {
            return Err(wrong_kind(plugin, "fetch-post"));
        };
        let started = Instant::now();
        let (mut store, deadline, session) =
            self.store(plugin, request_id, deadline, Some(session));
        let run = async {
            let i = pre.instantiate_async(&mut store).await?;
            i.gleaner_plugin_post_plugin()
                .call_fetch_post(&mut store, query)
                .await
        };
        self.finish(plugin, started, (deadline, session), run).await
    }

    /// Calls `process` of a processor plugin, in a new session.
    pub async fn process(
        &self,
        plugin: &LoadedPlugin,
        request_id: &str,
        input: &str,
        deadline: Instant,
    ) -> Result<Result<Output, ProcessError>, CallError> {
        self.process_in(plugin, request_id, input, deadline, Arc::default())
            .await
    }

    /// Calls `process` of a processor plugin, in `session`.
    pub async fn process_in(
        &self,
        plugin: &LoadedPlugin,
        request_id: &str,
        input: &str,
        deadline: Instant,
        session: Arc<Session>,
    ) -> Result<Result<Output, ProcessError>, CallError> {
        let Prepared::Processor(pre) = &plugin.prepared else {
            return Err(wrong_kind(plugin, "process"));
        };
        let started = Instant::now();
        let (mut store, deadline, session) =
            self.store(plugin, request_id, deadline, Some(session));
        let run = async {
            let i = pre.instantiate_async(&mut store).await?;
            i.gleaner_plugin_processor_plugin()
                .call_process(&mut store, input)
                .await
        };
        self.finish(plugin, started, (deadline, session), run).await
    }
}

fn wrong_kind(plugin: &LoadedPlugin, export: &str) -> CallError {
    CallError::Crash {
        plugin: plugin.manifest.name.clone(),
        message: format!(
            "it is a {:?} plugin and has no {export} export",
            plugin.manifest.kind
        ),
    }
}

impl CallError {
    /// The error with the secrets `scrubber` knows replaced in its message.
    pub fn scrubbed(self, scrubber: &crate::secrets::Scrubber) -> CallError {
        match self {
            CallError::Crash { plugin, message } => CallError::Crash {
                plugin,
                message: scrubber.scrub(&message).into_owned(),
            },
            other => other,
        }
    }
}

/// The error a failed call answers with, and its outcome for the metrics.
fn classify(plugin: String, after_ms: u64, e: wasmtime::Error) -> (CallError, CallOutcome) {
    if let Some(trap) = e.downcast_ref::<wasmtime::Trap>() {
        if *trap == wasmtime::Trap::Interrupt {
            return (
                CallError::Timeout { plugin, after_ms },
                CallOutcome::Timeout,
            );
        }
    }
    if e.downcast_ref::<wasmtime::PoolConcurrencyLimitError>()
        .is_some()
    {
        return (
            CallError::Overloaded(format!("{e}")),
            CallOutcome::Overloaded,
        );
    }
    if let Some(full) = e.downcast_ref::<MemoryPoolExhausted>() {
        return (
            CallError::Overloaded(full.to_string()),
            CallOutcome::Overloaded,
        );
    }
    if let Some(cap) = e.downcast_ref::<MemoryCapExceeded>() {
        let message = cap.to_string();
        return (CallError::Crash { plugin, message }, CallOutcome::MemoryCap);
    }
    if let Some(limit) = e.downcast_ref::<HostDataExceeded>() {
        let message = limit.to_string();
        return (
            CallError::Crash { plugin, message },
            CallOutcome::HostDataCap,
        );
    }
    let message = format!("{e:#}");
    (CallError::Crash { plugin, message }, CallOutcome::Trap)
}
impl From<CallError> for crate::error::ApiError {
    fn from(e: CallError) -> crate::error::ApiError {
        match e {
            CallError::Timeout { .. } => crate::error::ApiError::Timeout(e.to_string()),
            CallError::Crash { .. } => crate::error::ApiError::PluginFailed(e.to_string()),
            CallError::Overloaded(_) => {
                crate::error::ApiError::Overloaded(format!("{e}; retry shortly"))
            }
        }
    }
}
