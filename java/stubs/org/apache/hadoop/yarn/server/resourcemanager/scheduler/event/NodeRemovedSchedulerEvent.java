package org.apache.hadoop.yarn.server.resourcemanager.scheduler.event;

import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;

public class NodeRemovedSchedulerEvent extends SchedulerEvent {
  private NodeRemovedSchedulerEvent() { super(null); throw new UnsupportedOperationException("compile-only stub"); }
  public RMNode getRemovedRMNode() { throw new UnsupportedOperationException("compile-only stub"); }
}
