//! The planner thread of a host that shares a Session behind a mutex (the
//! JNI core). It takes the lock only to copy the inputs
//! ([`Session::plan_request_begin`], then [`COPY_WORK`] entries at a time)
//! and to swap the result in ([`Session::install_more`], [`INSTALL_WORK`]
//! entries at a time); the plan itself runs unlocked, so no heartbeat waits
//! for it, and no lock hold grows with the cluster or with one
//! application's asks. What an install replaced is freed unlocked too.
//!
//! Two threads: `spindle-locker` takes the lock for those spells at the
//! host's priority, and `spindle-planner` plans (and frees) at a lower one
//! ([`PLANNER_NICE`]). A niced thread that held the lock was preempted
//! inside its spells on a busy RM, and the heartbeats waited behind it
//! (rm-bench at 10,000 nodes: lock holds of 40-95 ms against 5-10).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{InstallCursor, PlanGarbage, PlanRequest, PlanResult, Planning, Session};

/// Entries (nodes, ask counts) copied per hold of the host's lock. An
/// application is copied whole, so one spell copies at most this plus one
/// application's asks (a 1,200-map MapReduce job asks on about 3,100
/// hosts), where 64 applications a spell copied some 200,000.
pub const COPY_WORK: usize = 1024;
/// Entries (pools, groups, node queues) installed per hold of the lock.
pub const INSTALL_WORK: usize = 512;
/// How much the planner thread lowers its own priority (Linux nice, per
/// thread). Planning is background work: on a busy ResourceManager the
/// threads that handle heartbeats take a CPU before it does; on an idle
/// core it runs as before.
pub const PLANNER_NICE: i32 = 10;

/// What the planner thread has done, for logs and benchmarks.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct PlanStats {
    /// Plans installed.
    pub plans: u64,
    /// Tasks placed by the last plan.
    pub last_tasks: u64,
    /// Wall time of the last plan (step 2), in milliseconds.
    pub last_ms: f64,
    /// Longest plan so far, in milliseconds.
    pub max_ms: f64,
    /// Longest time the lock was held to copy or install, in microseconds.
    pub max_locked_us: f64,
    /// Of which: the longest copy (step 1) and the longest install (step 3).
    pub max_copy_us: f64,
    pub max_install_us: f64,
    /// The last planner panic, if any (the thread carries on).
    pub last_error: Option<String>,
}

/// A plan function: the policy's own ([`PlanRequest::plan`]), or a test's.
pub type PlanFn = Box<dyn Fn(&PlanRequest) -> PlanResult + Send>;

/// Owns the planner threads; dropping it stops them after the plan in hand
/// (without waiting for it).
pub struct BackgroundPlanner {
    stop: Arc<AtomicBool>,
    stats: Arc<Mutex<PlanStats>>,
    thread: Option<JoinHandle<()>>,
}

/// Work for the niced planner thread.
enum Job {
    Plan(PlanRequest),
    /// What an install replaced, to free off the lock thread.
    Free(PlanResult, PlanGarbage),
}

/// A plan and its wall time, or the planner's panic message.
type Planned = Result<(PlanResult, Duration), String>;

impl BackgroundPlanner {
    /// Puts the Session behind `shared` (reached through `session`) into
    /// [`Planning::Background`] and starts the thread. It looks for changed
    /// inputs every `poll`.
    pub fn spawn<T: Send + 'static>(
        shared: Arc<Mutex<T>>,
        session: fn(&mut T) -> &mut Session,
        poll: Duration,
        plan: Option<PlanFn>,
    ) -> std::io::Result<BackgroundPlanner> {
        session(&mut shared.lock().unwrap_or_else(PoisonError::into_inner))
            .set_planning(Planning::Background);
        let stop = Arc::new(AtomicBool::new(false));
        let stats = Arc::new(Mutex::new(PlanStats::default()));
        let plan = plan.unwrap_or_else(|| Box::new(|r: &PlanRequest| r.plan()));
        let (jobs, job_rx) = channel::<Job>();
        let (planned_tx, planned) = channel::<Planned>();
        std::thread::Builder::new()
            .name("spindle-planner".into())
            .spawn(move || plan_jobs(&job_rx, &planned_tx, &plan))?;
        // If this spawn fails, `jobs` drops and the planner thread ends.
        let thread = std::thread::Builder::new()
            .name("spindle-locker".into())
            .spawn({
                let (stop, stats) = (stop.clone(), stats.clone());
                move || run(&shared, session, poll, &jobs, &planned, &stop, &stats)
            })?;
        Ok(BackgroundPlanner {
            stop,
            stats,
            thread: Some(thread),
        })
    }

    pub fn stats(&self) -> PlanStats {
        self.stats
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for BackgroundPlanner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Detached: a plan in hand may take seconds; the thread exits after it.
        drop(self.thread.take());
    }
}

