package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import org.apache.hadoop.yarn.api.records.NodeId;

public class ClusterNodeTracker<N extends SchedulerNode> {
  public void addNode(N node) { throw new UnsupportedOperationException("compile-only stub"); }
  public N getNode(NodeId nodeId) { throw new UnsupportedOperationException("compile-only stub"); }
  public N removeNode(NodeId nodeId) { throw new UnsupportedOperationException("compile-only stub"); }
  public int nodeCount() { throw new UnsupportedOperationException("compile-only stub"); }
}
