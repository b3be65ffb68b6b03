package org.apache.hadoop.yarn.server.resourcemanager.rmcontainer;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ContainerRequest;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;

public class RMContainerImpl implements RMContainer {
  public RMContainerImpl(Container container, SchedulerRequestKey schedulerKey,
      ApplicationAttemptId appAttemptId, NodeId nodeId, String user, RMContext rmContext,
      String nodeLabelExpression) { throw new UnsupportedOperationException("compile-only stub"); }
  public void setQueueName(String queueName) { throw new UnsupportedOperationException("compile-only stub"); }
  public void setContainerRequest(ContainerRequest request) { throw new UnsupportedOperationException("compile-only stub"); }
  @Override
  public ContainerId getContainerId() { throw new UnsupportedOperationException("compile-only stub"); }
  @Override
  public RMContainerState getState() { throw new UnsupportedOperationException("compile-only stub"); }
  @Override
  public Container getContainer() { throw new UnsupportedOperationException("compile-only stub"); }
  @Override
  public Resource getAllocatedResource() { throw new UnsupportedOperationException("compile-only stub"); }
  @Override
  public void handle(RMContainerEvent event) { throw new UnsupportedOperationException("compile-only stub"); }
}
