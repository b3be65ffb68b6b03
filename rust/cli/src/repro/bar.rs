//! Experiments of the bar seed paper. (Filled in by the issue #5 work.)

use std::path::Path;

use anyhow::{bail, Result};

use super::{Opts, Report};

pub fn run(_opts: &Opts) -> Result<Vec<Report>> {
    bail!("spindle repro bar: not implemented yet")
}

pub fn plot(_path: &Path, _reports: &[Report]) -> Result<()> {
    bail!("spindle repro bar --plot: not implemented yet")
}
