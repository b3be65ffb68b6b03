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
//! whole window. With [`PlanOptions::blind_delayed`], Sect. 4.3's delayed
//! allocation: bulks are booked on the counters (every instant of the
//! window, or Alg. 4's condition under the coarsening view) and get their
//! nodes at dispatch, when the next job's release passes their start.

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

    /// Delayed allocation (Sect. 4.3): the fewest nodes free at any instant
    /// of [is, is + d) given `base` free at `now` (allocations at their own
    /// time, not shifted by -d).
    fn min_free(&self, base: i64, is: f64, d: f64) -> i64 {
        let mut a = self.alloc.partition_point(|&t| t <= is);
        let mut f = self.free.partition_point(|&t| t <= is);
        let mut low = base - a as i64 + f as i64;
        loop {
            let t = self.next_after(a, f);
            if t >= is + d {
                return low;
            }
            (a, f) = self.apply(a, f, t);
            low = low.min(base - a as i64 + f as i64);
        }
    }

    /// Delayed allocation: the earliest `t >= is` with at least `m` nodes
    /// free at every instant of [t, t + d). The answer is `is` or a free event.
    fn first_window(&self, base: i64, m: u32, is: f64, d: f64) -> f64 {
        let need = i64::from(m);
        let mut a = self.alloc.partition_point(|&t| t <= is);
        let mut f = self.free.partition_point(|&t| t <= is);
        let mut cand = (base - a as i64 + f as i64 >= need).then_some(is);
        loop {
            let t = self.next_after(a, f);
            if let Some(s) = cand {
                if t >= s + d {
                    return s;
                }
            }
            if t == f64::INFINITY {
                return f64::INFINITY;
            }
            (a, f) = self.apply(a, f, t);
            if base - a as i64 + (f as i64) < need {
                cand = None;
            } else if cand.is_none() {
                cand = Some(t);
            }
        }
    }

    /// The next event time after the first `a` allocations and `f` frees.
    fn next_after(&self, a: usize, f: usize) -> f64 {
        let ta = self.alloc.get(a).copied().unwrap_or(f64::INFINITY);
        let tf = self.free.get(f).copied().unwrap_or(f64::INFINITY);
        ta.min(tf)
    }

    /// Past every event at `t`.
    fn apply(&self, mut a: usize, mut f: usize, t: f64) -> (usize, usize) {
        while a < self.alloc.len() && self.alloc[a] <= t {
            a += 1;
        }
        while f < self.free.len() && self.free[f] <= t {
            f += 1;
        }
        (a, f)
    }

    /// Removes `k` events at `t` from `v` (a booking replaced at dispatch).
    fn remove(v: &mut Vec<f64>, t: f64, k: usize) {
        let i = v.partition_point(|&x| x < t);
        let j = (i + k).min(v.len());
        v.drain(i..j);
    }
}

/// Diagnostics of one task's bulk (see [`Blind::trace`]).
#[derive(Clone, Copy, Debug)]
pub struct TaskTrace {
    pub job: u32,
    pub task: u32,
    /// When the bulk's inputs were there by the abstraction (the predecessor
    /// blocks' last end plus the transfer at the smallest bandwidth).
    pub block_ready: f64,
    /// The bulk's start by the counters (Alg. 4, or the delayed search).
    pub start: f64,
    /// The earliest start on a node of the chosen subtree, and on any node,
    /// by the concrete free time when the bulk was placed.
    pub free_in_subtree: f64,
    pub free_anywhere: f64,
}

/// The trace of committed jobs and of the trial under way.
#[derive(Debug, Default)]
pub struct Trace {
    pub tasks: Vec<TaskTrace>,
    /// Delayed allocation: bookings dispatched, those short of free nodes
    /// at dispatch, and tasks started after their booked start.
    pub dispatched: usize,
    pub short: usize,
    pub late: usize,
    trial: Vec<TaskTrace>,
}

/// Delayed allocation: `tasks` of job `job` booked on the abstract node `x`
/// for [is, is + d), mapped to nodes at dispatch.
#[derive(Clone, Debug)]
struct Booking {
    job: u32,
    x: u32,
    is: f64,
    d: f64,
    tasks: Vec<u32>,
}

