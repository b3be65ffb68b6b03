package org.spindle.yarn;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;

/** A scheduling monitor policy that counts how often the RM runs it. */
public class CountingPolicy implements SchedulingEditPolicy {
  static final AtomicInteger INITS = new AtomicInteger();
  static final AtomicInteger EDITS = new AtomicInteger();
  static volatile ResourceScheduler seen;

  @Override
  public void init(Configuration config, RMContext context, ResourceScheduler scheduler) {
    seen = scheduler;
    INITS.incrementAndGet();
  }

  @Override
  public void editSchedule() {
    EDITS.incrementAndGet();
  }

  @Override
  public long getMonitoringInterval() {
    return 50;
  }

  @Override
  public String getPolicyName() {
    return "counting";
  }
}
