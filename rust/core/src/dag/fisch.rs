//! FISCH, the free-interval scheduler (Sect. 3, Alg. 2 and 3): a fixed
//! data-centre abstraction (groups by subtree), per group a queue of the free
//! intervals of its nodes sorted by start, blocks of the job abstraction
//! placed in bulk with `get`, and refinement of the job abstraction by
//! lowering alpha until the quality condition holds, down to the concrete
//! job. Unless [`PlanOptions::as_printed`], the unused end of a task's
//! interval goes back to the free time and a task starts as soon as its own
//! inputs are there and its node is free ([`Fisch::place`]).

use std::collections::{HashMap, VecDeque};

use super::abstraction::{by_subtree, similar_duration, Blocks, Groups};
use super::refine::{PlanOptions, Quality, Tracker, Undo};
use super::{DataCentre, Job, Placement};

/// A free interval on a concrete node; `e` is infinite for "free forever".
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fi {
    pub node: u32,
    pub s: f64,
    pub e: f64,
}

impl Fi {
    fn len(&self) -> f64 {
        self.e - self.s
    }
}

/// The alphas tried in turn: the topological abstraction first, the
/// concrete job (0: a block per task) last. Sect. 3.4: "at the concrete level
/// of the job (when alpha = 1), FISCH considers every concrete task one by
/// one"; our alpha 1 groups equal durations, so the concrete job is a step
/// of its own.
pub const ALPHAS: [f64; 7] = [f64::INFINITY, 2.0, 1.5, 1.25, 1.1, 1.0, 0.0];

/// Scratch queues of `get`, reused between calls.
#[derive(Default)]
pub struct GetBufs {
    pub first: Vec<Fi>,
    frags: VecDeque<Fi>,
    leftovers: Vec<Fi>,
    smaller: Vec<Fi>,
    before: Vec<Fi>,
    merged: Vec<Fi>,
    consumed: Vec<usize>,
}

/// Alg. 3 on the sorted queue `intv`: the first `k` intervals of length `d`
/// starting at or after `b`. With `commit`, `intv` becomes rem: the sorted
/// queues smaller, frags, leftovers and the untouched rest of `intv` merged in
/// linear time; otherwise `intv` is left as it was. Returns the latest end
/// among the first `k`.
///
/// Two departures from the paper. It marks (0, b) busy for good; with a
/// stream of jobs that throws away free time the next job (released before
/// b) could use, and jobs end up serialised; so the parts before b go to one
/// more sorted queue, `before`, and are kept (free time before a job's
/// release is dropped when the job starts, [`Fisch::schedule_job`]). And the
/// intervals cut at b all start at b; among them the one whose node became
/// free last is taken first (best fit), so that a block does not spread over
/// nodes idle for long and leave gaps on all of them.
pub fn get(b: f64, k: usize, d: f64, intv: &mut Vec<Fi>, bufs: &mut GetBufs, commit: bool) -> f64 {
    let GetBufs {
        first,
        frags,
        leftovers,
        smaller,
        before,
        merged,
        ..
    } = bufs;
    first.clear();
    frags.clear();
    leftovers.clear();
    smaller.clear();
    before.clear();
    let mut taken = 0;
    let mut latest = f64::NEG_INFINITY;
    let mut take = |fi: Fi,
                    taken: &mut usize,
                    frags: &mut VecDeque<Fi>,
                    first: &mut Vec<Fi>,
                    leftovers: &mut Vec<Fi>,
                    smaller: &mut Vec<Fi>| {
        if fi.len() >= d {
            *taken += 1;
            if commit {
                first.push(Fi { e: fi.s + d, ..fi });
            }
            latest = fi.s + d;
            let rest = Fi { s: fi.s + d, ..fi };
            if rest.len() >= d {
                frags.push_back(rest);
            } else if commit && rest.len() > 0.0 {
                leftovers.push(rest);
            }
        } else if commit {
            smaller.push(fi);
        }
    };
    // Phase 1: the intervals that start before b, cut at b, latest start first.
    let p = intv.partition_point(|f| f.s < b);
    let mut lo = p;
    while taken < k && lo > 0 {
        lo -= 1;
        let h = intv[lo];
        if commit {
            before.push(Fi { e: h.e.min(b), ..h });
        }
        if h.e > b {
            take(
                Fi { s: b, ..h },
                &mut taken,
                frags,
                first,
                leftovers,
                smaller,
            );
        }
    }
    before.reverse();
    // Phase 2: the rest of intv and frags, by start.
    let mut i = p;
    while taken < k {
        let fi = match (intv.get(i), frags.front()) {
            (Some(h), Some(f)) if f.s < h.s => frags.pop_front(),
            (Some(h), _) => {
                i += 1;
                Some(*h)
            }
            (None, Some(_)) => frags.pop_front(),
            (None, None) => None,
        };
        // Every node keeps an endless interval, so this only ends on an empty group.
        let Some(fi) = fi else { break };
        take(fi, &mut taken, frags, first, leftovers, smaller);
    }
    if commit {
        merged.clear();
        merged.reserve(
            lo + before.len() + smaller.len() + frags.len() + leftovers.len() + intv.len() - i,
        );
        let frags = frags.make_contiguous();
        let qs: [&[Fi]; 6] = [&intv[..lo], before, smaller, frags, leftovers, &intv[i..]];
        merge_by_start(&qs, merged);
        std::mem::swap(intv, merged);
    }
    latest
}

