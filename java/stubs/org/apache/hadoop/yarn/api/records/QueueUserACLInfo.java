package org.apache.hadoop.yarn.api.records;

import java.util.List;

public abstract class QueueUserACLInfo {
  public abstract void setQueueName(String queueName);
  public abstract void setUserAcls(List<QueueACL> acls);
}
