//! S-PC (Aggarwal, Lan, Subramaniam and Xu, Sect. II-III): jobs
//! ordered by the completion times of an LP relaxation (eq. 1-4, solved by
//! cutting planes in [`lp`]), then each job's tasks, largest first, placed on
//! the machine that completes them earliest ([`schedule`], Algorithms 1-2).
//!
//! The paper's machines run one task at a time; a node with `slots` slots is
//! `slots` machines of its speed. A task takes `size / speed` (the paper has
//! no data locality: replicas and the cost model are not read here).

pub mod lp;
pub mod online;
pub mod schedule;

use thiserror::Error;

use crate::instance::Instance;
use crate::model::{Csr, Problem};

/// Jobs above this many make the LP refuse (the cutting-plane LP is dense
/// in the cut rows; 10,000 jobs is past any queue a RM holds at once).
pub const MAX_LP_JOBS: usize = 10_000;
/// Cutting-plane rounds before the LP gives up.
pub const MAX_LP_ROUNDS: usize = 20_000;
/// Placement steps (tasks x distinct node speeds) before S-PC refuses.
pub const MAX_PLACEMENT_STEPS: u64 = 4_000_000_000;

/// Why S-PC could not schedule an instance. Messages name the input.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SpcError {
    #[error("job {job:?}: field \"after\" closes a cycle of predecessors; S-PC needs an acyclic job graph")]
    Cycle { job: String },
    #[error("S-PC's LP has {count} jobs, more than the limit of {limit}")]
    TooManyJobs { count: usize, limit: usize },
    #[error("S-PC placement: {tasks} tasks x {speeds} distinct node speeds is more than the limit of {limit} steps")]
    TooMuchWork {
        tasks: usize,
        speeds: usize,
        limit: u64,
    },
    #[error(
        "S-PC's LP did not converge in {rounds} cutting-plane rounds ({cuts} cuts) on {jobs} jobs"
    )]
    NoConvergence {
        rounds: usize,
        cuts: usize,
        jobs: usize,
    },
    #[error("S-PC's LP solver failed on {jobs} jobs: {message}")]
    Solver { jobs: usize, message: String },
}

/// The jobs of an instance in dense form: weights, release times, the
/// precedence DAG and each job's tasks, largest first.
#[derive(Clone, Debug, Default)]
pub struct JobSet {
    pub ids: Vec<String>,
    pub weight: Vec<f64>,
    pub release: Vec<f64>,
    /// Row `j`: the predecessors of job `j`.
    pub after: Csr,
    /// Row `j`: job `j`'s tasks in non-increasing size (ties by task index).
    pub tasks: Csr,
    /// Size of every task (the instance's `task_size`).
    pub task_size: Vec<f64>,
}

impl JobSet {
    pub fn from_instance(inst: &Instance) -> JobSet {
        let mut rows: Vec<Vec<u32>> = vec![Vec::new(); inst.jobs.len()];
        for (t, &j) in inst.task_job.iter().enumerate() {
            rows[j as usize].push(t as u32);
        }
        let size = &inst.problem.task_size;
        for r in &mut rows {
            r.sort_by(|&a, &b| {
                size[b as usize]
                    .total_cmp(&size[a as usize])
                    .then(a.cmp(&b))
            });
        }
        JobSet {
            ids: inst.jobs.iter().map(|j| j.id.clone()).collect(),
            weight: inst.jobs.iter().map(|j| j.weight).collect(),
            release: inst.jobs.iter().map(|j| j.release).collect(),
            after: Csr::from_rows(inst.jobs.iter().map(|j| j.after.iter().copied())),
            tasks: Csr::from_rows(rows),
            task_size: size.clone(),
        }
    }

    pub fn len(&self) -> usize {
        self.weight.len()
    }

    pub fn is_empty(&self) -> bool {
        self.weight.is_empty()
    }

    /// `p_j`: the total size of job `j`'s tasks.
    pub fn size(&self, j: usize) -> f64 {
        self.tasks
            .row(j)
            .iter()
            .map(|&t| self.task_size[t as usize])
            .sum()
    }

