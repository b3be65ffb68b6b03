package org.spindle.bench.sls;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.sls.scheduler.SLSFairScheduler;
import org.apache.hadoop.yarn.sls.scheduler.SlsAccess;

/**
 * SLS's own FairScheduler wrapper (the real FairScheduler, timed by SLS), with
 * one SLS race made harmless: see {@link SlsAccess#tolerateUnknownQueue}.
 * Without it, an app whose AM asks before SLS has recorded its queue fails.
 */
public class BenchFairScheduler extends SLSFairScheduler {
  @Override
  public void setConf(Configuration conf) {
    super.setConf(conf);
    SlsAccess.tolerateUnknownQueue(getSchedulerMetrics());
  }
}