/// Max-end and max-length trees over a sorted queue of free intervals (our
/// stand-in for the duration-indexed map of Sect. 3.3): `get` jumps over the
/// intervals too short for `d` instead of visiting them one by one.
#[derive(Clone, Debug, Default)]
pub struct MaxTree {
    size: usize,
    end: Vec<f64>,
    len: Vec<f64>,
}

impl MaxTree {
    pub fn build(&mut self, iv: &[Fi]) {
        self.size = iv.len().max(1).next_power_of_two();
        self.end.clear();
        self.end.resize(2 * self.size, f64::NEG_INFINITY);
        self.len.clear();
        self.len.resize(2 * self.size, f64::NEG_INFINITY);
        for (i, f) in iv.iter().enumerate() {
            self.end[self.size + i] = f.e;
            self.len[self.size + i] = f.len();
        }
        for x in (1..self.size).rev() {
            self.end[x] = self.end[2 * x].max(self.end[2 * x + 1]);
            self.len[x] = self.len[2 * x].max(self.len[2 * x + 1]);
        }
    }

    fn next(t: &[f64], x: usize, lo: usize, hi: usize, from: usize, v: f64) -> Option<usize> {
        if hi <= from || t[x] < v {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo);
        }
        let mid = (lo + hi) / 2;
        Self::next(t, 2 * x, lo, mid, from, v)
            .or_else(|| Self::next(t, 2 * x + 1, mid, hi, from, v))
    }

    fn prev(t: &[f64], x: usize, lo: usize, hi: usize, to: usize, v: f64) -> Option<usize> {
        if lo >= to || t[x] < v {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo);
        }
        let mid = (lo + hi) / 2;
        Self::prev(t, 2 * x + 1, mid, hi, to, v).or_else(|| Self::prev(t, 2 * x, lo, mid, to, v))
    }

    /// The first index >= `from` of an interval at least `d` long.
    pub fn next_len(&self, from: usize, d: f64) -> Option<usize> {
        Self::next(&self.len, 1, 0, self.size, from, d)
    }

    /// The last index < `to` of an interval ending at or after `e`.
    pub fn prev_end(&self, to: usize, e: f64) -> Option<usize> {
        Self::prev(&self.end, 1, 0, self.size, to, e)
    }
}

