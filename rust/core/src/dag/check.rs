//! Well-formedness of a concrete schedule (Sect. 2.1, "Schedules") and its
//! quality measures (Sect. 2.2): data-centre utilisation and makespan.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{tol, DagError, DataCentre, Job, Placement};

/// Largest schedule file accepted, in entries.
pub const MAX_ENTRIES: usize = 10_000_000;

/// Checks that `schedule` is a well-formed schedule of `jobs` on `dc`:
/// every task placed exactly once; a task on node n lasts duration/speed(n);
/// it starts no earlier than each predecessor's end plus, across nodes,
/// bytes / (smallest bandwidth on the tree path); a node runs one task at a time.
pub fn check(jobs: &[Job], dc: &DataCentre, schedule: &[Placement]) -> Result<(), DagError> {
    let bad = |m: String| Err(DagError::NotWellFormed(m));
    let mut at: Vec<Vec<Option<usize>>> = jobs.iter().map(|j| vec![None; j.len()]).collect();
    for (i, p) in schedule.iter().enumerate() {
        let Some(job) = jobs.get(p.job as usize) else {
            return bad(format!("entry {i}: job {} does not exist", p.job));
        };
        if p.task as usize >= job.len() || p.node as usize >= dc.nodes() {
            return bad(format!("entry {i}: task or node out of range"));
        }
        let slot = &mut at[p.job as usize][p.task as usize];
        if slot.is_some() {
            return bad(format!(
                "job {} task {:?} is scheduled twice",
                p.job, job.ids[p.task as usize]
            ));
        }
        *slot = Some(i);
        let want = job.duration[p.task as usize] / dc.speed[p.node as usize];
        if !(p.start.is_finite() && p.end.is_finite())
            || (p.end - p.start - want).abs() > tol(p.end)
        {
            return bad(format!(
                "job {} task {:?} on {}: lasts {} s, but duration/speed is {} s",
                p.job,
                job.ids[p.task as usize],
                dc.hosts[p.node as usize],
                p.end - p.start,
                want
            ));
        }
    }
    for (j, job) in jobs.iter().enumerate() {
        for t in 0..job.len() {
            let Some(i) = at[j][t] else {
                return bad(format!("job {j} task {:?} is not scheduled", job.ids[t]));
            };
            let p = &schedule[i];
            for &(q, bytes) in &job.preds[t] {
                let Some(qi) = at[j][q as usize] else {
                    return bad(format!(
                        "job {j} task {:?} is not scheduled",
                        job.ids[q as usize]
                    ));
                };
                let pq = &schedule[qi];
                let ready = pq.end + dc.transfer(pq.node, p.node, bytes);
                if p.start < ready - tol(ready) {
                    return bad(format!(
                        "job {j} task {:?} starts at {} on {}, before its input from task {:?} ({} bytes, on {}) is there at {}",
                        job.ids[t], p.start, dc.hosts[p.node as usize], job.ids[q as usize],
                        bytes, dc.hosts[pq.node as usize], ready
                    ));
                }
            }
        }
    }
    let mut per_node: Vec<Vec<usize>> = vec![Vec::new(); dc.nodes()];
    for (i, p) in schedule.iter().enumerate() {
        per_node[p.node as usize].push(i);
    }
    for (n, list) in per_node.iter_mut().enumerate() {
        list.sort_by(|&a, &b| schedule[a].start.total_cmp(&schedule[b].start));
        for w in list.windows(2) {
            let (a, b) = (&schedule[w[0]], &schedule[w[1]]);
            if b.start < a.end - tol(a.end) {
                return bad(format!(
                    "node {} runs job {} task {:?} ({}..{}) and job {} task {:?} ({}..{}) at once",
                    dc.hosts[n],
                    a.job,
                    jobs[a.job as usize].ids[a.task as usize],
                    a.start,
                    a.end,
                    b.job,
                    jobs[b.job as usize].ids[b.task as usize],
                    b.start,
                    b.end
                ));
            }
        }
    }
    Ok(())
}

/// Quality measures of a schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Metrics {
    /// Last end minus first start (seconds).
    pub makespan: f64,
    /// Mean over the nodes that run a task of busy time / the length of the
    /// schedule on that node (its last end - its first start; Sect. 2.2),
    /// busy being the tasks' run times.
    pub utilisation: f64,
    /// The same with busy being the slots the scheduler held (the union of
    /// `start..slot_end` per node): the paper's well-formedness lets a slot
    /// be longer than its task, so this is the other reading of "busy".
    pub slot_utilisation: f64,
    /// Busy run time over nodes x makespan: every node measured over the
    /// whole schedule (a third reading of "the length of the schedule").
    pub utilisation_whole: f64,
}

