//! The optional LLM: an OpenAI-compatible chat-completions endpoint configured by
//! the operator (URL, model, key), off by default. Only plugins whose manifest
//! declares `uses_llm = true` may call it. The endpoint is the operator's choice,
//! so the plugin allowlist and SSRF guard do not apply to it (a local model on
//! loopback is a normal set-up); its key is never logged.

use std::sync::Arc;

use crate::bindings::sdk::gleaner::plugin::llm;
use crate::capabilities::{view_link, CallContext};

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

/// Operator settings of the LLM.
#[derive(Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    /// Base URL of the API, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1` (`GLEANER_LLM_URL`).
    pub url: Option<String>,
    /// Model name (`GLEANER_LLM_MODEL`).
    pub model: Option<String>,
    /// Bearer key (`GLEANER_LLM_API_KEY`).
    pub api_key: Option<String>,
    /// Time limit of one completion, ms (`GLEANER_LLM_TIMEOUT_MS`, default 20000).
    pub timeout_ms: Option<u64>,
}

impl std::fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[set]"))
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

/// Why a completion failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// Not configured, or not allowed for this plugin.
    #[error("disabled: {0}")]
    Disabled(String),
    /// The endpoint failed.
    #[error("failed: {0}")]
    Failed(String),
    /// No answer in time.
    #[error("timeout: {0}")]
    Timeout(String),
}

/// The configured LLM client, shared server-wide.
pub struct LlmService {
    client: reqwest::Client,
    endpoint: Option<(String, String)>,
    api_key: Option<String>,
    timeout: Duration,
}

impl LlmService {
    /// Builds the client; without both URL and model the LLM is disabled.
    pub fn new(config: &LlmConfig) -> anyhow::Result<LlmService> {
        let endpoint = match (&config.url, &config.model) {
            (Some(url), Some(model)) if !url.is_empty() && !model.is_empty() => Some((
                format!("{}/chat/completions", url.trim_end_matches('/')),
                model.clone(),
            )),
            _ => None,
        };
        Ok(LlmService {
            client: reqwest::Client::builder().build()?,
            endpoint,
            api_key: config.api_key.clone().filter(|k| !k.is_empty()),
            timeout: Duration::from_millis(config.timeout_ms.unwrap_or(20_000)),
        })
    }

    /// Whether a model is configured.
    pub fn is_configured(&self) -> bool {
        self.endpoint.is_some()
    }

    /// One chat completion: the first choice's message content.
    pub async fn chat(
        &self,
        messages: &[(String, String)],
        max_tokens: u32,
        temperature: f32,
    ) -> Result<String, LlmError> {
        let Some((url, model)) = &self.endpoint else {
            return Err(LlmError::Disabled(
                "no LLM is configured (GLEANER_LLM_URL and GLEANER_LLM_MODEL)".into(),
            ));
        };
        let body = json!({
            "model": model,
            "messages": messages.iter().map(|(role, content)| json!({"role": role, "content": content})).collect::<Vec<_>>(),
            "max_tokens": max_tokens,
            "temperature": temperature,
        });
        let mut request = self.client.post(url).json(&body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = tokio::time::timeout(self.timeout, async {
            let response = request
                .send()
                .await
                .map_err(|e| LlmError::Failed(format!("{url}: {e}")))?;
            let status = response.status();
            let text = response
                .text()
                .await
                .map_err(|e| LlmError::Failed(format!("{url}: {e}")))?;
            if !status.is_success() {
                let excerpt: String = text.chars().take(300).collect();
                return Err(LlmError::Failed(format!(
                    "{url} answered HTTP {status}: {excerpt}"
                )));
            }
            Ok(text)
        })
        .await
        .map_err(|_| {
            LlmError::Timeout(format!(
                "{url} did not answer within {} ms",
                self.timeout.as_millis()
            ))
        })??;
        let parsed: serde_json::Value = serde_json::from_str(&response)
            .map_err(|e| LlmError::Failed(format!("the answer is not JSON: {e}")))?;
        parsed["choices"][0]["message"]["content"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| LlmError::Failed("the answer has no choices[0].message.content".into()))
    }
}

/// What the llm import sees of a call.
pub struct LlmView<'a> {
    /// The call.
    pub call: &'a mut CallContext,
    /// The server-wide LLM client.
    pub service: &'a Arc<LlmService>,
}

view_link!(LlmLink, LlmView, llm);

impl llm::Host for LlmView<'_> {
    async fn enabled(&mut self) -> wasmtime::Result<bool> {
        Ok(self.call.grant.uses_llm && self.service.is_configured())
    }

    async fn chat(
        &mut self,
        messages: Vec<llm::Message>,
        max_tokens: u32,
        temperature: f32,
    ) -> wasmtime::Result<Result<String, llm::Error>> {
        if !self.call.grant.uses_llm {
            return Ok(Err(llm::Error::Disabled(
                "this plugin's manifest does not declare uses_llm = true".into(),
            )));
        }
        self.call
            .charge(messages.iter().map(|m| m.content.len()).sum())?;
        let messages: Vec<(String, String)> =
            messages.into_iter().map(|m| (m.role, m.content)).collect();
        let service = self.service.clone();
        let remaining = self
            .call
            .deadline
            .saturating_duration_since(std::time::Instant::now());
        let result =
            match tokio::time::timeout(remaining, service.chat(&messages, max_tokens, temperature))
                .await
            {
                Ok(result) => result,
                Err(_) => Err(LlmError::Timeout(
                    "the plugin's call deadline came first".into(),
                )),
            };
        let plugin = self.call.grant.name.as_str();
        let request_id = self.call.request_id.as_str();
        match &result {
            Ok(text) => tracing::debug!(plugin, request_id, chars = text.len(), "llm answered"),
            Err(e) => tracing::info!(plugin, request_id, error = %e, "llm failed"),
        }
        self.call.charge(result.as_ref().map_or(0, String::len))?;
        Ok(result.map_err(|e| match e {
            LlmError::Disabled(m) => llm::Error::Disabled(m),
            LlmError::Failed(m) => llm::Error::Failed(m),
            LlmError::Timeout(m) => llm::Error::Timeout(m),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disabled_without_url_and_model_and_key_never_printed() {
        let config = LlmConfig {
            url: Some("http://127.0.0.1:1/v1".into()),
            model: None,
            api_key: Some("sk-secret".into()),
            timeout_ms: None,
        };
        assert!(!LlmService::new(&config).unwrap().is_configured());
        assert!(!format!("{config:?}").contains("sk-secret"));
    }
}
