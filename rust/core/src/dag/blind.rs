//! BLIND (Sect. 4, Alg. 4 and 5): a buddy-list view of the tree. The data
//! centre is cut at some depth; each abstract node (a subtree) keeps only a
//! counter of free nodes and its allocation and free events. Bulks of a
//! fixed job abstraction (alpha-similar durations) go to the abstract node
//! that finishes them first (Alg. 4, with allocation events shifted by -d),
//! and are then mapped down the tree best-fit (Alg. 5). When the schedule
//! misses the quality condition the cut moves one level down (refinement);
//! between jobs it moves one level up again (coarsening).

use super::abstraction::{similar_duration, subtree_min_bandwidth};
use super::greedy::NodeFree;
use super::plan::{PlanOptions, Quality, Tracker, Undo};
use super::{DataCentre, Job, Placement};

/// An allocation or free event of `size` nodes at time `t`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ev {
    pub t: f64,
    pub alloc: bool,
    pub size: u32,
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
    evts: Vec<Vec<Ev>>,
    now: f64,
    /// Concrete free gaps, to pick the nodes of a bulk at dispatch (Alg. 5).
    free: Vec<NodeFree>,
    undo_evts: Undo<Vec<Ev>>,
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
            evts: vec![Vec::new(); ns],
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
        }
    }

    /// Alg. 4: the earliest `i_s >= start` such that `m` nodes of the
    /// subtree of `s` are free in [i_s, i_s + d], by counting events.
    pub fn find(&self, s: u32, m: u32, d: f64, start: f64) -> f64 {
        let evts = &self.evts[s as usize];
        let prio = |e: &Ev| if e.alloc { e.t - d } else { e.t };
        let mut c = self.base[s as usize];
        let mut is = start.max(self.now);
        for e in evts {
            if prio(e) < is {
                c += if e.alloc {
                    -(e.size as i64)
                } else {
                    e.size as i64
                };
            }
        }
        // The rest in priority order: allocations and frees are each sorted.
        let (mut ia, mut iff) = (0usize, 0usize);
        while c < m as i64 {
            while ia < evts.len() && (!evts[ia].alloc || prio(&evts[ia]) < is) {
                ia += 1;
            }
            while iff < evts.len() && (evts[iff].alloc || prio(&evts[iff]) < is) {
                iff += 1;
            }
            let take_alloc = match (evts.get(ia), evts.get(iff)) {
                (Some(a), Some(f)) => prio(a) < prio(f),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return f64::INFINITY,
            };
            let e = if take_alloc { &evts[ia] } else { &evts[iff] };
            let p = prio(e);
            if take_alloc {
                c -= e.size as i64;
                ia += 1;
            } else {
                c += e.size as i64;
                iff += 1;
            }
            is = is.max(p);
        }
        is
    }

    /// Nodes of the subtree of `s` counted free throughout [is, is + d].
    fn count_at(&self, s: u32, is: f64, d: f64) -> i64 {
        let mut c = self.base[s as usize];
        for e in &self.evts[s as usize] {
            if e.alloc && e.t < is + d {
                c -= e.size as i64;
            } else if !e.alloc && e.t <= is {
                c += e.size as i64;
            }
        }
        c
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
        for s in 0..self.evts.len() {
            let k = self.evts[s].partition_point(|e| e.t <= self.now);
            for e in self.evts[s].drain(..k) {
                self.base[s] += if e.alloc {
                    -(e.size as i64)
                } else {
                    e.size as i64
                };
            }
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
                    let is = self.find(x, m, d, b);
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
                    let start = if self.free[n as usize].fits(is, dur) {
                        is
                    } else {
                        self.free[n as usize].earliest(is, dur)
                    };
                    self.undo_free.touch(n as usize, &self.free);
                    self.free[n as usize].take(start, dur);
                    let p = Placement {
                        job: j,
                        task: t,
                        node: n,
                        start,
                        end: start + dur,
                    };
                    self.add_events(n, start, start + dur);
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
            for e in [
                Ev {
                    t: start,
                    alloc: true,
                    size: 1,
                },
                Ev {
                    t: end,
                    alloc: false,
                    size: 1,
                },
            ] {
                let i = ev.partition_point(|o| o.t <= e.t);
                ev.insert(i, e);
            }
            s = self.dc.parent[x as usize];
        }
    }
}
