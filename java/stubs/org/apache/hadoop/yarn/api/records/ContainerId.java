package org.apache.hadoop.yarn.api.records;


public abstract class ContainerId implements Comparable<ContainerId> {
  @Override
  public int compareTo(ContainerId other) { throw new UnsupportedOperationException("compile-only stub"); }
}
