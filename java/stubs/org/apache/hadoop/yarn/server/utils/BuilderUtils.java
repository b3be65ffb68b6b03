package org.apache.hadoop.yarn.server.utils;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.Token;

public class BuilderUtils {
  public static ContainerId newContainerId(ApplicationAttemptId appAttemptId, long containerId) { throw new UnsupportedOperationException("compile-only stub"); }
  public static Container newContainer(ContainerId containerId, NodeId nodeId,
      String nodeHttpAddress, Resource resource, Priority priority, Token containerToken,
      long allocationRequestId) { throw new UnsupportedOperationException("compile-only stub"); }
}
