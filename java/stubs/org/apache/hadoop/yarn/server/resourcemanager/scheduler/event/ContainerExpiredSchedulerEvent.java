package org.apache.hadoop.yarn.server.resourcemanager.scheduler.event;

import org.apache.hadoop.yarn.api.records.ContainerId;

public class ContainerExpiredSchedulerEvent extends SchedulerEvent {
  private ContainerExpiredSchedulerEvent() { super(null); throw new UnsupportedOperationException("compile-only stub"); }
  public ContainerId getContainerId() { throw new UnsupportedOperationException("compile-only stub"); }
}
