package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ContainerRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.AppPlacementAllocator;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;

public class AppSchedulingInfo {
  public String getUser() { throw new UnsupportedOperationException("compile-only stub"); }
  public ContainerRequest allocate(NodeType type, SchedulerNode node,
      SchedulerRequestKey schedulerKey, RMContainer containerAllocated) { throw new UnsupportedOperationException("compile-only stub"); }
  public <N extends SchedulerNode> AppPlacementAllocator<N> getAppPlacementAllocator(
      SchedulerRequestKey schedulerkey) { throw new UnsupportedOperationException("compile-only stub"); }
}
