use super::*;

impl Session {
    /// `askers` agrees with the groups' counts.
    fn askers_consistent(&self) -> bool {
        let mut want = vec![0u32; self.askers.len()];
        for a in self.apps.iter().filter(|a| a.alive) {
            for g in a.groups.iter().filter(|g| g.any > 0) {
                for (&name, &c) in &g.counts {
                    if c > 0 {
                        want[name as usize] += 1;
                    }
                }
            }
        }
        want == self.askers
    }
}

#[test]
fn askers_index_follows_asks_grants_and_finished_apps() {
    let mut s = session(PolicyKind::Asm1);
    let h1 = s
        .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
        .unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let a = s.add_app("a", 1.0, 0).unwrap();
    let b = s.add_app("b", 1.0, 1).unwrap();
    for app in [a, b] {
        for (res, n) in [("h1", 2), ("/r1", 2), (ANY, 2)] {
            s.update_ask(app, 20, res, n, cap(), true).unwrap();
        }
    }
    assert!(s.askers_consistent());
    let mut out = Vec::new();
    s.node_heartbeat(h1, Resources::new(4096, 4), 0, &mut out)
        .unwrap();
    assert_eq!(out.iter().map(|g| g.count).sum::<u32>(), 4);
    assert!(s.askers_consistent());
    s.update_ask(b, 20, "h2", 1, cap(), true).unwrap();
    s.finish_app(a).unwrap();
    assert!(s.askers_consistent());
    // Nobody asks for h1 any more; b still asks for h2 but has no ANY left.
    s.node_heartbeat(h2, cap(), 0, &mut out).unwrap();
    assert!(out.is_empty());
    assert!(s.askers_consistent());
}

fn cap() -> Resources {
    Resources::new(1024, 1)
}

fn session(policy: PolicyKind) -> Session {
    Session::new(SessionConfig {
        policy,
        ..SessionConfig::default()
    })
}

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
fn greedy_comm_spills_rack_then_off_switch() {
    let mut s = session(PolicyKind::GreedyComm);
    let _a = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let b = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let c = s.add_node("h3", "/r2", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    for (res, n) in [("h1", 2), ("/r1", 2), (ANY, 2)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    s.node_heartbeat(b, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].locality, Locality::Rack);
    s.node_heartbeat(c, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].locality, Locality::OffSwitch);
    // Greedy (makespan) would leave both idle.
    let mut g = session(PolicyKind::Greedy);
    g.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let b = g.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = g.add_app("app", 1.0, 0).unwrap();
    g.update_ask(app, 20, "h1", 2, cap(), true).unwrap();
    g.update_ask(app, 20, ANY, 2, cap(), true).unwrap();
    g.node_heartbeat(b, cap(), 0, &mut out).unwrap();
    assert!(out.is_empty());
}

