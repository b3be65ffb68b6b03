package org.apache.hadoop.yarn.server.resourcemanager.scheduler.event;

import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;

public class ReleaseContainerEvent extends SchedulerEvent {
  private ReleaseContainerEvent() { super(null); throw new UnsupportedOperationException("compile-only stub"); }
  public RMContainer getContainer() { throw new UnsupportedOperationException("compile-only stub"); }
}
