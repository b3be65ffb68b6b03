package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NMToken;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.PendingAsk;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;

public class SchedulerApplicationAttempt {
  public enum AMState {
    UNMANAGED, INACTIVATED, ACTIVATED, ASSIGNED, LAUNCHED
  }
  protected final AppSchedulingInfo appSchedulingInfo = null;
  protected Map<ContainerId, RMContainer> liveContainers;
  protected ResourceUsage attemptResourceUsage;
  protected final RMContext rmContext = null;
  protected volatile boolean isStopped;
  protected ReentrantReadWriteLock.WriteLock writeLock;

  public SchedulerApplicationAttempt(ApplicationAttemptId applicationAttemptId, String user,
      Queue queue, AbstractUsersManager abstractUsersManager, RMContext rmContext) { throw new UnsupportedOperationException("compile-only stub"); }
  public Collection<SchedulerRequestKey> getSchedulerKeys() { throw new UnsupportedOperationException("compile-only stub"); }
  public PendingAsk getPendingAsk(SchedulerRequestKey schedulerKey, String resourceName) { throw new UnsupportedOperationException("compile-only stub"); }
  public int getOutstandingAsksCount(SchedulerRequestKey schedulerKey) { throw new UnsupportedOperationException("compile-only stub"); }
  public long getNewContainerId() { throw new UnsupportedOperationException("compile-only stub"); }
  public AppSchedulingInfo getAppSchedulingInfo() { throw new UnsupportedOperationException("compile-only stub"); }
  public ApplicationAttemptId getApplicationAttemptId() { throw new UnsupportedOperationException("compile-only stub"); }
  public ApplicationId getApplicationId() { throw new UnsupportedOperationException("compile-only stub"); }
  public String getUser() { throw new UnsupportedOperationException("compile-only stub"); }
  public String getQueueName() { throw new UnsupportedOperationException("compile-only stub"); }
  public boolean updateResourceRequests(List<ResourceRequest> requests) { throw new UnsupportedOperationException("compile-only stub"); }
  public List<Container> pullNewlyAllocatedContainers() { throw new UnsupportedOperationException("compile-only stub"); }
  public Collection<RMContainer> getLiveContainers() { throw new UnsupportedOperationException("compile-only stub"); }
  public RMContainer getRMContainer(ContainerId id) { throw new UnsupportedOperationException("compile-only stub"); }
  public boolean isStopped() { throw new UnsupportedOperationException("compile-only stub"); }
  public void setHeadroom(Resource globalLimit) { throw new UnsupportedOperationException("compile-only stub"); }
  public Resource getHeadroom() { throw new UnsupportedOperationException("compile-only stub"); }
  public boolean isPlaceBlacklisted(String resourceName) { throw new UnsupportedOperationException("compile-only stub"); }
  public void transferStateFromPreviousAttempt(SchedulerApplicationAttempt appAttempt) { throw new UnsupportedOperationException("compile-only stub"); }
  public void stop(RMAppAttemptState rmAppAttemptFinalState) { throw new UnsupportedOperationException("compile-only stub"); }
  public void updateBlacklist(List<String> blacklistAdditions, List<String> blacklistRemovals) { throw new UnsupportedOperationException("compile-only stub"); }
  public void setApplicationHeadroomForMetrics(Resource headroom) { throw new UnsupportedOperationException("compile-only stub"); }
  public List<NMToken> pullUpdatedNMTokens() { throw new UnsupportedOperationException("compile-only stub"); }
  public synchronized void addToNewlyAllocatedContainers(SchedulerNode node,
      RMContainer rmContainer) { throw new UnsupportedOperationException("compile-only stub"); }
  public void updateAMContainerDiagnostics(AMState state, String diagnosticMessage) { throw new UnsupportedOperationException("compile-only stub"); }
}
