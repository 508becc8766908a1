//! Per-call store state, and the host side of the plugin imports.
//!
//! A fresh [`CallState`] is made for every plugin call, so no state is shared
//! between requests except what the host capabilities keep on purpose (the cache).

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::bindings::sdk::gleaner::plugin::{cache, config, http, llm, log};
use super::memory::MemoryBudget;
use crate::capabilities::cache::CacheStore;
use crate::capabilities::http::policy::Policy;
use crate::capabilities::http::{HttpError, HttpService, OutboundRequest};
use crate::capabilities::llm::{LlmError, LlmService};
use crate::capabilities::log as plugin_log;
use crate::capabilities::settings::Settings;

/// What a plugin is allowed, fixed when it is loaded (policy from its manifest).
pub struct PluginGrant {
    /// Plugin name.
    pub name: String,
    /// Plugin version.
    pub version: String,
    /// Network policy and limits.
    pub policy: Policy,
    /// Operator settings.
    pub settings: Settings,
    /// Whether the manifest declares `uses_llm`.
    pub uses_llm: bool,
}

/// Server-wide services every call shares.
#[derive(Clone)]
pub struct Services {
    /// Outbound HTTP.
    pub http: Arc<HttpService>,
    /// The plugin cache.
    pub cache: Arc<CacheStore>,
    /// The optional LLM.
    pub llm: Arc<LlmService>,
}

/// The data a host call raised to stop the guest: the plugin passed more data
/// through host calls than its limit allows.
#[derive(Debug, thiserror::Error)]
#[error("plugin passed more than {limit} bytes through host calls in one call; raise limits.max_host_data_bytes in its manifest if this is expected")]
pub struct HostDataExceeded {
    /// The limit in bytes.
    pub limit: usize,
}

/// Store data of one plugin call.
pub struct CallState {
    wasi: WasiCtx,
    table: ResourceTable,
    /// Memory limits: the plugin's cap and its share of the server-wide pool.
    pub memory: MemoryBudget,
    grant: Arc<PluginGrant>,
    services: Services,
    request_id: String,
    deadline: Instant,
    host_data: usize,
}

