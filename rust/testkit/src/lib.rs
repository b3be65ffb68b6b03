//! Bounds for the hostile-input tests: every input surface gets a test that
//! sends magnitudes and counts and asserts a clear error or a valid result in
//! bounded time and bounded memory. The bounds are generous (seconds, not
//! milliseconds; hundreds of MB, not bytes): they catch hangs and blow-ups,
//! not regressions of a few percent.
//!
//! - [`CountingAlloc`]: a global allocator wrapper that counts the bytes each
//!   thread holds and its peak; declare it in a test binary with
//!   `#[global_allocator] static A: spindle_testkit::CountingAlloc = spindle_testkit::CountingAlloc;`.
//! - [`bounded`]: runs a closure on its own thread and fails the test when it
//!   runs past a time limit or its thread's peak allocation passes a memory
//!   limit (which needs the counting allocator).
//! - [`run_bounded`]: runs a process (the real `spindle`), kills it at a time
//!   limit and reports its peak resident set size (`wait4`, taken by a small
//!   `python3` parent: see [`PEAK_RSS_WRAPPER`]).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

/// Counts, per thread, the bytes allocated and not yet freed, and their peak.
/// Memory freed on another thread than the one that allocated it counts
/// against the freeing thread; the closures measured here allocate and free
/// on their own thread.
pub struct CountingAlloc;

/// Bytes held by all threads together, and their peak (for work that
/// spreads over threads: a reader thread, an async runtime's workers).
static GLOBAL_LIVE: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);
static GLOBAL_PEAK: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);

fn add(delta: isize) {
    use std::sync::atomic::Ordering::Relaxed;
    let now = GLOBAL_LIVE.fetch_add(delta, Relaxed) + delta;
    GLOBAL_PEAK.fetch_max(now, Relaxed);
    // try_with: the thread-locals may be gone while a thread shuts down.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| {
            if now > peak.get() {
                peak.set(now);
            }
        });
    });
}

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        add(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// Starts a fresh peak for the current thread; returns the bytes it holds now.
pub fn reset_peak() -> isize {
    let live = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(live));
    live
}

/// Peak bytes the current thread held since [`reset_peak`], above `base`.
pub fn peak_since(base: isize) -> usize {
    PEAK.with(Cell::get).saturating_sub(base).max(0) as usize
}

/// Serialises [`bounded_all_threads`] runs so that they do not count each
/// other's allocations.
static ALL_THREADS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Like [`bounded`], but the memory bound covers every thread of the
/// process while `f` runs (threads `f` starts, an async runtime). Other
/// tests running meanwhile count too, so keep the bound well above what
/// they allocate.
pub fn bounded_all_threads<R, F>(what: &str, time: Duration, memory: usize, f: F) -> R
where
    R: Send + 'static,
    F: FnOnce() -> R + Send + 'static,
{
    use std::sync::atomic::Ordering::Relaxed;
    let _serial = ALL_THREADS.lock().unwrap_or_else(|e| e.into_inner());
    let base = GLOBAL_LIVE.load(Relaxed);
    GLOBAL_PEAK.store(base, Relaxed);
    let r = bounded(what, time, usize::MAX, f);
    let peak = (GLOBAL_PEAK.load(Relaxed) - base).max(0) as usize;
    assert!(
        peak <= memory,
        "{what}: the process allocated up to {peak} bytes more, over the {memory}-byte bound"
    );
    r
}

/// What a bounded run used.
#[derive(Clone, Copy, Debug)]
pub struct Usage {
    pub elapsed: Duration,
    /// Peak bytes allocated by the closure's thread (0 without [`CountingAlloc`]).
    pub peak_bytes: usize,
}

/// Runs `f` on its own thread. Panics, naming `what`, when it is still running
/// after `time` (the thread is left behind: the test fails anyway) or when its
/// peak allocation passed `memory` bytes.
pub fn bounded<R, F>(what: &str, time: Duration, memory: usize, f: F) -> R
where
    R: Send + 'static,
    F: FnOnce() -> R + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    std::thread::Builder::new()
        .name(format!("bounded: {what}"))
        .spawn(move || {
            let base = reset_peak();
            let r = f();
            let peak = peak_since(base);
            let _ = tx.send((r, peak));
        })
        .expect("spawning a test thread");
    match rx.recv_timeout(time) {
        Ok((r, peak)) => {
            assert!(
                peak <= memory,
                "{what}: allocated up to {peak} bytes, over the {memory}-byte bound"
            );
            r
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: still running after {time:?} (bound)")
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!(
                "{what}: panicked after {:?} (see the thread's message above)",
                started.elapsed()
            )
        }
    }
}

/// What a bounded process run produced.
#[derive(Debug)]
pub struct ProcessRun {
    /// Exit code; `None` when killed by a signal (or by the time bound).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// Peak resident set size of the process, in KiB.
    pub max_rss_kb: u64,
    pub timed_out: bool,
}

impl ProcessRun {
    /// Fails the test unless the run ended by itself within its bounds and
    /// under `max_rss_mb` MiB of resident memory.
    pub fn assert_bounded(&self, what: &str, max_rss_mb: u64) {
        assert!(
            !self.timed_out,
            "{what}: killed at the time bound after {:?}; stderr: {}",
            self.elapsed, self.stderr
        );
        assert!(
            self.max_rss_kb <= max_rss_mb * 1024,
            "{what}: peak RSS {} KiB, over the {max_rss_mb} MiB bound",
            self.max_rss_kb
        );
    }
}

