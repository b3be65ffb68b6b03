package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import java.util.List;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;

public abstract class SchedulerNode {
  public SchedulerNode(RMNode node, boolean usePortForNodeName) { throw new UnsupportedOperationException("compile-only stub"); }
  public RMNode getRMNode() { throw new UnsupportedOperationException("compile-only stub"); }
  public NodeId getNodeID() { throw new UnsupportedOperationException("compile-only stub"); }
  public String getNodeName() { throw new UnsupportedOperationException("compile-only stub"); }
  public String getRackName() { throw new UnsupportedOperationException("compile-only stub"); }
  public Resource getUnallocatedResource() { throw new UnsupportedOperationException("compile-only stub"); }
  public String getPartition() { throw new UnsupportedOperationException("compile-only stub"); }
  public void allocateContainer(RMContainer rmContainer) { throw new UnsupportedOperationException("compile-only stub"); }
  public synchronized void releaseContainer(ContainerId containerId, boolean releasedByNode) { throw new UnsupportedOperationException("compile-only stub"); }
  public List<RMContainer> getCopiedListOfRunningContainers() { throw new UnsupportedOperationException("compile-only stub"); }
}
