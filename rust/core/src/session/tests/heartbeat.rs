//! The heartbeat (`session/heartbeat.rs`): planned queues, stealing, the
//! locality-wait cap, ranked serves, the stall detector, the priced wait.

use crate::model::{Locality, NodeId};
use crate::policy::PolicyKind;
use crate::session::{
    AppId, Grant, JobOrder, Planning, Resources, Session, SessionConfig, Slot, TaskChoice, ANY,
};

use super::{cap, feed, map_done, ordered, session};

#[test]
fn asks_only_plan_grants_node_local_then_stops() {
    let mut s = session(PolicyKind::Asm1);
    let a = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let b = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    for (res, n) in [("h1", 2), ("/r1", 2), (ANY, 2)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    s.node_heartbeat(b, cap(), 0, &mut out).unwrap();
    assert!(
        out.is_empty(),
        "h2 holds nothing and asm1 runs local tasks only"
    );
    s.node_heartbeat(a, cap(), 0, &mut out).unwrap();
    assert_eq!(
        out,
        vec![Grant {
            app,
            priority: 20,
            count: 1,
            locality: Locality::Node
        }]
    );
    s.container_finished(a).unwrap();
    s.node_heartbeat(a, Resources::new(2048, 2), 0, &mut out)
        .unwrap();
    assert_eq!(out[0].count, 1, "only one task left");
    s.node_heartbeat(a, cap(), 0, &mut out).unwrap();
    assert!(out.is_empty());
}

#[test]
fn grants_respect_free_resources_and_merge() {
    let mut s = session(PolicyKind::Asm1);
    let a = s
        .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
        .unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    s.update_ask(app, 20, "h1", 5, cap(), true).unwrap();
    s.update_ask(app, 20, ANY, 5, cap(), true).unwrap();
    let mut out = Vec::new();
    s.node_heartbeat(a, Resources::new(3000, 4), 0, &mut out)
        .unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].count, 2, "3000 MB hold two 1024 MB containers");
}

#[test]
fn asm1_comm_steals_from_the_longest_queue() {
    let mut s = session(PolicyKind::Asm1Comm);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    let only_h1: &[&str] = &["h1"];
    let both: &[&str] = &["h1", "h2"];
    feed(
        &mut s,
        app,
        &[only_h1, only_h1, only_h1, only_h1, both, both],
    );
    s.plan_if_dirty();
    // Cap ceil(6/2) = 3: h1 keeps three of its own, one moves to h2.
    assert_eq!(s.queued(), vec![3, 3]);
    // h1 never heartbeats (busy): h2 runs its queue, then steals.
    let mut got = Vec::new();
    let mut out = Vec::new();
    for _ in 0..10 {
        s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
        got.extend(out.iter().map(|g| g.locality));
        for _ in 0..out.iter().map(|g| g.count).sum::<u32>() {
            s.container_finished(h2).unwrap();
        }
    }
    let node = got.iter().filter(|&&l| l == Locality::Node).count();
    let rack = got.iter().filter(|&&l| l == Locality::Rack).count();
    assert_eq!((node, rack, got.len()), (2, 4, 6));
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert!(out.is_empty(), "nothing left for h1");
}

#[test]
fn asm1_steals_only_local_tasks() {
    let mut s = session(PolicyKind::Asm1);
    let _h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    let only_h1: &[&str] = &["h1"];
    let both: &[&str] = &["h1", "h2"];
    feed(&mut s, app, &[only_h1, only_h1, only_h1, both]);
    s.plan_if_dirty();
    assert_eq!(s.queued(), vec![3, 1]);
    let mut out = Vec::new();
    let mut n = 0;
    for _ in 0..5 {
        s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
        n += out.iter().map(|g| g.count).sum::<u32>();
        assert!(out.iter().all(|g| g.locality == Locality::Node));
        for _ in 0..out.iter().map(|g| g.count).sum::<u32>() {
            s.container_finished(h2).unwrap();
        }
    }
    assert_eq!(n, 1, "h2 runs its one local task and stays idle");
}

/// The stock MR AM runs the first pending map (split order) with a replica
/// on the container's host: a grant of an exact pool books that task, not
/// the planned one, so the next grant is not planned for a running task.
/// An AM told its task (`TaskChoice::Planned`) runs the planned one.
#[test]
fn a_grant_books_the_task_the_mapreduce_am_runs() {
    for (choice, booked_h1, h2_grants) in [
        (TaskChoice::MapReduceAm, 0u32, 0u32),
        (TaskChoice::Planned, 1, 1),
    ] {
        let mut s = Session::new(SessionConfig {
            policy: PolicyKind::Asm1,
            max_wait_ms: -1,
            job_order: JobOrder::Fifo,
            task_choice: choice,
            ..SessionConfig::default()
        });
        let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let app = s.add_app("app", 1.0, 0).unwrap();
        // Task 0 on h1 and h2, task 1 on h1 only: the plan puts 1 on h1, 0 on h2.
        feed(&mut s, app, &[&["h1", "h2"], &["h1"]]);
        s.plan_if_dirty();
        assert_eq!(s.queued(), vec![1, 1], "{choice:?}");
        let mut out = Vec::new();
        s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
        assert_eq!(out.len(), 1, "{choice:?}");
        assert_eq!(s.booked_tasks(), &[(app, 20, booked_h1)], "{choice:?}");
        // Under the MR AM task 0 runs on h1: h2's planned entry is stale and
        // h2 has no local task left (task 1 is h1's only).
        s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
        assert_eq!(
            out.iter().map(|g| g.count).sum::<u32>(),
            h2_grants,
            "{choice:?} {out:?} {:?} {:?}",
            s.booked_tasks(),
            s.queued()
        );
    }
}

