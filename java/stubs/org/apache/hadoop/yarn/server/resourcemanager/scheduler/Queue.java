package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import java.util.List;
import java.util.Set;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;

public interface Queue {
  String getQueueName();
  QueueMetrics getMetrics();
  QueueInfo getQueueInfo(boolean includeChildQueues, boolean recursive);
  List<QueueUserACLInfo> getQueueUserAclInfo(UserGroupInformation user);
  boolean hasAccess(QueueACL acl, UserGroupInformation user);
  AbstractUsersManager getAbstractUsersManager();
  void recoverContainer(Resource clusterResource, SchedulerApplicationAttempt schedulerAttempt,
      RMContainer rmContainer);
  Set<String> getAccessibleNodeLabels();
  String getDefaultNodeLabelExpression();
  void incPendingResource(String nodeLabel, Resource resourceToInc);
  void decPendingResource(String nodeLabel, Resource resourceToDec);
  Priority getDefaultApplicationPriority();
  void incReservedResource(String partition, Resource reservedRes);
  void decReservedResource(String partition, Resource reservedRes);
}
