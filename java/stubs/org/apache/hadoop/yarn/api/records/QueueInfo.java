package org.apache.hadoop.yarn.api.records;

import java.util.List;

public abstract class QueueInfo {
  public abstract void setQueueName(String queueName);
  public abstract void setCapacity(float capacity);
  public abstract void setCurrentCapacity(float currentCapacity);
  public abstract void setMaximumCapacity(float maximumCapacity);
  public abstract void setChildQueues(List<QueueInfo> childQueues);
  public abstract void setQueueState(QueueState queueState);
}
