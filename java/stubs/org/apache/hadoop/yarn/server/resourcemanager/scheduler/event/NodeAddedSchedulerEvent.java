package org.apache.hadoop.yarn.server.resourcemanager.scheduler.event;

import java.util.List;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;

public class NodeAddedSchedulerEvent extends SchedulerEvent {
  private NodeAddedSchedulerEvent() { super(null); throw new UnsupportedOperationException("compile-only stub"); }
  public RMNode getAddedRMNode() { throw new UnsupportedOperationException("compile-only stub"); }
  public List<NMContainerStatus> getContainerReports() { throw new UnsupportedOperationException("compile-only stub"); }
}