#[test]
fn hadoop_default_delays_non_local_containers() {
    let mut s = session(PolicyKind::HadoopDefault);
    s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let h3 = s.add_node("h3", "/r2", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    for (res, n) in [("h1", 10), ("/r1", 10), (ANY, 10)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    // Three nodes cap both delays at 3 missed opportunities.
    let mut out = Vec::new();
    let mut offers = |s: &mut Session, node| {
        let mut n = 0;
        loop {
            n += 1;
            s.node_heartbeat(node, cap(), 0, &mut out).unwrap();
            if let Some(g) = out.first() {
                return (n, g.locality);
            }
        }
    };
    assert_eq!(offers(&mut s, h2), (4, Locality::Rack));
    assert_eq!(
        offers(&mut s, h3),
        (4, Locality::OffSwitch),
        "rack grant reset the count"
    );
    assert_eq!(
        offers(&mut s, h3),
        (1, Locality::OffSwitch),
        "off-switch does not reset it"
    );
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
fn node_updates_change_the_plan_and_name_bad_input() {
    let mut s = session(PolicyKind::Asm1);
    let big = s
        .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
        .unwrap();
    let small = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    for (res, n) in [("h1", 8), ("h2", 8), ("/r1", 8), (ANY, 8)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    s.plan_if_dirty();
    let before = s.queued();
    assert!(
        before[big as usize] > before[small as usize],
        "four slots take more than one: {before:?}"
    );
    s.update_node(small, Resources::new(4096, 4)).unwrap();
    s.plan_if_dirty();
    let after = s.queued();
    assert_eq!(after[big as usize], after[small as usize], "{after:?}");
    assert_eq!(
        s.update_node(small, Resources::new(-1, 1))
            .unwrap_err()
            .to_string(),
        "node \"h2\": capacity must not be negative, got -1 MB and 1 vcores"
    );
    assert_eq!(
        s.update_node(7, cap()).unwrap_err().to_string(),
        "node id 7 is not registered"
    );
    s.remove_node(small).unwrap();
    assert_eq!(
        s.update_node(small, cap()).unwrap_err().to_string(),
        "node \"h2\" (id 1) was removed"
    );
}

#[test]
fn finished_app_work_is_dropped() {
    let mut s = session(PolicyKind::Asm1);
    let a = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    s.update_ask(app, 20, "h1", 1, cap(), true).unwrap();
    s.update_ask(app, 20, ANY, 1, cap(), true).unwrap();
    s.plan_if_dirty();
    assert_eq!(s.queued()[a as usize], 1);
    s.finish_app(app).unwrap();
    let mut out = Vec::new();
    s.node_heartbeat(a, cap(), 0, &mut out).unwrap();
    assert!(out.is_empty());
    assert_eq!(
        s.update_ask(app, 20, ANY, 1, cap(), true)
            .unwrap_err()
            .to_string(),
        "application \"app\" has finished"
    );
}

#[test]
fn bad_events_name_what_is_wrong() {
    let mut s = session(PolicyKind::Asm1);
    let a = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    assert_eq!(
        s.add_node("h1", "/r1", cap(), 1.0).unwrap_err().to_string(),
        "node \"h1\" is already registered (id 0)"
    );
    assert_eq!(
        s.add_node("h2", "/r1", cap(), 0.0).unwrap_err().to_string(),
        "node \"h2\": speed must be a positive finite number, got 0"
    );
    assert_eq!(
        s.add_node("h3", "/r1", Resources::new(-1, 1), 1.0)
            .unwrap_err()
            .to_string(),
        "node \"h3\": capacity must not be negative, got -1 MB and 1 vcores"
    );
    let app = s.add_app("application_7_0001", 1.0, 0).unwrap();
    assert_eq!(
        s.update_ask(app, 20, "h1", -3, cap(), true).unwrap_err().to_string(),
        "application \"application_7_0001\", priority 20, resource \"h1\": container count must not be negative, got -3"
    );
    assert_eq!(
        s.add_app("application_7_0001", 1.0, 0)
            .unwrap_err()
            .to_string(),
        "application \"application_7_0001\" is already registered (id 0)"
    );
    assert_eq!(
        s.add_app("x", f64::NAN, 0).unwrap_err().to_string(),
        "application \"x\": weight must be a positive finite number, got NaN"
    );
    assert_eq!(
        s.update_ask(9, 20, ANY, 1, cap(), true).unwrap_err(),
        SessionError::UnknownApp(9)
    );
    let mut out = Vec::new();
    assert_eq!(
        s.node_heartbeat(7, cap(), 0, &mut out)
            .unwrap_err()
            .to_string(),
        "node id 7 is not registered"
    );
    s.remove_node(a).unwrap();
    assert_eq!(
        s.node_heartbeat(a, cap(), 0, &mut out)
            .unwrap_err()
            .to_string(),
        "node \"h1\" (id 0) was removed"
    );
    assert_eq!(
        s.add_node("h1", "/r2", cap(), 1.0).unwrap(),
        a,
        "a returning host keeps its id"
    );
}

/// Feeds exact blocks and the asks the MR AM derives from them.
fn feed(s: &mut Session, app: AppId, blocks: &[&[&str]]) {
    let hosts: Vec<Vec<&str>> = blocks.iter().map(|b| b.to_vec()).collect();
    s.set_input_blocks(app, 20, &hosts).unwrap();
    let mut counts: HashMap<String, i32> = HashMap::new();
    for b in blocks {
        let mut racks: Vec<u32> = Vec::new();
        for h in b.iter() {
            *counts.entry(h.to_string()).or_default() += 1;
            let rack = s.nodes[s.node_id(h).unwrap() as usize].rack;
            if !racks.contains(&rack) {
                racks.push(rack);
            }
        }
        for r in racks {
            let name = s.names.iter().find(|(_, &id)| id == r).unwrap().0.clone();
            *counts.entry(name).or_default() += 1;
        }
    }
    for (res, c) in counts {
        s.update_ask(app, 20, &res, c, cap(), true).unwrap();
    }
    s.update_ask(app, 20, ANY, blocks.len() as i32, cap(), true)
        .unwrap();
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

#[test]
fn a_recorded_event_log_replays_to_the_same_grants() {
    let events = vec![
        SessionEvent::AddNode {
            host: "h1".into(),
            rack: "/r1".into(),
            capacity: cap(),
            speed: 1.0,
        },
        SessionEvent::AddApp {
            app: "application_1_0001".into(),
            weight: 1.0,
            submit_ms: 0,
        },
        SessionEvent::UpdateAsk {
            app: 0,
            priority: 20,
            resource: ANY.into(),
            count: 2,
            capability: cap(),
            relax_locality: true,
        },
        SessionEvent::Heartbeat {
            node: 0,
            free: cap(),
            now_ms: 1000,
        },
    ];
    let text = serde_json::to_string(&events).unwrap();
    assert!(text.contains(r#"{"event":"heartbeat","node":0"#), "{text}");
    let back: Vec<SessionEvent> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, events);
    let mut s = session(PolicyKind::Asm1Comm);
    let mut out = Vec::new();
    for e in &back {
        s.apply(e, &mut out).unwrap();
    }
    assert_eq!(
        out,
        vec![Grant {
            app: 0,
            priority: 20,
            count: 1,
            locality: Locality::OffSwitch
        }]
    );
}

#[test]
fn synthesised_pool_matches_the_marginals() {
    let mut s = session(PolicyKind::Asm1);
    for h in ["h1", "h2", "h3"] {
        s.add_node(h, "/r", cap(), 1.0).unwrap();
    }
    let app = s.add_app("app", 1.0, 0).unwrap();
    for (res, n) in [("h1", 3), ("h2", 2), ("h3", 1), ("unknown-dn", 4), (ANY, 3)] {
        s.update_ask(app, 20, res, n, cap(), true).unwrap();
    }
    s.plan_if_dirty();
    let g = &s.apps[app as usize].groups[0];
    assert_eq!(g.pool.len(), 3);
    let mut per_host = [0; 3];
    for t in 0..g.pool.len() {
        for &r in g.pool.replicas.of(t) {
            per_host[r as usize] += 1;
        }
    }
    assert_eq!(per_host, [3, 2, 1]);
    assert_eq!(s.queued().iter().sum::<usize>(), 3);
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
        if s.busy_stale {
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

/// Installing a plan in spells (as the planner thread does) gives the same
/// queues as installing it at once; so does a request copied in parts.
#[test]
fn a_plan_installed_in_parts_equals_one_installed_at_once() {
    let build = || {
        let mut s = session(PolicyKind::Asm1Comm);
        for i in 0..7 {
            s.add_node(&format!("h{i}"), &format!("/r{}", i % 2), cap(), 1.0)
                .unwrap();
        }
        for a in 0..5 {
            let app = s.add_app(&format!("app{a}"), 1.0, a).unwrap();
            for i in 0..7 {
                if (i + a) % 3 != 0 {
                    s.update_ask(app, 20, &format!("h{i}"), 2 + (a as i32), cap(), true)
                        .unwrap();
                }
            }
            s.update_ask(app, 20, ANY, 9, cap(), true).unwrap();
        }
        s
    };
    let mut whole = build();
    let r = whole.plan_request().plan();
    drop(whole.install_plan(r));
    let mut parts = build();
    let (mut req, apps) = parts.plan_request_start();
    for chunk in apps.chunks(2) {
        parts.plan_request_add(&mut req, chunk);
    }
    let mut r = req.plan();
    let mut garbage = PlanGarbage::default();
    parts.install_pools(&mut r, &mut garbage);
    let mut from = Some(0);
    while let Some(f) = from {
        from = parts.install_queues(&mut r, f, 3, &mut garbage);
    }
    assert!(whole.queued().iter().sum::<usize>() > 0);
    assert_eq!(parts.queued(), whole.queued());
    assert_eq!(parts.queued_total, whole.queued_total);
    let slots = |s: &Session| -> Vec<Vec<(AppId, u32, u32)>> {
        s.nodes
            .iter()
            .map(|n| n.queue.iter().map(|x| (x.app, x.group, x.task)).collect())
            .collect()
    };
    assert_eq!(slots(&parts), slots(&whole));
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

fn ordered(order: JobOrder) -> Session {
    Session::new(SessionConfig {
        policy: PolicyKind::Asm1,
        job_order: order,
        ..SessionConfig::default()
    })
}

/// A big job submitted first and a small one after, both local to h1 only.
fn big_then_small(s: &mut Session) -> (NodeId, AppId, AppId) {
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let big = s.add_app("big", 1.0, 0).unwrap();
    let small = s.add_app("small", 1.0, 1).unwrap();
    for (app, n) in [(big, 10), (small, 2)] {
        for res in ["h1", "/r1", ANY] {
            s.update_ask(app, 20, res, n, cap(), false).unwrap();
        }
    }
    (h1, big, small)
}

#[test]
fn weighted_remaining_order_serves_the_smaller_job_first_and_fifo_does_not() {
    let mut out = Vec::new();
    let mut s = ordered(JobOrder::WeightedRemaining);
    let (h1, _, small) = big_then_small(&mut s);
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].app, small, "2 pending containers before 10");
    let mut s = ordered(JobOrder::Fifo);
    let (h1, big, _) = big_then_small(&mut s);
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].app, big, "submission order");
    // The weight divides the remaining work: a big job of weight 10 ranks first.
    let mut s = ordered(JobOrder::WeightedRemaining);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let heavy = s.add_app("heavy", 10.0, 5).unwrap();
    let light = s.add_app("light", 1.0, 0).unwrap();
    for (app, n) in [(heavy, 10), (light, 2)] {
        for res in ["h1", "/r1", ANY] {
            s.update_ask(app, 20, res, n, cap(), false).unwrap();
        }
    }
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].app, heavy, "10 / 10 < 2 / 1");
}

#[test]
fn a_job_whose_maps_all_started_gets_its_reducer_before_later_jobs_maps() {
    let mut out = Vec::new();
    for order in JobOrder::ALL {
        let mut s = ordered(order);
        let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
        let first = s.add_app("first", 1.0, 0).unwrap();
        let second = s.add_app("second", 1.0, 1).unwrap();
        // `first` is in its reduce phase: one location-less ask at priority 10.
        s.update_ask(first, 10, ANY, 1, cap(), true).unwrap();
        for res in ["h1", "/r1", ANY] {
            s.update_ask(second, 20, res, 5, cap(), true).unwrap();
        }
        s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
        let want = match order {
            // FIFO keeps the planned maps first (the reducer waits for the queue).
            JobOrder::Fifo => (second, 20),
            // One container against five: shorter (S-PC's LPs, HUWF),
            // smaller (Tetris), maps done (Map-only).
            _ => (first, 10),
        };
        assert_eq!((out[0].app, out[0].priority), want, "{order:?}");
    }
    // A job with maps still pending does not get its reducer ahead of them.
    let mut s = ordered(JobOrder::WeightedRemaining);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let a = s.add_app("a", 1.0, 0).unwrap();
    s.update_ask(a, 10, ANY, 1, cap(), true).unwrap();
    for (res, n) in [("h1", 1), ("/r1", 1), (ANY, 1)] {
        s.update_ask(a, 20, res, n, cap(), true).unwrap();
    }
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(out[0].priority, 20, "the map local to h1 first");
}

#[test]
fn hadoop_fair_serves_the_app_with_least_usage_one_container_per_heartbeat() {
    let mut s = session(PolicyKind::HadoopFair);
    let h1 = s
        .add_node("h1", "/r1", Resources::new(4096, 4), 1.0)
        .unwrap();
    let h2 = s
        .add_node("h2", "/r2", Resources::new(4096, 4), 1.0)
        .unwrap();
    let a = s.add_app("a", 1.0, 0).unwrap();
    let b = s.add_app("b", 1.0, 1).unwrap();
    for app in [a, b] {
        for res in ["h1", "/r1", ANY] {
            s.update_ask(app, 20, res, 4, cap(), true).unwrap();
        }
    }
    let mut out = Vec::new();
    s.node_heartbeat(h1, Resources::new(4096, 4), 0, &mut out)
        .unwrap();
    assert_eq!(out.len(), 1, "assignmultiple is off: one container");
    assert_eq!((out[0].app, out[0].count), (a, 1));
    s.node_heartbeat(h1, Resources::new(3072, 3), 1, &mut out)
        .unwrap();
    assert_eq!(out[0].app, b, "a holds one container, b none");
    // Default thresholds (-1): no delay scheduling, off-switch at once.
    s.node_heartbeat(h2, Resources::new(4096, 4), 2, &mut out)
        .unwrap();
    assert_eq!((out[0].app, out[0].locality), (a, Locality::OffSwitch));
    s.node_heartbeat(h1, Resources::new(2048, 2), 3, &mut out)
        .unwrap();
    assert_eq!(out[0].app, b, "a holds two, b one");
    // A finished container of a lowers its usage below b's.
    s.app_container_finished(h1, a).unwrap();
    s.node_heartbeat(h1, Resources::new(2048, 2), 4, &mut out)
        .unwrap();
    assert_eq!(out[0].app, a);
}

#[test]
fn hadoop_fair_half_waits_half_the_cluster_in_opportunities() {
    let mut s = session(PolicyKind::HadoopFairHalf);
    let nodes: Vec<NodeId> = (0..4)
        .map(|i| s.add_node(&format!("h{i}"), "/r1", cap(), 1.0).unwrap())
        .collect();
    let a = s.add_app("a", 1.0, 0).unwrap();
    for res in ["h0", "/r1", ANY] {
        s.update_ask(a, 20, res, 1, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    // Offers 1 (sets node-local), 2 (2 <= 0.5 * 4): refused; 3 relaxes to rack.
    s.node_heartbeat(nodes[1], cap(), 0, &mut out).unwrap();
    assert!(out.is_empty());
    s.node_heartbeat(nodes[2], cap(), 1, &mut out).unwrap();
    assert!(out.is_empty());
    s.node_heartbeat(nodes[3], cap(), 2, &mut out).unwrap();
    assert_eq!(out[0].locality, Locality::Rack);
}

#[test]
fn a_finished_container_of_an_app_with_none_running_is_refused_by_name() {
    let mut s = session(PolicyKind::HadoopFair);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let a = s.add_app("application_7_0001", 1.0, 0).unwrap();
    let err = s.app_container_finished(h1, a).unwrap_err().to_string();
    assert_eq!(
        err,
        "application \"application_7_0001\": a container finished, but none granted to it is running"
    );
    assert_eq!(
        s.app_container_finished(h1, 9).unwrap_err(),
        SessionError::UnknownApp(9)
    );
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

/// An app that registered while a plan is in flight asks nothing yet: it
/// ranks last until the next re-rank, so its asks do not jump every
/// queue ahead of a planned small job.
#[test]
fn a_new_app_does_not_jump_the_queues_before_it_is_ranked() {
    let mut s = ordered(JobOrder::WeightedRemaining);
    s.set_planning(Planning::Modelled {
        base_ms: 1_000.0,
        per_million_tasks_ms: 0.0,
    });
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", cap(), 1.0).unwrap();
    let small = s.add_app("small", 1.0, 0).unwrap();
    for res in ["h1", "/r1", ANY] {
        s.update_ask(small, 20, res, 4, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    let none = Resources::new(0, 0);
    // The first plan starts and is installed 1 s later.
    s.node_heartbeat(h2, none, 0, &mut out).unwrap();
    s.node_heartbeat(h2, none, 1_000, &mut out).unwrap();
    assert_eq!(s.queued(), vec![4, 0], "the plan");
    // A second plan is in flight when the new app registers and asks.
    s.update_ask(small, 20, ANY, 5, cap(), true).unwrap();
    s.node_heartbeat(h2, none, 1_000, &mut out).unwrap();
    let late = s.add_app("late", 1.0, 1_000).unwrap();
    for res in ["h1", "/r1", ANY] {
        s.update_ask(late, 20, res, 100, cap(), true).unwrap();
    }
    s.node_heartbeat(h1, cap(), 1_100, &mut out).unwrap();
    assert_eq!(out[0].app, small, "{out:?}");
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

/// A zero-sized ask would fit any node for ever: it is refused, naming the
/// app, and a tiny one on a huge node is granted at most
/// [`heartbeat::MAX_GRANTS_PER_HEARTBEAT`] containers a heartbeat, not
/// `i32::MAX`.
#[test]
fn zero_sized_asks_are_refused_and_tiny_ones_bounded_per_heartbeat() {
    let mut s = session(PolicyKind::Asm1Comm);
    let huge = Resources::new(i64::MAX / 2, i32::MAX);
    let h1 = s.add_node("h1", "/r1", huge, 1.0).unwrap();
    let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
    let err = s
        .update_ask(app, 20, ANY, 5, Resources::new(0, 0), true)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("application_1_0001") && err.contains("capability must not be zero"),
        "{err}"
    );
    // Cancelling with a zero capability is harmless.
    s.update_ask(app, 20, ANY, 0, Resources::new(0, 0), true)
        .unwrap();
    s.update_ask(app, 20, ANY, i32::MAX, Resources::new(1, 0), true)
        .unwrap();
    // Off the off-switch limit's way (ANY-only asks are off-switch).
    s.set_offswitch_per_heartbeat(u32::MAX);
    let mut out = Vec::new();
    s.node_heartbeat(h1, huge, 0, &mut out).unwrap();
    let granted: u32 = out.iter().map(|g| g.count).sum();
    assert_eq!(granted, super::heartbeat::MAX_GRANTS_PER_HEARTBEAT);
}

/// S-PC Sect. V over the AM's progress: time per unit of progress from
/// the first report above zero, in container time, so start-up before it
/// does not count (Hadoop's estimate would take it in).
#[test]
fn remaining_work_is_estimated_from_the_first_progress_report() {
    let mut s = session(PolicyKind::Asm1Comm);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let app = s.add_app("a", 1.0, 0).unwrap();
    s.update_ask(app, 20, ANY, 1, cap(), true).unwrap();
    let mut out = Vec::new();
    s.node_heartbeat(h1, cap(), 0, &mut out).unwrap();
    assert_eq!(out.len(), 1);
    s.app_progress(app, 0.0, 5_000).unwrap();
    assert_eq!(s.apps[app as usize].remaining_ms(5_000), None);
    // One container: 10 s of start-up, then 0.1 -> 0.3 in 10 s.
    s.app_progress(app, 0.1, 10_000).unwrap();
    assert_eq!(
        s.apps[app as usize].remaining_ms(10_000),
        None,
        "one report"
    );
    s.app_progress(app, 0.3, 20_000).unwrap();
    let r = s.apps[app as usize].remaining_ms(20_000).unwrap();
    assert!((r - 35_000.0).abs() < 1.0, "0.7 * 10 s / 0.2, got {r}");
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
    assert_eq!(s.durations.app_mean_ms(short), Some(2_000.0));
    assert_eq!(s.durations.mean_ms(), Some(51_500.0));
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

/// One slot on h1; a big job (3 maps there) and, one after another, later
/// jobs of one map each, every one granted and finished before the next
/// arrives. Returns which application each heartbeat served.
fn overtaking_stream(order: JobOrder, later: usize) -> (AppId, Vec<AppId>) {
    let mut s = ordered(order);
    let h1 = s.add_node("h1", "/r1", cap(), 1.0).unwrap();
    let big = s.add_app("big", 1.0, 0).unwrap();
    for res in ["h1", "/r1", ANY] {
        s.update_ask(big, 20, res, 3, cap(), false).unwrap();
    }
    let mut out = Vec::new();
    let mut served = Vec::new();
    let mut big_left = 3;
    for i in 0..later {
        let t = 1_000 * (i as i64 + 1);
        let small = s.add_app(&format!("small{i}"), 1.0, t).unwrap();
        for res in ["h1", "/r1", ANY] {
            s.update_ask(small, 20, res, 1, cap(), false).unwrap();
        }
        s.node_heartbeat(h1, cap(), t, &mut out).unwrap();
        assert_eq!(out.len(), 1, "one slot, one grant");
        let app = out[0].app;
        served.push(app);
        s.app_container_finished(h1, app).unwrap();
        // The AM's update after the grant: one map fewer.
        let left = if app == big {
            big_left -= 1;
            big_left
        } else {
            0
        };
        for res in ["h1", "/r1", ANY] {
            s.update_ask(app, 20, res, left, cap(), false).unwrap();
        }
    }
    (big, served)
}

/// Bounded overtaking (`OVERTAKE_BOUND`): Smith's rule serves each later
/// one-map job before the big one, but once later jobs took as many
/// containers as the big job has (3; nothing was ahead of it), it goes
/// first for a wave of the cluster (one container), then waits again.
#[test]
fn a_job_overtaken_by_its_own_size_goes_first_for_a_wave() {
    let (big, served) = overtaking_stream(JobOrder::WeightedRemaining, 9);
    let got: Vec<bool> = served.iter().map(|&a| a == big).collect();
    let (o, x) = (false, true);
    // Last, one map left each: the tie goes to the older job.
    assert_eq!(got, [o, o, o, x, o, o, o, x, x], "{served:?}");
    // Under FIFO it goes first anyway: nothing overtakes it.
    let (big, served) = overtaking_stream(JobOrder::Fifo, 3);
    assert_eq!(served, vec![big; 3]);
}

#[test]
fn later_grants_sum_what_went_to_later_applications() {
    let mut g = LaterGrants::default();
    let mut brute = Vec::new();
    // Grants interleaved with registrations, as a session sees them.
    for (i, &app) in [0u32, 0, 1, 3, 2, 3, 5, 4, 0, 6, 6, 1].iter().enumerate() {
        while brute.len() <= app as usize + i % 3 {
            g.push();
            brute.push(0u64);
        }
        g.granted(app);
        brute[app as usize] += 1;
        for a in 0..brute.len() {
            let want: u64 = brute[a + 1..].iter().sum();
            assert_eq!(g.after(a as AppId), want, "app {a} after grant {i}");
        }
    }
}

/// After a work-preserving RM restart the NodeManagers report what runs:
/// a recovered container loads its node in the next plan like a granted
/// one, and its end balances it.
#[test]
fn recovered_containers_load_their_node_and_finish_like_granted_ones() {
    let mut s = session(PolicyKind::Asm1);
    let big = Resources::new(4096, 4);
    let h1 = s.add_node("h1", "/r1", big, 1.0).unwrap();
    let h2 = s.add_node("h2", "/r1", big, 1.0).unwrap();
    let old = s.add_app("application_1_0001", 1.0, 0).unwrap();
    // h1 is full with the running maps of an app from before the restart.
    for _ in 0..4 {
        s.container_recovered(h1, old).unwrap();
    }
    let app = s.add_app("application_1_0002", 1.0, 1).unwrap();
    feed(&mut s, app, &[&["h1", "h2"], &["h1", "h2"]]);
    s.plan_if_dirty();
    assert_eq!(
        s.queued(),
        vec![0, 2],
        "both tasks planned on h2: h1 has a wave of recovered work"
    );
    for _ in 0..4 {
        s.app_container_finished(h1, old).unwrap();
    }
    let e = s.app_container_finished(h1, old).unwrap_err().to_string();
    assert!(e.contains("none granted to it is running"), "{e}");
    // Bad ids and finished apps are refused by name.
    assert_eq!(
        s.container_recovered(h2, 9).unwrap_err(),
        SessionError::UnknownApp(9)
    );
    assert_eq!(
        s.container_recovered(7, app).unwrap_err(),
        SessionError::UnknownNode(7)
    );
    s.finish_app(old).unwrap();
    let e = s.container_recovered(h2, old).unwrap_err().to_string();
    assert!(e.contains("application_1_0001"), "{e}");
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
            let want = if s.dynamic.fair { 1 } else { want };
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
