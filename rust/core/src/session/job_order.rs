//! How the Session orders applications: a leaf module, so that the
//! policies that impose an order ([`crate::policy::Policy::job_order`]) name
//! it without importing the Session.

/// How a planned policy orders applications (on each node's queue and in
/// the fallback). Heartbeat-only policies (`hadoop-default`, `greedy`)
/// always visit applications in submission order, as their schedulers do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum JobOrder {
    /// Submission order (FIFO), then registration.
    Fifo,
    /// Least weighted remaining work first: pending containers over the
    /// application's weight (Smith's rule), re-ranked at every plan, then
    /// submission order. Short jobs are not queued behind long ones.
    #[default]
    WeightedRemaining,
    /// S-PC's LP order (Algorithm 1 of the S-PC paper): every live application is
    /// a job of LP-Schedule (a map stage, its located asks, and a reduce
    /// stage, its location-less asks, after it), sized by its pending
    /// containers times the mean container duration it has shown; ranked
    /// by the LP's `C_j` of its first open stage. Solved in planning step 2
    /// ([`PlanRequest::plan`](super::PlanRequest::plan)), never at a heartbeat; above
    /// [`SPC_MAX_LP_JOBS`](super::SPC_MAX_LP_JOBS) stages it falls back to `WeightedRemaining`.
    Spc,
    /// [`JobOrder::Spc`] as if every node had speed 1 (S-PC's
    /// Identical-machine baseline).
    SpcIdentical,
    /// [`JobOrder::Spc`] over the map stages alone (S-PC's Map-only
    /// baseline): the LP holds no reduce stage; an application with only
    /// reducers left (its maps done) ranks first, as its map's past `C_j`.
    SpcMapOnly,
    /// High unit weight first (S-PC Sect. VI.B): weight over the
    /// execution time of the open stages (`p_j / mu_j` each), highest first.
    Huwf,
    /// Tetris-like (S-PC Sect. VI.B): resource-usage score, summed over
    /// the open stages (`min(t_j, m) * p_j / mu_j`), smallest first;
    /// weights are not read.
    Tetris,
}

impl JobOrder {
    pub const ALL: [JobOrder; 7] = [
        JobOrder::Fifo,
        JobOrder::WeightedRemaining,
        JobOrder::Spc,
        JobOrder::SpcIdentical,
        JobOrder::SpcMapOnly,
        JobOrder::Huwf,
        JobOrder::Tetris,
    ];

    pub fn name(self) -> &'static str {
        match self {
            JobOrder::Fifo => "fifo",
            JobOrder::WeightedRemaining => "weighted-remaining",
            JobOrder::Spc => "spc",
            JobOrder::SpcIdentical => "spc-identical",
            JobOrder::SpcMapOnly => "spc-map-only",
            JobOrder::Huwf => "huwf",
            JobOrder::Tetris => "tetris",
        }
    }

    /// Computed in planning step 2 from the applications' work (S-PC's
    /// job orders), the key installed with the plan.
    pub fn computed(self) -> bool {
        !matches!(self, JobOrder::Fifo | JobOrder::WeightedRemaining)
    }

    pub fn from_name(name: &str) -> Option<JobOrder> {
        JobOrder::ALL.into_iter().find(|o| o.name() == name)
    }

    /// The names, for error messages.
    pub fn names() -> String {
        JobOrder::ALL.map(|o| o.name()).join(", ")
    }

    /// Whether the order ranks applications by their remaining work (and
    /// serves a job in its reduce phase before later-ranked maps).
    pub fn job_aware(self) -> bool {
        self != JobOrder::Fifo
    }
}
