//! A heartbeat in the steady state (no event since the last plan) allocates
//! nothing: counted with a global allocator wrapper, on this test's thread
//! only (the harness's main thread may still be allocating for its own
//! bookkeeping when a loaded machine lets the test run ahead of it).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use spindle_core::session::ANY;
use spindle_core::{PolicyKind, Resources, Session, SessionConfig};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    // Const-initialised: reading it never allocates.
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if COUNTED.with(Cell::get) {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn steady_state_heartbeats_do_not_allocate() {
    COUNTED.with(|c| c.set(true));
    let container = Resources::new(1024, 1);
    for policy in PolicyKind::ALL {
        let mut s = Session::new(SessionConfig {
            policy,
            ..SessionConfig::default()
        });
        let nodes = 40;
        for n in 0..nodes {
            s.add_node(
                &format!("h{n}"),
                &format!("/r{}", n % 4),
                Resources::new(4096, 4),
                1.0,
            )
            .unwrap();
        }
        let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
        for n in 0..nodes {
            s.update_ask(app, 20, &format!("h{n}"), 30, container, true)
                .unwrap();
        }
        for r in 0..4 {
            s.update_ask(app, 20, &format!("/r{r}"), 300, container, true)
                .unwrap();
        }
        s.update_ask(app, 20, ANY, 400, container, true).unwrap();
        s.plan_if_dirty();
        let (granted, allocated) = heartbeats(&mut s, nodes as u32);
        assert!(granted > 0, "{policy}: the heartbeats granted containers");
        assert_eq!(
            allocated, 0,
            "{policy}: {allocated} allocations in 2000 heartbeats"
        );
    }
    // S-PC's reduce stage (planned reducers, slow nodes held off them),
    // in the same test: the count is global to the threads that set it.
    for policy in [PolicyKind::Spc, PolicyKind::SpcIdentical] {
        let mut s = Session::new(SessionConfig {
            policy,
            ..SessionConfig::default()
        });
        let nodes = 20;
        for n in 0..nodes {
            let speed = if n % 2 == 0 { 1.0 } else { 0.125 };
            s.add_node(&format!("h{n}"), "/r0", Resources::new(4096, 4), speed)
                .unwrap();
        }
        let app = s.add_app("application_1_0002", 1.0, 0).unwrap();
        // Its maps asked for a host once (a map stage), now all started.
        s.update_ask(app, 20, "h0", 1, container, true).unwrap();
        s.update_ask(app, 20, "h0", 0, container, true).unwrap();
        s.update_ask(app, 10, ANY, 300, container, true).unwrap();
        s.plan_if_dirty();
        let (granted, allocated) = heartbeats(&mut s, nodes as u32);
        assert!(granted > 0, "{policy}: reducers granted");
        assert_eq!(allocated, 0, "{policy}: {allocated} allocations");
    }
}

/// 50 rounds of heartbeats over `nodes` nodes, each grant finished at
/// once: the containers granted and the allocations the heartbeats made.
fn heartbeats(s: &mut Session, nodes: u32) -> (u32, usize) {
    let mut out = Vec::with_capacity(16);
    let before = ALLOCS.load(Ordering::Relaxed);
    let mut granted = 0;
    for round in 0..50 {
        for n in 0..nodes {
            s.node_heartbeat(n, Resources::new(2048, 2), round, &mut out)
                .unwrap();
            granted += out.iter().map(|g| g.count).sum::<u32>();
            for _ in 0..out.len() {
                s.container_finished(n).unwrap();
            }
        }
    }
    (granted, ALLOCS.load(Ordering::Relaxed) - before)
}