/// The asking index gives what the FIFO visit gives a local-only policy,
/// through random asks, grants, finished apps and node churn.
#[test]
fn asking_index_agrees_with_the_fifo_visit() {
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let mut s = session(PolicyKind::Asm1);
    let hosts: Vec<String> = (0..6).map(|i| format!("h{i}")).collect();
    for h in &hosts {
        s.add_node(h, "/r", Resources::new(4096, 4), 1.0).unwrap();
    }
    let mut apps = Vec::new();
    let mut out = Vec::new();
    let mut served = 0;
    for step in 0..3000 {
        match next(10) {
            0 if apps.len() < 12 => {
                apps.push(s.add_app(&format!("a{step}"), 1.0, next(5) as i64).unwrap())
            }
            1 if !apps.is_empty() => {
                let a = apps.swap_remove(next(apps.len() as u64) as usize);
                s.finish_app(a).unwrap();
            }
            2 => {
                let h = &hosts[next(6) as usize];
                let id = s.node_id(h).unwrap();
                if s.nodes[id as usize].alive && s.alive_nodes > 1 {
                    s.remove_node(id).unwrap();
                } else if !s.nodes[id as usize].alive {
                    s.add_node(h, "/r", Resources::new(4096, 4), 1.0).unwrap();
                }
            }
            3..=6 if !apps.is_empty() => {
                let a = apps[next(apps.len() as u64) as usize];
                let prio = [10, 20, 30][next(3) as usize];
                let mem = [512, 1024, 2048][next(3) as usize];
                let res = if next(3) == 0 {
                    ANY.to_string()
                } else {
                    hosts[next(6) as usize].clone()
                };
                s.update_ask(a, prio, &res, next(4) as i32, Resources::new(mem, 1), true)
                    .unwrap();
            }
            _ => {
                let n = s.node_id(&hosts[next(6) as usize]).unwrap();
                if s.nodes[n as usize].alive {
                    s.node_heartbeat(n, Resources::new(4096, 4), step, &mut out)
                        .unwrap();
                }
            }
        }
        if s.asks.busy_stale {
            s.refresh_busy();
        }
        for h in &hosts {
            let n = s.node_id(h).unwrap();
            if !s.nodes[n as usize].alive {
                continue;
            }
            for free in [Resources::new(512, 1), Resources::new(4096, 4)] {
                let fifo = s.serve_fifo(n, &free, |g, node| {
                    g.asked(node.name).then_some(Locality::Node)
                });
                let indexed = s.serve_asking(n, &free);
                let key = |x: Option<Slot>| x.map(|x| (x.app, x.group, x.priority, x.locality));
                assert_eq!(key(indexed), key(fifo), "step {step}, node {h}");
                served += indexed.is_some() as u32;
            }
        }
    }
    assert!(served > 1000, "only {served} visits found work");
}

/// Issue 11 D: under a local-only policy, maps whose replica holder stays
/// busy wait at most `max_wait_ms`, then take a rack-local slot (before any
/// reducer); with a negative cap they wait for ever, as the papers' rule.
#[test]
fn a_map_waits_for_its_host_at_most_the_cap_and_before_reducers() {
    for (cap_ms, spills) in [(3_000, true), (-1, false)] {
        let mut s = Session::new(SessionConfig {
            policy: PolicyKind::Asm1,
            max_wait_ms: cap_ms,
            ..SessionConfig::default()
        });
        let _h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
        for (res, n) in [("h1", 1), ("/r1", 1), (ANY, 1)] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
        // A reducer of the same job asks for no location.
        s.update_ask(app, 10, ANY, 1, cap(), true).unwrap();
        let mut out = Vec::new();
        s.node_heartbeat(h2, Resources::new(0, 0), 0, &mut out)
            .unwrap();
        s.node_heartbeat(h2, cap(), 1_000, &mut out).unwrap();
        assert_eq!(out.len(), 1, "cap {cap_ms}: the reducer takes h2 meanwhile");
        assert_eq!(out[0].priority, 10);
        s.update_ask(app, 10, ANY, 0, cap(), true).unwrap();
        s.node_heartbeat(h2, cap(), 2_000, &mut out).unwrap();
        assert!(out.is_empty(), "cap {cap_ms}: 2 s is within the wait");
        s.node_heartbeat(h2, cap(), 3_500, &mut out).unwrap();
        if spills {
            assert_eq!(
                out,
                vec![Grant {
                    app,
                    priority: 20,
                    count: 1,
                    locality: Locality::Rack
                }],
                "the map waited past the cap and takes h2, on its rack"
            );
        } else {
            assert!(out.is_empty(), "no cap: the map keeps waiting for h1");
        }
    }
}

