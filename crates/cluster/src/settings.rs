//! The cluster's settings: where NATS is, how to authenticate to it, and how
//! the streams and buckets a replica creates are kept. Cluster mode is off
//! unless `nats_url` is set; nothing else here matters without it.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// A setting a cluster cannot run with: which, its value, and what it takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{setting} = {value} cannot work: {hint}")]
pub struct Invalid {
    /// The setting and its variable.
    pub setting: &'static str,
    /// Its value.
    pub value: String,
    /// What it takes, and why.
    pub hint: String,
}

/// `[cluster]` in the configuration file, and the `GLEANER_NATS_*` variables.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClusterConfig {
    /// NATS server URLs, comma separated (`GLEANER_NATS_URL`); set, the
    /// replica runs in cluster mode.
    pub nats_url: Option<String>,
    /// A NATS credentials file (JWT and NKey seed) (`GLEANER_NATS_CREDS`).
    pub nats_creds: Option<PathBuf>,
    /// A NATS token (`GLEANER_NATS_TOKEN`).
    pub nats_token: Option<String>,
    /// A NATS user (`GLEANER_NATS_USER`), with `nats_password`: the shipped
    /// NATS configurations give the replicas a user of their own, allowed
    /// Gleaner's subjects alone.
    pub nats_user: Option<String>,
    /// The NATS user's password (`GLEANER_NATS_PASSWORD`).
    pub nats_password: Option<String>,
    /// A PEM file of CA certificates to trust for NATS; set, TLS is required
    /// (`GLEANER_NATS_TLS_CA`).
    pub nats_tls_ca: Option<PathBuf>,
    /// A client certificate and its key, PEM, for NATS servers that verify
    /// clients (`GLEANER_NATS_TLS_CERT`, `GLEANER_NATS_TLS_KEY`).
    pub nats_tls_cert: Option<PathBuf>,
    /// The client certificate's key (`GLEANER_NATS_TLS_KEY`).
    pub nats_tls_key: Option<PathBuf>,
    /// Copies of each stream and bucket the replica creates: 1, or 3 on a
    /// three-node NATS cluster (`GLEANER_NATS_REPLICAS`).
    pub replicas: usize,
    /// `file` (survives a NATS restart) or `memory` (`GLEANER_NATS_STORAGE`).
    pub storage: String,
    /// How long a job's worker may go silent before another replica takes
    /// the job over, in seconds (`GLEANER_JOB_ACK_WAIT_SECS`).
    pub job_ack_wait_secs: u64,
    /// This replica's name in `/healthz` and `/admin/plugins`
    /// (`GLEANER_REPLICA_NAME`); unset, the host name and process id.
    pub replica_name: Option<String>,
    /// How long every replica leaves a host alone after one of them met a
    /// bot wall there, in seconds (`GLEANER_WALL_BACKOFF_SECS`).
    pub wall_backoff_secs: u64,
    /// Joins a NATS server that asks for no credentials
    /// (`GLEANER_NATS_INSECURE`): for a trial on one machine only, since
    /// anyone who reaches that server could remove plugins and read jobs.
    /// Warned about at start and shown in `/healthz`.
    pub insecure: bool,
    /// 32 bytes, as 64 hex digits, that seal secrets kept in the buckets
    /// (session cookies, webhook secrets) (`GLEANER_CLUSTER_KEY`). Unset, a
    /// key derived from the token secret.
    pub seal_key: Option<String>,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            nats_url: None,
            nats_creds: None,
            nats_token: None,
            nats_user: None,
            nats_password: None,
            nats_tls_ca: None,
            nats_tls_cert: None,
            nats_tls_key: None,
            replicas: 1,
            storage: "file".into(),
            job_ack_wait_secs: 30,
            replica_name: None,
            wall_backoff_secs: 60,
            insecure: false,
            seal_key: None,
        }
    }
}

impl ClusterConfig {
    /// Whether the replica runs in cluster mode.
    pub fn enabled(&self) -> bool {
        self.nats_url
            .as_deref()
            .is_some_and(|u| !u.trim().is_empty())
    }

    /// How long a silent worker keeps its job.
    pub fn ack_wait(&self) -> Duration {
        Duration::from_secs(self.job_ack_wait_secs.max(1))
    }

    /// This replica's name.
    pub fn replica(&self) -> String {
        self.replica_name.clone().unwrap_or_else(|| {
            let host = std::fs::read_to_string("/etc/hostname")
                .map(|h| h.trim().to_owned())
                .unwrap_or_default();
            let host = if host.is_empty() {
                "gleaner".into()
            } else {
                host
            };
            format!("{host}-{}", std::process::id())
        })
    }

    /// Whether the replica shows NATS credentials: a token, a credentials
    /// file, or a client certificate.
    pub fn has_credentials(&self) -> bool {
        self.nats_token.as_deref().is_some_and(|t| !t.is_empty())
            || self.nats_password.as_deref().is_some_and(|p| !p.is_empty())
            || self.nats_creds.is_some()
            || self.nats_tls_cert.is_some()
    }

