package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Resource;

public class QueueMetrics {
  public static QueueMetrics forQueue(String queueName, Queue parent, boolean enableUserMetrics,
      Configuration conf) { throw new UnsupportedOperationException("compile-only stub"); }
  public void setAvailableResourcesToQueue(Resource limit) { throw new UnsupportedOperationException("compile-only stub"); }
}
