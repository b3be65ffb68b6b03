package org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;

public class FiCaSchedulerApp extends SchedulerApplicationAttempt {
  public FiCaSchedulerApp(ApplicationAttemptId applicationAttemptId, String user, Queue queue,
      AbstractUsersManager abstractUsersManager, RMContext rmContext) {
    super(applicationAttemptId, user, queue, abstractUsersManager, rmContext);
    throw new UnsupportedOperationException("compile-only stub");
  }
  public boolean containerCompleted(RMContainer rmContainer, ContainerStatus containerStatus,
      RMContainerEventType event, String partition) { throw new UnsupportedOperationException("compile-only stub"); }
}
