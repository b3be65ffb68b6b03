//! Planning off the heartbeat (issue 11 B): with a planner thread, no
//! heartbeat waits for a plan, and a plan is swapped in once it is done.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use spindle_core::session::{BackgroundPlanner, PlanRequest, Planning, ANY};
use spindle_core::{Locality, PolicyKind, Resources, Session, SessionConfig};

fn cap() -> Resources {
    Resources::new(1024, 1)
}

/// Two nodes, one app asking for 4 containers on h1 and 4 anywhere.
fn cluster() -> (Session, u32, u32, u32) {
    let mut s = Session::new(SessionConfig {
        policy: PolicyKind::Asm1Comm,
        ..SessionConfig::default()
    });
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r2", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    s.update_ask(app, 20, "h1", 4, cap(), true).unwrap();
    s.update_ask(app, 20, "/r1", 4, cap(), true).unwrap();
    s.update_ask(app, 20, ANY, 8, cap(), true).unwrap();
    (s, h1, h2, app)
}

/// Waits (bounded) until `f` holds.
fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !f() {
        assert!(t0.elapsed() < Duration::from_secs(60), "{what}: never");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A planner thread whose every plan blocks until the returned sender lets
/// it go (a plan that takes "for ever"), and the receiver of its starts;
/// returns once the first plan (the Session's first change) started.
fn blocked_planner(
    shared: &Arc<Mutex<Session>>,
) -> (BackgroundPlanner, mpsc::Receiver<()>, mpsc::Sender<()>) {
    let (started_tx, started_rx) = mpsc::channel::<()>();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let go_rx = Mutex::new(go_rx);
    let started_tx = Mutex::new(started_tx);
    let planner = BackgroundPlanner::spawn(
        shared.clone(),
        |s| s,
        Duration::from_millis(1),
        Some(Box::new(move |r: &PlanRequest| {
            let _ = started_tx.lock().unwrap().send(());
            let _ = go_rx.lock().unwrap().recv();
            r.plan()
        })),
    )
    .unwrap();
    started_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the planner starts on the first change");
    (planner, started_rx, go_tx)
}

#[test]
fn no_heartbeat_waits_for_a_plan_in_flight() {
    let (s, h1, _h2, app) = cluster();
    let shared = Arc::new(Mutex::new(s));
    // Heartbeats must return while the plan is blocked, served by the
    // fallback.
    let (planner, started_rx, go_tx) = blocked_planner(&shared);
    let mut out = Vec::new();
    let mut granted = Vec::new();
    for now in 0..100 {
        let mut s = shared.lock().unwrap();
        s.node_heartbeat(h1, cap(), now, &mut out).unwrap();
        granted.extend(out.iter().map(|g| (g.app, g.locality, g.count)));
        for _ in 0..out.iter().map(|g| g.count).sum::<u32>() {
            s.container_finished(h1).unwrap();
        }
    }
    assert_eq!(planner.stats().plans, 0, "the plan is still in flight");
    // The fallback served h1's local asks while the planner slept.
    assert_eq!(granted[0], (app, Locality::Node, 1));
    assert_eq!(granted.len(), 8, "h1 got the whole ANY count meanwhile");
    // A change while the plan is in flight is picked up by the next one.
    shared
        .lock()
        .unwrap()
        .update_ask(app, 20, ANY, 12, cap(), true)
        .unwrap();
    shared
        .lock()
        .unwrap()
        .update_ask(app, 20, "h2", 4, cap(), true)
        .unwrap();
    go_tx.send(()).unwrap();
    eventually("the first plan installed", || planner.stats().plans >= 1);
    started_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("a second plan for the change made meanwhile");
    go_tx.send(()).unwrap();
    eventually("the second plan installed", || planner.stats().plans >= 2);
    let s = shared.lock().unwrap();
    // asm1-comm balances h2's four tasks over both nodes.
    assert_eq!(s.queued(), vec![2, 2], "the new plan is in the queues");
    assert!(!s.wants_plan());
    drop(s);
    let st = planner.stats();
    assert_eq!(st.last_tasks, 4);
    assert_eq!(st.last_error, None);
}

#[test]
fn a_panicking_planner_leaves_heartbeats_working() {
    let (s, h1, _h2, _app) = cluster();
    let shared = Arc::new(Mutex::new(s));
    let planner = BackgroundPlanner::spawn(
        shared.clone(),
        |s| s,
        Duration::from_millis(1),
        Some(Box::new(|_: &PlanRequest| panic!("planner bug"))),
    )
    .unwrap();
    eventually("the panic recorded", || {
        planner.stats().last_error.is_some()
    });
    assert_eq!(planner.stats().last_error.as_deref(), Some("planner bug"));
    let mut out = Vec::new();
    shared
        .lock()
        .unwrap()
        .node_heartbeat(h1, cap(), 0, &mut out)
        .unwrap();
    assert_eq!(out.len(), 1, "the fallback still grants");
}

/// The simulator's model of the thread: a plan started at a heartbeat is
/// used from `base_ms` later in the heartbeats' time, deterministically.
#[test]
fn a_modelled_planning_delay_installs_the_plan_later() {
    let (mut s, _h1, h2, app) = cluster();
    s.set_planning(Planning::Modelled {
        base_ms: 500.0,
        per_million_tasks_ms: 0.0,
    });
    s.update_ask(app, 20, "h2", 4, cap(), true).unwrap();
    let mut out = Vec::new();
    // t = 0: the plan starts; h2's queue is not there yet, the fallback serves.
    s.node_heartbeat(h2, Resources::new(0, 0), 0, &mut out)
        .unwrap();
    assert_eq!(s.queued(), vec![0, 0]);
    s.node_heartbeat(h2, Resources::new(0, 0), 499, &mut out)
        .unwrap();
    assert_eq!(s.queued(), vec![0, 0]);
    s.node_heartbeat(h2, Resources::new(0, 0), 500, &mut out)
        .unwrap();
    assert_eq!(s.queued().iter().sum::<usize>(), 8);
}

/// ASM1 queues a job that arrives while the planner thread is busy, at the
/// next heartbeat, without waiting for the plan (issue 11 B: a new task is
/// inserted by an augmenting path from its replicas); the plan, once in,
/// did not see the job, so it is inserted again from the plan's queues.
#[test]
fn asm1_queues_a_new_job_while_a_plan_is_in_flight() {
    let mut s = Session::new(SessionConfig {
        policy: PolicyKind::Asm1,
        ..SessionConfig::default()
    });
    s.set_incremental(true);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r2", cap(), 1.0).unwrap();
    let a = s.add_app("a", 1.0, 0).unwrap();
    // Hosts with their racks, as AMs ask (the RM allocates node-local only
    // while the rack is asked for).
    s.update_ask(a, 20, "h1", 4, cap(), true).unwrap();
    s.update_ask(a, 20, "/r1", 4, cap(), true).unwrap();
    s.update_ask(a, 20, ANY, 4, cap(), true).unwrap();
    let shared = Arc::new(Mutex::new(s));
    let (planner, _started, go_tx) = blocked_planner(&shared);
    let b = {
        let mut s = shared.lock().unwrap();
        let b = s.add_app("b", 1.0, 1).unwrap();
        s.set_input_blocks(b, 20, &[vec!["h2"], vec!["h2"]])
            .unwrap();
        s.update_ask(b, 20, "h2", 2, cap(), true).unwrap();
        s.update_ask(b, 20, "/r2", 2, cap(), true).unwrap();
        s.update_ask(b, 20, ANY, 2, cap(), true).unwrap();
        b
    };
    let mut out = Vec::new();
    {
        let mut s = shared.lock().unwrap();
        // A heartbeat inserts 2 tasks at most: a's (listed first), then b's.
        for now in 0..3 {
            s.node_heartbeat(h1, Resources::new(0, 0), now, &mut out)
                .unwrap();
        }
        assert_eq!(s.queued(), vec![4, 2], "b's tasks queued on h2");
        s.node_heartbeat(h2, cap(), 3, &mut out).unwrap();
        assert_eq!(s.booked_tasks(), &[(b, 20, 0)], "the planned task");
        assert_eq!(out[0].locality, Locality::Node);
        assert_eq!(s.incremental_stats().inserted, 6);
    }
    assert_eq!(planner.stats().plans, 0, "the plan is still in flight");
    go_tx.send(()).unwrap();
    eventually("the plan installed", || planner.stats().plans >= 1);
    let mut s = shared.lock().unwrap();
    assert_eq!(s.queued(), vec![4, 0], "the plan's queues: a only");
    s.node_heartbeat(h1, Resources::new(0, 0), 4, &mut out)
        .unwrap();
    assert_eq!(s.queued(), vec![4, 1], "b's pending task again");
    drop(s);
    drop(planner);
    drop(go_tx);
}

/// The planner thread runs at a lower priority than the thread that made it
/// (its own nice value, +PLANNER_NICE up to 19), and the caller's is unchanged.
#[cfg(target_os = "linux")]
#[test]
fn the_planner_thread_lowers_only_its_own_priority() {
    use spindle_core::session::PLANNER_NICE;

    /// Nice value of a thread: field 19 of /proc/self/task/TID/stat.
    fn nice_of(tid: &str) -> i32 {
        let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).unwrap();
        // The name (field 2) is in parentheses and may hold spaces.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        rest.split(' ').nth(16).unwrap().parse().unwrap()
    }
    fn tid_of(name: &str) -> Option<String> {
        std::fs::read_dir("/proc/self/task").unwrap().find_map(|e| {
            let tid = e.unwrap().file_name().into_string().unwrap();
            let comm = std::fs::read_to_string(format!("/proc/self/task/{tid}/comm")).ok()?;
            (comm.trim() == name).then_some(tid)
        })
    }
    let me = nice_of(&format!("{}", own_tid()));
    let (s, _, _, _) = cluster();
    let shared = Arc::new(Mutex::new(s));
    let planner = BackgroundPlanner::spawn(shared, |s| s, Duration::from_millis(1), None).unwrap();
    let expected = (me + PLANNER_NICE).min(19);
    let mut seen = None;
    eventually("the planner thread at its nice value", || {
        seen = tid_of("spindle-planner").map(|t| nice_of(&t));
        seen == Some(expected)
    });
    assert_eq!(nice_of(&format!("{}", own_tid())), me);
    // The thread that takes the Session's lock keeps the host's priority:
    // a niced lock holder, preempted inside a spell, stalls the heartbeats.
    let locker = tid_of("spindle-locker").expect("the lock thread runs");
    assert_eq!(nice_of(&locker), me);
    drop(planner);
}

#[cfg(target_os = "linux")]
fn own_tid() -> i64 {
    // The test thread's own id, as /proc/self/task names it.
    std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name()?.to_str()?.parse().ok())
        .unwrap_or(0)
}
