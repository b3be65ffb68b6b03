//! Placement policies. Two extension points:
//!
//! - [`Planner`]: called when the set of pending tasks changes (a job arrives,
//!   asks change). It returns a whole assignment with an ordered queue per
//!   node. Dispatch-only policies implement it by playing their rule out, so
//!   every policy can be compared offline with `spindle plan`.
//! - [`Dynamic`]: what a node does at a heartbeat once its planned queue is
//!   empty (ASM1's stealing, Hadoop's "local first, then any").
//!
//! One policy per file; [`PolicyKind`] is the registry by name.

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
pub mod gcc;
pub mod greedy;
pub mod hds;
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

/// A static planner: the whole assignment at once.
pub trait Planner: Send + Sync {
    /// The name used on the command line and in plan output.
    fn name(&self) -> &'static str;
    /// Assigns every task of `problem` to a node and orders each node's queue.
    /// `seed` feeds the policy's random choices, if any.
    fn plan(&self, problem: &Problem, seed: u64) -> Assignment;
}

/// Heartbeat-time behaviour once a node's planned queue is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dynamic {
    /// The Session builds per-node queues from the planner at each re-plan.
    /// False for pure dispatchers, whose decisions are all made at heartbeat.
    pub planned: bool,
    /// Take a task local to this node from the node with the longest queue
    /// (seed 000 Sect. 7.1, ASM1 hybrids).
    pub steal: bool,
    /// With nothing local, take rack-local, then off-switch work rather than
    /// stay idle (the COMM variants; the MAKESPAN ones run local tasks only).
    pub spill: bool,
    /// Spill only after missed scheduling opportunities (delay scheduling).
    pub delay: bool,
    /// FairScheduler: applications by usage over weight, its locality
    /// thresholds, one container per heartbeat ([`fair`]).
    pub fair: bool,
    /// With nothing local, take the task the plan starts last remote only
    /// if waiting for its holder is costlier ([`asm1_priced`]); else wait.
    pub priced: bool,
}

const DS15: ds::Ds = ds::Ds {
    name: "ds0.15",
    fraction: 0.15,
    heartbeat: ds::HEARTBEAT,
};
const DS25: ds::Ds = ds::Ds {
    name: "ds0.25",
    fraction: 0.25,
    heartbeat: ds::HEARTBEAT,
};
const GCC: gcc::Gcc = gcc::Gcc {
    utilization: 0.9,
    heartbeat: ds::HEARTBEAT,
};
const LOCAWARE: [locaware::LocAware; 4] = [
    locaware::LocAware {
        avg: false,
        comm: false,
    },
    locaware::LocAware {
        avg: false,
        comm: true,
    },
    locaware::LocAware {
        avg: true,
        comm: false,
    },
    locaware::LocAware {
        avg: true,
        comm: true,
    },
];

const CLAIR: [locaware_clair::LocAwareClair; 4] = [
    locaware_clair::LocAwareClair {
        avg: false,
        comm: false,
    },
    locaware_clair::LocAwareClair {
        avg: false,
        comm: true,
    },
    locaware_clair::LocAwareClair {
        avg: true,
        comm: false,
    },
    locaware_clair::LocAwareClair {
        avg: true,
        comm: true,
    },
];

