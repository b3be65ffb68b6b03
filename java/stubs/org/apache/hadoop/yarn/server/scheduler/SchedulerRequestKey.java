package org.apache.hadoop.yarn.server.scheduler;

import org.apache.hadoop.yarn.api.records.Priority;

public class SchedulerRequestKey implements Comparable<SchedulerRequestKey> {
  public Priority getPriority() { throw new UnsupportedOperationException("compile-only stub"); }
  public long getAllocationRequestId() { throw new UnsupportedOperationException("compile-only stub"); }
  @Override
  public int compareTo(SchedulerRequestKey other) { throw new UnsupportedOperationException("compile-only stub"); }
}
