//! Experiments of the labl seed paper. (Filled in by the issue #5 work.)

use std::path::Path;

use anyhow::{bail, Result};

use super::{Opts, Report};

pub fn run(_opts: &Opts) -> Result<Vec<Report>> {
    bail!("spindle repro labl: not implemented yet")
}

pub fn plot(_path: &Path, _reports: &[Report]) -> Result<()> {
    bail!("spindle repro labl --plot: not implemented yet")
}