/// A job with bookings not yet dispatched: where its tasks went so far.
struct Flight {
    job: Job,
    release: f64,
    node_of: Vec<u32>,
    end_of: Vec<f64>,
    left: usize,
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
    /// The cut the last job was scheduled at (before coarsening).
    last_cut: u32,
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
    /// Delayed allocation (Sect. 4.3): bookings on the counters, nodes
    /// picked at dispatch (when the next job's release passes the start).
    delayed: bool,
    pending: Vec<Booking>,
    trial_book: Vec<Booking>,
    flights: Vec<Option<Flight>>,
    /// Placements dispatched, not yet handed out.
    done: Vec<Placement>,
    /// Compute nodes of each switch's subtree.
    sub: Vec<Vec<u32>>,
    /// Bookings pending at each switch and strictly below it.
    pending_at: Vec<i64>,
    pending_below: Vec<i64>,
    /// Diagnostics, when asked for ([`Blind::trace`]).
    pub trace: Option<Trace>,
}

impl<'a> Blind<'a> {
    pub fn new(dc: &'a DataCentre, opts: &PlanOptions) -> Blind<'a> {
        let ns = dc.switch_ids.len();
        let mut count = vec![0u32; ns];
        let mut power = vec![f64::INFINITY; ns];
        let mut sub = vec![Vec::new(); ns];
        for n in 0..dc.nodes() {
            let mut s = Some(dc.node_switch[n]);
            while let Some(x) = s {
                count[x as usize] += 1;
                sub[x as usize].push(n as u32);
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
            last_cut: 0,
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
            delayed: opts.blind_delayed,
            pending: Vec::new(),
            trial_book: Vec::new(),
            flights: Vec::new(),
            done: Vec::new(),
            sub,
            trace: None,
            pending_at: vec![0; ns],
            pending_below: vec![0; ns],
        }
    }

    /// Delayed allocation: the earliest `i_s >= start` such that `s` and
    /// every switch above it have `m` nodes free at every instant of
    /// [i_s, i_s + d) (bookings at `s` are not seen by its children).
    fn find_delayed(&self, s: u32, m: u32, d: f64, start: f64) -> f64 {
        let weak = self.coarsening_view(s);
        let mut is = start.max(self.now);
        loop {
            let mut moved = false;
            let mut y = Some(s);
            while let Some(x) = y {
                let (ev, base) = (&self.evts[x as usize], self.base[x as usize]);
                let t = if weak {
                    ev.first_fit(base, m, is, d)
                } else {
                    ev.first_window(base, m, is, d)
                };
                if t > is {
                    is = t;
                    moved = true;
                }
                y = self.dc.parent[x as usize];
            }
            if !moved || !is.is_finite() {
                return is;
            }
        }
    }

    /// Delayed allocation: nodes free at every instant of [is, is + d) in
    /// `s` and every switch above it.
    fn min_free_up(&self, s: u32, is: f64, d: f64) -> i64 {
        let weak = self.coarsening_view(s);
        let mut low = i64::MAX;
        let mut y = Some(s);
        while let Some(x) = y {
            let (ev, base) = (&self.evts[x as usize], self.base[x as usize]);
            low = low.min(if weak {
                ev.count(base, is, d)
            } else {
                ev.min_free(base, is, d)
            });
            y = self.dc.parent[x as usize];
        }
        low
    }

    /// Sect. 4.3: with bookings pending at another level of the tree in or
    /// above `s` (the coarsening view), the counters at `s` do not see them
    /// all, so the weaker condition (Alg. 4's -d shift) is used.
    fn coarsening_view(&self, s: u32) -> bool {
        if self.pending_below[s as usize] > 0 {
            return true;
        }
        let mut y = self.dc.parent[s as usize];
        while let Some(x) = y {
            if self.pending_at[x as usize] > 0 {
                return true;
            }
            y = self.dc.parent[x as usize];
        }
        false
    }

    /// Counts a booking at `x` as pending (`by` = 1) or dispatched (-1).
    fn mark_pending(&mut self, x: u32, by: i64) {
        self.pending_at[x as usize] += by;
        let mut y = self.dc.parent[x as usize];
        while let Some(a) = y {
            self.pending_below[a as usize] += by;
            y = self.dc.parent[a as usize];
        }
    }

    /// Nodes of the subtree of `s` free in [is, is + d) (delayed allocation).
    fn fit_count(&self, s: u32, is: f64, d: f64) -> i64 {
        self.sub[s as usize]
            .iter()
            .filter(|&&n| self.free[n as usize].fits(is, d))
            .count() as i64
    }

    /// Books `m` nodes of `x` for [is, is + d): counters of `x` and above.
    fn book(&mut self, x: u32, m: u32, is: f64, d: f64) {
        let mut y = Some(x);
        while let Some(s) = y {
            self.undo_evts.touch(s as usize, &self.evts);
            let ev = &mut self.evts[s as usize];
            let i = ev.alloc.partition_point(|&t| t <= is);
            ev.alloc.splice(i..i, std::iter::repeat_n(is, m as usize));
            let i = ev.free.partition_point(|&t| t <= is + d);
            ev.free
                .splice(i..i, std::iter::repeat_n(is + d, m as usize));
            y = self.dc.parent[s as usize];
        }
    }

    /// Dispatches the bookings that start before `until`, earliest first:
    /// each bulk goes to the nodes of its abstract node free for its window
    /// now that every earlier booking has its nodes (Alg. 5 on the concrete
    /// free time), and its tasks are left-shifted as without delay.
    fn dispatch(&mut self, until: f64) {
        self.pending.sort_by(|a, b| a.is.total_cmp(&b.is));
        let k = self.pending.partition_point(|b| b.is < until);
        let batch: Vec<Booking> = self.pending.drain(..k).collect();
        for bk in batch {
            self.dispatch_one(bk);
        }
        // Dispatch happens between jobs: nothing here is to be undone.
        self.undo_evts.commit();
        self.undo_free.commit();
    }

    fn dispatch_one(&mut self, bk: Booking) {
        let dc = self.dc;
        self.mark_pending(bk.x, -1);
        let m = bk.tasks.len();
        let mut y = Some(bk.x);
        while let Some(s) = y {
            let ev = &mut self.evts[s as usize];
            Evts::remove(&mut ev.alloc, bk.is, m);
            Evts::remove(&mut ev.free, bk.is + bk.d, m);
            y = dc.parent[s as usize];
        }
        self.picked.clear();
        self.allocate(bk.x, m as u32, bk.is, bk.d);
        let mut picked = std::mem::take(&mut self.picked);
        if let Some(tr) = self.trace.as_mut() {
            tr.dispatched += 1;
            tr.short += usize::from(picked.len() < m);
        }
        if picked.len() < m {
            tracing::debug!(
                got = picked.len(),
                m,
                "blind: booking short of nodes at dispatch"
            );
        }
        while picked.len() < m {
            let n = (0..dc.nodes() as u32)
                .filter(|n| !picked.contains(n))
                .min_by(|&a, &b| {
                    let fa = self.free[a as usize].earliest(bk.is, bk.d);
                    let fb = self.free[b as usize].earliest(bk.is, bk.d);
                    fa.total_cmp(&fb)
                });
            match n {
                Some(n) => picked.push(n),
                None => break,
            }
        }
        let Some(mut fl) = self.flights.get_mut(bk.job as usize).and_then(Option::take) else {
            return;
        };
        for (&t, &n) in bk.tasks.iter().zip(&picked) {
            let dur = fl.job.duration[t as usize] / dc.speed[n as usize];
            let free = &self.free[n as usize];
            let ready = fl.job.preds[t as usize]
                .iter()
                .fold(fl.release, |acc, &(q, bytes)| {
                    let (qn, qe) = (fl.node_of[q as usize], fl.end_of[q as usize]);
                    acc.max(qe + dc.transfer(qn, n, bytes))
                });
            let start = if ready > bk.is {
                // An input came late (a booking short of nodes upstream).
                free.earliest(ready, dur)
            } else {
                let s = if free.fits(bk.is, dur) {
                    bk.is
                } else {
                    free.earliest(bk.is, dur)
                };
                s.min(ready.max(free.gap_start(s, dur)))
            };
            if let Some(tr) = self.trace.as_mut() {
                tr.late += usize::from(start > bk.is);
            }
            self.free[n as usize].take(start, dur);
            self.add_events(n, start, start + dur);
            let p = Placement {
                job: bk.job,
                task: t,
                node: n,
                start,
                end: start + dur,
                slot_end: start + dur,
            };
            self.tracker.add(&p);
            self.done.push(p);
            fl.node_of[t as usize] = n;
            fl.end_of[t as usize] = start + dur;
            fl.left -= 1;
        }
        picked.clear();
        self.picked = picked;
        if fl.left > 0 {
            self.flights[bk.job as usize] = Some(fl);
        }
    }

    /// Hands out what is still booked (delayed allocation); a no-op
    /// otherwise. Call after the last job.
    pub fn finish(&mut self, out: &mut Vec<Placement>) {
        if self.delayed {
            self.dispatch(f64::INFINITY);
            out.append(&mut self.done);
        }
    }

    /// The depth of the cut the last job was scheduled at.
    pub fn last_cut(&self) -> u32 {
        self.last_cut
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
            .map(|&c| {
                // Delayed: at dispatch the concrete free time counts, less
                // what the child's own pending bookings need (a booking of a
                // coarser cut must not take the nodes a finer one counted on).
                let a = if self.delayed {
                    let booked = self.evts[c as usize].min_free(self.base[c as usize], is, d);
                    self.fit_count(c, is, d).min(booked)
                } else {
                    self.count_at(c, is, d)
                };
                (a, c)
            })
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
        if self.delayed {
            self.dispatch(now);
        }
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
        out.append(&mut self.done);
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
        self.last_cut = cut;
        if let Some(tr) = self.trace.as_mut() {
            tr.tasks.append(&mut tr.trial);
        }
        // Coarsening between jobs: start the next one level up.
        self.cut = cut.saturating_sub(1);
        if self.delayed {
            let n = job.len();
            if self.flights.len() <= j as usize {
                self.flights.resize_with(j as usize + 1, || None);
            }
            self.flights[j as usize] = Some(Flight {
                job: job.clone(),
                release,
                node_of: vec![u32::MAX; n],
                end_of: vec![release; n],
                left: n,
            });
            for i in 0..self.trial_book.len() {
                self.mark_pending(self.trial_book[i].x, 1);
            }
            self.pending.append(&mut self.trial_book);
        } else {
            out.extend_from_slice(&self.trial);
        }
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
        self.trial_book.clear();
        if let Some(tr) = self.trace.as_mut() {
            tr.trial.clear();
        }
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
                let mut choice: Option<(f64, u32, u32, f64, f64, f64)> = None;
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
                    let (is, m) = if self.delayed {
                        let is = self.find_delayed(x, 1, d, b);
                        (is, m.min(self.min_free_up(x, is, d).max(1) as u32))
                    } else {
                        let is = self.find(x, 1, d, b);
                        (is, m.min(self.count_at(x, is, d).max(1) as u32))
                    };
                    let end = is + d;
                    let better = match choice {
                        None => true,
                        Some((e, _, bm, ..)) => end < e || (end == e && m > bm),
                    };
                    if better {
                        choice = Some((end, x, m, is, d, b));
                    }
                }
                let Some((_, x, m, is, d, b)) = choice else {
                    break;
                };
                if let Some(tr) = self.trace.as_mut() {
                    // Diagnostics: the earliest start the concrete free time
                    // allows, in the chosen subtree and anywhere.
                    let dmax = job.duration[members[pos] as usize];
                    let early = |ns: &mut dyn Iterator<Item = u32>| {
                        ns.map(|n| self.free[n as usize].earliest(b, dmax / dc.speed[n as usize]))
                            .fold(f64::INFINITY, f64::min)
                    };
                    let sub_t = early(&mut self.sub[x as usize].iter().copied());
                    let any_t = early(&mut (0..dc.nodes() as u32));
                    for &t in &members[pos..pos + m as usize] {
                        tr.trial.push(TaskTrace {
                            job: j,
                            task: t,
                            block_ready: b,
                            start: is,
                            free_in_subtree: sub_t,
                            free_anywhere: any_t,
                        });
                    }
                }
                if self.delayed {
                    // Booked on the counters only; the nodes come at dispatch.
                    self.book(x, m, is, d);
                    let tasks = members[pos..pos + m as usize].to_vec();
                    for &t in &tasks {
                        let end = is + job.duration[t as usize] / self.power[x as usize];
                        // Provisional, for the quality condition (makespan).
                        self.trial.push(Placement {
                            job: j,
                            task: t,
                            node: u32::MAX,
                            start: is,
                            end,
                            slot_end: end,
                        });
                        bfin = bfin.max(end);
                    }
                    bloc = Some(bloc.map_or(x, |l| self.lca(l, x)));
                    self.trial_book.push(Booking {
                        job: j,
                        x,
                        is,
                        d,
                        tasks,
                    });
                    pos += m as usize;
                    continue;
                }
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

    /// Delayed allocation gives well-formed schedules of every task; the
    /// trace has one entry per task and its times are ordered as its fields
    /// say.
    #[test]
    fn delayed_allocation_dispatches_every_booking() {
        use super::super::generate::{self, Schema};
        use super::super::{check, DataCentre, Job, PlanOptions, Quality};
        let dc = DataCentre::from_file("dc", &generate::tree(2, 3, 4, |l| l % 2 == 1)).unwrap();
        let jobs: Vec<Job> = Schema::ALL
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                Job::from_file("g", &generate::job(s, 40, i % 2 == 0, i as u64).unwrap()).unwrap()
            })
            .collect();
        let rel = super::super::plan::releases(&jobs, &dc, Some(0.95));
        for delayed in [false, true] {
            let opts = PlanOptions {
                quality: Quality::Makespan(1.5),
                blind_delayed: delayed,
                ..PlanOptions::default()
            };
            let mut b = Blind::new(&dc, &opts);
            b.trace = Some(Trace::default());
            let mut out = Vec::new();
            for (j, job) in jobs.iter().enumerate() {
                b.schedule_job(j as u32, job, rel[j], &mut out);
            }
            b.finish(&mut out);
            check(&jobs, &dc, &out).unwrap();
            let n: usize = jobs.iter().map(Job::len).sum();
            assert_eq!(out.len(), n);
            let tr = b.trace.take().unwrap();
            assert_eq!(tr.tasks.len(), n);
            // Every task is dispatched once (a booking short of nodes at
            // dispatch still places its tasks, later).
            assert!(!delayed || tr.dispatched > 0 && tr.short <= tr.dispatched);
            for t in &tr.tasks {
                assert!(t.free_anywhere <= t.free_in_subtree + 1e-6, "{t:?}");
                assert!(t.block_ready <= t.start + 1e-6, "{t:?}");
            }
        }
    }

