package org.spindle.yarn;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerImpl;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ActiveUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ContainerRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;

/**
 * An app attempt under Spindle: FiCaSchedulerApp plus the allocation step of
 * FifoAppAttempt (whose constructor is package-private, facts file section 1.4).
 */
public class SpindleAppAttempt extends FiCaSchedulerApp {
  public SpindleAppAttempt(ApplicationAttemptId attemptId, String user, Queue queue,
      ActiveUsersManager users, RMContext rmContext) {
    super(attemptId, user, queue, users, rmContext);
    // Hadoop's ArrayList is scanned at every completed container (see the class).
    newlyAllocatedContainers = new UnpulledContainers<>();
  }

  /** The containers not yet pulled by the AM (for tests). */
  int unpulled() {
    return newlyAllocatedContainers.size();
  }

  /**
   * Books one container on {@code node} for {@code key}: null when the
   * attempt is stopped or no longer asks for it (the AM may have lowered its
   * asks since the decision).
   */
  public RMContainer allocate(NodeType type, SpindleNode node, SchedulerRequestKey key,
      Container container) {
    writeLock.lock();
    try {
      if (isStopped || getOutstandingAsksCount(key) <= 0) {
        return null;
      }
      RMContainerImpl rmContainer = new RMContainerImpl(container, key, getApplicationAttemptId(),
          node.getNodeID(), appSchedulingInfo.getUser(), rmContext, node.getPartition());
      rmContainer.setQueueName(getQueueName());
      updateAMContainerDiagnostics(AMState.ASSIGNED, null);
      addToNewlyAllocatedContainers(node, rmContainer);
      ContainerId id = container.getId();
      liveContainers.put(id, rmContainer);
      ContainerRequest request = appSchedulingInfo.allocate(type, node, key, rmContainer);
      attemptResourceUsage.incUsed(node.getPartition(), container.getResource());
      rmContainer.setContainerRequest(request);
      rmContainer.handle(new RMContainerEvent(id, RMContainerEventType.START));
      return rmContainer;
    } finally {
      writeLock.unlock();
    }
  }
}
