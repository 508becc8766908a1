//! What a replica says when it cannot join a cluster.

use std::process::{Command, Stdio};

use crate::common;

/// Runs `gleaner serve` with `env` until it exits; its stderr.
fn refused(env: &[(&str, &str)]) -> String {
    let dir = common::plugin_dir(&["review-chunk"]);
    let mut command = Command::new(env!("CARGO_BIN_EXE_gleaner"));
    command
        .current_dir(common::root())
        .env("GLEANER_ADDR", "127.0.0.1:0")
        .env("GLEANER_PLUGIN_DIR", dir.path())
        .env("GLEANER_DATA_DIR", dir.path().join(".gleaner-data"))
        .env_remove("GLEANER_TOKEN_SECRET")
        .env_remove("GLEANER_CONFIG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().unwrap();
    assert!(!out.status.success(), "the replica started");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_replica_without_the_shared_token_secret_or_nats_refuses_to_start() {
    // Needs no NATS: the settings are refused before any connection.
    let text = refused(&[("GLEANER_NATS_URL", "nats://127.0.0.1:1")]);
    assert!(
        text.contains("GLEANER_TOKEN_SECRET") && text.contains("same"),
        "{text}"
    );
    let text = refused(&[
        ("GLEANER_NATS_URL", "nats://127.0.0.1:1"),
        ("GLEANER_TOKEN_SECRET", common::TOKEN_SECRET),
    ]);
    assert!(
        text.contains("cannot connect to NATS at nats://127.0.0.1:1") && text.contains("-js"),
        "{text}"
    );
}
