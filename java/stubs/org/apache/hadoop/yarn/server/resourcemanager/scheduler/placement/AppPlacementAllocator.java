package org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement;

import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;

public abstract class AppPlacementAllocator<N extends SchedulerNode> {
  public abstract boolean canAllocate(NodeType type, SchedulerNode node);
}
