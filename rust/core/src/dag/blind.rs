//! BLIND (Sect. 4, Alg. 4 and 5): a buddy-list view of the tree. The data
//! centre is cut at some depth; each abstract node (a subtree) keeps only a
//! counter of free nodes and its allocation and free events. Bulks of a
//! fixed job abstraction (alpha-similar durations) go to the abstract node
//! that finishes them first (Alg. 4, with allocation events shifted by -d),
//! and are then mapped down the tree best-fit (Alg. 5). When the schedule
//! misses the quality condition the cut moves one level down (refinement);
//! between jobs it moves one level up again (coarsening).
//!
//! A bulk is as many tasks as the abstract node has nodes free at the first
//! time any is free for the window (not a gang of all its nodes). Unless
//! [`PlanOptions::as_printed`], a task holds its node for its own run time
//! only and starts as soon as its own inputs are there and its node is free
//! (left shift within the node's free gap); as printed, it holds the bulk's
//! whole window. Not done: delayed allocation (Sect. 4.3).

use super::abstraction::{similar_duration, subtree_min_bandwidth};
use super::greedy::NodeFree;
use super::refine::{PlanOptions, Quality, Tracker, Undo};
use super::{DataCentre, Job, Placement};

/// The allocation and free events of one abstract node after `now`, each
/// of one node, as two sorted lists of times: the count of free nodes at any
/// time is then two binary searches.
#[derive(Clone, Debug, Default)]
pub struct Evts {
    pub alloc: Vec<f64>,
    pub free: Vec<f64>,
}

impl Evts {
    /// Free nodes throughout [is, is + d] given `base` free at `now`: allocations
    /// before is + d taken away (Alg. 4's shift by -d), frees up to is added.
    fn count(&self, base: i64, is: f64, d: f64) -> i64 {
        let a = self.alloc.partition_point(|&t| t < is + d);
        let f = self.free.partition_point(|&t| t <= is);
        base - a as i64 + f as i64
    }

    /// The earliest `t >= is` at which at least `m` nodes are counted free
    /// throughout [t, t + d] given `base` free at `now`: `is` or a free
    /// event. One merge of the two lists (the allocations before `t + d` only
    /// grow with `t`): O(events) where a count per free event was O(events
    /// log events), half of `spindle repro fisch`'s profile.
    fn first_fit(&self, base: i64, m: u32, is: f64, d: f64) -> f64 {
        let need = i64::from(m);
        if self.count(base, is, d) >= need {
            return is;
        }
        let mut f = self.free.partition_point(|&t| t <= is);
        let mut a = self.alloc.partition_point(|&t| t < is + d);
        while f < self.free.len() {
            let t = self.free[f];
            while f < self.free.len() && self.free[f] <= t {
                f += 1;
            }
            while a < self.alloc.len() && self.alloc[a] < t + d {
                a += 1;
            }
            if base - a as i64 + f as i64 >= need {
                return t;
            }
        }
        f64::INFINITY
    }
}

pub struct Blind<'a> {
    dc: &'a DataCentre,
    /// Per switch: compute nodes in the subtree, their minimal power, the
    /// smallest bandwidth inside, the free counter at `now` (A#) and the
    /// events after `now` sorted by time.
    count: Vec<u32>,
    power: Vec<f64>,
    inner: Vec<f64>,
    base: Vec<i64>,
    evts: Vec<Evts>,
    now: f64,
    /// Concrete free gaps, to pick the nodes of a bulk at dispatch (Alg. 5).
    free: Vec<NodeFree>,
    undo_evts: Undo<Evts>,
    undo_free: Undo<NodeFree>,
    undo_base: Vec<i64>,
    cut: u32,
    max_cut: u32,
    alpha: f64,
    quality: Quality,
    max_refinements: u32,
    tracker: Tracker,
    trial: Vec<Placement>,
    cands: Vec<u32>,
    picked: Vec<u32>,
    node_of: Vec<u32>,
    end_of: Vec<f64>,
    as_printed: bool,
}

