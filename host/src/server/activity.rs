//! What one connection is doing, shared by its I/O wrapper, its service, its
//! watchdog and the connection caps: when bytes last moved, whether a request
//! is in flight, since when it has been reading a request head, and since
//! when its writes have been stuck. Three timers, each on its own clock:
//!
//! - the **header** timer runs from the first byte of a request (from the
//!   connection's start for its first request) until the head is complete;
//! - the **idle** timer runs on a keep-alive connection between the end of
//!   an answer and the first byte of the next request;
//! - the **write-stall** timer runs while an answer waits on a client that
//!   reads nothing.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// A clock reading that is not set.
const UNSET: u64 = u64::MAX;

/// Why the watchdog closes a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expired {
    /// A request head took longer than the header timeout.
    Header,
    /// A keep-alive connection stayed silent past the idle timeout.
    Idle,
    /// An answer could not be written for the write-stall timeout.
    WriteStall,
}

/// The timers' lengths.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// Time a request head may take.
    pub header: Duration,
    /// Time a keep-alive connection may stay silent between requests.
    pub idle: Duration,
    /// Time an answer may make no progress.
    pub write_stall: Duration,
}

/// One connection's activity; see the module documentation.
#[derive(Debug)]
pub struct Activity {
    since: Instant,
    last_io_ms: AtomicU64,
    in_flight: AtomicUsize,
    head_since_ms: AtomicU64,
    /// Bytes read since the request head started.
    head_bytes: AtomicUsize,
    idle_since_ms: AtomicU64,
    write_stuck_ms: AtomicU64,
    /// Signalled when the connection caps pick this connection to make room.
    pub evict: Notify,
    /// Whether the connection is reset, not closed, when it ends.
    reset: AtomicBool,
}

impl Default for Activity {
    fn default() -> Self {
        Activity {
            since: Instant::now(),
            last_io_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            // A new connection is reading its first request head.
            head_since_ms: AtomicU64::new(0),
            head_bytes: AtomicUsize::new(0),
            idle_since_ms: AtomicU64::new(0),
            write_stuck_ms: AtomicU64::new(UNSET),
            evict: Notify::new(),
            reset: AtomicBool::new(false),
        }
    }
}

impl Activity {
    fn now_ms(&self) -> u64 {
        self.since.elapsed().as_millis() as u64
    }

    fn age(&self, at_ms: u64) -> Duration {
        Duration::from_millis(self.now_ms().saturating_sub(at_ms))
    }

    /// `n` bytes arrived: with no request in flight, they are part of a
    /// request head (and the first of them start it).
    pub fn read(&self, n: usize) {
        if n == 0 {
            return;
        }
        let now = self.now_ms();
        if !self.busy() {
            self.head_bytes.fetch_add(n, Ordering::Relaxed);
        }
        self.last_io_ms.store(now, Ordering::Relaxed);
        if !self.busy() {
            let _ = self.head_since_ms.compare_exchange(
                UNSET,
                now,
                Ordering::AcqRel,
                Ordering::Relaxed,
            );
        }
    }

    /// Bytes were written.
    pub fn wrote(&self) {
        self.last_io_ms.store(self.now_ms(), Ordering::Relaxed);
        self.write_stuck_ms.store(UNSET, Ordering::Relaxed);
    }

    /// A write found the client's window full.
    pub fn write_blocked(&self) {
        let now = self.now_ms();
        let _ =
            self.write_stuck_ms
                .compare_exchange(UNSET, now, Ordering::AcqRel, Ordering::Relaxed);
    }

    /// How many more bytes of a request head may be read, of `limit`: none
    /// left (0) once the head has that many; unlimited while a request is in
    /// flight (its body is read then).
    pub fn head_budget(&self, limit: usize) -> usize {
        if self.busy() {
            return usize::MAX;
        }
        limit.saturating_sub(self.head_bytes.load(Ordering::Relaxed))
    }

    /// A request head is complete and the request goes to the service.
    pub fn request_started(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.head_since_ms.store(UNSET, Ordering::Release);
        self.head_bytes.store(0, Ordering::Relaxed);
    }

    /// The service answered: the connection idles until the next request's first byte.
    pub fn request_finished(&self) {
        let now = self.now_ms();
        self.idle_since_ms.store(now, Ordering::Relaxed);
        self.last_io_ms.store(now, Ordering::Relaxed);
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
    }

    /// Asks for the connection to be reset when it ends, dropping what the
    /// client has not read.
    pub fn reset_on_close(&self) {
        self.reset.store(true, Ordering::Relaxed);
    }

    /// Whether the connection is to be reset when it ends.
    pub fn resets_on_close(&self) -> bool {
        self.reset.load(Ordering::Relaxed)
    }

    /// Whether a request is in flight.
    pub fn busy(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) > 0
    }

    /// Since when (ms after its start) the connection has been waiting on its
    /// client for a request — reading a head or idle — or none while a request
    /// is in flight. The connection caps make room by closing the oldest.
    pub fn waiting_since(&self) -> Option<u64> {
        if self.busy() {
            return None;
        }
        let head = self.head_since_ms.load(Ordering::Acquire);
        Some(if head == UNSET {
            self.idle_since_ms.load(Ordering::Relaxed)
        } else {
            head
        })
    }

    /// The instant the connection started.
    pub fn started(&self) -> Instant {
        self.since
    }

    /// The timer that has run out, if one has.
    pub fn expired(&self, t: &Timeouts) -> Option<Expired> {
        let stuck = self.write_stuck_ms.load(Ordering::Relaxed);
        if stuck != UNSET && self.age(stuck) >= t.write_stall {
            return Some(Expired::WriteStall);
        }
        if self.busy() {
            return None;
        }
        let head = self.head_since_ms.load(Ordering::Acquire);
        if head != UNSET {
            return (self.age(head) >= t.header).then_some(Expired::Header);
        }
        let last = self.last_io_ms.load(Ordering::Relaxed);
        (self.age(last) >= t.idle).then_some(Expired::Idle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeouts(header: u64, idle: u64) -> Timeouts {
        Timeouts {
            header: Duration::from_millis(header),
            idle: Duration::from_millis(idle),
            write_stall: Duration::from_millis(40),
        }
    }

    #[test]
    fn the_idle_timer_does_not_stop_at_the_header_timeout() {
        let a = Activity::default();
        a.read(10);
        a.request_started();
        a.request_finished();
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(
            a.expired(&timeouts(10, 1_000)),
            None,
            "idle, not reading a head"
        );
        a.read(1);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(a.expired(&timeouts(10, 1_000)), Some(Expired::Header));
    }

    #[test]
    fn a_silent_keep_alive_connection_idles_out_and_a_stuck_write_stalls() {
        let a = Activity::default();
        a.request_started();
        a.request_finished();
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(a.expired(&timeouts(1_000, 10)), Some(Expired::Idle));
        let b = Activity::default();
        b.request_started();
        b.write_blocked();
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(
            b.expired(&timeouts(1_000, 1_000)),
            Some(Expired::WriteStall)
        );
        assert_eq!(b.waiting_since(), None, "busy connections are not evicted");
    }

    #[test]
    fn a_request_head_has_a_byte_budget() {
        let a = Activity::default();
        assert_eq!(a.head_budget(100), 100);
        a.read(60);
        assert_eq!(a.head_budget(100), 40);
        a.read(50);
        assert_eq!(a.head_budget(100), 0);
        a.request_started();
        assert_eq!(a.head_budget(100), usize::MAX, "a body is not a head");
        a.read(1_000);
        a.request_finished();
        assert_eq!(a.head_budget(100), 100, "the next head starts afresh");
    }
}
