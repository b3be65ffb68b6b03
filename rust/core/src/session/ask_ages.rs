//! How long a group's pending containers have been asked for. YARN's asks
//! are counts, so the ages are runs of (time, count), oldest first, and a
//! container (granted, or no longer asked for) is taken off the oldest run.

use std::collections::VecDeque;

/// Most runs a group keeps: past it the two newest merge at the newer time,
/// so memory stays bounded and a wait never looks longer than it is.
const MAX_RUNS: usize = 16;

#[derive(Clone, Debug, Default)]
pub(super) struct AskAges {
    runs: VecDeque<(i64, u32)>,
}

impl AskAges {
    /// The group's count went from `old` to `new` at `now_ms`.
    pub(super) fn resize(&mut self, old: i32, new: i32, now_ms: i64) {
        let (old, new) = (old.max(0) as u32, new.max(0) as u32);
        if new > old {
            self.push(now_ms, new - old);
        } else {
            self.take(old - new);
        }
    }

    fn push(&mut self, now_ms: i64, n: u32) {
        match self.runs.back_mut() {
            Some((t, c)) if *t >= now_ms => *c = c.saturating_add(n),
            _ => self.runs.push_back((now_ms, n)),
        }
        if self.runs.len() > MAX_RUNS {
            if let Some((t, c)) = self.runs.pop_back() {
                if let Some(prev) = self.runs.back_mut() {
                    *prev = (t, prev.1.saturating_add(c));
                }
            }
        }
    }

    /// `n` containers fewer, the oldest first.
    pub(super) fn take(&mut self, mut n: u32) {
        while n > 0 {
            let Some(front) = self.runs.front_mut() else {
                return;
            };
            if front.1 > n {
                front.1 -= n;
                return;
            }
            n -= front.1;
            self.runs.pop_front();
        }
    }

    /// When the oldest pending container was asked for, if any is.
    pub(super) fn oldest(&self) -> Option<i64> {
        self.runs.front().map(|r| r.0)
    }

    /// Asks made before `now_ms` count from it (the first heartbeat).
    pub(super) fn not_before(&mut self, now_ms: i64) {
        for r in &mut self.runs {
            r.0 = r.0.max(now_ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_leave_the_oldest_run_first() {
        let mut a = AskAges::default();
        a.resize(0, 3, 100);
        a.resize(3, 5, 200);
        assert_eq!(a.oldest(), Some(100));
        a.take(2);
        assert_eq!(a.oldest(), Some(100), "one of the first three is left");
        a.take(1);
        assert_eq!(a.oldest(), Some(200));
        a.resize(2, 0, 300);
        assert_eq!(a.oldest(), None);
        a.take(4);
        assert_eq!(a.oldest(), None, "taking from nothing is no error");
    }

    #[test]
    fn runs_stay_bounded_and_never_look_older() {
        let mut a = AskAges::default();
        for t in 0..1_000 {
            a.resize(t, t + 1, i64::from(t));
        }
        assert!(a.runs.len() <= MAX_RUNS);
        assert_eq!(a.runs.iter().map(|r| r.1).sum::<u32>(), 1_000);
        assert_eq!(a.oldest(), Some(0), "the oldest run is never merged");
        a.take(MAX_RUNS as u32 - 1);
        assert_eq!(
            a.oldest(),
            Some(999),
            "the newest runs merged at the newer time"
        );
    }

    #[test]
    fn asks_before_the_first_heartbeat_count_from_it() {
        let mut a = AskAges::default();
        a.resize(0, 2, 0);
        a.not_before(5_000);
        assert_eq!(a.oldest(), Some(5_000));
    }
}
