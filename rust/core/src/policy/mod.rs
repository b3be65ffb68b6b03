//! Placement policies: one file per policy, one line per policy in the
//! registry (`registry!` below, in [`PolicyKind::ALL`] order).
//!
//! A policy is a [`Policy`]: a name plus answers at named extension points,
//! in the manner of the Kubernetes scheduler framework. Every engine asks
//! the same questions, so a name means one thing everywhere:
//!
//! - [`Policy::planner`] (*plan*): runs when the pending work changes (a job
//!   arrives, asks change). It returns a whole assignment, an ordered queue
//!   per node. Dispatch-only policies play their rule out, so every policy
//!   with a planner can be compared offline with `spindle plan`.
//! - [`Policy::planned`]: whether the Session keeps per-node queues from that
//!   plan, or decides everything at heartbeats (dispatchers).
//! - [`Policy::on_free_slot`]: what a node with room and nothing queued does
//!   ([`FreeSlot`]): take local work, steal from the longest queue, spill up
//!   to rack and off-switch, delay, wait priced, or stay idle.
//! - [`Policy::job_order`]: the application order it imposes, if any.
//! - [`Policy::clairvoyant`]: whether it reads durations before tasks run.
//! - [`Policy::execute`]: how it runs in the offline executor
//!   ([`crate::execute`]): its own rule, else its plan with the fallbacks of
//!   its [`FreeSlot`].
//! - [`Policy::compile_time`]: BAR's dispatchers in their compile-time
//!   form ([`compile_time`]).
//!
//! Adding a policy: a new file here defining the policy's type, its
//! [`Planner`] and its [`Policy`] impl (parameters such as a DS fraction are
//! the type's fields, set in a `const` there), its `pub mod` line below and
//! one line in `registry!`; then its golden snapshot
//! (`UPDATE_SNAPSHOTS=1 cargo test -p spindle-cli --test golden` writes the
//! new file; no other snapshot may change). [`PolicyKind`] is the public
//! handle, a variant per registry line.

pub mod asm1;
pub mod asm1_comm;
pub mod asm1_comm_steal;
pub mod asm1_makespan;
pub mod asm1_priced;
pub mod bar;
pub mod compile_time;
pub mod delay;
pub mod ds;
pub mod etf;
pub mod fair;
pub mod fifo;
pub mod free_slot;
pub mod gcc;
pub mod greedy;
pub mod hds;
pub mod heartbeat_rule;
pub mod huwf;
pub mod labl;
pub mod locaware;
pub mod locaware_clair;
pub mod maestro;
pub mod mb;
pub mod round_robin;
pub mod spc;
pub mod spc_identical;
pub mod spc_local;
pub mod spc_map_only;
pub mod static_asm1;
pub mod tetris;

use crate::error::CoreError;
use crate::execute::{execute, Execution, Planned};
use crate::model::Problem;
use crate::plan::Assignment;
pub use free_slot::{ClusterView, FreeSlot};
pub use heartbeat_rule::HeartbeatRule;

/// A static planner: the whole assignment at once.
pub trait Planner: Send + Sync {
    /// The name used on the command line and in plan output.
    fn name(&self) -> &'static str;
    /// Assigns every task of `problem` to a node and orders each node's queue.
    /// `seed` feeds the policy's random choices, if any.
    fn plan(&self, problem: &Problem, seed: u64) -> Assignment;
    /// [`Self::plan`] in the Session, whose tasks come in the order to
    /// place them (the applications' rank, a job's maps before its
    /// reducers): a planner that takes tasks largest first keeps it.
    fn plan_in_order(&self, problem: &Problem, seed: u64) -> Assignment {
        self.plan(problem, seed)
    }
}

/// One placement policy: its name and its answer at each extension point.
/// Implemented once, in the policy's own file; listed once, in `registry!`.
pub trait Policy: Send + Sync {
    /// The name used on the command line, in `spindle.policy` and in
    /// output; its [`Planner`], if any, has the same one.
    fn name(&self) -> &'static str;

    /// *Plan*: runs whenever the pending work changes, offline (`spindle
    /// plan`) and in the Session's re-plans. `None` for heartbeat-only
    /// policies (delay scheduling needs a cluster's timing: see the
    /// simulator).
    fn planner(&self) -> Option<&dyn Planner>;

