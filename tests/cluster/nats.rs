//! A real NATS server with JetStream (Debian's `nats-server`) on a random
//! loopback port, its store in a temporary directory; stopped and started
//! again on the same port and store to play an outage.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The token [`Nats::start`]'s servers ask for.
pub const TOKEN: &str = "nats-test-token-0123456789";

/// A `nats-server -js` child process, killed when dropped.
pub struct Nats {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
    /// Arguments beyond JetStream, address, port and store (auth, TLS).
    extra: Vec<String>,
    /// Environment the server reads (a configuration's `$VARIABLES`).
    env: Vec<(String, String)>,
}

impl Nats {
    /// Starts a server that asks for [`TOKEN`], and waits until it takes
    /// connections.
    pub fn start() -> Nats {
        Nats::start_with(&["--auth", TOKEN])
    }

    /// As [`Nats::start`], with more arguments (`--auth`, `--tls` …).
    pub fn start_with(extra: &[&str]) -> Nats {
        Nats::start_with_env(extra, &[])
    }

    /// As [`Nats::start_with`], with environment variables for the server.
    pub fn start_with_env(extra: &[&str], env: &[(&str, &str)]) -> Nats {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut nats = Nats {
            child: None,
            port,
            dir: tempfile::tempdir().unwrap(),
            extra: extra.iter().map(|a| (*a).to_owned()).collect(),
            env: env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        };
        nats.run();
        nats
    }

    fn run(&mut self) {
        let binary = std::env::var("GLEANER_NATS_SERVER").unwrap_or_else(|_| "nats-server".into());
        let child = Command::new(&binary)
            .args(["-js", "-a", "127.0.0.1", "-p", &self.port.to_string(), "-sd"])
            .arg(self.dir.path())
            .args(&self.extra)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start {binary} ({e}): install Debian's nats-server (make test-cluster does)")
            });
        self.child = Some(child);
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "nats-server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The URL replicas connect to.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Kills the server (its store stays).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port and store.
    pub fn restart(&mut self) {
        self.stop();
        self.run();
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.stop();
    }
}