impl CallState {
    /// State for one call that must finish by `deadline`.
    pub fn new(
        grant: Arc<PluginGrant>,
        services: Services,
        memory: MemoryBudget,
        request_id: String,
        deadline: Instant,
    ) -> CallState {
        let mut wasi = WasiCtx::builder();
        wasi.allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false);
        CallState {
            wasi: wasi.build(),
            table: ResourceTable::new(),
            memory,
            grant,
            services,
            request_id,
            deadline,
            host_data: 0,
        }
    }

    fn charge(&mut self, bytes: usize) -> wasmtime::Result<()> {
        self.host_data += bytes;
        let limit = self.grant.policy.limits.max_host_data_bytes;
        if self.host_data > limit {
            return Err(wasmtime::Error::new(HostDataExceeded { limit }));
        }
        Ok(())
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

/// What an outbound request needs from the call, detached from the store so
/// several requests can run at once.
#[derive(Clone)]
struct Outbound {
    http: Arc<HttpService>,
    grant: Arc<PluginGrant>,
    request_id: String,
    deadline: Instant,
}

impl CallState {
    fn outbound(&self) -> Outbound {
        Outbound {
            http: self.services.http.clone(),
            grant: self.grant.clone(),
            request_id: self.request_id.clone(),
            deadline: self.deadline,
        }
    }
}

impl Outbound {
    /// Sends one request under this plugin's policy, logging the outcome.
    async fn send_one(self, req: http::Request) -> Result<http::Response, http::Error> {
        let request = OutboundRequest {
            method: req.method,
            url: req.url,
            headers: req.headers.into_iter().map(|h| (h.name, h.value)).collect(),
            body: req.body,
        };
        let started = Instant::now();
        let url = request.url.clone();
        let result = self
            .http
            .send(&self.grant.policy, request, self.deadline)
            .await;
        let elapsed_ms = started.elapsed().as_millis() as u64;
        let plugin = self.grant.name.as_str();
        match &result {
            Ok(r) => {
                tracing::debug!(plugin, request_id = %self.request_id, %url, status = r.status, elapsed_ms, "upstream")
            }
            Err(e) => {
                tracing::info!(plugin, request_id = %self.request_id, %url, error = %e, elapsed_ms, "upstream failed")
            }
        }
        result.map_err(to_wit_error).map(|response| http::Response {
            status: response.status,
            headers: response
                .headers
                .into_iter()
                .map(|(name, value)| http::Header { name, value })
                .collect(),
            body: response.body,
            final_url: response.final_url,
        })
    }
}

fn request_size(req: &http::Request) -> usize {
    req.url.len() + req.body.as_ref().map_or(0, Vec::len)
}

fn response_size(result: &Result<http::Response, http::Error>) -> usize {
    result.as_ref().map_or(0, |r| r.body.len())
}

impl http::Host for CallState {
    async fn send(
        &mut self,
        req: http::Request,
    ) -> wasmtime::Result<Result<http::Response, http::Error>> {
        self.charge(request_size(&req))?;
        let result = self.outbound().send_one(req).await;
        self.charge(response_size(&result))?;
        Ok(result)
    }

    async fn send_batch(
        &mut self,
        reqs: Vec<http::Request>,
    ) -> wasmtime::Result<Vec<Result<http::Response, http::Error>>> {
        self.charge(reqs.iter().map(request_size).sum())?;
        let outbound = self.outbound();
        let results =
            futures_util::future::join_all(reqs.into_iter().map(|r| outbound.clone().send_one(r)))
                .await;
        self.charge(results.iter().map(response_size).sum())?;
        Ok(results)
    }
}

fn to_wit_error(e: HttpError) -> http::Error {
    match e {
        HttpError::Denied(m) => http::Error::Denied(m),
        HttpError::Timeout(m) => http::Error::Timeout(m),
        HttpError::TooLarge(m) => http::Error::TooLarge(m),
        HttpError::Transport(m) => http::Error::Transport(m),
    }
}

impl config::Host for CallState {
    async fn get(&mut self, key: String) -> wasmtime::Result<Option<String>> {
        Ok(self.grant.settings.get(&key))
    }
}

impl cache::Host for CallState {
    async fn get(&mut self, key: String) -> wasmtime::Result<Option<String>> {
        let value = self.services.cache.get(&self.grant.name, &key);
        self.charge(value.as_ref().map_or(0, String::len))?;
        Ok(value)
    }

    async fn set(&mut self, key: String, value: String, ttl_seconds: u32) -> wasmtime::Result<()> {
        self.charge(key.len() + value.len())?;
        let ttl = Duration::from_secs(ttl_seconds.into());
        self.services.cache.set(&self.grant.name, &key, value, ttl);
        Ok(())
    }

    async fn delete(&mut self, key: String) -> wasmtime::Result<()> {
        self.services.cache.delete(&self.grant.name, &key);
        Ok(())
    }
}

impl log::Host for CallState {
    async fn log(&mut self, level: log::Level, message: String) -> wasmtime::Result<()> {
        self.charge(message.len())?;
        let level = match level {
            log::Level::Trace => plugin_log::Level::Trace,
            log::Level::Debug => plugin_log::Level::Debug,
            log::Level::Info => plugin_log::Level::Info,
            log::Level::Warn => plugin_log::Level::Warn,
            log::Level::Error => plugin_log::Level::Error,
        };
        plugin_log::write(
            &self.grant.name,
            &self.grant.version,
            &self.request_id,
            level,
            &message,
        );
        Ok(())
    }
}

impl llm::Host for CallState {
    async fn enabled(&mut self) -> wasmtime::Result<bool> {
        Ok(self.grant.uses_llm && self.services.llm.is_configured())
    }

    async fn chat(
        &mut self,
        messages: Vec<llm::Message>,
        max_tokens: u32,
        temperature: f32,
    ) -> wasmtime::Result<Result<String, llm::Error>> {
        if !self.grant.uses_llm {
            return Ok(Err(llm::Error::Disabled(
                "this plugin's manifest does not declare uses_llm = true".into(),
            )));
        }
        self.charge(messages.iter().map(|m| m.content.len()).sum())?;
        let messages: Vec<(String, String)> =
            messages.into_iter().map(|m| (m.role, m.content)).collect();
        let llm = self.services.llm.clone();
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        let result =
            match tokio::time::timeout(remaining, llm.chat(&messages, max_tokens, temperature))
                .await
            {
                Ok(result) => result,
                Err(_) => Err(LlmError::Timeout(
                    "the plugin's call deadline came first".into(),
                )),
            };
        let plugin = self.grant.name.as_str();
        match &result {
            Ok(text) => {
                tracing::debug!(plugin, request_id = %self.request_id, chars = text.len(), "llm answered")
            }
            Err(e) => {
                tracing::info!(plugin, request_id = %self.request_id, error = %e, "llm failed")
            }
        }
        self.charge(result.as_ref().map_or(0, String::len))?;
        Ok(result.map_err(|e| match e {
            LlmError::Disabled(m) => llm::Error::Disabled(m),
            LlmError::Failed(m) => llm::Error::Failed(m),
            LlmError::Timeout(m) => llm::Error::Timeout(m),
        }))
    }
}

impl super::bindings::sdk::gleaner::plugin::types::Host for CallState {}