    /// Whether the Session builds per-node queues from [`Self::planner`] at
    /// each re-plan. False for pure dispatchers, whose decisions are all
    /// made at heartbeat by [`Self::on_free_slot`].
    fn planned(&self) -> bool {
        self.planner().is_some()
    }

    /// *Free slot*: what a node with room and an empty planned queue does,
    /// at every heartbeat in the Session and at every free slot in the
    /// offline executor's default run ([`Self::execute`]).
    fn on_free_slot(&self) -> FreeSlot;

    /// *Heartbeat rule*: a policy that decides at heartbeats with its own
    /// counters (delay scheduling, the FairScheduler, BAR's dispatchers)
    /// makes its [`HeartbeatRule`] here, once per Session, with the
    /// Session's CapacityScheduler locality delay; the Session asks it
    /// instead of [`Self::on_free_slot`]'s plan-following verbs. `None`:
    /// the [`FreeSlot`] answer decides.
    fn heartbeat_rule(&self, _delay: delay::LocalityDelay) -> Option<Box<dyn HeartbeatRule>> {
        None
    }

    /// *Job order*: the application order the policy is one half of
    /// (S-PC and its baselines are a job order and a placement); the Session then
    /// orders its queues by it whatever the configured order. `None`: the
    /// configured order (`spindle.job.order`).
    fn job_order(&self) -> Option<crate::session::job_order::JobOrder> {
        None
    }

    /// *Reduce stage*: whether the Session's plan also places a MapReduce
    /// job's location-less asks (its reducers) and how the heartbeat keeps
    /// them to it ([`ReduceStage`]). Default: they are never planned and go
    /// to whichever node frees a slot first.
    fn reduce_stage(&self) -> ReduceStage {
        ReduceStage::Unplanned
    }

    /// *Schedule jobs*: the policy as a job scheduler over an instance's
    /// jobs (weights, release times, precedence) on machines of different
    /// speeds, in `spindle plan` and `spindle repro spc`: S-PC and its
    /// baselines. `None` for the task planners.
    fn job_scheduler(&self) -> Option<&dyn JobScheduler> {
        None
    }

    /// Whether the policy reads task durations before they run (Beaumont et al.
    /// Sect. 6.2).
    fn clairvoyant(&self) -> bool {
        false
    }

    /// *Compile-time dispatch*: BAR's baselines played out over a
    /// min-heap of servers (Sect. V.B), with start times and skipped
    /// offers; their plan is its assignment. `None` for the others.
    fn compile_time(&self, _problem: &Problem, _seed: u64) -> Option<compile_time::Dispatch> {
        None
    }

    /// *Execute*: a run in the discrete-event executor ([`crate::execute`]).
    /// By default the plan is followed, then [`Self::on_free_slot`]'s steal
    /// and spill ([`Planned`]); a policy with its own runtime rule overrides
    /// this. `None` without a planner.
    fn execute(&self, problem: &Problem, seed: u64) -> Option<Execution> {
        execute_planned(self, problem, seed)
    }
}

/// [`Policy::execute`]'s default: `policy`'s plan followed, then its
/// [`FreeSlot`]'s steal and spill ([`Planned`]). `None` without a planner.
pub fn execute_planned<P: Policy + ?Sized>(
    policy: &P,
    problem: &Problem,
    seed: u64,
) -> Option<Execution> {
    let plan = policy.planner()?.plan(problem, seed);
    let mut rule = Planned::with_free_slot(&plan, policy.on_free_slot());
    Some(execute(problem, &mut rule, seed))
}

/// Where the Session runs a MapReduce job's reducers: the location-less
/// asks of an application that has asked for hosts or racks (its maps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceStage {
    /// Not planned: the first node with a free slot takes them.
    Unplanned,
    /// S-PC's Algorithm 2 over the reduce stage too (S-PC Sect. III and V:
    /// the RM queues planned map and reduce tasks per machine): the plan
    /// puts each reducer on the node that completes it earliest, given the
    /// node's speed and its queue, and a node slower than the fastest
    /// leaves it there for at most its extra run time on that node.
    Earliest {
        /// Decide as if every node had speed 1 (Identical-machine): no
        /// node is slower, so none leaves a reducer for another.
        identical: bool,
    },
}