    /// Refuses settings a cluster cannot run with.
    pub fn check(&self, token_secret_set: bool) -> Result<(), Invalid> {
        if !self.enabled() {
            return Ok(());
        }
        let invalid = |setting, value: String, hint: &str| Invalid {
            setting,
            value,
            hint: hint.to_owned(),
        };
        if !token_secret_set {
            return Err(invalid(
                "token_secret (GLEANER_TOKEN_SECRET)",
                "unset".into(),
                "in cluster mode (GLEANER_NATS_URL is set) every replica must sign continuation \
                 tokens with the same secret, or a token minted on one replica is refused by the \
                 next; set GLEANER_TOKEN_SECRET to the same 32 or more random bytes on every replica",
            ));
        }
        if !self.has_credentials() && !self.insecure {
            return Err(invalid(
                "nats_url (GLEANER_NATS_URL)",
                self.nats_url.clone().unwrap_or_default(),
                "cluster mode needs NATS credentials, since anyone who reaches an open NATS server                  could remove plugins from every replica and read every job: set GLEANER_NATS_TOKEN,                  GLEANER_NATS_CREDS or GLEANER_NATS_TLS_CERT with GLEANER_NATS_TLS_KEY                  (docs/deploying.md shows the NATS side); for a trial on one machine only,                  GLEANER_NATS_INSECURE=true",
            ));
        }
        if !(1..=5).contains(&self.replicas) {
            return Err(invalid(
                "replicas (GLEANER_NATS_REPLICAS)",
                self.replicas.to_string(),
                "JetStream keeps 1 to 5 copies; use 1 on one NATS server, 3 on a three-node cluster",
            ));
        }
        if !matches!(self.storage.as_str(), "file" | "memory") {
            return Err(invalid(
                "storage (GLEANER_NATS_STORAGE)",
                self.storage.clone(),
                "use `file` (kept across a NATS restart) or `memory`",
            ));
        }
        if let Some(key) = &self.seal_key {
            if gleaner_seal::key_bytes(key).is_none() {
                return Err(invalid(
                    "seal_key (GLEANER_CLUSTER_KEY)",
                    "[redacted]".into(),
                    "use 64 hex digits (32 random bytes), e.g. from `openssl rand -hex 32`, the same on every replica",
                ));
            }
        }
        if self.nats_user.is_some() != self.nats_password.is_some() {
            return Err(invalid(
                "nats_user / nats_password (GLEANER_NATS_USER, GLEANER_NATS_PASSWORD)",
                "one of them".into(),
                "a NATS user needs its password: set both, or neither",
            ));
        }
        if self.nats_tls_cert.is_some() != self.nats_tls_key.is_some() {
            return Err(invalid(
                "nats_tls_cert / nats_tls_key (GLEANER_NATS_TLS_CERT, GLEANER_NATS_TLS_KEY)",
                "one of them".into(),
                "a client certificate needs its key: set both, or neither",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(url: &str) -> ClusterConfig {
        ClusterConfig {
            nats_url: Some(url.into()),
            nats_token: Some("nats-token".into()),
            ..Default::default()
        }
    }

    #[test]
    fn cluster_mode_needs_credentials_or_the_insecure_switch() {
        let mut c = on("nats://127.0.0.1:4222");
        c.nats_token = None;
        let e = c.check(true).unwrap_err().to_string();
        assert!(
            e.contains("GLEANER_NATS_TOKEN") && e.contains("GLEANER_NATS_INSECURE=true"),
            "{e}"
        );
        c.insecure = true;
        assert!(c.check(true).is_ok());
        c.insecure = false;
        c.nats_creds = Some("/etc/gleaner/nats.creds".into());
        assert!(c.check(true).is_ok());
    }

    #[test]
    fn cluster_mode_needs_the_shared_token_secret() {
        let e = on("nats://127.0.0.1:4222").check(false).unwrap_err();
        assert!(e.to_string().contains("GLEANER_TOKEN_SECRET"), "{e}");
        assert!(on("nats://127.0.0.1:4222").check(true).is_ok());
        assert!(ClusterConfig::default().check(false).is_ok());
    }

    #[test]
    fn settings_out_of_range_are_named() {
        let mut c = on("nats://x");
        c.replicas = 7;
        assert!(c
            .check(true)
            .unwrap_err()
            .to_string()
            .contains("GLEANER_NATS_REPLICAS"));
        c.replicas = 3;
        c.storage = "disk".into();
        assert!(c.check(true).unwrap_err().to_string().contains("`file`"));
        c.storage = "memory".into();
        c.seal_key = Some("abc".into());
        let e = c.check(true).unwrap_err().to_string();
        assert!(e.contains("64 hex digits") && !e.contains("abc"), "{e}");
        c.seal_key = Some("ab".repeat(32));
        assert!(c.check(true).is_ok());
    }
}