/// [`get`] with the intervals too short for `d` skipped through `tree`
/// (built over `intv`): the same first `k` intervals in the same order.
/// Skipped intervals stay whole in rem (the paper's smaller queue, uncut).
pub fn get_indexed(
    b: f64,
    k: usize,
    d: f64,
    intv: &mut Vec<Fi>,
    tree: &MaxTree,
    bufs: &mut GetBufs,
    commit: bool,
) -> f64 {
    let GetBufs {
        first,
        frags,
        leftovers,
        before,
        merged,
        consumed,
        ..
    } = bufs;
    first.clear();
    frags.clear();
    leftovers.clear();
    before.clear();
    consumed.clear();
    let mut taken = 0;
    let mut latest = f64::NEG_INFINITY;
    let mut cut =
        |fi: Fi, frags: &mut VecDeque<Fi>, first: &mut Vec<Fi>, leftovers: &mut Vec<Fi>| {
            if commit {
                first.push(Fi { e: fi.s + d, ..fi });
            }
            latest = fi.s + d;
            let rest = Fi { s: fi.s + d, ..fi };
            if rest.len() >= d {
                frags.push_back(rest);
            } else if commit && rest.len() > 0.0 {
                leftovers.push(rest);
            }
        };
    let p = intv.partition_point(|f| f.s < b);
    // Phase 1: intervals starting before b and long enough after it, latest first.
    let mut j = p;
    while taken < k {
        let Some(idx) = tree.prev_end(j, b + d) else {
            break;
        };
        j = idx;
        let h = intv[idx];
        if h.e - b < d {
            continue;
        }
        taken += 1;
        consumed.push(idx);
        if commit {
            before.push(Fi { e: b, ..h });
        }
        cut(Fi { s: b, ..h }, frags, first, leftovers);
    }
    consumed.reverse();
    before.reverse();
    // Phase 2: the long enough intervals from b on, and frags, by start.
    let mut i = p;
    while taken < k {
        let head = tree.next_len(i, d);
        let from_frags = match (head, frags.front()) {
            (Some(h), Some(f)) => f.s < intv[h].s,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (None, None) => break,
        };
        let fi = if from_frags {
            match frags.pop_front() {
                Some(f) => f,
                None => break,
            }
        } else {
            let Some(h) = head else { break };
            i = h + 1;
            if intv[h].len() < d {
                continue;
            }
            consumed.push(h);
            intv[h]
        };
        taken += 1;
        cut(fi, frags, first, leftovers);
    }
    if commit {
        // rem: intv without the consumed intervals, before, frags, leftovers.
        let mut rest: Vec<Fi> = Vec::with_capacity(intv.len());
        let mut c = 0;
        for (x, f) in intv.iter().enumerate() {
            if c < consumed.len() && consumed[c] == x {
                c += 1;
            } else {
                rest.push(*f);
            }
        }
        merged.clear();
        merged.reserve(rest.len() + before.len() + frags.len() + leftovers.len());
        let frags = frags.make_contiguous();
        let qs: [&[Fi]; 4] = [&rest, before, frags, leftovers];
        merge_by_start(&qs, merged);
        std::mem::swap(intv, merged);
    }
    latest
}

/// Merges queues sorted by start into `out`, in linear time (Alg. 3's
/// merge of sorted queues); ties go to the earlier queue.
fn merge_by_start<const K: usize>(qs: &[&[Fi]; K], out: &mut Vec<Fi>) {
    let mut pos = [0usize; K];
    loop {
        let mut best: Option<usize> = None;
        for q in 0..K {
            if let Some(f) = qs[q].get(pos[q]) {
                if best.is_none_or(|b| f.s < qs[b][pos[b]].s) {
                    best = Some(q);
                }
            }
        }
        let Some(q) = best else { break };
        out.push(qs[q][pos[q]]);
        pos[q] += 1;
    }
}