/// What the Session caches of its policy for the heartbeat.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dynamic {
    /// [`Policy::planned`].
    pub planned: bool,
    /// [`Policy::on_free_slot`].
    pub free_slot: FreeSlot,
    /// [`FreeSlot::Priced`]: the Session keeps container durations.
    pub priced: bool,
    /// [`Policy::reduce_stage`].
    pub reduce_stage: ReduceStage,
}

/// An S-PC job scheduler's Session planner: its placement, or ASM1's
/// plan (logged, naming the policy) when the placement refuses the instance.
pub(crate) fn placed_or_asm1(
    name: &str,
    problem: &Problem,
    seed: u64,
    placed: Result<Assignment, crate::spc::SpcError>,
) -> Assignment {
    placed.unwrap_or_else(|e| {
        tracing::warn!(error = %e, "{name}: placement refused; planning with asm1");
        asm1::Asm1.plan(problem, seed)
    })
}

/// The [`Policy`] of an S-PC job scheduler (S-PC and its baselines): its
/// planner, and `order` over the Session's applications.
macro_rules! job_scheduler_policy {
    ($ty:ty, $order:ident) => {
        $crate::policy::job_scheduler_policy!($ty, $order, $crate::policy::ReduceStage::Unplanned);
    };
    ($ty:ty, $order:ident, $reduce:expr) => {
        /// The plan already holds its remote choices (each task on the
        /// machine finishing it first): an idle node takes a local task,
        /// never another remote one. Its job order orders the Session's
        /// queues.
        impl $crate::policy::Policy for $ty {
            fn name(&self) -> &'static str {
                $crate::policy::Planner::name(self)
            }
            fn planner(&self) -> Option<&dyn $crate::policy::Planner> {
                Some(self)
            }
            fn on_free_slot(&self) -> $crate::policy::FreeSlot {
                $crate::policy::FreeSlot::Local { steal: true }
            }
            fn job_order(&self) -> Option<$crate::session::job_order::JobOrder> {
                Some($crate::session::job_order::JobOrder::$order)
            }
            fn job_scheduler(&self) -> Option<&dyn $crate::policy::JobScheduler> {
                Some(self)
            }
            fn reduce_stage(&self) -> $crate::policy::ReduceStage {
                $reduce
            }
        }
    };
}
pub(crate) use job_scheduler_policy;

/// The registry: one line per policy, `Variant => &its::POLICY, "paper",
/// "summary",` in the order of [`PolicyKind::ALL`] (the order of error
/// messages and tests). The paper cites a short name that `docs/papers.md`
/// expands (`Beaumont et al.`, `LABL`, `S-PC`, `FISCH`, `BAR`); the summary
/// is one line. `spindle policies` prints both, and `docs/policies.md` is
/// its output. Generates [`PolicyKind`], its variants and `ALL`.
macro_rules! registry {
    ($($kind:ident => $policy:expr, $paper:literal, $summary:literal,)*) => {
        /// Every policy Spindle knows: a handle on its registry line. The
        /// policy itself, documented in its file, is [`PolicyKind::policy`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum PolicyKind {
            $($kind,)*
        }

        const REGISTRY: &[&'static dyn Policy] = &[$($policy,)*];
        const PAPERS: &[&str] = &[$($paper,)*];
        const SUMMARIES: &[&str] = &[$($summary,)*];

        impl PolicyKind {
            /// Every policy, in registry order.
            pub const ALL: [PolicyKind; REGISTRY.len()] = [$(PolicyKind::$kind,)*];
        }
    };
}

