package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.ConcurrentMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.service.AbstractService;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceOption;
import org.apache.hadoop.yarn.api.records.ResourceRequest;

public abstract class AbstractYarnScheduler<T extends SchedulerApplicationAttempt, N extends SchedulerNode>
    extends AbstractService implements ResourceScheduler {
  protected static final Allocation EMPTY_ALLOCATION = null;
  protected final ClusterNodeTracker<N> nodeTracker = null;
  protected Resource minimumAllocation;
  protected volatile RMContext rmContext;
  protected ConcurrentMap<ApplicationId, SchedulerApplication<T>> applications;

  public AbstractYarnScheduler(String name) { super(name); throw new UnsupportedOperationException("compile-only stub"); }
  @Override
  public void serviceInit(Configuration conf) throws Exception { throw new UnsupportedOperationException("compile-only stub"); }
  @Override
  protected void serviceStop() throws Exception { throw new UnsupportedOperationException("compile-only stub"); }
  public T getApplicationAttempt(ApplicationAttemptId applicationAttemptId) { throw new UnsupportedOperationException("compile-only stub"); }
  public SchedulerNode getNode(NodeId nodeId) { throw new UnsupportedOperationException("compile-only stub"); }
  public Resource getClusterResource() { throw new UnsupportedOperationException("compile-only stub"); }
  public Resource getMinimumAllocation() { throw new UnsupportedOperationException("compile-only stub"); }
  public Resource getMaximumAllocation() { throw new UnsupportedOperationException("compile-only stub"); }
  protected void initMaximumResourceCapability(Resource maximumAllocation) { throw new UnsupportedOperationException("compile-only stub"); }
  public T getCurrentAttemptForContainer(ContainerId containerId) { throw new UnsupportedOperationException("compile-only stub"); }
  public void completedContainer(RMContainer rmContainer, ContainerStatus containerStatus,
      RMContainerEventType event) { throw new UnsupportedOperationException("compile-only stub"); }
  protected abstract void completedContainerInternal(RMContainer rmContainer,
      ContainerStatus containerStatus, RMContainerEventType event);
  public abstract void killContainer(RMContainer container);
  protected void releaseContainers(List<ContainerId> containers,
      SchedulerApplicationAttempt attempt) { throw new UnsupportedOperationException("compile-only stub"); }
  protected void normalizeResourceRequests(List<ResourceRequest> asks) { throw new UnsupportedOperationException("compile-only stub"); }
  public void recoverContainersOnNode(List<NMContainerStatus> containerReports, RMNode nm) { throw new UnsupportedOperationException("compile-only stub"); }
  public synchronized void updateNodeResource(RMNode nm, ResourceOption resourceOption) { throw new UnsupportedOperationException("compile-only stub"); }
  protected void nodeUpdate(RMNode nm) { throw new UnsupportedOperationException("compile-only stub"); }
  @Override
  public void reinitialize(Configuration conf, RMContext rmContext) throws IOException { throw new UnsupportedOperationException("compile-only stub"); }
}
