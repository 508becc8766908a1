//! What a replica says when it cannot join a cluster.

use std::process::{Command, Stdio};

use crate::common;

/// Runs `gleaner serve` with `env` until it exits; its stderr.
pub(crate) fn refused(env: &[(&str, &str)]) -> String {
    let dir = common::plugin_dir(&["review-chunk"]);
    let mut command = Command::new(crate::common::server_binary());
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
        ("GLEANER_NATS_TOKEN", super::nats::TOKEN),
    ]);
    assert!(
        text.contains("cannot connect to NATS at nats://127.0.0.1:1") && text.contains("-js"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server and openssl: make test-cluster"]
async fn a_replica_authenticates_with_a_token_and_verifies_tls() {
    // A token.
    let token = "nats-token-0123456789abcdef";
    let nats = super::nats::Nats::start_with(&["--auth", token]);
    let error = super::connect(nats.url(), |c| c.nats_token = None)
        .await
        .err()
        .expect("refused without the token");
    assert!(
        format!("{error:#}").contains("cannot connect to NATS"),
        "{error:#}"
    );
    let cluster = super::connect(nats.url(), |c| c.nats_token = Some(token.into()))
        .await
        .unwrap();
    assert!(cluster.connected());
    drop(nats);

    // TLS, with a CA of this test's own.
    let dir = tempfile::tempdir().unwrap();
    let at = |f: &str| dir.path().join(f).display().to_string();
    std::fs::write(at("san.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    let openssl = |args: &[&str]| {
        let ok = Command::new("openssl")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run openssl ({e}): install Debian's openssl (make test-cluster does)"
                )
            })
            .success();
        assert!(ok, "openssl {args:?}");
    };
    // A self-signed CA: its key and certificate.
    let ca = |name: &str| {
        let (key, pem) = (at(&format!("{name}.key")), at(&format!("{name}.pem")));
        let subject = format!("/CN={name}");
        openssl(&[
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", &key, "-out", &pem,
            "-days", "1", "-subj", &subject,
        ]);
    };
    ca("ca");
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        &at("server.key"),
        "-out",
        &at("server.csr"),
        "-subj",
        "/CN=127.0.0.1",
    ]);
    openssl(&[
        "x509",
        "-req",
        "-in",
        &at("server.csr"),
        "-CA",
        &at("ca.pem"),
        "-CAkey",
        &at("ca.key"),
        "-CAcreateserial",
        "-out",
        &at("server.pem"),
        "-days",
        "1",
        "-extfile",
        &at("san.ext"),
    ]);
    let nats = super::nats::Nats::start_with(&[
        "--tls",
        "--tlscert",
        &at("server.pem"),
        "--tlskey",
        &at("server.key"),
    ]);
    let cluster = super::connect(nats.url(), |c| c.nats_tls_ca = Some(at("ca.pem").into()))
        .await
        .unwrap();
    assert!(cluster.connected(), "TLS with the test's CA");
    // Another CA: the server's certificate is refused.
    ca("other");
    let refused =
        super::connect(nats.url(), |c| c.nats_tls_ca = Some(at("other.pem").into())).await;
    assert!(refused.is_err(), "a certificate from another CA is refused");
}
