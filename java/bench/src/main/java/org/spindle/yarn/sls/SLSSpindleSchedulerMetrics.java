package org.spindle.yarn.sls;

import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;

/**
 * SLS's scheduler metrics for {@link SLSSpindleScheduler}: the common ones
 * (allocate and handle time costs, cluster and queue resources,
 * jobruntime.csv), as CapacitySchedulerMetrics adds nothing to them either.
 */
public class SLSSpindleSchedulerMetrics extends SchedulerMetrics {
  public SLSSpindleSchedulerMetrics() {
    super();
  }
}
