package org.apache.hadoop.yarn.api.records;


public abstract class Priority implements Comparable<Priority> {
  public abstract int getPriority();
  @Override
  public int compareTo(Priority other) { throw new UnsupportedOperationException("compile-only stub"); }
}