    /// Jobs in increasing `key` (ties by index), moved where needed so that
    /// every job comes after its predecessors (Kahn's algorithm on a heap).
    pub fn topo_order(&self, key: &[f64]) -> Result<Vec<u32>, SpcError> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let n = self.len();
        let mut indeg: Vec<u32> = (0..n).map(|j| self.after.degree(j) as u32).collect();
        let succ = self.after.transpose(n);
        let mut heap: BinaryHeap<Reverse<(crate::model::OrdF64, u32)>> = (0..n)
            .filter(|&j| indeg[j] == 0)
            .map(|j| Reverse((crate::model::OrdF64(key[j]), j as u32)))
            .collect();
        let mut order = Vec::with_capacity(n);
        while let Some(Reverse((_, j))) = heap.pop() {
            order.push(j);
            for &s in succ.row(j as usize) {
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    heap.push(Reverse((crate::model::OrdF64(key[s as usize]), s)));
                }
            }
        }
        if order.len() < n {
            let job = (0..n).find(|&j| indeg[j] > 0).unwrap_or(0);
            return Err(SpcError::Cycle {
                job: self.ids.get(job).cloned().unwrap_or_default(),
            });
        }
        Ok(order)
    }
}

/// The machines' speeds as the LP sees them: `mu` (all machines) and
/// `mu_q` (the `q` fastest), without materialising one entry per slot.
#[derive(Clone, Debug)]
pub struct Speeds {
    /// Distinct speeds, fastest first, with the slots of each.
    classes: Vec<(f64, u64)>,
    /// `prefix[i]`: summed speed of classes `0..i` (all their slots).
    prefix: Vec<f64>,
    /// `slots_before[i]`: slots of classes `0..i`.
    slots_before: Vec<u64>,
}

impl Speeds {
    pub fn of(problem: &Problem) -> Speeds {
        Speeds::from_nodes(&problem.node_speed, &problem.node_slots)
    }

    /// Every node at speed 1 (the Identical-machine baseline's view).
    pub fn identical(problem: &Problem) -> Speeds {
        let ones = vec![1.0; problem.num_nodes()];
        Speeds::from_nodes(&ones, &problem.node_slots)
    }

    /// The same slots, every one at speed 1.
    pub fn as_identical(&self) -> Speeds {
        let slots: Vec<u32> = self
            .classes
            .iter()
            .map(|&(_, k)| k.min(u64::from(u32::MAX)) as u32)
            .collect();
        Speeds::from_nodes(&vec![1.0; slots.len()], &slots)
    }

    pub fn from_nodes(speed: &[f64], slots: &[u32]) -> Speeds {
        let mut v: Vec<(f64, u64)> = speed
            .iter()
            .zip(slots)
            .map(|(&s, &k)| (s, u64::from(k.max(1))))
            .collect();
        v.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut classes: Vec<(f64, u64)> = Vec::new();
        for (s, k) in v {
            match classes.last_mut() {
                Some(last) if last.0 == s => last.1 += k,
                _ => classes.push((s, k)),
            }
        }
        let mut prefix = vec![0.0];
        let mut slots_before = vec![0u64];
        for &(s, k) in &classes {
            prefix.push(prefix[prefix.len() - 1] + s * k as f64);
            slots_before.push(slots_before[slots_before.len() - 1] + k);
        }
        Speeds {
            classes,
            prefix,
            slots_before,
        }
    }

    /// Machines (slots) in all.
    pub fn machines(&self) -> u64 {
        self.slots_before.last().copied().unwrap_or(0)
    }

    /// `mu`: the summed speed of all machines.
    pub fn mu(&self) -> f64 {
        self.prefix.last().copied().unwrap_or(0.0)
    }

    /// Summed speed of the `q` fastest machines (all of them if fewer).
    pub fn mu_q(&self, q: u64) -> f64 {
        let q = q.min(self.machines());
        // Last class that starts before slot q.
        let i = self.slots_before.partition_point(|&b| b < q);
        if i == 0 {
            return 0.0;
        }
        let c = i - 1;
        self.prefix[c] + self.classes[c].0 * (q - self.slots_before[c]) as f64
    }
}

