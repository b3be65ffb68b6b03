package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import org.apache.hadoop.yarn.api.records.Resource;

public class ResourceUsage {
  public void incUsed(String label, Resource res) { throw new UnsupportedOperationException("compile-only stub"); }
}
