//! The one Chromium process of the server: found, started headless with no
//! network of its own, reached over DevTools, measured and stopped.
//!
//! Chromium gets a proxy that does not exist (`127.0.0.1:9`, loopback
//! included), so a request it made by itself would fail: every request a
//! page makes is paused over DevTools and sent, or refused, by the server's
//! egress instead (its `capabilities::browser::visit`). DevTools goes over a
//! pipe (`--remote-debugging-pipe`), never a port another local process could
//! reach. A server running as root runs Chromium as `nobody`. Its profile
//! directory goes when it stops, and a start removes those that servers
//! killed before (their process gone) left behind.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::cdp::Cdp;

/// The user and group Chromium runs as when the server runs as root.
const NOBODY: u32 = 65_534;

/// What profile directories are named: `<prefix><server pid>-<uuid>`.
const PROFILE_PREFIX: &str = "gleaner-chromium-";

/// Names the binary goes by on the `PATH`.
const NAMES: [&str; 4] = ["chromium", "chromium-browser", "google-chrome", "chrome"];

/// How long Chromium may take to answer its first DevTools command.
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
        remove_abandoned_profiles(&std::env::temp_dir());
        let profile = std::env::temp_dir().join(format!(
            "{PROFILE_PREFIX}{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&profile)
            .map_err(|e| format!("cannot create {}: {e}", profile.display()))?;
        let root = is_root();
        if root {
            // Chromium runs as nobody: its profile must be its own.
            let path = std::ffi::CString::new(profile.as_os_str().as_encoded_bytes())
                .map_err(|e| e.to_string())?;
            // SAFETY: a valid NUL-terminated path; chown has no other precondition.
            if unsafe { libc::chown(path.as_ptr(), NOBODY, NOBODY) } != 0 {
                let e = std::io::Error::last_os_error();
                let _ = std::fs::remove_dir_all(&profile);
                return Err(format!("cannot hand {} to nobody: {e}", profile.display()));
            }
        }
        let result = Chromium::spawn(binary, &profile, root).await;
        if result.is_err() {
            let _ = std::fs::remove_dir_all(&profile);
        }
        result
    }

    async fn spawn(binary: &Path, profile: &Path, root: bool) -> Result<Chromium, String> {
        // Commands go down one pipe (Chromium's fd 3), answers and events come
        // up the other (its fd 4).
        let (commands_read, commands_write) = high_pipe()?;
        let (answers_read, answers_write) = high_pipe()?;
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
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .env("HOME", profile)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let (child_in, child_out) = (raw(&commands_read), raw(&answers_write));
        // Chromium dies with the thread that started it (a runtime worker,
        // which lives as long as the server), even when the server is killed.
        // SAFETY: the closure runs in the forked child before exec and only
        // makes async-signal-safe system calls (dup2, setgroups, setgid,
        // setuid, prctl). The pipe ends sit above fd 9, so the two dup2
        // calls cannot overwrite each other's source.
        unsafe {
            command.pre_exec(move || {
                let fail = || Err(std::io::Error::last_os_error());
                if libc::dup2(child_in, 3) == -1 || libc::dup2(child_out, 4) == -1 {
                    return fail();
                }
                if root
                    && (libc::setgroups(0, std::ptr::null()) == -1
                        || libc::setgid(NOBODY) == -1
                        || libc::setuid(NOBODY) == -1)
                {
                    return fail();
                }
                // After the user change, which clears it.
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return fail();
                }
                Ok(())
            });
        }
        // Chromium's sandbox needs user namespaces a container seldom grants;
        // as root it is dropped, and the browser runs as nobody instead.
        if root {
            command.arg("--no-sandbox");
        }
        command.arg("about:blank");
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        // The child's ends stay with the child alone.
        drop((commands_read, answers_write));
        let to_browser = tokio::net::unix::pipe::Sender::from_owned_fd(commands_write)
            .map_err(|e| format!("the DevTools pipe: {e}"))?;
        let from_browser = tokio::net::unix::pipe::Receiver::from_owned_fd(answers_read)
            .map_err(|e| format!("the DevTools pipe: {e}"))?;
        let cdp = Cdp::over_pipe(to_browser, from_browser);
        let ready = tokio::time::timeout(
            START_TIMEOUT,
            cdp.call(None, "Browser.getVersion", serde_json::json!({})),
        )
        .await;
        match ready {
            Ok(Ok(_)) => Ok(Chromium {
                cdp: std::sync::Arc::new(cdp),
                child,
                profile: profile.to_owned(),
            }),
            failed => {
                let _ = child.start_kill();
                let why = match (child.try_wait(), failed) {
                    (Ok(Some(status)), _) => format!("Chromium exited at start ({status})"),
                    (_, Ok(Err(e))) => format!("Chromium did not answer over DevTools: {e}"),
                    _ => format!(
                        "Chromium did not answer over DevTools within {} s",
                        START_TIMEOUT.as_secs()
                    ),
                };
                Err(why)
            }
        }
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

/// A pipe (read end, write end) whose descriptors are above 9 and closed on
/// exec, so only the descriptors a child is given on purpose survive in it.
fn high_pipe() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!(
            "cannot open a pipe: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: pipe2 succeeded, so both descriptors are open and ours alone.
    let (low_read, low_write) =
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let lift = |fd: &OwnedFd| -> Result<OwnedFd, String> {
        // SAFETY: `fd` is open; F_DUPFD_CLOEXEC returns a new descriptor or -1.
        let high = unsafe { libc::fcntl(raw(fd), libc::F_DUPFD_CLOEXEC, 10) };
        if high == -1 {
            return Err(format!(
                "cannot move a pipe: {}",
                std::io::Error::last_os_error()
            ));
        }
        // SAFETY: `high` was just opened and belongs to no one else.
        Ok(unsafe { OwnedFd::from_raw_fd(high) })
    };
    Ok((lift(&low_read)?, lift(&low_write)?))
}

fn raw(fd: &OwnedFd) -> RawFd {
    std::os::fd::AsRawFd::as_raw_fd(fd)
}

/// Removes the profile directories in `temp` that servers no longer running
/// left behind (killed before they could).
pub fn remove_abandoned_profiles(temp: &Path) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(PROFILE_PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let alive = Path::new(&format!("/proc/{pid}")).exists();
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
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
