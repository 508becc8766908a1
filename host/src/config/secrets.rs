//! Which settings are secrets: each registered with the scrubber that
//! cleans logs, traces, answers and recordings.

use super::Config;

impl Config {
    /// Registers the secrets of the configuration with `secrets`: API, admin and metrics keys,
    /// proxy credentials (the server's and each plugin's), the LLM key, the
    /// object storage's keys, the cluster's credentials and the receipt key. The
    /// token secret is registered where it is loaded, and plugin settings where
    /// each plugin is.
    pub fn register_secrets(&self, secrets: &crate::secrets::Secrets) {
        use crate::secrets::{proxy_credentials, Kind};
        let config = self;
        secrets.register(Kind::ApiKey, config.api_keys.iter().map(String::as_str));
        secrets.register(Kind::AdminKey, config.admin_keys.iter().map(String::as_str));
        secrets.register(
            Kind::MetricsKey,
            config.metrics_keys.iter().map(String::as_str),
        );
        let proxies = config.proxy_settings();
        let urls = proxies
            .urls
            .iter()
            .chain(proxies.per_plugin.values().flatten());
        let credentials: Vec<String> = urls.flat_map(|u| proxy_credentials(u)).collect();
        secrets.register(
            Kind::ProxyCredential,
            credentials.iter().map(String::as_str),
        );
        secrets.register(Kind::LlmKey, config.llm.api_key.as_deref());
        secrets.register(
            Kind::ExportCredential,
            [
                config.export.s3_access_key_id.as_deref(),
                config.export.s3_secret_access_key.as_deref(),
            ]
            .into_iter()
            .flatten(),
        );
        let cluster = &config.cluster;
        secrets.register(
            Kind::Cluster,
            [
                cluster.nats_token.as_deref(),
                cluster.nats_password.as_deref(),
                cluster.seal_key.as_deref(),
            ]
            .into_iter()
            .flatten(),
        );
        secrets.register(Kind::ReceiptKey, config.receipt_key.as_deref());
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_credentials_are_scrubbed_wherever_they_appear() {
        let config = super::Config {
            export: crate::export::storage::StorageConfig {
                s3_url: Some("s3://bucket/p".into()),
                s3_access_key_id: Some("AKIAEXPORTKEYID00001".into()),
                s3_secret_access_key: Some("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(!format!("{:?}", config.export).contains("AKIAEXPORTKEYID00001"));
        let secrets = crate::secrets::Secrets::default();
        config.register_secrets(&secrets);
        let line =
            "signing with AKIAEXPORTKEYID00001 and wJalrXUtnFEMI%2FK7MDENG%2FbPxRfiCYEXAMPLEKEY";
        let scrubbed = secrets.scrubber().scrub(line).into_owned();
        assert!(!scrubbed.contains("AKIAEXPORTKEYID00001"), "{scrubbed}");
        assert!(!scrubbed.contains("EXAMPLEKEY"), "{scrubbed}");
    }
}
