//! The one Chromium process of the server: found, started headless with no
//! network of its own, reached over DevTools, measured and stopped.
//!
//! Chromium gets a proxy that does not exist (`127.0.0.1:9`, loopback
//! included), so a request it made by itself would fail: every request a
//! page makes is paused over DevTools and sent, or refused, by the host's
//! egress instead (see [`super::visit`]).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::cdp::Cdp;

/// Names the binary goes by on the `PATH`.
const NAMES: [&str; 4] = ["chromium", "chromium-browser", "google-chrome", "chrome"];

/// How long Chromium may take to open its DevTools endpoint.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The binary to run: the configured path, or the first of [`NAMES`] on the `PATH`.
pub fn find(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(path) = configured {
        return path.is_file().then(|| path.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| NAMES.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// A running Chromium and its DevTools connection; stopped when dropped.
pub struct Chromium {
    /// The DevTools connection.
    pub cdp: std::sync::Arc<Cdp>,
    child: tokio::process::Child,
    /// Its profile directory, removed when it stops.
    profile: PathBuf,
}

impl Chromium {
    /// Starts `binary` headless and connects to it.
    pub async fn start(binary: &Path) -> Result<Chromium, String> {
        let profile = std::env::temp_dir().join(format!(
            "gleaner-chromium-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&profile)
            .map_err(|e| format!("cannot create {}: {e}", profile.display()))?;
        let mut command = tokio::process::Command::new(binary);
        command
            .args([
                "--headless=new",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--disable-default-apps",
                "--disable-breakpad",
                "--mute-audio",
                "--password-store=basic",
                "--use-mock-keychain",
                "--proxy-server=http://127.0.0.1:9",
                "--proxy-bypass-list=<-loopback>",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        // Chromium dies with the thread that started it (a runtime worker,
        // which lives as long as the server), even when the server is killed.
        // SAFETY: the closure runs in the forked child before exec and only
        // makes one async-signal-safe system call.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        // Chromium's sandbox refuses to start as root; a container's root
        // has no other choice.
        if is_root() {
            command.arg("--no-sandbox");
        }
        command.arg("about:blank");
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let url = match devtools_url(&profile, &mut child).await {
            Ok(url) => url,
            Err(e) => {
                let _ = child.start_kill();
                let _ = std::fs::remove_dir_all(&profile);
                return Err(e);
            }
        };
        let cdp = Cdp::connect(&url).await?;
        Ok(Chromium {
            cdp: std::sync::Arc::new(cdp),
            child,
            profile,
        })
    }

    /// The memory of Chromium and every process it started, in bytes: their
    /// proportional set sizes, so pages they share count once.
    pub fn memory_bytes(&self) -> u64 {
        self.child.id().map_or(0, tree_pss)
    }

    /// Whether it is still running and reachable.
    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None)) && !self.cdp.is_closed()
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Waits for Chromium to write its DevTools port into the profile directory.
async fn devtools_url(profile: &Path, child: &mut tokio::process::Child) -> Result<String, String> {
    let file = profile.join("DevToolsActivePort");
    let started = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&file) {
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                return Ok(format!("ws://127.0.0.1:{port}{path}"));
            }
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("Chromium exited at start ({status})"));
        }
        if started.elapsed() > START_TIMEOUT {
            return Err(format!(
                "Chromium opened no DevTools port within {} s",
                START_TIMEOUT.as_secs()
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false)
}

/// The proportional set size of process `root` and its descendants, from `/proc`.
fn tree_pss(root: u32) -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut parents = Vec::new();
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The fields after the command's closing parenthesis: state, ppid, …
        let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        parents.push((pid, ppid.unwrap_or(0)));
    }
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        i += 1;
    }
    tree.iter().map(|pid| pss(*pid)).sum()
}

fn pss(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("Pss:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kib| kib * 1024)
}