registry! {
    Asm1 => &asm1::Asm1,
        "Beaumont et al., Alg. 1, Sect. 5.2",
        "optimal semi-matching of local tasks (least maximal load); idle nodes steal local work",
    Asm1Comm => &asm1_comm::Asm1Comm,
        "Beaumont et al., Theorem 7",
        "ASM1, then each node's excess over ceil(tasks/nodes) to the least-loaded nodes",
    Greedy => &greedy::GREEDY,
        "Beaumont et al., Sect. 4 (GREEDY-MAKESPAN)",
        "a node that frees a slot takes a random local task, else stays idle",
    GreedyComm => &greedy::GREEDY_COMM,
        "Beaumont et al., Sect. 4 (GREEDY-COMM)",
        "a node that frees a slot takes a random local task, else a random remote one",
    HadoopDefault => &delay::HadoopDefault,
        "CapacityScheduler (RegularContainerAllocator)",
        "YARN's stock delay scheduling: rack-local after node-locality-delay missed offers",
    HadoopFair => &fair::HADOOP_FAIR,
        "FairScheduler (FSAppAttempt)",
        "YARN's FairScheduler: apps by usage over weight, no locality delay",
    HadoopFairHalf => &fair::HADOOP_FAIR_HALF,
        "FairScheduler (FSAppAttempt)",
        "the FairScheduler with node and rack locality thresholds at 0.5",
    Mb => &mb::Mb,
        "LABL and BAR (MaxCover-BalAssign)",
        "per load cap a max-flow cover of local tasks, the rest to the least loaded; best plan",
    Bar => &bar::Bar,
        "BAR, Alg. 1-2",
        "BAlance-Reduce: balance by augmenting paths, then move tasks remote while it helps",
    Hds => &hds::Hds,
        "BAR, Sect. V",
        "Hadoop's default in BAR's compile-time model: a local task, else a random one",
    Ds15 => &ds::DS15,
        "BAR, Sect. V",
        "delay scheduling: remote work after skips counted past 15 % of the servers",
    Ds25 => &ds::DS25,
        "BAR, Sect. V",
        "delay scheduling: remote work after skips counted past 25 % of the servers",
    Gcc => &gcc::GCC,
        "BAR, Sect. V",
        "Good-Cache-Compute: skip servers without local work while 90 % of them are busy",
    Labl => &labl::LABL,
        "LABL, Fig. 1, Sect. 3.3-3.4",
        "Locality Aware Bounded Latency: raise a latency limit from l**; remote while l <= l**",
    LablPlus1 => &labl::LABL_PLUS_1,
        "LABL, Fig. 1, Sect. 3.3-3.4",
        "LABL, remote assignments while l <= l** + 1",
    LablAlways => &labl::LABL_ALWAYS,
        "LABL, Fig. 1, Sect. 3.3-3.4",
        "LABL, remote assignments at every limit",
    RoundRobin => &round_robin::RoundRobin,
        "LABL, Sect. 3.5",
        "Hadoop's locality-aware round robin: each server in turn takes a local task, else any",
    StaticAsm1 => &static_asm1::StaticAsm1,
        "Beaumont et al., Sect. 7.1",
        "ASM1's plan as is; a node whose queue is done stays idle",
    Asm1Makespan => &asm1_makespan::Asm1Makespan,
        "Beaumont et al., Sect. 7.1",
        "ASM1's plan, then an idle node takes a random local task",
    Asm1CommSteal => &asm1_comm_steal::Asm1CommSteal,
        "Beaumont et al., Sect. 7.1",
        "ASM1's plan, then a local task, then a steal from the longest queue",
    Maestro => &maestro::MAESTRO,
        "Beaumont et al., Sect. 6.1.1 (MAESTRO)",
        "first wave by node and chunk weight, then the local task of highest chunk weight",
    MaestroComm => &maestro::MAESTRO_COMM,
        "Beaumont et al., Sect. 6.1.1 (MAESTRO)",
        "MAESTRO, taking any task when none is local",
    LocAwareMin => &locaware::LOCAWARE_MIN,
        "Beaumont et al., Sect. 6.1.2",
        "an idle node takes the local task whose holders have the most work left (min)",
    LocAwareMinComm => &locaware::LOCAWARE_MIN_COMM,
        "Beaumont et al., Sect. 6.1.2",
        "locaware-min, taking any task when none is local",
    LocAwareAvg => &locaware::LOCAWARE_AVG,
        "Beaumont et al., Sect. 6.1.2",
        "an idle node takes the local task whose holders have the most work left (mean)",
    LocAwareAvgComm => &locaware::LOCAWARE_AVG_COMM,
        "Beaumont et al., Sect. 6.1.2",
        "locaware-avg, taking any task when none is local",
    Etf => &etf::ETF,
        "Beaumont et al., Sect. 6.2 (clairvoyant)",
        "locality-aware longest processing time first",
    EtfComm => &etf::ETF_COMM,
        "Beaumont et al., Sect. 6.2 (clairvoyant)",
        "etf, taking any task when none is local",
    LocAwareClairMin => &locaware_clair::CLAIR_MIN,
        "Beaumont et al., Sect. 6.2 (clairvoyant)",
        "the locaware rule with known durations: ready time plus held work (min)",
    LocAwareClairMinComm => &locaware_clair::CLAIR_MIN_COMM,
        "Beaumont et al., Sect. 6.2 (clairvoyant)",
        "locaware-clair-min, taking any task when none is local",
    LocAwareClairAvg => &locaware_clair::CLAIR_AVG,
        "Beaumont et al., Sect. 6.2 (clairvoyant)",
        "the locaware rule with known durations: ready time plus held work (mean)",
    LocAwareClairAvgComm => &locaware_clair::CLAIR_AVG_COMM,
        "Beaumont et al., Sect. 6.2 (clairvoyant)",
        "locaware-clair-avg, taking any task when none is local",
    Spc => &spc::Spc,
        "S-PC, Sect. III, Alg. 1-2",
        "jobs in LP-Schedule order, each task on the machine that completes it first",
    SpcLocal => &spc_local::SpcLocal,
        "ours (issue 12), on S-PC",
        "S-PC's job order; a machine without a replica pays the remote read",
    SpcIdentical => &spc_identical::SpcIdentical,
        "S-PC, Sect. VI.A",
        "S-PC as if every machine had speed 1",
    SpcMapOnly => &spc_map_only::SpcMapOnly,
        "S-PC, Sect. VI.A",
        "S-PC over the map stages; later stages on random machines",
    Fifo => &fifo::Fifo,
        "S-PC, Sect. VI.A-B",
        "jobs by release time, each task on the machine free first",
    Huwf => &huwf::Huwf,
        "S-PC, Sect. VI.B",
        "high unit weight first: jobs by weight over execution time",
    Tetris => &tetris::Tetris,
        "S-PC, Sect. VI.B",
        "jobs by tasks times execution time, smallest first",
    Asm1Priced => &asm1_priced::Asm1Priced,
        "ours (issue 11), on ASM1",
        "ASM1, then remote work only when waiting for a replica holder costs more",
}