/// Raises this thread's nice value by [`PLANNER_NICE`] (Linux threads each
/// have their own; raising it needs no privilege). Elsewhere, a no-op.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: errno is this thread's; nice(2) only changes the calling
        // thread's scheduling weight.
        let now = unsafe {
            *libc::__errno_location() = 0;
            libc::nice(PLANNER_NICE)
        };
        if now == -1 {
            // -1 is also a valid nice value; errno tells them apart.
            let err = std::io::Error::last_os_error();
            if err.raw_os_error().unwrap_or(0) != 0 {
                tracing::debug!(error = %err, "the planner thread kept its priority");
            }
        }
    }
}

/// The niced planner thread: plans each request, frees what installs
/// replaced; ends when the lock thread drops its sender.
fn plan_jobs(jobs: &Receiver<Job>, planned: &Sender<Planned>, plan: &PlanFn) {
    lower_priority();
    for job in jobs {
        match job {
            Job::Plan(request) => {
                let t1 = Instant::now();
                let result = catch_unwind(AssertUnwindSafe(|| plan(&request)));
                let took = t1.elapsed();
                drop(request);
                let out = result.map(|r| (r, took)).map_err(|payload| {
                    payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "a panic".into())
                });
                if planned.send(out).is_err() {
                    return;
                }
            }
            Job::Free(result, garbage) => {
                drop(result);
                drop(garbage);
            }
        }
    }
}

/// The lock thread: copies a request in short spells, has the planner
/// thread plan it, installs the result in short spells.
fn run<T>(
    shared: &Mutex<T>,
    session: fn(&mut T) -> &mut Session,
    poll: Duration,
    jobs: &Sender<Job>,
    planned: &Receiver<Planned>,
    stop: &AtomicBool,
    stats: &Mutex<PlanStats>,
) {
    let lock = || shared.lock().unwrap_or_else(PoisonError::into_inner);
    let (mut max_copy, mut max_install) = (Duration::ZERO, Duration::ZERO);
    while !stop.load(Ordering::Relaxed) {
        // Step 1 in short spells under the lock: nodes, then apps by chunks.
        // Hold times are taken once the lock is held: waiting for it is not
        // holding it.
        let start = {
            let mut guard = lock();
            let t0 = Instant::now();
            let s = session(&mut guard);
            let start = s.wants_plan().then(|| s.plan_request_begin());
            max_copy = max_copy.max(t0.elapsed());
            start
        };
        let Some((mut request, mut cursor)) = start else {
            std::thread::sleep(poll);
            continue;
        };
        loop {
            let done = {
                let mut guard = lock();
                let t = Instant::now();
                let done =
                    session(&mut guard).plan_request_more(&mut request, &mut cursor, COPY_WORK);
                max_copy = max_copy.max(t.elapsed());
                done
            };
            if done {
                break;
            }
            // A heartbeat woken by the unlock gets the lock before the next spell.
            std::thread::yield_now();
        }
        // The planner thread catches a plan's panic; it is gone only if
        // freeing one panicked.
        let Some(planned) = jobs
            .send(Job::Plan(request))
            .ok()
            .and_then(|()| planned.recv().ok())
        else {
            tracing::error!(
                "the spindle planner thread is gone; heartbeats go on with the last plan"
            );
            return;
        };
        let (mut result, plan_time) = match planned {
            Ok(r) => r,
            Err(msg) => {
                tracing::error!(error = %msg, "the spindle planner failed; heartbeats go on with the last plan");
                stats
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .last_error = Some(msg);
                std::thread::sleep(poll);
                continue;
            }
        };
        let tasks = result.tasks() as u64;
        // Step 3 in short spells too.
        let mut garbage = PlanGarbage::for_plan(&result);
        let mut cursor = InstallCursor::default();
        loop {
            let done = {
                let mut guard = lock();
                let t = Instant::now();
                let done = session(&mut guard).install_more(
                    &mut result,
                    &mut cursor,
                    INSTALL_WORK,
                    &mut garbage,
                );
                max_install = max_install.max(t.elapsed());
                done
            };
            if done {
                break;
            }
            std::thread::yield_now();
        }
        // Freeing a replaced plan is planner work too.
        if jobs.send(Job::Free(result, garbage)).is_err() {
            tracing::error!(
                "the spindle planner thread is gone; heartbeats go on with the last plan"
            );
            return;
        }
        let mut st = stats.lock().unwrap_or_else(PoisonError::into_inner);
        st.plans += 1;
        st.last_tasks = tasks;
        st.last_ms = plan_time.as_secs_f64() * 1e3;
        st.max_ms = st.max_ms.max(st.last_ms);
        st.max_copy_us = max_copy.as_secs_f64() * 1e6;
        st.max_install_us = max_install.as_secs_f64() * 1e6;
        st.max_locked_us = st.max_copy_us.max(st.max_install_us);
    }
}
