//! No other local process can reach the headless browser: Chromium takes
//! DevTools over a pipe and listens on no port, runs as `nobody` when the
//! server runs as root, and a profile directory a killed server left behind
//! is removed when the next browser starts.

use std::collections::HashSet;

use serde_json::json;

use crate::browser_visits::{require_chromium, server, site, ROUTE};

/// The processes whose command line holds `needle`, and all their descendants.
fn processes_with(needle: &str) -> Vec<u32> {
    let mut parents = Vec::new();
    let mut roots = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(needle) {
            roots.push(pid);
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let ppid: u32 = after
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        parents.push((pid, ppid));
    }
    let mut all = roots.clone();
    let mut i = 0;
    while i < all.len() {
        let parent = all[i];
        all.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        i += 1;
    }
    all
}

/// The inodes of the machine's listening TCP sockets.
fn listening_inodes() -> HashSet<String> {
    let mut found = HashSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // st is the fourth field; 0A is LISTEN; the inode is the tenth.
            if fields.get(3) == Some(&"0A") {
                if let Some(inode) = fields.get(9) {
                    found.insert((*inode).to_owned());
                }
            }
        }
    }
    found
}

/// The socket inodes process `pid` holds open.
fn socket_inodes(pid: u32) -> Vec<String> {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    fds.flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter_map(|target| {
            let text = target.to_string_lossy().into_owned();
            text.strip_prefix("socket:[")
                .and_then(|rest| rest.strip_suffix(']'))
                .map(str::to_owned)
        })
        .collect()
}

/// The real user id of process `pid`.
fn uid(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[tokio::test]
#[ignore = "needs chromium: make test-browser"]
async fn no_other_local_process_can_reach_the_browser() {
    require_chromium();
    // The profile of a server that was killed: its process is gone.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let abandoned = std::env::temp_dir().join(format!("gleaner-chromium-{dead}-abandoned"));
    std::fs::create_dir_all(abandoned.join("Default")).unwrap();

    let (_seen, base) = site().await;
    let s = server(&base, |_| {}).await;
    let (status, body) = s
        .post(ROUTE, json!({"query": "https://shop.test/dom/"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        !abandoned.exists(),
        "the profile a killed server left behind is removed"
    );

    let mine = format!("gleaner-chromium-{}-", std::process::id());
    let browsers = processes_with(&mine);
    assert!(!browsers.is_empty(), "Chromium runs");
    let listening = listening_inodes();
    let root = uid(std::process::id()) == Some(0);
    for pid in &browsers {
        for inode in socket_inodes(*pid) {
            assert!(
                !listening.contains(&inode),
                "Chromium process {pid} listens on a TCP port (socket inode {inode})"
            );
        }
        // A helper process may end between the listing and here.
        if let (true, Some(user)) = (root, uid(*pid)) {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            assert_eq!(
                user,
                65_534,
                "Chromium process {pid} runs as nobody: {}",
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            );
        }
    }
    eprintln!(
        "{} Chromium processes: none listens on a port",
        browsers.len()
    );
}