impl PolicyKind {
    /// The policy behind this handle.
    #[inline]
    pub fn policy(self) -> &'static dyn Policy {
        REGISTRY[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.policy().name()
    }

    /// The paper (section) the policy implements, by the short name that
    /// `docs/papers.md` expands; or the stock scheduler it models.
    pub fn paper(self) -> &'static str {
        PAPERS[self as usize]
    }

    /// What the policy does, in one line.
    pub fn summary(self) -> &'static str {
        SUMMARIES[self as usize]
    }

    /// S-PC and its baselines: the Session orders
    /// their queues by their own job order whatever the configured one, and
    /// their plans hold remote choices.
    pub fn spc_order(self) -> bool {
        self.job_order().is_some()
    }

    /// [`Policy::job_order`].
    pub fn job_order(self) -> Option<crate::session::job_order::JobOrder> {
        self.policy().job_order()
    }

    /// [`FreeSlot::is_comm`] of the policy's [`Policy::on_free_slot`].
    pub fn is_comm(self) -> bool {
        self.free_slot().is_comm()
    }

    /// [`Policy::clairvoyant`].
    pub fn is_clairvoyant(self) -> bool {
        self.policy().clairvoyant()
    }

    /// [`Policy::on_free_slot`].
    pub fn free_slot(self) -> FreeSlot {
        self.policy().on_free_slot()
    }

    /// Looks a policy up by its command-line name.
    pub fn from_name(name: &str) -> Result<PolicyKind, CoreError> {
        if let Some(p) = PolicyKind::ALL.into_iter().find(|p| p.name() == name) {
            return Ok(p);
        }
        None.ok_or_else(|| CoreError::UnknownPolicy {
            name: name.to_string(),
            known: PolicyKind::ALL.map(|p| p.name()).join(", "),
        })
    }

    /// [`Policy::job_scheduler`]: `Some` for S-PC and its baselines.
    pub fn job_scheduler(self) -> Option<&'static dyn JobScheduler> {
        self.policy().job_scheduler()
    }

    /// The policies that schedule whole jobs ([`Self::job_scheduler`]), in
    /// registry order.
    pub fn job_schedulers() -> impl Iterator<Item = PolicyKind> {
        PolicyKind::ALL
            .into_iter()
            .filter(|p| p.job_scheduler().is_some())
    }

    /// [`Policy::planner`].
    pub fn planner(self) -> Option<&'static dyn Planner> {
        self.policy().planner()
    }

    /// [`Policy::execute`]. `None` for heartbeat-only policies.
    pub fn execute(self, problem: &Problem, seed: u64) -> Option<Execution> {
        self.policy().execute(problem, seed)
    }

    /// [`Policy::compile_time`].
    pub fn compile_time(self, problem: &Problem, seed: u64) -> Option<compile_time::Dispatch> {
        self.policy().compile_time(problem, seed)
    }

    /// The offline planner, or an error naming the policy that has none.
    pub fn offline_planner(self) -> Result<&'static dyn Planner, CoreError> {
        self.planner().ok_or(CoreError::NoOfflinePlan {
            policy: self.name(),
        })
    }

    /// What the Session caches for its heartbeats.
    pub fn dynamic(self) -> Dynamic {
        let p = self.policy();
        let free_slot = p.on_free_slot();
        Dynamic {
            planned: p.planned(),
            free_slot,
            priced: free_slot == FreeSlot::Priced,
            reduce_stage: p.reduce_stage(),
        }
    }
}

