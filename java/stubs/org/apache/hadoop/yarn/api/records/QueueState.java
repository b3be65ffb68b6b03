package org.apache.hadoop.yarn.api.records;


public enum QueueState {
  STOPPED,
  RUNNING,
  DRAINING
}