/// Every policy Spindle knows, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    Asm1,
    Asm1Comm,
    Greedy,
    GreedyComm,
    /// CapacityScheduler's delay scheduling, YARN's stock behaviour.
    HadoopDefault,
    /// FairScheduler at its default locality thresholds (no delay).
    HadoopFair,
    /// FairScheduler with both locality thresholds at 0.5.
    HadoopFairHalf,
    /// MaxCover-BalAssign (Fischer, Su and Yin), the flow-based baseline.
    Mb,
    /// BAlance-Reduce (seed 004).
    Bar,
    /// Hadoop default scheduler as seed 004 runs it (compile-time form).
    Hds,
    /// Delay scheduling, threshold 15% of the servers (seed 004's DS0.15).
    Ds15,
    /// Delay scheduling, threshold 25% of the servers (seed 004's DS0.25).
    Ds25,
    /// Good-Cache-Compute, utility threshold 90% (seed 004).
    Gcc,
    /// LABL (seed 001) with remote assignments while `l <= l**` (`labl`).
    Labl,
    /// LABL with remote assignments while `l <= l** + 1` (`labl+1`).
    LablPlus1,
    /// LABL with remote assignments at every iteration (Theorem 1's setting).
    LablAlways,
    /// Hadoop's locality-aware round robin as modelled in seed 001.
    RoundRobin,
    /// Seed 000 Sect. 7.1: ASM1's plan, no stealing.
    StaticAsm1,
    /// Seed 000 Sect. 7.1: ASM1's plan, then random local tasks.
    Asm1Makespan,
    /// Seed 000 Sect. 7.1: ASM1's plan, then local tasks, then stealing from the longest queue.
    Asm1CommSteal,
    /// Seed 000 Sect. 6.1.1, both waves.
    Maestro,
    MaestroComm,
    /// Seed 000 Sect. 6.1.2.
    LocAwareMin,
    LocAwareMinComm,
    LocAwareAvg,
    LocAwareAvgComm,
    /// Seed 000 Sect. 6.2 (clairvoyant): locality-aware LPT.
    Etf,
    EtfComm,
    /// Seed 000 Sect. 6.2 (clairvoyant).
    LocAwareClairMin,
    LocAwareClairMinComm,
    LocAwareClairAvg,
    LocAwareClairAvgComm,
    /// Seed 002: S-PC's LP order of the jobs, Algorithm 2's placement.
    Spc,
    /// S-PC's order, placement weighing data locality (issue 12 item 4).
    SpcLocal,
    /// Seed 002's baselines (Sect. VI): Identical-machine, Map-only, FIFO,
    /// HUWF and Tetris-like, each a job order and a placement.
    SpcIdentical,
    SpcMapOnly,
    Fifo,
    Huwf,
    Tetris,
    /// ASM1's plan, stealing, then a locality wait priced from the plan.
    Asm1Priced,
}