pub struct Fisch<'a> {
    dc: &'a DataCentre,
    groups: Groups,
    intv: Vec<Vec<Fi>>,
    /// Skip trees over `intv`, rebuilt when `dirty`.
    trees: Vec<MaxTree>,
    dirty: Vec<bool>,
    undo: Undo<Vec<Fi>>,
    tracker: Tracker,
    quality: Quality,
    max_refinements: u32,
    bufs: GetBufs,
    /// Concrete node of each task in the current trial (preferred nodes).
    node_of: Vec<u32>,
    end_of: Vec<f64>,
    as_printed: bool,
    /// Per node: its piece in `bufs.before` during `place` (else u32::MAX).
    before_of: Vec<u32>,
    shrunk: Vec<(Fi, f64)>,
    task_of: Vec<u32>,
    /// Tasks of a block by preferred node (scratch).
    want: Vec<Vec<u32>>,
    wanted: Vec<u32>,
    /// What a task leaves of its interval (shorter task or faster node).
    slack: Vec<Fi>,
    join: HashMap<(u32, u64), usize>,
    trial: Vec<Placement>,
}

impl<'a> Fisch<'a> {
    pub fn new(dc: &'a DataCentre, opts: &PlanOptions) -> Fisch<'a> {
        let groups = by_subtree(dc, opts.fisch_group_height);
        let intv = groups
            .members
            .iter()
            .map(|m| {
                m.iter()
                    .map(|&node| Fi {
                        node,
                        s: 0.0,
                        e: f64::INFINITY,
                    })
                    .collect()
            })
            .collect();
        Fisch {
            dc,
            undo: Undo::new(groups.len()),
            trees: vec![MaxTree::default(); groups.len()],
            dirty: vec![true; groups.len()],
            groups,
            intv,
            tracker: Tracker::new(dc.nodes()),
            quality: opts.quality,
            max_refinements: opts.max_refinements,
            bufs: GetBufs::default(),
            node_of: Vec::new(),
            end_of: Vec::new(),
            as_printed: opts.as_printed,
            before_of: vec![u32::MAX; dc.nodes()],
            shrunk: Vec::new(),
            task_of: Vec::new(),
            want: vec![Vec::new(); dc.nodes()],
            wanted: Vec::new(),
            slack: Vec::new(),
            join: HashMap::new(),
            trial: Vec::new(),
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
        // Free time before the release is of no use to this job or later ones.
        for q in &mut self.intv {
            q.retain_mut(|f| {
                f.s = f.s.max(release);
                f.e > f.s
            });
        }
        self.dirty.iter_mut().for_each(|x| *x = true);
        let tries = (self.max_refinements as usize + 1).min(ALPHAS.len());
        let saved_tracker = self.tracker.clone();
        let mut best: Option<(f64, usize)> = None;
        let mut last = 0;
        for (n, &alpha) in ALPHAS[..tries].iter().enumerate() {
            if n > 0 {
                self.undo.restore(&mut self.intv);
                self.dirty.iter_mut().for_each(|x| *x = true);
                self.tracker = saved_tracker.clone();
            }
            last = n;
            let blocks = similar_duration(job, alpha);
            self.run(j, job, &blocks, release);
            let (ok, score) = self
                .tracker
                .judge(self.quality, self.dc, job, release, &self.trial);
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, n));
            }
            if ok {
                break;
            }
        }
        // Keep the best trial (Sect. 2.2); redo it if a later one was worse.
        if let Some((_, n)) = best {
            if n != last {
                self.undo.restore(&mut self.intv);
                self.dirty.iter_mut().for_each(|x| *x = true);
                self.tracker = saved_tracker;
                let blocks = similar_duration(job, ALPHAS[n]);
                self.run(j, job, &blocks, release);
            }
        }
        self.undo.commit();
        out.extend_from_slice(&self.trial);
        last as u32
    }

    /// Alg. 2 for one abstraction of the job.
    fn run(&mut self, j: u32, job: &Job, blocks: &Blocks, release: f64) {
        self.trial.clear();
        self.node_of.clear();
        self.node_of.resize(job.len(), u32::MAX);
        self.end_of.clear();
        self.end_of.resize(job.len(), 0.0);
        let ng = self.groups.len();
        let mut fin = vec![release; blocks.len()];
        let mut loc = vec![0u32; blocks.len()];
        for blk in 0..blocks.len() {
            let k = blocks.members[blk].len();
            let mut choice: Option<(f64, u32, f64, f64)> = None;
            for g in 0..ng as u32 {
                let b = blocks.preds[blk].iter().fold(release, |acc, &(p, bytes)| {
                    let bw = self.groups.bandwidth(loc[p as usize], g);
                    acc.max(fin[p as usize] + if bytes > 0.0 { bytes / bw } else { 0.0 })
                });
                let d = blocks.duration[blk] / self.groups.power[g as usize];
                let gi = g as usize;
                if self.dirty[gi] {
                    self.trees[gi].build(&self.intv[gi]);
                    self.dirty[gi] = false;
                }
                let end = get_indexed(
                    b,
                    k,
                    d,
                    &mut self.intv[gi],
                    &self.trees[gi],
                    &mut self.bufs,
                    false,
                );
                if choice.is_none_or(|(e, ..)| end < e) {
                    choice = Some((end, g, b, d));
                }
            }
            let Some((_, g, b, d)) = choice else { return };
            self.undo.touch(g as usize, &self.intv);
            get_indexed(
                b,
                k,
                d,
                &mut self.intv[g as usize],
                &self.trees[g as usize],
                &mut self.bufs,
                true,
            );
            self.dirty[g as usize] = true;
            loc[blk] = g;
            fin[blk] = self.place(j, job, &blocks.members[blk], g as usize, release);
            if !self.as_printed {
                self.return_slack(g as usize);
            }
        }
    }

    /// Gives the unused ends of the block's intervals back to group `g`: the
    /// paper keeps the whole interval of the longest task of the block (its
    /// pessimistic abstraction); the concrete schedule knows better. A piece
    /// is joined to the free interval of its node that starts where it ends,
    /// else a task could never start at the earlier end.
    fn return_slack(&mut self, g: usize) {
        if self.slack.is_empty() {
            return;
        }
        self.join.clear();
        for (i, f) in self.slack.iter().enumerate() {
            self.join.insert((f.node, f.e.to_bits()), i);
        }
        let q = &mut self.intv[g];
        let slack = &mut self.slack;
        let join = &self.join;
        q.retain(|f| match join.get(&(f.node, f.s.to_bits())) {
            Some(&i) => {
                slack[i].e = f.e;
                false
            }
            None => true,
        });
        self.slack.sort_by(|a, b| a.s.total_cmp(&b.s));
        let q = &self.intv[g];
        let merged = &mut self.bufs.merged;
        merged.clear();
        merged.reserve(q.len() + self.slack.len());
        let (mut a, mut b) = (0, 0);
        while a < q.len() || b < self.slack.len() {
            if b >= self.slack.len() || (a < q.len() && q[a].s <= self.slack[b].s) {
                merged.push(q[a]);
                a += 1;
            } else {
                merged.push(self.slack[b]);
                b += 1;
            }
        }
        std::mem::swap(&mut self.intv[g], merged);
        self.slack.clear();
        self.dirty[g] = true;
    }

    /// Puts the block's tasks on the intervals in `bufs.first`, a task on the
    /// node of all its predecessors when such an interval is there (preferred
    /// node); returns the latest concrete end.
    ///
    /// As printed, a task starts at its interval's start and holds the whole
    /// interval. Ours (left shift): a task starts as soon as its own inputs
    /// are there (concrete ends and links, never later than the block's `b`)
    /// and its node is free: into the free piece that `get` cut off before
    /// `b`, or right after the task before it on the same node in this block
    /// (the intervals `get` cut one after another from one free interval).
    /// The paper's daemons backfill the same way at run time (Sect. 5.2).
    fn place(&mut self, j: u32, job: &Job, members: &[u32], g: usize, release: f64) -> f64 {
        let dc = self.dc;
        let mut assigned = vec![false; members.len()];
        for (i, &t) in members.iter().enumerate() {
            let preds = &job.preds[t as usize];
            if let Some(&(q0, _)) = preds.first() {
                let n = self.node_of[q0 as usize];
                if n != u32::MAX && preds.iter().all(|&(q, _)| self.node_of[q as usize] == n) {
                    if self.want[n as usize].is_empty() {
                        self.wanted.push(n);
                    }
                    self.want[n as usize].push(i as u32);
                }
            }
        }
        let mut first = std::mem::take(&mut self.bufs.first);
        self.task_of.clear();
        let mut next = 0;
        for fi in &first {
            let mut pick = None;
            while let Some(i) = self.want[fi.node as usize].pop() {
                if !assigned[i as usize] {
                    pick = Some(i as usize);
                    break;
                }
            }
            let i = match pick {
                Some(i) => i,
                None => {
                    while assigned[next] {
                        next += 1;
                    }
                    next
                }
            };
            assigned[i] = true;
            self.task_of.push(members[i]);
        }
        for n in self.wanted.drain(..) {
            self.want[n as usize].clear();
        }
        let shift = !self.as_printed;
        if shift {
            // Per node in time order, so a task follows the one before it.
            let mut pairs: Vec<(Fi, u32)> = first
                .iter()
                .copied()
                .zip(self.task_of.iter().copied())
                .collect();
            pairs.sort_by(|a, b| a.0.node.cmp(&b.0.node).then(a.0.s.total_cmp(&b.0.s)));
            for (k, (fi, t)) in pairs.into_iter().enumerate() {
                first[k] = fi;
                self.task_of[k] = t;
            }
            for (k, f) in self.bufs.before.iter().enumerate() {
                self.before_of[f.node as usize] = k as u32;
            }
        }
        let mut fin = f64::NEG_INFINITY;
        for (k, fi) in first.iter().enumerate() {
            let t = self.task_of[k];
            let mut start = fi.s;
            if shift {
                let ready = job.preds[t as usize]
                    .iter()
                    .fold(release, |acc, &(q, bytes)| {
                        let (qn, qe) = (self.node_of[q as usize], self.end_of[q as usize]);
                        acc.max(qe + dc.transfer(qn, fi.node, bytes))
                    });
                let chained = self
                    .slack
                    .last()
                    .is_some_and(|l| l.node == fi.node && l.e == fi.s);
                if chained {
                    if let Some(l) = self.slack.pop() {
                        start = l.s.max(ready).min(fi.s);
                        if start > l.s {
                            self.slack.push(Fi { e: start, ..l });
                        }
                    }
                } else {
                    let b = self.before_of[fi.node as usize];
                    if let Some(piece) = self.bufs.before.get_mut(b as usize) {
                        if piece.node == fi.node && piece.e == fi.s {
                            start = piece.s.max(ready).min(fi.s);
                            self.shrunk.push((*piece, start));
                            piece.e = piece.s; // used up
                        }
                    }
                }
            }
            let end = start + job.duration[t as usize] / dc.speed[fi.node as usize];
            let p = Placement {
                job: j,
                task: t,
                node: fi.node,
                start,
                end,
                slot_end: if shift { end } else { fi.e },
            };
            self.node_of[t as usize] = fi.node;
            self.end_of[t as usize] = end;
            if shift && end < fi.e {
                self.slack.push(Fi { s: end, ..*fi });
            }
            self.tracker.add(&p);
            self.trial.push(p);
            fin = fin.max(end);
        }
        if shift {
            for f in &self.bufs.before {
                self.before_of[f.node as usize] = u32::MAX;
            }
            self.shrink_before(g);
        }
        first.clear();
        self.bufs.first = first;
        fin
    }

    /// Cuts the free pieces before `b` that left-shifted tasks now start in
    /// (`shrunk`: the piece as it is in the queue, the new end).
    fn shrink_before(&mut self, g: usize) {
        if self.shrunk.is_empty() {
            return;
        }
        let q = &mut self.intv[g];
        for &(piece, new_end) in &self.shrunk {
            let mut i = q.partition_point(|f| f.s < piece.s);
            while i < q.len() && q[i].s == piece.s {
                if q[i].node == piece.node && q[i].e == piece.e {
                    q[i].e = new_end;
                    break;
                }
                i += 1;
            }
        }
        q.retain(|f| f.e > f.s);
        self.shrunk.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fi(node: u32, s: f64, e: f64) -> Fi {
        Fi { node, s, e }
    }

    #[test]
    fn get_returns_the_first_k_intervals_and_keeps_the_rest_sorted() {
        let mut intv = vec![
            fi(0, 0.0, 5.0),
            fi(1, 2.0, 30.0),
            fi(0, 10.0, f64::INFINITY),
            fi(1, 40.0, f64::INFINITY),
        ];
        let mut bufs = GetBufs::default();
        let before = intv.clone();
        let end = get(1.0, 3, 10.0, &mut intv, &mut bufs, false);
        assert_eq!(intv, before);
        // (0,1..5) is too short; node 1 gives 2..12 and 12..22; node 0 gives 10..20.
        assert_eq!(end, 22.0);
        let end2 = get(1.0, 3, 10.0, &mut intv, &mut bufs, true);
        assert_eq!(end2, end);
        let got: Vec<(u32, f64)> = bufs.first.iter().map(|f| (f.node, f.s)).collect();
        assert_eq!(got, vec![(1, 2.0), (0, 10.0), (1, 12.0)]);
        assert!(intv.windows(2).all(|w| w[0].s <= w[1].s), "{intv:?}");
        // The short interval stays (in two parts, at b), the leftover 22..30 of node 1 too.
        assert!(intv.contains(&fi(0, 0.0, 1.0)) && intv.contains(&fi(0, 1.0, 5.0)));
        assert!(intv.contains(&fi(1, 22.0, 30.0)));
        assert!(intv.contains(&fi(0, 20.0, f64::INFINITY)));
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn indexed_get_takes_the_same_intervals_as_the_linear_one(
            raw in proptest::collection::vec((0u32..6, 0.0f64..200.0, 0.5f64..60.0, any::<bool>()), 1..40),
            b in 0.0f64..150.0,
            k in 1usize..12,
            d in 1.0f64..40.0,
        ) {
            let mut intv: Vec<Fi> = raw
                .iter()
                .map(|&(node, s, len, endless)| Fi { node, s, e: if endless { f64::INFINITY } else { s + len } })
                .collect();
            intv.push(Fi { node: 9, s: 0.0, e: f64::INFINITY });
            intv.sort_by(|a, b| a.s.total_cmp(&b.s));
            let mut a = intv.clone();
            let mut bufs = GetBufs::default();
            let la = get(b, k, d, &mut a, &mut bufs, true);
            let fa = bufs.first.clone();
            let mut tree = MaxTree::default();
            tree.build(&intv);
            let mut c = intv.clone();
            let le = get_indexed(b, k, d, &mut c, &tree, &mut bufs, false);
            prop_assert_eq!(&c, &intv);
            let lb = get_indexed(b, k, d, &mut c, &tree, &mut bufs, true);
            prop_assert_eq!(la, lb);
            prop_assert_eq!(la, le);
            prop_assert_eq!(&fa, &bufs.first);
            prop_assert!(c.windows(2).all(|w| w[0].s <= w[1].s));
        }
    }
}
