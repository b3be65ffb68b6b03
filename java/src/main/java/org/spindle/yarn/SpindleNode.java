package org.spindle.yarn;

import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node under Spindle: SchedulerNode's books as they are. Not
 * FiCaSchedulerNode, whose allocateContainer builds an INFO line (four
 * records formatted) for every container before the logger looks at its
 * level; here that line is DEBUG and built only when logged. Spindle never
 * reserves, so reservation only records the container, as FiCaSchedulerNode
 * does, and FiCaSchedulerNode's preemption marks (CapacityScheduler only)
 * are not kept.
 */
public class SpindleNode extends SchedulerNode {
  private static final Logger LOG = LoggerFactory.getLogger(SpindleNode.class);

  public SpindleNode(RMNode node, boolean usePortForNodeName) {
    super(node, usePortForNodeName);
  }

  @Override
  protected synchronized void allocateContainer(RMContainer rmContainer,
      boolean launchedOnNode) {
    super.allocateContainer(rmContainer, launchedOnNode);
    if (LOG.isDebugEnabled()) {
      LOG.debug("Assigned container " + rmContainer.getContainerId() + " of capacity "
          + rmContainer.getAllocatedResource() + " on host " + getRMNode().getNodeAddress()
          + ", which has " + getNumContainers() + " containers, " + getAllocatedResource()
          + " used and " + getUnallocatedResource() + " available after allocation");
    }
  }

  @Override
  public synchronized void reserveResource(SchedulerApplicationAttempt attempt,
      SchedulerRequestKey key, RMContainer container) {
    setReservedContainer(container);
  }

  @Override
  public synchronized void unreserveResource(SchedulerApplicationAttempt attempt) {
    setReservedContainer(null);
  }
}