impl PolicyKind {
    pub const ALL: [PolicyKind; 40] = [
        PolicyKind::Asm1,
        PolicyKind::Asm1Comm,
        PolicyKind::Greedy,
        PolicyKind::GreedyComm,
        PolicyKind::HadoopDefault,
        PolicyKind::HadoopFair,
        PolicyKind::HadoopFairHalf,
        PolicyKind::Mb,
        PolicyKind::Bar,
        PolicyKind::Hds,
        PolicyKind::Ds15,
        PolicyKind::Ds25,
        PolicyKind::Gcc,
        PolicyKind::Labl,
        PolicyKind::LablPlus1,
        PolicyKind::LablAlways,
        PolicyKind::RoundRobin,
        PolicyKind::StaticAsm1,
        PolicyKind::Asm1Makespan,
        PolicyKind::Asm1CommSteal,
        PolicyKind::Maestro,
        PolicyKind::MaestroComm,
        PolicyKind::LocAwareMin,
        PolicyKind::LocAwareMinComm,
        PolicyKind::LocAwareAvg,
        PolicyKind::LocAwareAvgComm,
        PolicyKind::Etf,
        PolicyKind::EtfComm,
        PolicyKind::LocAwareClairMin,
        PolicyKind::LocAwareClairMinComm,
        PolicyKind::LocAwareClairAvg,
        PolicyKind::LocAwareClairAvgComm,
        PolicyKind::Spc,
        PolicyKind::SpcLocal,
        PolicyKind::SpcIdentical,
        PolicyKind::SpcMapOnly,
        PolicyKind::Fifo,
        PolicyKind::Huwf,
        PolicyKind::Tetris,
        PolicyKind::Asm1Priced,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PolicyKind::Asm1 => "asm1",
            PolicyKind::Asm1Comm => "asm1-comm",
            PolicyKind::Greedy => "greedy",
            PolicyKind::GreedyComm => "greedy-comm",
            PolicyKind::HadoopDefault => "hadoop-default",
            PolicyKind::HadoopFair => "hadoop-fair",
            PolicyKind::HadoopFairHalf => "hadoop-fair-0.5",
            PolicyKind::Mb => "mb",
            PolicyKind::Bar => "bar",
            PolicyKind::Hds => "hds",
            PolicyKind::Ds15 => "ds0.15",
            PolicyKind::Ds25 => "ds0.25",
            PolicyKind::Gcc => "gcc",
            PolicyKind::Labl => "labl",
            PolicyKind::LablPlus1 => "labl+1",
            PolicyKind::LablAlways => "labl-always",
            PolicyKind::RoundRobin => "round-robin",
            PolicyKind::StaticAsm1 => "static-asm1",
            PolicyKind::Asm1Makespan => "asm1-makespan",
            PolicyKind::Asm1CommSteal => "asm1-comm-steal",
            PolicyKind::Maestro => "maestro",
            PolicyKind::MaestroComm => "maestro-comm",
            PolicyKind::LocAwareMin => "locaware-min",
            PolicyKind::LocAwareMinComm => "locaware-min-comm",
            PolicyKind::LocAwareAvg => "locaware-avg",
            PolicyKind::LocAwareAvgComm => "locaware-avg-comm",
            PolicyKind::Etf => "etf",
            PolicyKind::EtfComm => "etf-comm",
            PolicyKind::LocAwareClairMin => "locaware-clair-min",
            PolicyKind::LocAwareClairMinComm => "locaware-clair-min-comm",
            PolicyKind::LocAwareClairAvg => "locaware-clair-avg",
            PolicyKind::LocAwareClairAvgComm => "locaware-clair-avg-comm",
            PolicyKind::Spc => "spc",
            PolicyKind::SpcLocal => "spc-local",
            PolicyKind::SpcIdentical => "spc-identical",
            PolicyKind::SpcMapOnly => "spc-map-only",
            PolicyKind::Fifo => "fifo",
            PolicyKind::Huwf => "huwf",
            PolicyKind::Tetris => "tetris",
            PolicyKind::Asm1Priced => "asm1-priced",
        }
    }

    /// Seed 002's policies (S-PC and its baselines): the Session orders
    /// their queues by their own job order whatever the configured one, and
    /// their plans hold remote choices.
    pub fn spc_order(self) -> bool {
        self.job_order().is_some()
    }

    /// The application order a policy is one half of (seed 002's: a job
    /// order and a placement), `None` for the others.
    pub fn job_order(self) -> Option<crate::session::JobOrder> {
        use crate::session::JobOrder as O;
        match self {
            PolicyKind::Spc | PolicyKind::SpcLocal => Some(O::Spc),
            PolicyKind::SpcIdentical => Some(O::SpcIdentical),
            PolicyKind::SpcMapOnly => Some(O::SpcMapOnly),
            PolicyKind::Fifo => Some(O::Fifo),
            PolicyKind::Huwf => Some(O::Huwf),
            PolicyKind::Tetris => Some(O::Tetris),
            _ => None,
        }
    }

    /// MAKESPAN-ORIENTED policies run local tasks only; COMM-ORIENTED ones
    /// never leave a node idle while work remains (seed 000 Sect. 2).
    pub fn is_comm(self) -> bool {
        self.dynamic().spill
    }

    /// Whether the policy reads task durations before they run (seed 000 Sect. 6.2).
    pub fn is_clairvoyant(self) -> bool {
        matches!(
            self,
            PolicyKind::Etf
                | PolicyKind::EtfComm
                | PolicyKind::LocAwareClairMin
                | PolicyKind::LocAwareClairMinComm
                | PolicyKind::LocAwareClairAvg
                | PolicyKind::LocAwareClairAvgComm
        )
    }

    /// The rule of a dispatcher at a free slot with no local task, the same
    /// in the compile-time dispatch (`spindle plan`) and the Session: HDS and
    /// GREEDY-COMM take any task, DS counts skips up to its threshold (a
    /// fraction of the `nodes` servers), GCC waits while the cluster is busy.
    pub fn dispatch_rule(self, nodes: usize) -> Option<compile_time::Rule> {
        match self {
            PolicyKind::Hds | PolicyKind::GreedyComm => Some(compile_time::Rule::Any),
            PolicyKind::Ds15 => Some(DS15.rule_for(nodes)),
            PolicyKind::Ds25 => Some(DS25.rule_for(nodes)),
            PolicyKind::Gcc => Some(GCC.rule()),
            _ => None,
        }
    }

    /// The FairScheduler's locality thresholds, for `hadoop-fair*`.
    pub fn fair_locality(self) -> Option<fair::FairLocality> {
        match self {
            PolicyKind::HadoopFair => Some(fair::FairLocality::DEFAULT),
            PolicyKind::HadoopFairHalf => Some(fair::FairLocality {
                node_threshold: 0.5,
                rack_threshold: 0.5,
            }),
            _ => None,
        }
    }

    /// Looks a policy up by its command-line name (every [`ScheduleKind`]
    /// is one too).
    pub fn from_name(name: &str) -> Result<PolicyKind, CoreError> {
        if let Some(p) = PolicyKind::ALL.into_iter().find(|p| p.name() == name) {
            return Ok(p);
        }
        None.ok_or_else(|| CoreError::UnknownPolicy {
            name: name.to_string(),
            known: PolicyKind::ALL.map(|p| p.name()).join(", "),
        })
    }

    /// The offline planner, for policies that have one (heartbeat-time rules
    /// such as delay scheduling need a cluster's timing: see the simulator).
    pub fn planner(self) -> Option<&'static dyn Planner> {
        match self {
            PolicyKind::Asm1 => Some(&asm1::Asm1),
            PolicyKind::Asm1Comm => Some(&asm1_comm::Asm1Comm),
            PolicyKind::Greedy => Some(&greedy::Greedy { comm: false }),
            PolicyKind::GreedyComm => Some(&greedy::Greedy { comm: true }),
            PolicyKind::HadoopDefault | PolicyKind::HadoopFair | PolicyKind::HadoopFairHalf => None,
            PolicyKind::Mb => Some(&mb::Mb),
            PolicyKind::Bar => Some(&bar::Bar),
            PolicyKind::Hds => Some(&hds::Hds),
            PolicyKind::Ds15 => Some(&DS15),
            PolicyKind::Ds25 => Some(&DS25),
            PolicyKind::Gcc => Some(&GCC),
            PolicyKind::Labl => Some(&labl::Labl {
                threshold: labl::RemoteThreshold::UpTo(0),
            }),
            PolicyKind::LablPlus1 => Some(&labl::Labl {
                threshold: labl::RemoteThreshold::UpTo(1),
            }),
            PolicyKind::LablAlways => Some(&labl::Labl {
                threshold: labl::RemoteThreshold::Always,
            }),
            PolicyKind::RoundRobin => Some(&round_robin::RoundRobin),
            PolicyKind::StaticAsm1 => Some(&static_asm1::StaticAsm1),
            PolicyKind::Asm1Makespan => Some(&asm1_makespan::Asm1Makespan),
            PolicyKind::Asm1CommSteal => Some(&asm1_comm_steal::Asm1CommSteal),
            PolicyKind::Maestro => Some(&maestro::Maestro { comm: false }),
            PolicyKind::MaestroComm => Some(&maestro::Maestro { comm: true }),
            PolicyKind::LocAwareMin => Some(&LOCAWARE[0]),
            PolicyKind::LocAwareMinComm => Some(&LOCAWARE[1]),
            PolicyKind::LocAwareAvg => Some(&LOCAWARE[2]),
            PolicyKind::LocAwareAvgComm => Some(&LOCAWARE[3]),
            PolicyKind::Etf => Some(&etf::Etf { comm: false }),
            PolicyKind::EtfComm => Some(&etf::Etf { comm: true }),
            PolicyKind::LocAwareClairMin => Some(&CLAIR[0]),
            PolicyKind::LocAwareClairMinComm => Some(&CLAIR[1]),
            PolicyKind::LocAwareClairAvg => Some(&CLAIR[2]),
            PolicyKind::LocAwareClairAvgComm => Some(&CLAIR[3]),
            PolicyKind::Spc => Some(&spc::Spc),
            PolicyKind::SpcLocal => Some(&spc_local::SpcLocal),
            PolicyKind::SpcIdentical => Some(&spc_identical::SpcIdentical),
            PolicyKind::SpcMapOnly => Some(&spc_map_only::SpcMapOnly),
            PolicyKind::Fifo => Some(&fifo::Fifo),
            PolicyKind::Huwf => Some(&huwf::Huwf),
            PolicyKind::Tetris => Some(&tetris::Tetris),
            PolicyKind::Asm1Priced => Some(&asm1_priced::Asm1Priced),
        }
    }

    /// Runs the policy in the discrete-event executor ([`crate::execute`]):
    /// its own runtime rule where it has one, else its plan with the
    /// fallbacks of [`PolicyKind::dynamic`]. `None` for heartbeat-only
    /// policies (delay scheduling needs the simulator's heartbeats).
    pub fn execute(self, problem: &Problem, seed: u64) -> Option<Execution> {
        use PolicyKind as K;
        let e = match self {
            K::Greedy | K::GreedyComm => {
                let g = greedy::Greedy {
                    comm: self == K::GreedyComm,
                };
                execute(problem, &mut g.rule(problem), seed)
            }
            K::Asm1Makespan => execute(
                problem,
                &mut asm1_makespan::Asm1MakespanRule::new(problem, seed),
                seed,
            ),
            K::Asm1CommSteal => execute(
                problem,
                &mut asm1_comm_steal::Asm1CommStealRule::new(problem, seed),
                seed,
            ),
            K::Maestro | K::MaestroComm => {
                let m = maestro::Maestro {
                    comm: self == K::MaestroComm,
                };
                execute(problem, &mut m.rule(problem), seed)
            }
            K::LocAwareMin | K::LocAwareMinComm | K::LocAwareAvg | K::LocAwareAvgComm => {
                let l = locaware::LocAware {
                    avg: matches!(self, K::LocAwareAvg | K::LocAwareAvgComm),
                    comm: self.is_comm(),
                };
                execute(problem, &mut l.rule(problem), seed)
            }
            K::LocAwareClairMin
            | K::LocAwareClairMinComm
            | K::LocAwareClairAvg
            | K::LocAwareClairAvgComm => {
                let l = locaware_clair::LocAwareClair {
                    avg: matches!(self, K::LocAwareClairAvg | K::LocAwareClairAvgComm),
                    comm: self.is_comm(),
                };
                execute(problem, &mut l.rule(problem), seed)
            }
            K::EtfComm => execute(problem, &mut etf::EtfCommRule::new(problem), seed),
            K::Asm1Priced => execute(
                problem,
                &mut asm1_priced::Asm1PricedRule::new(problem, seed),
                seed,
            ),
            _ => {
                let plan = self.planner()?.plan(problem, seed);
                let d = self.dynamic();
                execute(problem, &mut Planned::new(&plan, d.steal, d.spill), seed)
            }
        };
        Some(e)
    }

    /// The offline planner, or an error naming the policy that has none.
    pub fn offline_planner(self) -> Result<&'static dyn Planner, CoreError> {
        self.planner().ok_or(CoreError::NoOfflinePlan {
            policy: self.name(),
        })
    }

    pub fn dynamic(self) -> Dynamic {
        let d = Dynamic {
            planned: false,
            steal: false,
            spill: false,
            delay: false,
            fair: false,
            priced: false,
        };
        match self {
            PolicyKind::Asm1 => Dynamic {
                planned: true,
                steal: true,
                ..d
            },
            PolicyKind::Asm1Comm => Dynamic {
                planned: true,
                steal: true,
                spill: true,
                ..d
            },
            PolicyKind::Greedy => d,
            PolicyKind::GreedyComm => Dynamic { spill: true, ..d },
            PolicyKind::HadoopDefault => Dynamic {
                spill: true,
                delay: true,
                ..d
            },
            PolicyKind::HadoopFair | PolicyKind::HadoopFairHalf => Dynamic {
                spill: true,
                fair: true,
                ..d
            },
            // The plan already holds its remote tasks; a node whose queue is
            // done helps with local work, then with any work left.
            PolicyKind::Mb | PolicyKind::Bar => Dynamic {
                planned: true,
                steal: true,
                spill: true,
                ..d
            },
            // At heartbeats: local first, then their rule
            // ([`PolicyKind::dispatch_rule`]).
            PolicyKind::Hds | PolicyKind::Ds15 | PolicyKind::Ds25 | PolicyKind::Gcc => {
                Dynamic { spill: true, ..d }
            }
            // LABL's plan already holds its remote choices; an idle node may
            // still take a local task (no extra resources), never a remote one.
            PolicyKind::Labl | PolicyKind::LablPlus1 | PolicyKind::LablAlways => Dynamic {
                planned: true,
                steal: true,
                ..d
            },
            // Follow the round-robin plan; once it is done, Hadoop's own
            // fallback: any work rather than stay idle.
            PolicyKind::RoundRobin => Dynamic {
                planned: true,
                spill: true,
                ..d
            },
            PolicyKind::StaticAsm1 | PolicyKind::Etf => Dynamic { planned: true, ..d },
            PolicyKind::Asm1Makespan => Dynamic {
                planned: true,
                steal: true,
                ..d
            },
            PolicyKind::Asm1CommSteal | PolicyKind::EtfComm => Dynamic {
                planned: true,
                steal: true,
                spill: true,
                ..d
            },
            // The heartbeat cannot evaluate chunk weights or holder counts:
            // the Session follows the played-out plan, then steals (and the
            // COMM variants spill), the closest rule it has.
            PolicyKind::Maestro
            | PolicyKind::LocAwareMin
            | PolicyKind::LocAwareAvg
            | PolicyKind::LocAwareClairMin
            | PolicyKind::LocAwareClairAvg => Dynamic {
                planned: true,
                steal: true,
                ..d
            },
            PolicyKind::MaestroComm
            | PolicyKind::LocAwareMinComm
            | PolicyKind::LocAwareAvgComm
            | PolicyKind::LocAwareClairMinComm
            | PolicyKind::LocAwareClairAvgComm => Dynamic {
                planned: true,
                steal: true,
                spill: true,
                ..d
            },
            // S-PC's plan already holds its remote choices (each task on
            // the machine finishing it first): an idle node takes a local
            // task, never another remote one (its queue is the plan's).
            PolicyKind::Spc
            | PolicyKind::SpcLocal
            | PolicyKind::SpcIdentical
            | PolicyKind::SpcMapOnly
            | PolicyKind::Fifo
            | PolicyKind::Huwf
            | PolicyKind::Tetris => Dynamic {
                planned: true,
                steal: true,
                ..d
            },
            // Not COMM: a priced wait may leave a node idle while work remains.
            PolicyKind::Asm1Priced => Dynamic {
                planned: true,
                steal: true,
                priced: true,
                ..d
            },
        }
    }
}

