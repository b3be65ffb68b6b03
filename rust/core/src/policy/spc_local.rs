//! Locality-aware S-PC (`spc-local`; issue 12 item 4, in no seed paper):
//! S-PC's job order (Algorithm 1: non-decreasing `C_j^LP`) with
//! a placement that also weighs data locality. Each task, largest first,
//! goes to the machine that completes it earliest, a machine holding none
//! of its replicas taking the remote read on top (`(remote - local) * size
//! / speed` from the cost model): local machines win unless a remote one
//! still finishes the task sooner.
//!
//! Same meaning everywhere: `spindle plan` on an instance with jobs solves
//! the LP over its jobs; the Session (RM and simulator) solves it over the
//! live applications ([`crate::session::JobOrder::Spc`]) and hands this
//! planner the tasks in that order, as one job.

use super::{JobScheduler, Planner};
use crate::model::Problem;
use crate::plan::Assignment;
use crate::spc::schedule::{place, Pick, Rules};
use crate::spc::{lp, lp_jobs, place_all, JobSet, Outcome, SpcError, Speeds};

pub struct SpcLocal;

impl JobScheduler for SpcLocal {
    fn name(&self) -> &'static str {
        "spc-local"
    }

    fn schedule(&self, jobs: &JobSet, problem: &Problem, seed: u64) -> Result<Outcome, SpcError> {
        jobs.check_acyclic()?;
        let speeds = Speeds::of(problem);
        let sol = lp::solve(&lp_jobs(jobs, &speeds), &jobs.after, speeds.mu(), &[])?;
        let order = jobs.topo_order(&sol.completion)?;
        let pick = vec![Pick::EarliestCompletionLocal; jobs.len()];
        let schedule = place(jobs, problem, &Rules::new(&order, &pick, seed))?;
        // Remote reads only add time: the LP still bounds the schedule below.
        Ok(Outcome {
            schedule,
            lp: Some(sol),
        })
    }
}

impl Planner for SpcLocal {
    fn name(&self) -> &'static str {
        "spc-local"
    }

    fn plan(&self, problem: &Problem, seed: u64) -> Assignment {
        super::placed_or_asm1(
            Planner::name(self),
            problem,
            seed,
            place_all(problem, Pick::EarliestCompletionLocal, seed),
        )
    }
}

super::job_scheduler_policy!(SpcLocal, Spc);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::Instance;
    use crate::model::{CostModel, Locality};

    #[test]
    fn a_local_machine_wins_unless_a_remote_one_finishes_sooner() {
        // Two equal nodes, 4 unit tasks held by node 0; remote reads 3x.
        let p = Problem::uniform(2, &vec![vec![0]; 4], CostModel::default());
        let a = SpcLocal.plan(&p, 1);
        // Node 0 finishes them at 1, 2, 3; node 1 would at 3: the third
        // ties and stays local, the fourth (4 vs 3) goes remote.
        assert_eq!(a.node_of, vec![0, 0, 0, 1]);
        // Plain S-PC ignores replicas: it alternates.
        let plain = place_all(&p, Pick::EarliestCompletion, 1).unwrap();
        assert_eq!(plain.node_of, vec![0, 1, 0, 1]);
    }

    #[test]
    fn jobs_follow_the_lp_order_and_tasks_their_replicas() {
        let i = Instance::from_json(
            r#"{"nodes":[{"host":"a"},{"host":"b"}],
                "jobs":[{"id":"big","weight":1,"tasks":[{"id":"b1","replicas":["a"],"size":4},{"id":"b2","replicas":["a"],"size":4}]},
                        {"id":"small","weight":1,"tasks":[{"id":"s1","replicas":["b"],"size":1}]}]}"#,
        )
        .unwrap();
        let jobs = JobSet::from_instance(&i);
        let o = SpcLocal.schedule(&jobs, &i.problem, 1).unwrap();
        assert_eq!(o.schedule.job_order, vec![1, 0], "the small job first");
        // s1 local on b (ends 1); b1 local on a (ends 4); b2: a at 8, b at
        // 1 + 3 * 4 = 13: local again.
        assert_eq!(o.schedule.assignment.node_of, vec![0, 0, 1]);
        for (t, &n) in o.schedule.assignment.node_of.iter().enumerate() {
            assert_eq!(i.problem.locality(t as u32, n), Locality::Node);
        }
        assert_eq!(o.schedule.completion, vec![8.0, 1.0]);
        let lb = o.lp.expect("LP").objective;
        assert!(lb <= o.schedule.twct(&jobs) + 1e-9);
    }

    #[test]
    fn a_remote_task_pays_its_read_in_the_schedule() {
        // One node holds both tasks; the other is 8 times faster.
        let i = Instance::from_json(
            r#"{"nodes":[{"host":"slow","speed":1},{"host":"fast","speed":8}],
                "jobs":[{"id":"j","tasks":[{"id":"t1","replicas":["slow"],"size":8},{"id":"t2","replicas":["slow"],"size":8}]}]}"#,
        )
        .unwrap();
        let jobs = JobSet::from_instance(&i);
        let o = SpcLocal.schedule(&jobs, &i.problem, 1).unwrap();
        // t1: slow local ends 8, fast remote 3 * 8 / 8 = 3: remote wins.
        // t2: fast again at 3 + 3 = 6 < 8.
        assert_eq!(o.schedule.assignment.node_of, vec![1, 1]);
        assert_eq!(o.schedule.end, vec![3.0, 6.0]);
    }
}