impl<'a> Blind<'a> {
    pub fn new(dc: &'a DataCentre, opts: &PlanOptions) -> Blind<'a> {
        let ns = dc.switch_ids.len();
        let mut count = vec![0u32; ns];
        let mut power = vec![f64::INFINITY; ns];
        for n in 0..dc.nodes() {
            let mut s = Some(dc.node_switch[n]);
            while let Some(x) = s {
                count[x as usize] += 1;
                power[x as usize] = power[x as usize].min(dc.speed[n]);
                s = dc.parent[x as usize];
            }
        }
        let max_cut = dc
            .node_switch
            .iter()
            .map(|&s| dc.depth[s as usize])
            .max()
            .unwrap_or(0);
        Blind {
            dc,
            base: count.iter().map(|&c| c as i64).collect(),
            count,
            power,
            inner: subtree_min_bandwidth(dc),
            evts: vec![Evts::default(); ns],
            now: 0.0,
            free: vec![NodeFree::new(); dc.nodes()],
            undo_evts: Undo::new(ns),
            undo_free: Undo::new(dc.nodes()),
            undo_base: Vec::new(),
            cut: 0,
            max_cut,
            alpha: opts.blind_alpha,
            quality: opts.quality,
            max_refinements: opts.max_refinements,
            tracker: Tracker::new(dc.nodes()),
            trial: Vec::new(),
            cands: Vec::new(),
            picked: Vec::new(),
            node_of: Vec::new(),
            end_of: Vec::new(),
            as_printed: opts.as_printed,
        }
    }

    /// Alg. 4: the earliest `i_s >= start` such that `m` nodes of the
    /// subtree of `s` are free in [i_s, i_s + d], by counting events. The
    /// count only grows at a free event, so the answer is `start` or one.
    pub fn find(&self, s: u32, m: u32, d: f64, start: f64) -> f64 {
        self.evts[s as usize].first_fit(self.base[s as usize], m, start.max(self.now), d)
    }

    /// Nodes of the subtree of `s` counted free throughout [is, is + d].
    fn count_at(&self, s: u32, is: f64, d: f64) -> i64 {
        self.evts[s as usize].count(self.base[s as usize], is, d)
    }

    /// Alg. 5: picks `m` concrete nodes free in [is, is + d] under `s`, into
    /// `self.picked`; forwards to the best-fitting child that can take the
    /// whole bulk, else splits it. Returns the switch where it was performed.
    fn allocate(&mut self, s: u32, m: u32, is: f64, d: f64) -> u32 {
        if m == 0 {
            return s;
        }
        let dc = self.dc;
        let mut kids: Vec<(i64, u32)> = dc.children[s as usize]
            .iter()
            .filter(|&&c| self.count[c as usize] > 0)
            .map(|&c| (self.count_at(c, is, d), c))
            .collect();
        if let Some(&(_, c)) = kids
            .iter()
            .filter(|(a, _)| *a >= m as i64)
            .min_by_key(|(a, _)| *a)
        {
            return self.allocate(c, m, is, d);
        }
        let mut left = m;
        for &n in &dc.switch_nodes[s as usize] {
            if left == 0 {
                break;
            }
            if self.free[n as usize].fits(is, d) && !self.picked.contains(&n) {
                self.picked.push(n);
                left -= 1;
            }
        }
        kids.sort_by_key(|&(a, _)| std::cmp::Reverse(a));
        for (a, c) in kids {
            if left == 0 {
                break;
            }
            let take = (a.max(0) as u32).min(left);
            if take > 0 {
                let before = self.picked.len();
                self.allocate(c, take, is, d);
                left -= (self.picked.len() - before) as u32;
            }
        }
        s
    }

    fn lca(&self, mut x: u32, mut y: u32) -> u32 {
        let dc = self.dc;
        while dc.depth[x as usize] > dc.depth[y as usize] {
            x = dc.parent[x as usize].unwrap_or(x);
        }
        while dc.depth[y as usize] > dc.depth[x as usize] {
            y = dc.parent[y as usize].unwrap_or(y);
        }
        while x != y {
            x = dc.parent[x as usize].unwrap_or(x);
            y = dc.parent[y as usize].unwrap_or(y);
        }
        x
    }

    /// Smallest bandwidth between any nodes of the subtrees of `x` and `y`.
    fn bw(&self, x: u32, y: u32) -> f64 {
        self.inner[x as usize]
            .min(self.inner[y as usize])
            .min(self.dc.switch_path_bandwidth(x, y))
    }

    /// Folds the events up to `now` into the counters.
    fn advance(&mut self, now: f64) {
        self.now = self.now.max(now);
        for (ev, base) in self.evts.iter_mut().zip(&mut self.base) {
            let a = ev.alloc.partition_point(|&t| t <= self.now);
            let f = ev.free.partition_point(|&t| t <= self.now);
            *base += f as i64 - a as i64;
            ev.alloc.drain(..a);
            ev.free.drain(..f);
        }
    }

    /// Schedules job `j`; returns the refinement steps taken.
    pub fn schedule_job(
        &mut self,
        j: u32,
        job: &Job,
        release: f64,
        out: &mut Vec<Placement>,
    ) -> u32 {
        self.advance(release);
        self.undo_base = self.base.clone();
        let blocks = similar_duration(job, self.alpha);
        let saved_tracker = self.tracker.clone();
        let start_cut = self.cut;
        let mut best: Option<(f64, u32)> = None;
        let mut cut = start_cut;
        let mut steps = 0;
        loop {
            self.run(j, job, &blocks, release, cut);
            let (ok, score) = self
                .tracker
                .judge(self.quality, self.dc, job, release, &self.trial);
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, cut));
            }
            if ok || cut >= self.max_cut || steps >= self.max_refinements {
                break;
            }
            self.rollback(&saved_tracker);
            cut += 1;
            steps += 1;
        }
        if let Some((_, c)) = best {
            if c != cut {
                self.rollback(&saved_tracker);
                self.run(j, job, &blocks, release, c);
            }
            cut = c;
        }
        self.undo_evts.commit();
        self.undo_free.commit();
        // Coarsening between jobs: start the next one level up.
        self.cut = cut.saturating_sub(1);
        out.extend_from_slice(&self.trial);
        steps
    }

    fn rollback(&mut self, tracker: &Tracker) {
        self.undo_evts.restore(&mut self.evts);
        self.undo_free.restore(&mut self.free);
        self.base.clone_from(&self.undo_base);
        self.tracker = tracker.clone();
    }

    /// The abstract nodes at cut depth `cut`.
    fn cut_nodes(&mut self, cut: u32) {
        let dc = self.dc;
        self.cands.clear();
        let mut seen = vec![false; dc.switch_ids.len()];
        for &s0 in &dc.node_switch {
            let mut s = s0;
            while dc.depth[s as usize] > cut {
                s = dc.parent[s as usize].unwrap_or(s);
            }
            if !seen[s as usize] {
                seen[s as usize] = true;
                self.cands.push(s);
            }
        }
    }

    fn run(
        &mut self,
        j: u32,
        job: &Job,
        blocks: &super::abstraction::Blocks,
        release: f64,
        cut: u32,
    ) {
        self.trial.clear();
        self.node_of.clear();
        self.node_of.resize(job.len(), u32::MAX);
        self.end_of.clear();
        self.end_of.resize(job.len(), 0.0);
        self.cut_nodes(cut);
        let dc = self.dc;
        let mut fin = vec![release; blocks.len()];
        let mut loc = vec![dc.root; blocks.len()];
        let cands = std::mem::take(&mut self.cands);
        for blk in 0..blocks.len() {
            let mut members: Vec<u32> = blocks.members[blk].clone();
            // Longest first: a bulk's window fits its longest task.
            members.sort_by(|&a, &b| job.duration[b as usize].total_cmp(&job.duration[a as usize]));
            let mut pos = 0;
            let mut bfin = f64::NEG_INFINITY;
            let mut bloc: Option<u32> = None;
            while pos < members.len() {
                let left = (members.len() - pos) as u32;
                let dmax = job.duration[members[pos] as usize];
                let mut choice: Option<(f64, u32, u32, f64, f64)> = None;
                for &x in &cands {
                    let m = left.min(self.count[x as usize]);
                    let b = blocks.preds[blk].iter().fold(release, |acc, &(p, bytes)| {
                        let bw = self.bw(loc[p as usize], x);
                        acc.max(fin[p as usize] + if bytes > 0.0 { bytes / bw } else { 0.0 })
                    });
                    let d = dmax / self.power[x as usize];
                    // The bulk is what the abstract node has free first, not
                    // a gang of all its nodes at once (which waits until every
                    // node is free: 5 points of utilisation on C0).
                    let is = self.find(x, 1, d, b);
                    let m = m.min(self.count_at(x, is, d).max(1) as u32);
                    let end = is + d;
                    let better = match choice {
                        None => true,
                        Some((e, _, bm, ..)) => end < e || (end == e && m > bm),
                    };
                    if better {
                        choice = Some((end, x, m, is, d));
                    }
                }
                let Some((_, x, m, is, d)) = choice else {
                    break;
                };
                self.picked.clear();
                self.allocate(x, m, is, d);
                let got = self.picked.len();
                let mut picked = std::mem::take(&mut self.picked);
                // Counting is pessimistic, so this only fills a gap if the
                // tree gave fewer nodes than counted: earliest fit anywhere.
                while picked.len() < m as usize {
                    let n = (0..dc.nodes() as u32)
                        .filter(|n| !picked.contains(n))
                        .min_by(|&a, &b| {
                            let fa = self.free[a as usize].earliest(is, d);
                            let fb = self.free[b as usize].earliest(is, d);
                            fa.total_cmp(&fb)
                        });
                    match n {
                        Some(n) => picked.push(n),
                        None => break,
                    }
                }
                if got < m as usize {
                    tracing::warn!(got, m, "blind: fewer free nodes than counted");
                }
                for (k, &n) in picked.iter().enumerate() {
                    let t = members[pos + k];
                    let dur = job.duration[t as usize] / dc.speed[n as usize];
                    let free = &self.free[n as usize];
                    let (mut start, held) = if self.as_printed && free.fits(is, d) {
                        // The node is allocated for the bulk's whole window.
                        (is, d)
                    } else if free.fits(is, dur) {
                        (is, dur)
                    } else {
                        (free.earliest(is, dur), dur)
                    };
                    if !self.as_printed {
                        // Left shift: from the start of the node's free gap
                        // once the task's own inputs are there (never after is).
                        let ready =
                            job.preds[t as usize]
                                .iter()
                                .fold(release, |acc, &(q, bytes)| {
                                    let (qn, qe) =
                                        (self.node_of[q as usize], self.end_of[q as usize]);
                                    acc.max(qe + dc.transfer(qn, n, bytes))
                                });
                        start = start.min(ready.max(free.gap_start(start, dur)));
                    }
                    self.node_of[t as usize] = n;
                    self.end_of[t as usize] = start + dur;
                    self.undo_free.touch(n as usize, &self.free);
                    self.free[n as usize].take(start, held);
                    let p = Placement {
                        job: j,
                        task: t,
                        node: n,
                        start,
                        end: start + dur,
                        slot_end: start + held,
                    };
                    self.add_events(n, start, start + held);
                    self.tracker.add(&p);
                    self.trial.push(p);
                    bfin = bfin.max(p.end);
                    // The block's location: the smallest subtree holding its tasks.
                    let leaf = dc.node_switch[n as usize];
                    bloc = Some(bloc.map_or(leaf, |l| self.lca(l, leaf)));
                }
                pos += picked.len();
                picked.clear();
                self.picked = picked;
            }
            fin[blk] = bfin.max(release);
            loc[blk] = bloc.unwrap_or(dc.root);
        }
        self.cands = cands;
    }

    fn add_events(&mut self, n: u32, start: f64, end: f64) {
        let mut s = Some(self.dc.node_switch[n as usize]);
        while let Some(x) = s {
            self.undo_evts.touch(x as usize, &self.evts);
            let ev = &mut self.evts[x as usize];
            let i = ev.alloc.partition_point(|&t| t <= start);
            ev.alloc.insert(i, start);
            let i = ev.free.partition_point(|&t| t <= end);
            ev.free.insert(i, end);
            s = self.dc.parent[x as usize];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Alg. 4's search as written: the count at `is`, then at every free
    /// event after it.
    fn by_scan(ev: &Evts, base: i64, m: u32, is: f64, d: f64) -> f64 {
        if ev.count(base, is, d) >= i64::from(m) {
            return is;
        }
        let from = ev.free.partition_point(|&t| t <= is);
        ev.free[from..]
            .iter()
            .copied()
            .find(|&t| ev.count(base, t, d) >= i64::from(m))
            .unwrap_or(f64::INFINITY)
    }

    proptest! {
        #[test]
        fn first_fit_is_the_scan(
            mut alloc in proptest::collection::vec(0u8..40, 0..30),
            mut free in proptest::collection::vec(0u8..40, 0..30),
            base in 0i64..6,
            m in 1u32..5,
            is in 0u8..40,
            d in 0u8..12,
        ) {
            alloc.sort_unstable();
            free.sort_unstable();
            let ev = Evts {
                alloc: alloc.iter().map(|&t| f64::from(t)).collect(),
                free: free.iter().map(|&t| f64::from(t)).collect(),
            };
            let (is, d) = (f64::from(is), f64::from(d));
            prop_assert_eq!(ev.first_fit(base, m, is, d), by_scan(&ev, base, m, is, d));
        }
    }
}