/// A job scheduler (seed 002): orders whole jobs (weights, release times,
/// precedence) and times every task on machines of different speeds.
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

/// The job schedulers by name: S-PC, its locality-aware form and the
/// baselines of seed 002, over an instance's jobs in `spindle plan` and
/// `spindle repro spc`. Each is also a [`PolicyKind`] of the same name, a
/// job order over the live applications and a placement, in the simulator
/// and the Session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleKind {
    Spc,
    SpcIdentical,
    SpcMapOnly,
    Fifo,
    Huwf,
    Tetris,
    SpcLocal,
}

impl ScheduleKind {
    pub const ALL: [ScheduleKind; 7] = [
        ScheduleKind::Spc,
        ScheduleKind::SpcLocal,
        ScheduleKind::SpcIdentical,
        ScheduleKind::SpcMapOnly,
        ScheduleKind::Fifo,
        ScheduleKind::Huwf,
        ScheduleKind::Tetris,
    ];

    pub fn name(self) -> &'static str {
        self.scheduler().name()
    }

    pub fn from_name(name: &str) -> Option<ScheduleKind> {
        ScheduleKind::ALL.into_iter().find(|k| k.name() == name)
    }

    pub fn scheduler(self) -> &'static dyn JobScheduler {
        match self {
            ScheduleKind::Spc => &spc::Spc,
            ScheduleKind::SpcIdentical => &spc_identical::SpcIdentical,
            ScheduleKind::SpcMapOnly => &spc_map_only::SpcMapOnly,
            ScheduleKind::Fifo => &fifo::Fifo,
            ScheduleKind::Huwf => &huwf::Huwf,
            ScheduleKind::Tetris => &tetris::Tetris,
            ScheduleKind::SpcLocal => &spc_local::SpcLocal,
        }
    }
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

    #[test]
    fn planner_names_match_the_registry() {
        for p in PolicyKind::ALL {
            if let Some(planner) = p.planner() {
                assert_eq!(planner.name(), p.name());
            }
        }
    }

    #[test]
    fn every_job_scheduler_is_a_policy_of_the_same_name() {
        for k in ScheduleKind::ALL {
            assert_eq!(ScheduleKind::from_name(k.name()), Some(k));
            let p = PolicyKind::from_name(k.name()).unwrap();
            assert!(p.spc_order(), "{p}");
            assert!(p.dynamic().planned, "{p}");
            assert_eq!(p.planner().map(|x| x.name()), Some(k.name()));
        }
    }

    #[test]
    fn names_round_trip() {
        for p in PolicyKind::ALL {
            assert_eq!(PolicyKind::from_name(p.name()).unwrap(), p);
        }
    }

    #[test]
    fn unknown_policy_lists_the_known_ones() {
        let err = PolicyKind::from_name("lifo").unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown policy \"lifo\"; known policies: asm1, asm1-comm, greedy, greedy-comm, hadoop-default, hadoop-fair, hadoop-fair-0.5, mb, bar, hds, ds0.15, ds0.25, gcc, labl, labl+1, labl-always, round-robin, static-asm1, asm1-makespan, asm1-comm-steal, maestro, maestro-comm, locaware-min, locaware-min-comm, locaware-avg, locaware-avg-comm, etf, etf-comm, locaware-clair-min, locaware-clair-min-comm, locaware-clair-avg, locaware-clair-avg-comm, spc, spc-local, spc-identical, spc-map-only, fifo, huwf, tetris, asm1-priced"
        );
    }
}
