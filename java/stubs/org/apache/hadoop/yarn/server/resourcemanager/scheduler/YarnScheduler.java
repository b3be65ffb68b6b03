package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.event.EventHandler;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;

public interface YarnScheduler extends EventHandler<SchedulerEvent> {
  QueueInfo getQueueInfo(String queueName, boolean includeChildQueues, boolean recursive)
      throws IOException;
  List<QueueUserACLInfo> getQueueUserAclInfo();
  int getNumClusterNodes();
  Allocation allocate(ApplicationAttemptId appAttemptId, List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
      List<String> blacklistAdditions, List<String> blacklistRemovals,
      ContainerUpdates updateRequests);
  QueueMetrics getRootQueueMetrics();
  boolean checkAccess(UserGroupInformation callerUGI, QueueACL acl, String queueName);
  List<ApplicationAttemptId> getAppsInQueue(String queueName);
  RMContainer getRMContainer(ContainerId containerId);
  ResourceCalculator getResourceCalculator();
}
