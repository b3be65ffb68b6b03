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
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.scheduler.SLSSchedulerCommons;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerWrapper;
import org.apache.hadoop.yarn.sls.scheduler.SlsAccess;
import org.apache.hadoop.yarn.sls.scheduler.Tracker;
import org.spindle.yarn.cs.SpindleCapacityScheduler;

/**
 * Spindle's CapacityScheduler mode inside SLS, as SLS 3.4's
 * SLSCapacityScheduler wraps the stock CapacityScheduler: SLS times every
 * {@code allocate} and {@code handle} and writes jobruntime.csv through
 * SLSSchedulerCommons, with the CapacityScheduler's SLS metrics. (SLS's
 * wrapper also times {@code tryCommit}; its timers are package-private, so
 * this one does not.) Bench-only, as {@link SLSSpindleScheduler}.
 */
public class SLSSpindleCapacityScheduler extends SpindleCapacityScheduler
    implements SchedulerWrapper {
  private final SLSSchedulerCommons commons = new SLSSchedulerCommons(this);
  private volatile SLSRunner runner;

  @Override
  public void setConf(Configuration conf) {
    super.setConf(conf);
    commons.initMetrics(CapacityScheduler.class, conf);
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

  /** As SLSCapacityScheduler: the trace's queue must be one of the configured leaves. */
  @Override
  public String getRealQueueName(String queue) throws YarnException {
    CSQueue q = getQueue(queue);
    if (q == null) {
      throw new YarnException("the CapacityScheduler has no queue \"" + queue
          + "\" (the trace names it; configure it in yarn.scheduler.capacity.root.queues)");
    }
    return q.getQueuePath();
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
