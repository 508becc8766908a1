//! The server as a separate process, for tests that measure its memory or send
//! it signals.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::common;

/// The highest resident set size of a process, sampled on a thread of its
/// own until [`PeakRss::stop`].
pub struct PeakRss {
    sampling: std::sync::Arc<std::sync::atomic::AtomicBool>,
    sampler: std::thread::JoinHandle<f64>,
}

impl PeakRss {
    /// Starts sampling process `pid` every `every`.
    pub fn sample(pid: u32, every: Duration) -> PeakRss {
        use std::sync::atomic::Ordering;
        let sampling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let sampler = std::thread::spawn({
            let sampling = sampling.clone();
            move || {
                let mut peak: f64 = 0.0;
                while sampling.load(Ordering::Relaxed) {
                    peak = peak.max(rss_mib(pid).unwrap_or(0.0));
                    std::thread::sleep(every);
                }
                peak
            }
        });
        PeakRss { sampling, sampler }
    }

    /// Stops sampling; the peak, in MiB.
    pub fn stop(self) -> f64 {
        self.sampling
            .store(false, std::sync::atomic::Ordering::Relaxed);
        self.sampler.join().unwrap()
    }
}

/// A `gleaner serve` child process, killed when dropped.
pub struct Process {
    pub child: Child,
    pub addr: SocketAddr,
    _plugins: tempfile::TempDir,
}

/// The resident set size of process `pid`, in MiB; none once it is gone.
pub fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())?;
    Some(kb / 1024.0)
}

impl Process {
    /// Starts the server with `plugins` and extra environment, and waits for /healthz.
    pub fn start(plugins: &[&str], env: &[(&str, String)]) -> Process {
        Process::start_with(plugins, env, Stdio::null())
    }

    /// As [`Process::start`], with the server's log (stderr) written to `log`.
    pub fn start_logged(
        plugins: &[&str],
        env: &[(&str, String)],
        log: &std::path::Path,
    ) -> Process {
        let file = std::fs::File::create(log).unwrap();
        Process::start_with(plugins, env, Stdio::from(file))
    }

    fn start_with(plugins: &[&str], env: &[(&str, String)], stderr: Stdio) -> Process {
        let dir = common::plugin_dir(plugins);
        let addr: SocketAddr = format!("127.0.0.1:{}", common::free_port())
            .parse()
            .unwrap();
        let mut command = Command::new(crate::common::server_binary());
        command
            .current_dir(common::root())
            .env("GLEANER_ADDR", addr.to_string())
            .env("GLEANER_PLUGIN_DIR", dir.path())
            .env(
                "GLEANER_CACHE_DIR",
                common::root().join("target/gleaner-test-cache"),
            )
            .env("GLEANER_LOG", "warn")
            .env("GLEANER_DATA_DIR", dir.path().join(".gleaner-data"))
            .env_remove("GLEANER_REPLAY")
            .env_remove("GLEANER_CONFIG")
            .env_remove("GLEANER_API_KEYS")
            .stdout(Stdio::null())
            .stderr(stderr);
        for (k, v) in env {
            command.env(k, v);
        }
        let child = command.spawn().expect("the gleaner binary starts");
        let process = Process {
            child,
            addr,
            _plugins: dir,
        };
        let started = Instant::now();
        // The server listens before the plugins it must compile are ready; wait
        // until /healthz says none is loading.
        while !all_loaded(addr) {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "server did not start, or its plugins never finished loading"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        process
    }

    /// The resident set size of the process, in MiB.
    pub fn rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kb: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0.0);
        kb / 1024.0
    }

    /// The sum of the series of metric `name` in `/metrics` whose labels hold
    /// every one of `labels` (`plugin="x"`); 0 when there is none.
    pub async fn metric(&self, name: &str, labels: &[&str]) -> f64 {
        let text = reqwest::get(self.url("/metrics"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        text.lines()
            .filter(|l| {
                l.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(['{', ' ']))
            })
            .filter(|l| labels.iter().all(|label| l.contains(label)))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    }

    /// The URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Sends SIGTERM.
    pub fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the process to exit, up to `limit`; its exit time, or none.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<Duration> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if self.child.try_wait().unwrap().is_some() {
                return Some(started.elapsed());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

/// Whether the server at `addr` answers /healthz with every plugin loaded.
fn all_loaded(addr: SocketAddr) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(addr) else {
        return false;
    };
    let mut answer = String::new();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .and_then(|_| stream.read_to_string(&mut answer))
        .is_ok()
        && answer.contains("\"status\":\"ok\"")
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