/// A job scheduler (S-PC and its baselines): orders whole jobs (weights, release times,
/// precedence) and times every task on machines of different speeds. S-PC,
/// its locality-aware form and its baselines are one, through
/// [`Policy::job_scheduler`]; each is also a job order over the live
/// applications and a placement in the simulator and the Session.
pub trait JobScheduler: Send + Sync {
    fn name(&self) -> &'static str;
    /// `seed` feeds random choices (Map-only's reduce placement).
    fn schedule(
        &self,
        jobs: &crate::spc::JobSet,
        problem: &Problem,
        seed: u64,
    ) -> Result<crate::spc::Outcome, crate::spc::SpcError>;
}

impl std::fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for PolicyKind {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PolicyKind::from_name(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each registry line: the policy's name, its planner's and the
    /// handle's agree, the name looks the same line up, and no two lines
    /// share a name.
    #[test]
    fn every_registry_line_agrees_with_its_policy_and_names_are_unique() {
        assert_eq!(PolicyKind::ALL.len(), REGISTRY.len());
        let mut seen = std::collections::HashSet::new();
        for (i, p) in PolicyKind::ALL.into_iter().enumerate() {
            assert_eq!(p as usize, i, "{p:?} out of registry order");
            let policy = p.policy();
            assert_eq!(p.name(), policy.name());
            if let Some(planner) = policy.planner() {
                assert_eq!(planner.name(), policy.name(), "{p:?}'s planner");
            }
            assert!(!policy.name().is_empty(), "{p:?}");
            assert!(seen.insert(policy.name()), "{} listed twice", p.name());
            assert_eq!(PolicyKind::from_name(p.name()).unwrap(), p);
        }
    }

    /// Every line cites a paper by a short name `docs/papers.md` expands (or
    /// the stock scheduler, or says it is ours) and sums the policy up in
    /// one line of plain text.
    #[test]
    fn every_registry_line_has_a_paper_and_a_one_line_summary() {
        const CITED: [&str; 8] = [
            "Beaumont et al.",
            "LABL",
            "S-PC",
            "FISCH",
            "BAR",
            "CapacityScheduler",
            "FairScheduler",
            "ours",
        ];
        for p in PolicyKind::ALL {
            assert!(
                CITED.iter().any(|c| p.paper().starts_with(c)),
                "{p}: {}",
                p.paper()
            );
            let s = p.summary();
            assert!(!s.is_empty() && s.len() <= 90, "{p}: {s}");
            assert!(!s.contains(['\n', '|']), "{p}: {s}");
        }
    }

    /// A policy the Session plans for has a planner; one without a planner
    /// has no offline run.
    #[test]
    fn planned_policies_have_a_planner() {
        for p in PolicyKind::ALL {
            if p.dynamic().planned {
                assert!(p.planner().is_some(), "{p}");
            }
            if p.planner().is_none() {
                let tiny = Problem::uniform(1, &[vec![0]], crate::model::CostModel::default());
                assert!(p.execute(&tiny, 0).is_none(), "{p}");
                assert!(p.offline_planner().is_err(), "{p}");
            }
        }
    }

    /// The heartbeat-time answers are exactly the policies with their own
    /// heartbeat rule (the Session asks the rule; nothing else plays them).
    #[test]
    fn heartbeat_time_answers_have_their_own_rule() {
        for p in PolicyKind::ALL {
            let timed = matches!(
                p.free_slot(),
                FreeSlot::Delay | FreeSlot::Fair(_) | FreeSlot::Dispatch(_)
            );
            let rule = p.policy().heartbeat_rule(delay::LocalityDelay::default());
            assert_eq!(rule.is_some(), timed, "{p}");
            if let Some(rule) = rule {
                let one = matches!(p.free_slot(), FreeSlot::Fair(_));
                assert_eq!(rule.assign_multiple(), !one, "{p}");
            }
        }
    }

    #[test]
    fn free_slot_answers_classify_comm_and_steal() {
        use compile_time::Dispatcher;
        assert!(!FreeSlot::Local { steal: true }.is_comm());
        assert!(FreeSlot::Local { steal: true }.steals());
        assert!(FreeSlot::Spill { steal: false }.is_comm());
        assert!(!FreeSlot::Spill { steal: false }.steals());
        assert!(FreeSlot::Priced.steals() && !FreeSlot::Priced.is_comm());
        assert!(FreeSlot::Delay.is_comm() && !FreeSlot::Delay.steals());
        assert!(FreeSlot::Dispatch(Dispatcher::Any).is_comm());
        assert_eq!(
            Dispatcher::Delay { fraction: 0.15 }.rule(20),
            compile_time::Rule::Delay { threshold: 3 }
        );
        assert_eq!(
            PolicyKind::Ds15.free_slot(),
            FreeSlot::Dispatch(ds::DS15.dispatcher())
        );
        assert_eq!(
            PolicyKind::HadoopFairHalf.free_slot(),
            FreeSlot::Fair(fair::FairLocality {
                node_threshold: 0.5,
                rack_threshold: 0.5
            })
        );
    }

    /// The job schedulers are exactly the policies with their own job
    /// order (S-PC and its baselines), each planned under its own name.
    #[test]
    fn every_job_scheduler_is_a_planned_policy_of_the_same_name() {
        let names: Vec<_> = PolicyKind::job_schedulers().map(|p| p.name()).collect();
        assert_eq!(
            names,
            [
                "spc",
                "spc-local",
                "spc-identical",
                "spc-map-only",
                "fifo",
                "huwf",
                "tetris"
            ]
        );
        for p in PolicyKind::ALL {
            assert_eq!(p.job_scheduler().is_some(), p.spc_order(), "{p}");
            if let Some(k) = p.job_scheduler() {
                assert_eq!(k.name(), p.name());
                assert!(p.dynamic().planned, "{p}");
                assert_eq!(p.planner().map(|x| x.name()), Some(p.name()));
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for p in PolicyKind::ALL {
            assert_eq!(PolicyKind::from_name(p.name()).unwrap(), p);
        }
    }

    /// The error lists every name in registry order; the first forty are
    /// pinned (a new policy appends its line).
    #[test]
    fn unknown_policy_lists_the_known_ones() {
        let err = PolicyKind::from_name("lifo").unwrap_err().to_string();
        let known = PolicyKind::ALL.map(|p| p.name()).join(", ");
        assert_eq!(
            err,
            format!("unknown policy \"lifo\"; known policies: {known}")
        );
        assert!(
            known.starts_with(
                "asm1, asm1-comm, greedy, greedy-comm, hadoop-default, hadoop-fair, hadoop-fair-0.5, mb, bar, hds, ds0.15, ds0.25, gcc, labl, labl+1, labl-always, round-robin, static-asm1, asm1-makespan, asm1-comm-steal, maestro, maestro-comm, locaware-min, locaware-min-comm, locaware-avg, locaware-avg-comm, etf, etf-comm, locaware-clair-min, locaware-clair-min-comm, locaware-clair-avg, locaware-clair-avg-comm, spc, spc-local, spc-identical, spc-map-only, fifo, huwf, tetris, asm1-priced"
            ),
            "{known}"
        );
    }
}
