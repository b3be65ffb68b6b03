package org.apache.hadoop.yarn.server.resourcemanager.scheduler.common;

import org.apache.hadoop.yarn.api.records.Resource;

public class PendingAsk {
  public Resource getPerAllocationResource() { throw new UnsupportedOperationException("compile-only stub"); }
  public int getCount() { throw new UnsupportedOperationException("compile-only stub"); }
}