    /// Free nodes at integer time `k` (events at `k` applied).
    /// Sorted allocation and free instants, as the counters keep them.
    fn events(mut alloc: Vec<u8>, mut free: Vec<u8>) -> Evts {
        alloc.sort_unstable();
        free.sort_unstable();
        Evts {
            alloc: alloc.into_iter().map(f64::from).collect(),
            free: free.into_iter().map(f64::from).collect(),
        }
    }

    fn at(ev: &Evts, base: i64, k: u32) -> i64 {
        let k = f64::from(k);
        base - ev.alloc.iter().filter(|&&t| t <= k).count() as i64
            + ev.free.iter().filter(|&&t| t <= k).count() as i64
    }

    proptest! {
        /// Delayed allocation's window search against trying every integer
        /// start (events and `is` are integers, so counts are constant on
        /// each [k, k + 1)).
        #[test]
        fn first_window_is_brute_force(
            alloc in proptest::collection::vec(0u8..40, 0..30),
            free in proptest::collection::vec(0u8..40, 0..30),
            base in 0i64..6,
            m in 1u32..5,
            is in 0u8..40,
            d in 1u8..12,
        ) {
            let ev = events(alloc, free);
            let (is, d) = (u32::from(is), u32::from(d));
            let low = |s: u32| (s..s + d).map(|k| at(&ev, base, k)).min().unwrap_or(i64::MAX);
            prop_assert_eq!(ev.min_free(base, f64::from(is), f64::from(d)), low(is));
            let want = (is..60).find(|&s| low(s) >= i64::from(m)).map_or(f64::INFINITY, f64::from);
            prop_assert_eq!(ev.first_window(base, m, f64::from(is), f64::from(d)), want);
        }

        #[test]
        fn first_fit_is_the_scan(
            alloc in proptest::collection::vec(0u8..40, 0..30),
            free in proptest::collection::vec(0u8..40, 0..30),
            base in 0i64..6,
            m in 1u32..5,
            is in 0u8..40,
            d in 0u8..12,
        ) {
            let ev = events(alloc, free);
            let (is, d) = (f64::from(is), f64::from(d));
            prop_assert_eq!(ev.first_fit(base, m, is, d), by_scan(&ev, base, m, is, d));
        }
    }
}
