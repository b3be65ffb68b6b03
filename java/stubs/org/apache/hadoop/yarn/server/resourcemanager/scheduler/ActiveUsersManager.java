package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import org.apache.hadoop.yarn.api.records.ApplicationId;

public class ActiveUsersManager implements AbstractUsersManager {
  public ActiveUsersManager(QueueMetrics metrics) { throw new UnsupportedOperationException("compile-only stub"); }
  public void deactivateApplication(String user, ApplicationId applicationId) { throw new UnsupportedOperationException("compile-only stub"); }
}
