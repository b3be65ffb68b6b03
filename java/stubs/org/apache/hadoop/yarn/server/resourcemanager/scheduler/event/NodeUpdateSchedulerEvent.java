package org.apache.hadoop.yarn.server.resourcemanager.scheduler.event;

import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;

public class NodeUpdateSchedulerEvent extends SchedulerEvent {
  private NodeUpdateSchedulerEvent() { super(null); throw new UnsupportedOperationException("compile-only stub"); }
  public RMNode getRMNode() { throw new UnsupportedOperationException("compile-only stub"); }
}