/// Runs its arguments as a grandchild of a freshly exec'd interpreter and
/// writes the grandchild's `ru_maxrss` (KiB) to the file named first.
///
/// Why not `wait4` on our own child: at `exec` Linux keeps the larger of the
/// old and new images' peak RSS, so a child spawned from a test process that
/// holds 100 MB (fake servers, other tests' threads) reports 100 MB whatever
/// it uses itself. A process forked by a small interpreter starts from the
/// interpreter's few MB instead.
pub const PEAK_RSS_WRAPPER: &str = r#"
import os, signal, sys
out, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
os._exit(os.WEXITSTATUS(status))
"#;

/// Runs `cmd` with stdin closed, collecting its output; kills it (and its
/// process group) at `time`.
pub fn run_bounded(cmd: &mut Command, time: Duration) -> ProcessRun {
    use std::os::unix::process::CommandExt;
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let rss_file = std::env::temp_dir().join(format!(
        "spindle-testkit-rss-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let mut wrapped = Command::new("python3");
    wrapped
        .arg("-c")
        .arg(PEAK_RSS_WRAPPER)
        .arg(&rss_file)
        .arg(cmd.get_program())
        .args(cmd.get_args());
    if let Some(dir) = cmd.get_current_dir() {
        wrapped.current_dir(dir);
    }
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => wrapped.env(k, v),
            None => wrapped.env_remove(k),
        };
    }
    let started = Instant::now();
    let mut child = wrapped
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning python3 and the process under test");
    let pid = child.id() as libc::pid_t;
    // Drain both pipes on threads so that a chatty child never blocks.
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let mut timed_out = false;
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: pid is our child and status a valid out-pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            break;
        }
        assert!(
            r == 0,
            "waitpid failed: {}",
            std::io::Error::last_os_error()
        );
        if started.elapsed() > time && !timed_out {
            timed_out = true;
            // SAFETY: signalling the process group of our own child.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let elapsed = started.elapsed();
    // The Child handle must not wait again: it was reaped above.
    std::mem::forget(child);
    let max_rss_kb = std::fs::read_to_string(&rss_file)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    let _ = std::fs::remove_file(&rss_file);
    let stderr = err.join().unwrap_or_default();
    assert!(
        timed_out || !stderr.contains("Traceback (most recent call last)"),
        "the peak-RSS wrapper failed: {stderr}"
    );
    ProcessRun {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stdout: out.join().unwrap_or_default(),
        stderr,
        elapsed,
        max_rss_kb,
        timed_out,
    }
}

/// The number right after `marker` in `text` ("timed out after 1.8 s" with
/// marker "timed out after " gives 1.8).
pub fn number_after(text: &str, marker: &str) -> Option<f64> {
    text.split(marker).nth(1)?.split(' ').next()?.parse().ok()
}

/// Values that break naive float code: zero, subnormals, the extremes, and
/// the integer limits as floats.
pub const HOSTILE_F64: [f64; 14] = [
    0.0,
    -0.0,
    5e-324,
    1e-320,
    f64::MIN_POSITIVE,
    1e-300,
    1e-9,
    1e9,
    1e15,
    1.9e19,
    1e300,
    f64::MAX,
    u32::MAX as f64,
    i64::MAX as f64,
];

/// Integer magnitudes: zero, one, and the 32- and 64-bit limits.
pub const HOSTILE_U64: [u64; 9] = [
    0,
    1,
    i32::MAX as u64,
    u32::MAX as u64,
    u32::MAX as u64 + 1,
    i64::MAX as u64,
    u64::MAX,
    1_000_000_000,
    1_000_000_000_000,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static A: CountingAlloc = CountingAlloc;

    #[test]
    fn bounded_measures_the_closure_thread() {
        let n = bounded("vec", Duration::from_secs(10), 64 << 20, || {
            let v = vec![1u8; 10 << 20];
            v.len()
        });
        assert_eq!(n, 10 << 20);
    }

    #[test]
    #[should_panic(expected = "over the 1048576-byte bound")]
    fn bounded_catches_a_blow_up() {
        bounded("big", Duration::from_secs(10), 1 << 20, || {
            vec![0u8; 8 << 20].len()
        });
    }

    #[test]
    #[should_panic(expected = "the process allocated up to")]
    fn bounded_all_threads_counts_other_threads() {
        bounded_all_threads("threads", Duration::from_secs(10), 1 << 20, || {
            std::thread::spawn(|| vec![0u8; 8 << 20].len())
                .join()
                .unwrap()
        });
    }

    #[test]
    #[should_panic(expected = "still running after")]
    fn bounded_catches_a_hang() {
        bounded("hang", Duration::from_millis(50), 1 << 20, || {
            std::thread::sleep(Duration::from_secs(5))
        });
    }

    #[test]
    fn run_bounded_reports_rss_and_kills_at_the_bound() {
        let r = run_bounded(
            Command::new("sh").args(["-c", "echo hi"]),
            Duration::from_secs(10),
        );
        assert_eq!(r.code, Some(0));
        assert_eq!(r.stdout, "hi\n");
        assert!(r.max_rss_kb > 0);
        let r = run_bounded(Command::new("sleep").arg("30"), Duration::from_millis(200));
        assert!(r.timed_out);
        assert_eq!(r.code, None);
    }
}
