package org.apache.hadoop.yarn.api.records;


public abstract class Resource implements Comparable<Resource> {
  public abstract long getMemorySize();
  public abstract int getVirtualCores();
  @Override
  public int compareTo(Resource other) { throw new UnsupportedOperationException("compile-only stub"); }
}
