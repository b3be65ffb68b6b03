package org.apache.hadoop.yarn.sls.scheduler;

import com.codahale.metrics.Timer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;

/**
 * What SLS 3.4 keeps package-private and sls-bench needs: its scheduler time
 * costs (the Codahale timers behind {@code sampler.scheduler.operation.*},
 * which SLS only samples for its web page) and the metrics' stop, which
 * SLSCapacityScheduler calls from this package. Bench-only, on the
 * classpath beside hadoop-sls.
 */
public final class SlsAccess {
  private SlsAccess() {}

  /** SchedulerMetrics' tear-down (web server, writer threads), as SLSCapacityScheduler.serviceStop. */
  public static void stopMetrics(SLSSchedulerCommons commons) {
    commons.stopMetrics();
  }

  /**
   * SLSSchedulerCommons looks an attempt's queue up in a map it fills after
   * the scheduler has added the attempt, while the RM's attempt dispatcher may
   * already call allocate for the AM: the queue name is then null, and
   * FairSchedulerMetrics.registerQueueMetrics throws (NullPointerException in
   * QueueManager.ensureRootPrefix), which fails the attempt. Marking null as
   * tracked skips that registration; the base class's four counters for the
   * name "null" are made here, since updateQueueMetrics increments them
   * without looking (an NPE in sls-bench --quick under the FairScheduler
   * when only null was marked).
   */
  public static void tolerateUnknownQueue(SchedulerMetrics m) {
    if (m != null) {
      m.trackedQueues.add(null);
      for (String metric : new String[] {"pending.memory", "pending.cores",
          "allocated.memory", "allocated.cores"}) {
        m.metrics.counter("counter.queue.null." + metric);
      }
    }
  }

  public static Timer allocateTimer(SchedulerMetrics m) {
    return m.getSchedulerAllocateTimer();
  }

  public static Timer handleTimer(SchedulerMetrics m) {
    return m.getSchedulerHandleTimer();
  }

  public static Timer handleTimer(SchedulerMetrics m, SchedulerEventType type) {
    return m.getSchedulerHandleTimer(type);
  }
}
