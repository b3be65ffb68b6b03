package org.spindle.yarn.sls;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.scheduler.SLSSchedulerCommons;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerWrapper;
import org.apache.hadoop.yarn.sls.scheduler.SlsAccess;
import org.apache.hadoop.yarn.sls.scheduler.Tracker;
import org.spindle.yarn.SpindleScheduler;

/**
 * SpindleScheduler inside Hadoop's Scheduler Load Simulator (hadoop-sls 3.4),
 * as SLSCapacityScheduler wraps the CapacityScheduler: SLS 3.4 casts the RM's
 * scheduler to {@link SchedulerWrapper} (SLSRunner.start, RMRunner,
 * AMSimulator), and through SLSSchedulerCommons it times every
 * {@code allocate} and {@code handle} (per event type) and writes
 * jobruntime.csv. Set {@code yarn.resourcemanager.scheduler.class} to this
 * class; RMRunner leaves any class other than the CapacityScheduler and the
 * FairScheduler as it is.
 *
 * <p>Bench-only (java/bench): SLS's classes are 3.4's, and the plugin jar
 * builds on 3.3.6.
 */
public class SLSSpindleScheduler extends SpindleScheduler implements SchedulerWrapper {
  private final SLSSchedulerCommons commons = new SLSSchedulerCommons(this);
  private volatile SLSRunner runner;

  @Override
  public synchronized void setConf(Configuration conf) {
    super.setConf(conf);
    // SchedulerMetrics picks its class by the scheduler's class name in the
    // configuration (it knows only the stock three); a copy, so the RM's
    // configuration keeps what it was given.
    Configuration c = new Configuration(conf);
    c.setIfUnset(SpindleScheduler.class.getName(), SLSSpindleSchedulerMetrics.class.getName());
    commons.initMetrics(SpindleScheduler.class, c);
  }

  @Override
  public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
      List<String> blacklistAdditions, List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    return commons.allocate(attemptId, ask, schedulingRequests, release, blacklistAdditions,
        blacklistRemovals, updateRequests);
  }

  @Override
  public Allocation allocatePropagated(ApplicationAttemptId attemptId,
      List<ResourceRequest> ask, List<SchedulingRequest> schedulingRequests,
      List<ContainerId> release, List<String> blacklistAdditions,
      List<String> blacklistRemovals, ContainerUpdates updateRequests) {
    return super.allocate(attemptId, ask, schedulingRequests, release, blacklistAdditions,
        blacklistRemovals, updateRequests);
  }

  @Override
  public void handle(SchedulerEvent event) {
    commons.handle(event);
  }

  @Override
  public void propagatedHandle(SchedulerEvent event) {
    super.handle(event);
  }

  @Override
  public void serviceStop() throws Exception {
    SlsAccess.stopMetrics(commons);
    super.serviceStop();
  }

  /** Spindle has one queue: the trace's queue names all land in it. */
  @Override
  public String getRealQueueName(String queue) throws YarnException {
    if (queue == null || queue.isEmpty() || queue.equals(QUEUE_NAME)
        || queue.equals("root." + QUEUE_NAME)) {
      return QUEUE_NAME;
    }
    throw new YarnException("SpindleScheduler has the one queue \"" + QUEUE_NAME
        + "\"; the trace names queue \"" + queue + "\"");
  }

  @Override
  public SchedulerMetrics getSchedulerMetrics() {
    return commons.getSchedulerMetrics();
  }

  @Override
  public Tracker getTracker() {
    return commons.getTracker();
  }

  @Override
  public void setSLSRunner(SLSRunner runner) {
    this.runner = runner;
  }

  @Override
  public SLSRunner getSLSRunner() {
    return runner;
  }
}