pub fn metrics(dc: &DataCentre, schedule: &[Placement]) -> Metrics {
    if schedule.is_empty() {
        return Metrics::default();
    }
    let t0 = schedule
        .iter()
        .map(|p| p.start)
        .fold(f64::INFINITY, f64::min);
    let n = dc.nodes();
    let mut busy = vec![0.0; n];
    let mut first = vec![f64::INFINITY; n];
    let mut last = vec![f64::NEG_INFINITY; n];
    let mut slots: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
    for p in schedule {
        let i = p.node as usize;
        busy[i] += p.end - p.start;
        first[i] = first[i].min(p.start);
        last[i] = last[i].max(p.end);
        slots[i].push((p.start, p.slot_end.max(p.end)));
    }
    let Some(u) = utilisation_of(&busy, &first, &last) else {
        return Metrics::default();
    };
    // Slot reading: the union of the held slots, over the held span.
    let mut held = vec![0.0; n];
    let mut held_last = vec![f64::NEG_INFINITY; n];
    for (i, v) in slots.iter_mut().enumerate() {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut reach = f64::NEG_INFINITY;
        for &(s, e) in v.iter() {
            let from = s.max(reach);
            if e > from {
                held[i] += e - from;
            }
            reach = reach.max(e);
        }
        held_last[i] = reach;
    }
    let makespan = schedule
        .iter()
        .map(|p| p.end)
        .fold(f64::NEG_INFINITY, f64::max)
        - t0;
    Metrics {
        makespan,
        utilisation: u,
        slot_utilisation: utilisation_of(&held, &first, &held_last).unwrap_or(u),
        utilisation_whole: if makespan > 0.0 {
            busy.iter().sum::<f64>() / (n as f64 * makespan)
        } else {
            0.0
        },
    }
}

/// The utilisation measure (mean over nodes of busy time over the node's
/// span) with the schedule cut at `until`: run time and span after it left
/// out. With `until` at the last release this is the reading that leaves out
/// the drain after the stream stops (no job comes to fill the idle time of
/// the last jobs' long critical paths); at or after the makespan it is
/// [`Metrics::utilisation`].
pub fn utilisation_until(dc: &DataCentre, schedule: &[Placement], until: f64) -> f64 {
    let n = dc.nodes();
    let mut busy = vec![0.0; n];
    let mut first = vec![f64::INFINITY; n];
    let mut last = vec![f64::NEG_INFINITY; n];
    for p in schedule.iter().filter(|p| p.start < until) {
        let i = p.node as usize;
        let end = p.end.min(until);
        busy[i] += end - p.start;
        first[i] = first[i].min(p.start);
        last[i] = last[i].max(end);
    }
    utilisation_of(&busy, &first, &last).unwrap_or(0.0)
}

/// The utilisation measure from per-node busy time, first start and last end.
pub(crate) fn utilisation_of(busy: &[f64], first: &[f64], last: &[f64]) -> Option<f64> {
    let mut sum = 0.0;
    let mut used = 0usize;
    for ((b, f), l) in busy.iter().zip(first).zip(last) {
        if *l > *f {
            sum += b / (l - f);
            used += 1;
        }
    }
    (used > 0).then(|| sum / used as f64)
}

/// A schedule in JSON: `{"schedule": [{"job", "task", "node", "start", "end"}]}`;
/// `job` is the 0-based position of the job file, `node` a host name.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScheduleEntry {
    pub job: usize,
    pub task: String,
    pub node: String,
    pub start: f64,
    pub end: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScheduleFile {
    pub schedule: Vec<ScheduleEntry>,
}

/// Entries with names from dense placements.
pub fn to_entries(jobs: &[Job], dc: &DataCentre, schedule: &[Placement]) -> Vec<ScheduleEntry> {
    schedule
        .iter()
        .map(|p| ScheduleEntry {
            job: p.job as usize,
            task: jobs[p.job as usize].ids[p.task as usize].clone(),
            node: dc.hosts[p.node as usize].clone(),
            start: p.start,
            end: p.end,
        })
        .collect()
}