/// SLS's SYNTH at 1,000 nodes (issue 23): a job whose maps each name one
/// busy host gets a local container every second, so its wait since the
/// last container never reaches the cap while its other maps queue behind
/// that host. A node that would idle serves it once its asks have been
/// pending the cap, not since its last container.
#[test]
fn an_idle_node_serves_asks_pending_the_cap_though_the_group_gets_containers() {
    let mut s = session(PolicyKind::Asm1);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h3 = s.add_node("h3", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    for (res, n) in [("h1", 6), ("/r1", 6), (ANY, 6)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    for t in [0, 1_000, 2_000, 3_000] {
        if t > 0 {
            s.container_finished(h1).unwrap();
        }
        s.node_heartbeat(h1, cap(), t, &mut out).unwrap();
        assert_eq!(out.len(), 1, "h1 runs its own maps, one at a time");
        assert_eq!(out[0].locality, Locality::Node);
        s.node_heartbeat(h3, cap(), t + 500, &mut out).unwrap();
        if t + 500 < 3_000 {
            assert!(out.is_empty(), "at {} ms the maps wait for h1", t + 500);
        } else {
            assert_eq!(
                out,
                vec![Grant {
                    app,
                    priority: 20,
                    count: 1,
                    locality: Locality::Rack
                }],
                "pending 3.5 s: the idle h3 takes one on h1's rack"
            );
        }
    }
}

/// The ages are per container asked: asks an AM adds later (a Spark-like
/// app whose count never drops to 0) wait their own cap on an idle node,
/// though the group has been asking for longer.
#[test]
fn an_ask_added_later_waits_its_own_cap_on_an_idle_node() {
    let mut s = session(PolicyKind::Asm1);
    let _h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h3 = s.add_node("h3", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    let ask = |s: &mut Session, n: i32| {
        for res in ["h1", "/r1", ANY] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
    };
    ask(&mut s, 1);
    let mut out = Vec::new();
    s.node_heartbeat(h3, cap(), 0, &mut out).unwrap();
    assert!(out.is_empty());
    s.node_heartbeat(h3, cap(), 2_900, &mut out).unwrap();
    assert!(out.is_empty());
    ask(&mut s, 2);
    s.node_heartbeat(h3, cap(), 3_100, &mut out).unwrap();
    assert_eq!(out.len(), 1, "the first ask waited 3.1 s");
    s.node_heartbeat(h3, cap(), 4_000, &mut out).unwrap();
    assert!(out.is_empty(), "the second was made 1.1 s ago");
    s.node_heartbeat(h3, cap(), 5_950, &mut out).unwrap();
    assert_eq!(out.len(), 1, "and waited its cap at 5.95 s");
}

/// The stall detector names an application whose asks got no container for
/// `stall_ms`, once until it gets one.
#[test]
fn the_stall_detector_names_a_waiting_application_once() {
    let mut s = Session::new(SessionConfig {
        policy: PolicyKind::Asm1,
        max_wait_ms: -1,
        stall_ms: 60_000,
        ..SessionConfig::default()
    });
    let _h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    for (res, n) in [("h1", 1), ("/r1", 1), (ANY, 1)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    for t in (0..=200_000).step_by(1_000) {
        s.node_heartbeat(h2, cap(), t, &mut out).unwrap();
        assert!(out.is_empty());
    }
    assert_eq!(s.stalled_groups(), 1);
}

/// A waiting group that does not fit one node must still count for the
/// next: a visit of a small node left the wait floor at "nobody waits", and
/// a large container's maps waited for ever.
#[test]
fn a_large_waiting_ask_is_still_served_after_a_small_node_looked() {
    let big = Resources::new(4096, 1);
    let mut s = session(PolicyKind::Asm1);
    let small = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let large = s.add_node("h2", "/r1", big, 1.0).unwrap();
    let _holder = s.add_node("h3", "/r1", big, 1.0).unwrap();
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    for (res, n) in [("h3", 1), ("/r1", 1), (ANY, 1)] {
        s.update_ask(app, 20, res, n, big, true).unwrap();
    }
    let mut out = Vec::new();
    s.node_heartbeat(small, Resources::new(0, 0), 0, &mut out)
        .unwrap();
    // A small ask that begins waiting later lets h1 look at all.
    s.node_heartbeat(small, Resources::new(0, 0), 3_500, &mut out)
        .unwrap();
    let late = s.add_app("application_1_0002", 1.0, 1).unwrap();
    for (res, n) in [("h3", 1), ("/r1", 1), (ANY, 1)] {
        s.update_ask(late, 20, res, n, cap(), true).unwrap();
    }
    s.node_heartbeat(small, cap(), 4_000, &mut out).unwrap();
    assert!(
        out.is_empty(),
        "h1 is too small for the first, the second waits"
    );
    s.node_heartbeat(large, big, 4_100, &mut out).unwrap();
    assert_eq!(out.len(), 1, "h2 takes the map that waited past the cap");
    assert_eq!(out[0].locality, Locality::Rack);
}

/// The RM's clock is wall time: asks sent before the first heartbeat (an RM
/// restart re-sends every app's) start waiting at that heartbeat, not at 0.
#[test]
fn asks_before_the_first_heartbeat_wait_from_it() {
    let mut s = session(PolicyKind::Asm1);
    let _h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    for (res, n) in [("h1", 1), ("/r1", 1), (ANY, 1)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    let t0 = 1_795_000_000_000;
    let mut out = Vec::new();
    s.node_heartbeat(h2, cap(), t0, &mut out).unwrap();
    assert!(out.is_empty(), "the map has not waited yet");
    s.node_heartbeat(h2, cap(), t0 + 3_000, &mut out).unwrap();
    assert_eq!(out.len(), 1, "after the cap it takes h2");
}

/// Issue 11 D under load: a map whose holder stays busy is served past the
/// cap on another node *before that node's queue*, if its job ranks ahead
/// of the queue's head; a job ranked behind the head waits its turn.
#[test]
fn an_overdue_map_of_a_higher_ranked_job_goes_before_another_nodes_queue() {
    // (cap, whose map waits on the busy h1: the small job or the big one)
    for (cap_ms, small_waits, bypass) in [
        (3_000, true, true),
        (-1, true, false),
        (3_000, false, false),
    ] {
        let mut s = ordered(JobOrder::WeightedRemaining);
        s.cfg.max_wait_ms = cap_ms;
        let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let big = s.add_app("big", 1.0, 0).unwrap();
        let small = s.add_app("small", 1.0, 1).unwrap();
        let (waiting, queued) = if small_waits {
            (small, big)
        } else {
            (big, small)
        };
        // The queued job keeps work on h2 after its first grant.
        let n = |app| {
            if app == big {
                10
            } else if small_waits {
                1
            } else {
                2
            }
        };
        for (app, host) in [(waiting, "h1"), (queued, "h2")] {
            for res in [host, "/r1", ANY] {
                s.update_ask(app, 20, res, n(app), cap(), true).unwrap();
            }
        }
        let mut out = Vec::new();
        s.node_heartbeat(h1, Resources::new(0, 0), 0, &mut out)
            .unwrap();
        s.node_heartbeat(h2, cap(), 1_000, &mut out).unwrap();
        assert_eq!(out[0].app, queued, "within the wait h2 serves its queue");
        s.node_heartbeat(h2, cap(), 3_500, &mut out).unwrap();
        let want = if bypass {
            Grant {
                app: waiting,
                priority: 20,
                count: 1,
                locality: Locality::Rack,
            }
        } else {
            Grant {
                app: queued,
                priority: 20,
                count: 1,
                locality: Locality::Node,
            }
        };
        assert_eq!(out, vec![want], "cap {cap_ms}, small waits {small_waits}");
    }
}

/// The job order goes before the plan's placement: the plan gives the small
/// job's map to h1 (h2 holds the big job's three), but when h2 frees a slot
/// first the small job, ranked ahead, takes it node-local instead of waiting
/// for h1. Under FIFO order h2 serves its own queue.
#[test]
fn a_local_map_of_a_job_ranked_ahead_of_the_queue_head_goes_first() {
    for (order, small_first) in [(JobOrder::WeightedRemaining, true), (JobOrder::Fifo, false)] {
        let mut s = ordered(order);
        let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
        let big = s.add_app("big", 1.0, 0).unwrap();
        let small = s.add_app("small", 1.0, 1).unwrap();
        for res in ["h2", "/r1", ANY] {
            s.update_ask(big, 20, res, 3, cap(), true).unwrap();
        }
        for res in ["h1", "h2", "/r1", ANY] {
            s.update_ask(small, 20, res, 1, cap(), true).unwrap();
        }
        let mut out = Vec::new();
        s.node_heartbeat(h1, Resources::new(0, 0), 0, &mut out)
            .unwrap();
        assert_eq!(s.queued(), vec![1, 3], "{order:?}: the plan");
        s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
        let want = if small_first { small } else { big };
        assert_eq!(
            out,
            vec![Grant {
                app: want,
                priority: 20,
                count: 1,
                locality: Locality::Node,
            }],
            "{order:?}"
        );
    }
}

/// The host's count stays stale until the AM's next update: once A's block
/// on h1 and h2 started on h2, h1 still counts as asked. With exact blocks
/// h1 must not jump its queue for A, whose only pending map is on h3.
#[test]
fn a_ranked_local_serve_needs_a_task_still_local_to_the_node() {
    let mut s = ordered(JobOrder::WeightedRemaining);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let h3 = s.add_node("h3", "/r1", cap(), 1.0).unwrap();
    let big = s.add_app("big", 1.0, 0).unwrap();
    let small = s.add_app("small", 1.0, 1).unwrap();
    feed(&mut s, big, &[&["h1"], &["h1"], &["h1"], &["h1"]]);
    feed(&mut s, small, &[&["h1", "h2"], &["h3"]]);
    let mut out = Vec::new();
    let none = Resources::new(0, 0);
    s.node_heartbeat(h3, none, 0, &mut out).unwrap();
    assert_eq!(s.queued(), vec![4, 1, 1], "the plan");
    s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].app, small, "h2 runs small's first map");
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(
        out,
        vec![Grant {
            app: big,
            priority: 20,
            count: 1,
            locality: Locality::Node,
        }],
        "nothing of small is left on h1"
    );
}

/// The serves that go before the queue compare with the job that would
/// really run: an entry of a finished app at the head is dropped first.
/// Read from that entry (the next plan still in flight), the head ranked
/// nowhere, and the overdue maps of the last-ranked job took h1 ahead of
/// b's planned local map.
#[test]
fn a_stale_queue_head_does_not_let_later_jobs_jump() {
    let mut s = ordered(JobOrder::WeightedRemaining);
    s.set_planning(Planning::Modelled {
        base_ms: 100.0,
        per_million_tasks_ms: 0.0,
    });
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let w = s.add_app("w", 1.0, 0).unwrap();
    let a = s.add_app("a", 1.0, 1).unwrap();
    let b = s.add_app("b", 1.0, 2).unwrap();
    let ask = |s: &mut Session, app, host, n| {
        for res in [host, "/r1", ANY] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
    };
    let mut out = Vec::new();
    let none = Resources::new(0, 0);
    // w's maps wait for the busy h2 from time 0.
    ask(&mut s, w, "h2", 10);
    for t in [0, 3_000] {
        s.node_heartbeat(h2, none, t, &mut out).unwrap();
    }
    ask(&mut s, a, "h1", 1);
    ask(&mut s, b, "h1", 2);
    for t in [3_000, 3_100] {
        s.node_heartbeat(h2, none, t, &mut out).unwrap();
    }
    assert_eq!(s.queued(), vec![3, 10], "the plan");
    s.finish_app(a).unwrap();
    // A re-plan starts; w is found overdue (b has waited 0.5 s only).
    s.node_heartbeat(h2, none, 3_500, &mut out).unwrap();
    assert_eq!(s.queued(), vec![3, 10], "a's entry still at h1's head");
    s.node_heartbeat(h1, cap(), 3_550, &mut out).unwrap();
    assert_eq!(out[0].app, b, "{out:?}");
}

/// Switching the cap off (`set_max_wait_ms(-1)`) drops groups found
/// overdue before: the next node serves its own queue.
#[test]
fn a_cap_switched_off_leaves_nothing_overdue() {
    let mut s = ordered(JobOrder::WeightedRemaining);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let big = s.add_app("big", 1.0, 0).unwrap();
    let small = s.add_app("small", 1.0, 1).unwrap();
    for (app, host, n) in [(small, "h1", 1), (big, "h2", 10)] {
        for res in [host, "/r1", ANY] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
    }
    let mut out = Vec::new();
    s.node_heartbeat(h1, Resources::new(0, 0), 0, &mut out)
        .unwrap();
    // h1, still full, looks at 3.2 s: small's map is overdue.
    s.node_heartbeat(h1, Resources::new(0, 0), 3_200, &mut out)
        .unwrap();
    s.set_max_wait_ms(-1);
    s.node_heartbeat(h2, cap(), 3_500, &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].app, big, "no cap: h2 serves its queue");
}

/// `asm1-priced` with one holder h1 (`slots` containers) asked for `tasks`
/// maps, and h2 on its rack holding nothing: h1 takes what fits at 0.
fn priced(slots: i32, tasks: i32, max_wait_ms: i64) -> (Session, NodeId, NodeId, AppId) {
    let mut s = Session::new(SessionConfig {
        policy: PolicyKind::Asm1Priced,
        max_wait_ms,
        stall_ms: 60_000,
        ..SessionConfig::default()
    });
    let big = Resources::new(1024 * slots as i64, slots);
    let h1 = s.add_node("h1", "/r1", big, 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    for res in ["h1", "/r1", ANY] {
        s.update_ask(app, 20, res, tasks, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    s.node_heartbeat(h1, big, 0, &mut out).unwrap();
    let took = out.iter().map(|g| g.count).sum::<u32>();
    assert_eq!(took as i32, tasks.min(slots));
    (s, h1, h2, app)
}

/// Issue 11 D: h1's last queued map starts when one of its 4 running
/// containers ends (a quarter of a duration), far below the remote
/// penalty (2 durations at the default factor 3): h2 keeps its slot idle,
/// where asm1-comm takes the map remote at once.
#[test]
fn asm1_priced_waits_when_the_holder_frees_soon() {
    let (mut s, _h1, h2, _app) = priced(4, 5, -1);
    let mut out = Vec::new();
    for t in 1..=30 {
        s.node_heartbeat(h2, cap(), t * 1_000, &mut out).unwrap();
        assert!(out.is_empty(), "at {t} s: {out:?}");
    }
    let mut comm = session(PolicyKind::Asm1Comm);
    let big = Resources::new(4096, 4);
    let c1 = comm.add_node("h1", "/r1", big, 1.0).unwrap();
    let c2 = comm.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = comm.add_app("application_1_0001", 1.0, 0).unwrap();
    for res in ["h1", "/r1", ANY] {
        comm.update_ask(app, 20, res, 5, cap(), true).unwrap();
    }
    comm.node_heartbeat(c1, big, 0, &mut out).unwrap();
    comm.node_heartbeat(c2, cap(), 1_000, &mut out).unwrap();
    assert_eq!(out.len(), 1, "asm1-comm spills at once");
}

/// One slot and 5 maps queued behind the running one: the last starts 5
/// durations from now, more than the remote penalty: h2 takes it, on h1's
/// rack, and it leaves h1's queue.
#[test]
fn asm1_priced_spills_when_the_holder_is_busy_for_long() {
    let (mut s, h1, h2, app) = priced(1, 6, -1);
    assert_eq!(s.queued()[h1 as usize], 5);
    let mut out = Vec::new();
    s.node_heartbeat(h2, cap(), 1_000, &mut out).unwrap();
    assert_eq!(
        out,
        vec![Grant {
            app,
            priority: 20,
            count: 1,
            locality: Locality::Rack
        }]
    );
    assert_eq!(s.queued()[h1 as usize], 4);
    // (h2's container is taken as done.) The back of 4 starts 4 durations
    // on, then 3: both worth it; the back of 2 starts in 2, a tie: wait.
    let mut remote = 0;
    for t in 2..=10 {
        s.node_heartbeat(h2, cap(), t * 1_000, &mut out).unwrap();
        remote += out.iter().map(|g| g.count).sum::<u32>();
    }
    assert_eq!(remote, 2);
    assert_eq!(s.queued()[h1 as usize], 2);
}

/// The price reads the durations observed: this job's maps took 2 s,
/// another job's container 200 s, so the cluster's mean is 51.5 s. A map
/// queued on h1 behind that job's running container waits one cluster
/// duration (51.5 s), more than its remote penalty (2 x 2 s): h2 takes it.
/// Before any duration was seen the same wait is one unit against two,
/// and h2 waits (`asm1_priced_waits_when_the_holder_frees_soon`'s rule).
#[test]
fn asm1_priced_prices_with_the_durations_it_observed() {
    let (mut control, _, h2, _) = priced(1, 2, -1);
    let mut out = Vec::new();
    control.node_heartbeat(h2, cap(), 1_000, &mut out).unwrap();
    assert!(out.is_empty(), "no durations yet: one wave is below two");

    let mut s = Session::new(SessionConfig {
        policy: PolicyKind::Asm1Priced,
        max_wait_ms: -1,
        ..SessionConfig::default()
    });
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let h3 = s.add_node("h3", "/r1", cap(), 1.0).unwrap();
    let none = Resources::new(0, 0);
    let short = s.add_app("application_1_0001", 1.0, 0).unwrap();
    for res in ["h3", "/r1", ANY] {
        s.update_ask(short, 20, res, 3, cap(), true).unwrap();
    }
    for t in [0, 2_000, 4_000] {
        s.node_heartbeat(h3, cap(), t, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        s.node_heartbeat(h3, none, t + 2_000, &mut out).unwrap();
        s.app_container_finished(h3, short).unwrap();
    }
    let long = s.add_app("application_1_0002", 1.0, 6_000).unwrap();
    s.update_ask(long, 10, ANY, 2, cap(), true).unwrap();
    for h in [h1, h2] {
        s.node_heartbeat(h, cap(), 6_000, &mut out).unwrap();
        assert_eq!(out.len(), 1, "the location-less asks run");
    }
    s.node_heartbeat(h2, none, 206_000, &mut out).unwrap();
    s.app_container_finished(h2, long).unwrap();
    let durations = s.durations.as_ref().expect("asm1-priced keeps durations");
    assert_eq!(durations.app_mean_ms(short), Some(2_000.0));
    assert_eq!(durations.mean_ms(), Some(51_500.0));
    for res in ["h1", "/r1", ANY] {
        s.update_ask(short, 20, res, 1, cap(), true).unwrap();
    }
    s.node_heartbeat(h2, cap(), 207_000, &mut out).unwrap();
    assert_eq!(
        out,
        vec![Grant {
            app: short,
            priority: 20,
            count: 1,
            locality: Locality::Rack
        }]
    );
}

/// The hard cap: a group that got no container for `max_wait_ms` is
/// served anyway, even where the price says wait.
#[test]
fn asm1_priced_serves_a_group_at_the_cap() {
    let (mut s, _h1, h2, app) = priced(4, 5, 3_000);
    let mut out = Vec::new();
    s.node_heartbeat(h2, cap(), 2_000, &mut out).unwrap();
    assert!(out.is_empty(), "2 s is within the cap");
    s.node_heartbeat(h2, cap(), 3_500, &mut out).unwrap();
    assert_eq!(
        out,
        vec![Grant {
            app,
            priority: 20,
            count: 1,
            locality: Locality::Rack
        }]
    );
}

/// No task starves unseen: with no cap and a holder that never frees, the
/// priced wait goes on, and the stall detector names the group once.
#[test]
fn asm1_priced_waits_are_seen_by_the_stall_detector() {
    let (mut s, _h1, h2, _app) = priced(4, 5, -1);
    let mut out = Vec::new();
    for t in (1_000..=200_000).step_by(1_000) {
        s.node_heartbeat(h2, cap(), t, &mut out).unwrap();
        assert!(out.is_empty());
    }
    assert_eq!(s.stalled_groups(), 1);
}

/// The CapacityScheduler's off-switch rule: a node heartbeat ends after
/// `offswitch_per_heartbeat` (default 1) off-switch containers, so two
/// reducers of a job on an idle cluster land on two nodes under every
/// policy; node-local grants before them do not count.
#[test]
fn a_heartbeat_grants_at_most_the_off_switch_limit() {
    for policy in PolicyKind::ALL {
        let mut s = session(policy);
        let h1 = s
            .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
            .unwrap();
        let h2 = s
            .add_node("h2", "/r1", Resources::new(4096, 4), 1.0)
            .unwrap();
        let app = s.add_app("app", 1.0, 0).unwrap();
        s.update_ask(app, 10, ANY, 2, cap(), true).unwrap();
        let mut out = Vec::new();
        s.node_heartbeat(h1, Resources::new(4096, 4), 0, &mut out)
            .unwrap();
        let off = |out: &[Grant]| -> u32 {
            out.iter()
                .filter(|g| g.locality == Locality::OffSwitch)
                .map(|g| g.count)
                .sum()
        };
        assert_eq!(off(&out), 1, "{policy}: {out:?}");
        s.node_heartbeat(h2, Resources::new(4096, 4), 0, &mut out)
            .unwrap();
        assert_eq!(off(&out), 1, "{policy}: the second reducer goes to h2");

        // A limit of 2 lets one heartbeat take both (the FairScheduler
        // grants one a heartbeat anyway); 0 counts as 1.
        for (limit, want) in [(2, 2), (0, 1)] {
            let mut s = session(policy);
            s.set_offswitch_per_heartbeat(limit);
            let h1 = s
                .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
                .unwrap();
            let app = s.add_app("app", 1.0, 0).unwrap();
            s.update_ask(app, 10, ANY, 3, cap(), true).unwrap();
            s.node_heartbeat(h1, Resources::new(4096, 4), 0, &mut out)
                .unwrap();
            let one = !s.rule.as_ref().is_none_or(|r| r.assign_multiple());
            let want = if one { 1 } else { want };
            assert_eq!(off(&out), want, "{policy} limit {limit}: {out:?}");
        }
    }
}

/// Node-local maps fill the node's room before the one off-switch reducer.
#[test]
fn node_local_grants_do_not_count_towards_the_off_switch_limit() {
    let mut s = session(PolicyKind::Asm1);
    let h1 = s
        .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
        .unwrap();
    s.add_node("h2", "/r2", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    for (res, n) in [("h1", 2), ("/r1", 2), (ANY, 2)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    let other = s.add_app("other", 1.0, 1).unwrap();
    s.update_ask(other, 10, ANY, 2, cap(), true).unwrap();
    let mut out = Vec::new();
    s.node_heartbeat(h1, Resources::new(4096, 4), 0, &mut out)
        .unwrap();
    let count = |l: Locality| -> u32 {
        out.iter()
            .filter(|g| g.locality == l)
            .map(|g| g.count)
            .sum()
    };
    assert_eq!(count(Locality::Node), 2, "{out:?}");
    assert_eq!(count(Locality::OffSwitch), 1, "{out:?}");
}

/// S-PC's reduce stage at the heartbeat: the slow node leaves the reducer
/// (planned on the fast node) for at most its extra run time there: the
/// job's mean container (8 s) at the mean speed (9/16) times 1/(1/8) - 1,
/// 31.5 s after the reducer was asked. The fast node takes it at once.
/// Under Map-only and Identical-machine the slow node takes it at once.
#[test]
fn a_reducer_waits_for_the_fast_node_but_not_for_ever() {
    let reducer = |s: &mut Session, node: NodeId, now: i64| {
        let mut out = Vec::new();
        s.node_heartbeat(node, cap(), now, &mut out).unwrap();
        assert!(out.iter().all(|g| g.priority == 10), "{out:?}");
        out.len()
    };
    let ask = |s: &mut Session, app: AppId| {
        s.update_ask(app, 10, ANY, 1, cap(), true).unwrap();
    };
    let (mut s, fast, slow, app) = map_done(PolicyKind::Spc);
    ask(&mut s, app);
    assert_eq!(reducer(&mut s, slow, 9_000), 0);
    assert_eq!(reducer(&mut s, slow, 39_499), 0);
    let report = s.activities_report(None, Some(slow));
    assert!(
        report
            .activities
            .iter()
            .any(|e| e.reason.name() == "no-planned-work"),
        "{report:?}"
    );
    assert_eq!(reducer(&mut s, slow, 39_500), 1, "the wait is bounded");
    let (mut s, fast2, _, app) = map_done(PolicyKind::Spc);
    assert_eq!(fast2, fast);
    ask(&mut s, app);
    assert_eq!(reducer(&mut s, fast, 9_000), 1);
    // Before any container of the job finished, the locality-wait cap.
    let (mut s, _, slow, app) = map_done(PolicyKind::Spc);
    s.apps[app as usize].done = 0;
    ask(&mut s, app);
    assert_eq!(reducer(&mut s, slow, 8_000 + 2_999), 0);
    assert_eq!(reducer(&mut s, slow, 8_000 + 3_000), 1);
    for policy in [PolicyKind::SpcMapOnly, PolicyKind::SpcIdentical] {
        let (mut s, _, slow, app) = map_done(policy);
        ask(&mut s, app);
        assert_eq!(reducer(&mut s, slow, 9_000), 1, "{policy}");
    }
}

/// A light reducer (1 s on the fast node, 8 s on the slow one) waits for
/// the fast node less than its slow run, sized apart from its job's 8 s
/// map: by its own stage once one of its reducers finished (1 s of work,
/// 7 s of wait), and, for a second job whose reducer never finished, by
/// its map times the reducers' share of their maps the first job showed
/// (1/8). Sized as a map, the wait would be 31.5 s.
#[test]
fn a_light_reducer_waits_less_than_its_slow_run() {
    let grants = |s: &mut Session, node: NodeId, now: i64| {
        let mut out = Vec::new();
        s.node_heartbeat(node, cap(), now, &mut out).unwrap();
        out.iter().map(|g| g.count).sum::<u32>()
    };
    let (mut s, fast, slow, a) = map_done(PolicyKind::Spc);
    s.update_ask(a, 10, ANY, 2, cap(), true).unwrap();
    assert_eq!(grants(&mut s, fast, 9_000), 1, "the first reducer, fast");
    assert_eq!(grants(&mut s, slow, 10_000), 0);
    s.app_container_finished(fast, a).unwrap();
    let slow_run_ms = 1_000.0 / 0.125;
    let reduce = s.apps[a as usize].groups[0].size;
    assert_eq!((reduce.n, reduce.work_ms), (1, 1_000.0));
    assert_eq!(
        s.apps[a as usize].map_work_ms(),
        Some(8_000.0),
        "the maps' own"
    );
    // Its group got its last container at 9 s: 7 s of wait.
    assert_eq!(grants(&mut s, slow, 15_999), 0);
    assert_eq!(grants(&mut s, slow, 16_000), 1);
    assert!(7_000.0 < slow_run_ms);

    // A second job: one 8 s map on the fast node, then one reducer.
    let b = s.add_app("wordcount-2", 1.0, 16_000).unwrap();
    for res in ["fast", "/r1", ANY] {
        s.update_ask(b, 20, res, 1, cap(), true).unwrap();
    }
    assert_eq!(grants(&mut s, fast, 16_000), 1);
    for res in ["fast", "/r1", ANY] {
        s.update_ask(b, 20, res, 0, cap(), true).unwrap();
    }
    assert_eq!(grants(&mut s, fast, 24_000), 0);
    s.app_container_finished(fast, b).unwrap();
    s.update_ask(b, 10, ANY, 1, cap(), true).unwrap();
    assert_eq!(grants(&mut s, slow, 30_999), 0);
    assert_eq!(grants(&mut s, slow, 31_000), 1, "8 s x 1/8 x 7 after 24 s");
}

/// The stages' sizes: a finish goes to the group its container was
/// granted to, a reducer's lowers its own stage only, and a container the
/// Session never granted (recovered after a restart) is ignored.
#[test]
fn a_finished_reducer_sizes_its_own_stage_only() {
    let (mut s, fast, slow, app) = map_done(PolicyKind::Spc);
    let sizes = |s: &Session| {
        let size = |p: i32| {
            let g = s.apps[app as usize].groups.iter();
            g.filter(|g| g.priority == p).map(|g| g.size).next()
        };
        (size(10).unwrap_or_default(), size(20).unwrap_or_default())
    };
    let (_, map) = sizes(&s);
    assert_eq!((map.n, map.work_ms), (1, 8_000.0));
    s.update_ask(app, 10, ANY, 1, cap(), true).unwrap();
    let mut out = Vec::new();
    s.node_heartbeat(fast, cap(), 9_000, &mut out).unwrap();
    s.node_heartbeat(slow, cap(), 9_500, &mut out).unwrap();
    s.app_container_finished(fast, app).unwrap();
    let (reduce, map2) = sizes(&s);
    assert_eq!((reduce.n, reduce.work_ms), (1, 500.0));
    assert_eq!(map2, map, "the maps' size is left alone");
    // Recovered: no grant here, so its finish has no group.
    s.container_recovered(slow, app).unwrap();
    s.node_heartbeat(slow, cap(), 20_000, &mut out).unwrap();
    s.app_container_finished(slow, app).unwrap();
    assert_eq!(sizes(&s), (reduce, map));
    // Other policies keep no stage times.
    let (s, ..) = map_done(PolicyKind::SpcMapOnly);
    assert!(s.stage_clock.is_none());
    assert_eq!(s.apps[0].groups[0].size.n, 0);
}

/// YARN allocates node-local only while the node's rack is still asked for
/// (`LocalityAppPlacementAllocator.canAllocate`). A rack-local grant lowers
/// the rack and no host; an AM that never re-asks (SLS's) then leaves a host
/// count under a rack count of 0, and a grant labelled node-local there is
/// refused by the RM (SLS SYNTH, 1,000 nodes: 4,727 of 12,399 core grants
/// refused, jobs twice as long). The core books it as the RM would: off-switch.
#[test]
fn a_host_ask_under_a_drained_rack_is_booked_off_switch() {
    let mut s = Session::new(SessionConfig {
        policy: PolicyKind::HadoopDefault,
        delay: crate::policy::delay::LocalityDelay {
            node_locality_delay: -1,
            rack_locality_additional_delay: -1,
        },
        ..SessionConfig::default()
    });
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    // One map on h1, two anywhere, as SLS's AM asks: once, never again.
    for (res, n) in [("h1", 1), ("/r1", 1), (ANY, 3)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].locality, Locality::Rack, "the rack's one ask, on h2");
    s.node_heartbeat(h1, cap(), 1, &mut out).unwrap();
    assert_eq!(
        out,
        vec![Grant {
            app,
            priority: 20,
            count: 1,
            locality: Locality::OffSwitch
        }],
        "h1 is still asked for but /r1 is not: the RM allocates it off-switch"
    );
}

/// The wait is stated at YARN's 1 s node heartbeat: when every node is heard
/// every 3 s (a raised heartbeat interval, or an RM hearing its nodes late),
/// an idle node serves a waiting ask after 3 x 3 s, not 3 s, so the replica
/// holder gets its three turns; at 1 s heartbeats it serves at 3 s.
#[test]
fn the_locality_wait_stretches_with_the_heartbeat_interval() {
    for (gap, serves_at) in [(1_000, 3_000), (3_000, 9_000)] {
        let mut s = session(PolicyKind::Asm1);
        let h3 = s.add_node("h3", "/r1", cap(), 1.0).unwrap();
        // Nodes the core hears every `gap`, before the app: their gaps set the mean.
        let others: Vec<NodeId> = (0..8)
            .map(|i| s.add_node(&format!("b{i}"), "/r9", cap(), 1.0).unwrap())
            .collect();
        let mut out = Vec::new();
        let mut t = 0;
        while t < 100 * gap {
            for &b in &others {
                s.node_heartbeat(b, cap(), t, &mut out).unwrap();
            }
            t += gap;
        }
        // The asks come at the core's clock: the last heartbeat.
        t -= gap;
        let app = s.add_app("application_1_0001", 1.0, t).unwrap();
        for (res, n) in [("h1", 1), ("/r2", 1), (ANY, 1)] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
        let start = t;
        let mut served = None;
        while t <= start + 12_000 && served.is_none() {
            s.node_heartbeat(h3, cap(), t, &mut out).unwrap();
            if !out.is_empty() {
                served = Some(t - start);
            }
            t += gap;
        }
        assert_eq!(served, Some(serves_at), "heartbeats every {gap} ms");
    }
}
