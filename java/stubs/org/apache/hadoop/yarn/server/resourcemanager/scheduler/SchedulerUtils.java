package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;

public class SchedulerUtils {
  public static final String RELEASED_CONTAINER = "Container released by application";
  public static final String LOST_CONTAINER = "Container released on a *lost* node";
  public static final String COMPLETED_APPLICATION = "Container of a completed application";
  public static final String EXPIRED_CONTAINER = "Container expired since it was unused";
  public static ContainerStatus createAbnormalContainerStatus(ContainerId containerId,
      String diagnostics) { throw new UnsupportedOperationException("compile-only stub"); }
  public static ContainerStatus createKilledContainerStatus(ContainerId containerId,
      String diagnostics) { throw new UnsupportedOperationException("compile-only stub"); }
}