/// Dense placements from a schedule file; errors name the entry, job, task or host.
pub fn from_entries(
    jobs: &[Job],
    dc: &DataCentre,
    entries: &[ScheduleEntry],
) -> Result<Vec<Placement>, DagError> {
    if entries.len() > MAX_ENTRIES {
        return Err(DagError::Schedule(format!(
            "{} entries, more than the limit of {MAX_ENTRIES}",
            entries.len()
        )));
    }
    let hosts: HashMap<&str, u32> = dc
        .hosts
        .iter()
        .enumerate()
        .map(|(i, h)| (h.as_str(), i as u32))
        .collect();
    let tasks: Vec<HashMap<&str, u32>> = jobs
        .iter()
        .map(|j| {
            j.ids
                .iter()
                .enumerate()
                .map(|(i, t)| (t.as_str(), i as u32))
                .collect()
        })
        .collect();
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let t = tasks.get(e.job).ok_or_else(|| {
                DagError::Schedule(format!(
                    "entry {i}: job {} does not exist ({} job files given)",
                    e.job,
                    jobs.len()
                ))
            })?;
            let task = *t.get(e.task.as_str()).ok_or_else(|| {
                DagError::Schedule(format!("entry {i}: job {} has no task {:?}", e.job, e.task))
            })?;
            let node = *hosts.get(e.node.as_str()).ok_or_else(|| {
                DagError::Schedule(format!(
                    "entry {i}: host {:?} is not in the data centre",
                    e.node
                ))
            })?;
            Ok(Placement {
                job: e.job as u32,
                task,
                node,
                start: e.start,
                end: e.end,
                slot_end: e.end,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Vec<Job>, DataCentre) {
        let job = Job::from_json(
            "j",
            r#"{"tasks":[{"id":"a","duration":10},{"id":"b","duration":10}],
                "edges":[{"from":"a","to":"b","bytes":100}]}"#,
        )
        .unwrap();
        let dc = DataCentre::from_json(
            "dc",
            r#"{"switches":[{"id":"core"},{"id":"l1","parent":"core","bandwidth":100},
            {"id":"l2","parent":"core","bandwidth":50}],
            "nodes":[{"host":"a","switch":"l1","speed":1},{"host":"b","switch":"l1","speed":2},
            {"host":"c","switch":"l2","speed":1}]}"#,
        )
        .unwrap();
        (vec![job], dc)
    }

    fn pl(task: u32, node: u32, start: f64, end: f64) -> Placement {
        Placement {
            job: 0,
            task,
            node,
            start,
            end,
            slot_end: end,
        }
    }

    #[test]
    fn accepts_a_well_formed_schedule_and_rejects_each_rule() {
        let (jobs, dc) = setup();
        // Same node: no transfer.
        check(&jobs, &dc, &[pl(0, 0, 0.0, 10.0), pl(1, 0, 10.0, 20.0)]).unwrap();
        // Across leaves: 100 bytes at 50 B/s = 2 s.
        check(&jobs, &dc, &[pl(0, 0, 0.0, 10.0), pl(1, 2, 12.0, 22.0)]).unwrap();
        let e = check(&jobs, &dc, &[pl(0, 0, 0.0, 10.0), pl(1, 2, 11.0, 21.0)]).unwrap_err();
        assert!(
            e.to_string().contains("before its input from task \"a\""),
            "{e}"
        );
        // Speed 2 halves the duration.
        let e = check(&jobs, &dc, &[pl(0, 1, 0.0, 10.0), pl(1, 1, 10.0, 15.0)]).unwrap_err();
        assert!(e.to_string().contains("duration/speed is 5 s"), "{e}");
        let e = check(&jobs, &dc, &[pl(0, 0, 0.0, 10.0)]).unwrap_err();
        assert!(e.to_string().contains("task \"b\" is not scheduled"), "{e}");
        // Overlap on one node (a second job on the same node).
        let jobs2 = vec![jobs[0].clone(), jobs[0].clone()];
        let mut s = vec![pl(0, 0, 0.0, 10.0), pl(1, 0, 10.0, 20.0)];
        s.push(Placement {
            job: 1,
            task: 0,
            node: 0,
            start: 5.0,
            end: 15.0,
            slot_end: 15.0,
        });
        s.push(Placement {
            job: 1,
            task: 1,
            node: 1,
            start: 30.0,
            end: 35.0,
            slot_end: 35.0,
        });
        let e = check(&jobs2, &dc, &s).unwrap_err();
        assert!(e.to_string().contains("node a runs"), "{e}");
    }

    #[test]
    fn utilisation_and_makespan() {
        let (_, dc) = setup();
        let m = metrics(
            &dc,
            &[
                pl(0, 0, 0.0, 10.0),
                pl(1, 2, 15.0, 20.0),
                pl(0, 2, 30.0, 40.0),
            ],
        );
        assert_eq!(m.makespan, 40.0);
        // a: 10/10; c: 15 busy of 15..40.
        assert!((m.utilisation - 0.8).abs() < 1e-12);
        assert_eq!(m.slot_utilisation, m.utilisation);
        // 25 s busy over 3 nodes x 40 s.
        assert!((m.utilisation_whole - 25.0 / 120.0).abs() < 1e-12);
        // Held slots count as busy; overlapping ones once.
        let mut held = pl(1, 2, 15.0, 20.0);
        held.slot_end = 30.0;
        let m = metrics(
            &dc,
            &[
                pl(0, 0, 0.0, 10.0),
                held,
                pl(0, 2, 25.0, 35.0),
                pl(1, 2, 40.0, 45.0),
            ],
        );
        // c: held 15..35 and 40..45 of 15..45.
        assert!((m.slot_utilisation - (1.0 + 25.0 / 30.0) / 2.0).abs() < 1e-12);
        assert!((m.utilisation - (1.0 + 20.0 / 30.0) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn utilisation_cut_at_a_time() {
        let (_, dc) = setup();
        let s = [
            pl(0, 0, 0.0, 10.0),
            pl(1, 2, 15.0, 20.0),
            pl(0, 2, 30.0, 40.0),
        ];
        // At or after the makespan: the whole measure.
        for until in [40.0, 100.0] {
            assert_eq!(
                utilisation_until(&dc, &s, until),
                metrics(&dc, &s).utilisation
            );
        }
        // c: 5 + 5 s busy of 15..35; a: 10 of 10.
        assert!((utilisation_until(&dc, &s, 35.0) - 0.75).abs() < 1e-12);
        // c has not started by 12: only a counts.
        assert_eq!(utilisation_until(&dc, &s, 12.0), 1.0);
    }
}
