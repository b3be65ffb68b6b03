package org.apache.hadoop.yarn.api.records;


public enum QueueACL {
  SUBMIT_APPLICATIONS,
  ADMINISTER_QUEUE
}
