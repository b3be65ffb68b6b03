//! The baseline of Sect. 5.1: greedy list scheduling on the concrete job and
//! data centre. Each ready task goes to the node where it finishes earliest,
//! using any idle gap long enough (insertion).

use super::{DataCentre, Job, Placement};

/// Free intervals of one node, sorted and disjoint; the last is endless.
#[derive(Clone, Debug)]
pub(crate) struct NodeFree {
    pub iv: Vec<(f64, f64)>,
}

impl NodeFree {
    pub fn new() -> NodeFree {
        NodeFree {
            iv: vec![(0.0, f64::INFINITY)],
        }
    }

    /// Earliest start >= `b` of a gap of length `d`.
    pub fn earliest(&self, b: f64, d: f64) -> f64 {
        // Ends are sorted too: skip the gaps that end before b + d.
        let from = self.iv.partition_point(|&(_, e)| e < b + d);
        for &(s, e) in &self.iv[from..] {
            let st = s.max(b);
            if st + d <= e {
                return st;
            }
        }
        f64::INFINITY
    }

    /// Start of the free gap that holds [s, s + d) (s itself if none does).
    pub fn gap_start(&self, s: f64, d: f64) -> f64 {
        let i = self.iv.partition_point(|&(_, e)| e < s + d);
        match self.iv.get(i) {
            Some(&(a, _)) if a <= s => a,
            _ => s,
        }
    }

    /// Whether [s, s + d) lies in one free gap.
    pub fn fits(&self, s: f64, d: f64) -> bool {
        let i = self.iv.partition_point(|&(_, e)| e < s + d);
        self.iv.get(i).is_some_and(|&(a, _)| a <= s)
    }

    /// Marks [s, s + d) busy; it must lie in one gap.
    pub fn take(&mut self, s: f64, d: f64) {
        let i = self.iv.partition_point(|&(_, e)| e < s + d);
        let Some(&(a, e)) = self.iv.get(i) else {
            return;
        };
        let mut repl: [(f64, f64); 2] = [(0.0, 0.0); 2];
        let mut k = 0;
        if s > a {
            repl[k] = (a, s);
            k += 1;
        }
        if s + d < e {
            repl[k] = (s + d, e);
            k += 1;
        }
        self.iv.splice(i..=i, repl[..k].iter().copied());
    }
}

/// Greedy earliest-finish scheduler; keeps the free gaps of every node.
pub struct Greedy<'a> {
    dc: &'a DataCentre,
    free: Vec<NodeFree>,
    ready: Vec<f64>,
    placed: Vec<(u32, f64)>,
}

impl<'a> Greedy<'a> {
    pub fn new(dc: &'a DataCentre) -> Greedy<'a> {
        Greedy {
            dc,
            free: vec![NodeFree::new(); dc.nodes()],
            ready: vec![0.0; dc.nodes()],
            placed: Vec::new(),
        }
    }

    /// Schedules job number `j`, released at `release`, after the earlier ones.
    pub fn schedule_job(&mut self, j: u32, job: &Job, release: f64, out: &mut Vec<Placement>) {
        let dc = self.dc;
        self.placed.clear();
        self.placed.resize(job.len(), (0, 0.0));
        for &t in &job.topo {
            let t = t as usize;
            // Input-ready time on every node.
            self.ready.iter_mut().for_each(|r| *r = release);
            for &(q, bytes) in &job.preds[t] {
                let (qn, qend) = self.placed[q as usize];
                for (n, r) in self.ready.iter_mut().enumerate() {
                    *r = r.max(qend + dc.transfer(qn, n as u32, bytes));
                }
            }
            let mut best = (f64::INFINITY, f64::INFINITY, 0usize);
            for n in 0..dc.nodes() {
                let d = job.duration[t] / dc.speed[n];
                let s = self.free[n].earliest(self.ready[n], d);
                if s + d < best.0 || (s + d == best.0 && s < best.1) {
                    best = (s + d, s, n);
                }
            }
            let (end, start, n) = best;
            self.free[n].take(start, end - start);
            self.placed[t] = (n as u32, end);
            out.push(Placement {
                job: j,
                task: t as u32,
                node: n as u32,
                start,
                end,
                slot_end: end,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_free_take_and_fit() {
        let mut f = NodeFree::new();
        f.take(10.0, 5.0);
        assert_eq!(f.iv, vec![(0.0, 10.0), (15.0, f64::INFINITY)]);
        assert_eq!(f.earliest(0.0, 10.0), 0.0);
        assert_eq!(f.earliest(1.0, 10.0), 15.0);
        assert!(f.fits(2.0, 8.0));
        assert!(!f.fits(2.0, 9.0));
    }
}
