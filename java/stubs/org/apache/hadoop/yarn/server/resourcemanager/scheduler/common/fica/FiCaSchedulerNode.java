package org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica;

import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;

public class FiCaSchedulerNode extends SchedulerNode {
  public FiCaSchedulerNode(RMNode node, boolean usePortForNodeName) { super(node, usePortForNodeName); throw new UnsupportedOperationException("compile-only stub"); }
}