/// The LP's view of the jobs: `p_j`, `mu_j = mu_q(min(t_j, m))` (Sect. II).
pub fn lp_jobs(jobs: &JobSet, speeds: &Speeds) -> Vec<lp::LpJob> {
    (0..jobs.len())
        .map(|j| {
            let t = jobs.tasks.degree(j) as u64;
            lp::LpJob {
                p: jobs.size(j),
                mu_j: speeds.mu_q(t),
                release: jobs.release[j],
                weight: jobs.weight[j],
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mu_q_sums_the_fastest_slots() {
        let s = Speeds::from_nodes(&[1.0, 8.0, 8.0, 2.0], &[2, 1, 1, 3]);
        assert_eq!(s.machines(), 7);
        assert_eq!(s.mu(), 2.0 + 16.0 + 6.0);
        assert_eq!(s.mu_q(0), 0.0);
        assert_eq!(s.mu_q(1), 8.0);
        assert_eq!(s.mu_q(2), 16.0);
        assert_eq!(s.mu_q(3), 18.0);
        assert_eq!(s.mu_q(5), 22.0);
        assert_eq!(s.mu_q(6), 23.0);
        assert_eq!(s.mu_q(100), 24.0);
    }

    #[test]
    fn huge_slot_counts_are_not_materialised() {
        let s = Speeds::from_nodes(&[1.0, 2.0], &[u32::MAX, u32::MAX]);
        assert_eq!(s.machines(), 2 * u64::from(u32::MAX));
        assert_eq!(s.mu_q(3), 6.0);
    }
}

/// What a job scheduler returns: the schedule, and the LP where it solved one.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub schedule: schedule::Schedule,
    pub lp: Option<lp::LpSolution>,
}

impl JobSet {
    /// An error naming a job on a cycle of `after`, if there is one.
    pub fn check_acyclic(&self) -> Result<(), SpcError> {
        self.topo_order(&vec![0.0; self.len()]).map(|_| ())
    }
}

/// One task of a schedule report.
#[derive(Clone, Debug, serde::Serialize, PartialEq)]
pub struct TaskRow {
    pub task: String,
    pub node: String,
    pub locality: &'static str,
    pub start: f64,
    pub end: f64,
}

/// One job of a schedule report.
#[derive(Clone, Debug, serde::Serialize, PartialEq)]
pub struct JobRow {
    pub id: String,
    pub weight: f64,
    pub completion: f64,
    /// `C_j^LP`, where the policy solved the LP over this job.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lp_completion: Option<f64>,
}

/// The figures of a job schedule (`spindle plan --policy spc`).
#[derive(Clone, Debug, Default, serde::Serialize, PartialEq)]
pub struct ScheduleMetrics {
    /// `sum w_j C_j` over all jobs (stages) of the instance.
    pub twct: f64,
    /// The LP optimum (a lower bound on `twct`); null when the policy solves no LP
    /// over the real machines.
    pub lp_lower_bound: Option<f64>,
    /// Sets of constraint (2) in the final LP.
    pub lp_cuts: Option<usize>,
    pub makespan: f64,
    pub plan_ms: f64,
}

/// The plan output of a job scheduler (JSON).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ScheduleReport {
    pub policy: String,
    /// Jobs in the order the policy scheduled them.
    pub job_order: Vec<String>,
    pub assignment: Vec<TaskRow>,
    /// Per node (by host), its tasks in the order it runs them.
    pub queues: std::collections::BTreeMap<String, Vec<String>>,
    pub jobs: Vec<JobRow>,
    pub metrics: ScheduleMetrics,
}

impl Outcome {
    pub fn metrics(&self, jobs: &JobSet, plan_ms: f64) -> ScheduleMetrics {
        ScheduleMetrics {
            twct: self.schedule.twct(jobs),
            lp_lower_bound: self.lp.as_ref().map(|l| l.objective),
            lp_cuts: self.lp.as_ref().map(|l| l.cuts.len()),
            makespan: self.schedule.makespan(),
            plan_ms,
        }
    }

    pub fn report(
        &self,
        policy: &str,
        inst: &Instance,
        jobs: &JobSet,
        plan_ms: f64,
    ) -> ScheduleReport {
        let s = &self.schedule;
        let a = &s.assignment;
        let assignment = a
            .node_of
            .iter()
            .enumerate()
            .map(|(t, &n)| TaskRow {
                task: inst.task_ids[t].clone(),
                node: inst.hosts[n as usize].clone(),
                locality: inst.problem.locality(t as u32, n).as_str(),
                start: s.start[t],
                end: s.end[t],
            })
            .collect();
        let queues = (0..a.queues.rows())
            .filter(|&n| a.queues.degree(n) > 0)
            .map(|n| {
                let names = a
                    .queues
                    .row(n)
                    .iter()
                    .map(|&t| inst.task_ids[t as usize].clone());
                (inst.hosts[n].clone(), names.collect())
            })
            .collect();
        let lp_full = self
            .lp
            .as_ref()
            .filter(|l| l.completion.len() == jobs.len());
        ScheduleReport {
            policy: policy.to_string(),
            job_order: s
                .job_order
                .iter()
                .map(|&j| jobs.ids[j as usize].clone())
                .collect(),
            assignment,
            queues,
            jobs: (0..jobs.len())
                .map(|j| JobRow {
                    id: jobs.ids[j].clone(),
                    weight: jobs.weight[j],
                    completion: s.completion[j],
                    lp_completion: lp_full.map(|l| l.completion[j]),
                })
                .collect(),
            metrics: self.metrics(jobs, plan_ms),
        }
    }
}

impl JobSet {
    /// `own[j]` summed along each job's later stages: `own[j]` plus the value
    /// of each successor (a successor shared by two paths counts on both).
    /// The baselines' "job" is all its rounds (S-PC Sect. VI.B).
    pub fn downstream_sum(&self, own: &[f64]) -> Result<Vec<f64>, SpcError> {
        self.downstream(own, |a, b| a + b)
    }

    /// `own[j]` maximised over each job and its later stages.
    pub fn downstream_max(&self, own: &[f64]) -> Result<Vec<f64>, SpcError> {
        self.downstream(own, f64::max)
    }

    fn downstream(&self, own: &[f64], f: impl Fn(f64, f64) -> f64) -> Result<Vec<f64>, SpcError> {
        let order = self.topo_order(&vec![0.0; self.len()])?;
        let succ = self.after.transpose(self.len());
        let mut acc = own.to_vec();
        for &j in order.iter().rev() {
            let j = j as usize;
            for &s in succ.row(j) {
                acc[j] = f(acc[j], acc[s as usize]);
            }
        }
        Ok(acc)
    }
}

impl JobSet {
    /// All the tasks of `problem` as one job, largest first (ties by index):
    /// the Session hands S-PC's placement its tasks already in job order.
    pub fn single(problem: &Problem) -> JobSet {
        let size = &problem.task_size;
        let mut row: Vec<u32> = (0..size.len() as u32).collect();
        row.sort_by(|&a, &b| {
            size[b as usize]
                .total_cmp(&size[a as usize])
                .then(a.cmp(&b))
        });
        JobSet {
            ids: vec!["all".into()],
            weight: vec![1.0],
            release: vec![0.0],
            after: Csr::from_rows([std::iter::empty::<u32>()]),
            tasks: Csr::from_rows([row]),
            task_size: size.clone(),
        }
    }

    /// All the tasks of `problem` as one job, in index order.
    pub fn in_order(problem: &Problem) -> JobSet {
        let size = &problem.task_size;
        JobSet {
            ids: vec!["all".into()],
            weight: vec![1.0],
            release: vec![0.0],
            after: Csr::from_rows([std::iter::empty::<u32>()]),
            tasks: Csr::from_rows(std::iter::once(0..size.len() as u32)),
            task_size: size.clone(),
        }
    }
}

/// S-PC's placement (Algorithm 2, or its locality-aware form) of every task
/// of `problem` taken as one job: the planner the Session runs for `spc`
/// and `spc-local`, its tasks arriving in the LP's application order.
pub fn place_all(
    problem: &Problem,
    pick: schedule::Pick,
    seed: u64,
) -> Result<crate::plan::Assignment, SpcError> {
    place_one_job(&JobSet::single(problem), problem, pick, false, seed)
}

/// [`place_all`] deciding on every node at speed 1 (the Identical-machine
/// baseline, `spc-identical`); the real speeds still time the tasks.
pub fn place_all_identical(
    problem: &Problem,
    seed: u64,
) -> Result<crate::plan::Assignment, SpcError> {
    let pick = schedule::Pick::EarliestCompletion;
    place_one_job(&JobSet::single(problem), problem, pick, true, seed)
}

/// [`place_all`] (`identical`: [`place_all_identical`]) taking the tasks
/// in index order instead of largest first: the Session's order (the
/// applications' rank, a job's maps before its reducers), kept when its
/// reducers are sized apart from its maps.
pub fn place_all_in_order(
    problem: &Problem,
    pick: schedule::Pick,
    identical: bool,
    seed: u64,
) -> Result<crate::plan::Assignment, SpcError> {
    place_one_job(&JobSet::in_order(problem), problem, pick, identical, seed)
}

fn place_one_job(
    jobs: &JobSet,
    problem: &Problem,
    pick: schedule::Pick,
    identical: bool,
    seed: u64,
) -> Result<crate::plan::Assignment, SpcError> {
    let ones = identical.then(|| vec![1.0; problem.num_nodes()]);
    let pick = [pick];
    let rules = schedule::Rules {
        believed_speed: ones.as_deref(),
        ..schedule::Rules::new(&[0], &pick, seed)
    };
    schedule::place(jobs, problem, &rules).map(|s| s.assignment)
}
