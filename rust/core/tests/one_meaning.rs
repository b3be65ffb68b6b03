//! One policy name, one meaning: on the same small situations, the offline
//! executor (`spindle plan`'s run of a policy) and the Session (the RM and
//! the simulator) agree on what a node with room and no local work does.

use spindle_core::model::{CostModel, Problem};
use spindle_core::session::ANY;
use spindle_core::{Grant, Locality, PolicyKind, Resources, Session, SessionConfig};

fn cap() -> Resources {
    Resources::new(1024, 1)
}

/// Two one-slot nodes on one rack; `tasks` tasks held by node 0 only.
/// Node 0 takes one; does node 1, free for `seconds` heartbeats, ever take
/// one (a non-local task) in the Session?
fn session_spills(policy: PolicyKind, tasks: i32, seconds: i64) -> bool {
    let mut s = Session::new(SessionConfig {
        policy,
        // The papers' policies as stated: no locality-wait cap.
        max_wait_ms: -1,
        ..SessionConfig::default()
    });
    let n0 = s.add_node("n0", "/r0", cap(), 1.0).unwrap();
    let n1 = s.add_node("n1", "/r0", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    for res in ["n0", "/r0", ANY] {
        s.update_ask(app, 20, res, tasks, cap(), true).unwrap();
    }
    let mut out: Vec<Grant> = Vec::new();
    s.node_heartbeat(n0, cap(), 0, &mut out).unwrap();
    let local = out.iter().map(|g| g.count).sum::<u32>();
    assert_eq!(local, 1, "{policy}: node 0 runs a local task first");
    for t in 1..=seconds {
        s.node_heartbeat(n1, cap(), t * 1000, &mut out).unwrap();
        if let Some(g) = out.first() {
            assert_ne!(g.locality, Locality::Node, "{policy}");
            return true;
        }
    }
    false
}

/// The same situation in the offline executor: does any task run remote?
/// (Node 0 runs its tasks one after another; in the Session it never
/// reports one finished, which changes no decision of a policy here.)
fn executor_spills(policy: PolicyKind, tasks: usize) -> Option<bool> {
    let problem = Problem::uniform(2, &vec![vec![0]; tasks], CostModel::default());
    policy.execute(&problem, 7).map(|e| e.non_local > 0)
}

/// The Session under `policy` on nodes n0 (speed `n0_speed`) and n1, one
/// app asking for 4 containers on n0, planned.
fn planned_session(policy: PolicyKind, n0_speed: f64) -> Session {
    let mut s = Session::new(SessionConfig {
        policy,
        ..SessionConfig::default()
    });
    s.add_node("n0", "/r0", cap(), n0_speed).unwrap();
    s.add_node("n1", "/r0", cap(), 1.0).unwrap();
    let app = s.add_app("app", 1.0, 0).unwrap();
    for res in ["n0", "/r0", ANY] {
        s.update_ask(app, 20, res, 4, cap(), true).unwrap();
    }
    s.plan_if_dirty();
    s
}

#[test]
fn a_free_node_with_no_local_work_does_the_same_in_the_executor_and_the_session() {
    let mut differ = Vec::new();
    for policy in PolicyKind::ALL {
        let tasks = 4;
        let session = session_spills(policy, tasks as i32, 600);
        // COMM-ORIENTED policies never leave a node idle while work
        // remains; MAKESPAN-ORIENTED ones run local tasks only, unless
        // their plan itself holds remote tasks (LABL, MB, BAR).
        if policy.is_comm() {
            assert!(session, "{policy}: a COMM policy leaves a node idle");
        }
        if let Some(executor) = executor_spills(policy, tasks) {
            if executor != session {
                differ.push(format!("{policy}: executor {executor}, Session {session}"));
            }
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}

#[test]
fn delay_dispatchers_wait_their_threshold_in_the_session() {
    // 20 one-slot nodes; DS0.15 skips floor(0.15 * 20) = 3 offers, then
    // takes a remote task (BAR Sect. V), as the compile-time dispatch.
    let mut s = Session::new(SessionConfig {
        policy: PolicyKind::Ds15,
        ..SessionConfig::default()
    });
    let nodes: Vec<_> = (0..20)
        .map(|i| s.add_node(&format!("n{i}"), "/r0", cap(), 1.0).unwrap())
        .collect();
    let app = s.add_app("app", 1.0, 0).unwrap();
    for res in ["n0", "/r0", ANY] {
        s.update_ask(app, 20, res, 10, cap(), true).unwrap();
    }
    let mut out = Vec::new();
    let mut granted_at = Vec::new();
    for (k, &n) in nodes[1..].iter().enumerate() {
        s.node_heartbeat(n, cap(), k as i64, &mut out).unwrap();
        if !out.is_empty() {
            granted_at.push(k);
        }
    }
    // Offers 0..=2 skip, 3 launches (and resets), 4..=6 skip, 7 launches...
    assert_eq!(granted_at, vec![3, 7, 11, 15]);
}

/// S-PC's placements mean the same in `spindle plan` (a job instance), the
/// offline planner and the Session: four tasks held by node 0 of two equal
/// one-slot nodes, remote reads 3x. `spc-local` keeps three local and sends
/// one remote (it finishes sooner there); `spc` ignores replicas and splits
/// them two and two.
#[test]
fn spc_placements_mean_the_same_in_plan_the_planner_and_the_session() {
    use spindle_core::spc::JobSet;
    use spindle_core::Instance;
    let inst = Instance::from_json(
        r#"{"nodes":[{"host":"n0"},{"host":"n1"}],
            "jobs":[{"id":"j","tasks":[
                {"id":"t0","replicas":["n0"]},{"id":"t1","replicas":["n0"]},
                {"id":"t2","replicas":["n0"]},{"id":"t3","replicas":["n0"]}]}]}"#,
    )
    .unwrap();
    let jobs = JobSet::from_instance(&inst);
    let per_node = |node_of: &[u32]| {
        let mut c = vec![0usize; 2];
        for &n in node_of {
            c[n as usize] += 1;
        }
        c
    };
    for (policy, want) in [
        (PolicyKind::SpcLocal, vec![3, 1]),
        (PolicyKind::Spc, vec![2, 2]),
    ] {
        let o = policy
            .job_scheduler()
            .unwrap()
            .schedule(&jobs, &inst.problem, 7)
            .unwrap();
        assert_eq!(
            per_node(&o.schedule.assignment.node_of),
            want,
            "{policy}: plan"
        );
        let a = policy.planner().unwrap().plan(&inst.problem, 7);
        assert_eq!(per_node(&a.node_of), want, "{policy}: planner");
        let s = planned_session(policy, 1.0);
        assert_eq!(s.queued(), want, "{policy}: Session");
        assert_eq!(s.job_order(), spindle_core::session::JobOrder::Spc);
    }
}

/// `asm1-priced` prices the wait the same way in both engines: node 1 waits
/// while node 0's last queued task would start within the remote penalty
/// (2 task durations at the default cost factor 3), and takes it remote
/// once node 0 is busy for longer.
#[test]
fn a_priced_wait_is_the_same_in_the_executor_and_the_session() {
    let policy = PolicyKind::Asm1Priced;
    for (tasks, remote) in [(2, false), (3, false), (4, true), (8, true)] {
        let session = session_spills(policy, tasks as i32, 600);
        let executor = executor_spills(policy, tasks).unwrap();
        assert_eq!(session, remote, "{tasks} tasks: Session");
        assert_eq!(executor, remote, "{tasks} tasks: executor");
    }
    // The COMM policy on the same plan never waits.
    assert!(session_spills(PolicyKind::Asm1Comm, 2, 600));
}

/// S-PC's baselines mean the same in `spindle plan`, the offline
/// planner and the Session: four tasks held by node 0 of two one-slot
/// nodes, node 0 three times faster. Identical-machine believes them equal
/// and splits the tasks; S-PC, Map-only, HUWF and Tetris (Algorithm 2 on
/// one job) keep three on the fast node; FIFO takes the node free first.
#[test]
fn the_baselines_mean_the_same_in_plan_the_planner_and_the_session() {
    use spindle_core::spc::JobSet;
    use spindle_core::Instance;
    let inst = Instance::from_json(
        r#"{"nodes":[{"host":"n0","speed":3},{"host":"n1","speed":1}],
            "jobs":[{"id":"j","tasks":[
                {"id":"t0","replicas":["n0"]},{"id":"t1","replicas":["n0"]},
                {"id":"t2","replicas":["n0"]},{"id":"t3","replicas":["n0"]}]}]}"#,
    )
    .unwrap();
    let jobs = JobSet::from_instance(&inst);
    let per_node = |node_of: &[u32]| {
        let mut c = vec![0usize; 2];
        for &n in node_of {
            c[n as usize] += 1;
        }
        c
    };
    for policy in PolicyKind::job_schedulers() {
        let o = policy
            .job_scheduler()
            .unwrap()
            .schedule(&jobs, &inst.problem, 7)
            .unwrap();
        let want = per_node(&o.schedule.assignment.node_of);
        let expect = match policy {
            PolicyKind::SpcIdentical => vec![2, 2],
            PolicyKind::SpcLocal => want.clone(),
            _ => vec![3, 1],
        };
        assert_eq!(want, expect, "{policy}: plan");
        let a = policy.planner().unwrap().plan(&inst.problem, 7);
        assert_eq!(per_node(&a.node_of), want, "{policy}: planner");
        let mut s = planned_session(policy, 3.0);
        assert_eq!(s.queued(), want, "{policy}: Session");
        assert_eq!(Some(s.job_order()), policy.job_order(), "{policy}");
        // The policy's order stays whatever order is configured.
        s.set_job_order(spindle_core::session::JobOrder::WeightedRemaining);
        assert_eq!(Some(s.job_order()), policy.job_order(), "{policy}");
    }
}
