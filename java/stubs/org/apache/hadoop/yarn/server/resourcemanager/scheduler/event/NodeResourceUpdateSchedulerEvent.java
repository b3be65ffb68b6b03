package org.apache.hadoop.yarn.server.resourcemanager.scheduler.event;

import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.api.records.ResourceOption;

public class NodeResourceUpdateSchedulerEvent extends SchedulerEvent {
  private NodeResourceUpdateSchedulerEvent() { super(null); throw new UnsupportedOperationException("compile-only stub"); }
  public RMNode getRMNode() { throw new UnsupportedOperationException("compile-only stub"); }
  public ResourceOption getResourceOption() { throw new UnsupportedOperationException("compile-only stub"); }
}
