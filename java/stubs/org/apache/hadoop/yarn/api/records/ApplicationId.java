package org.apache.hadoop.yarn.api.records;


public abstract class ApplicationId implements Comparable<ApplicationId> {
  @Override
  public int compareTo(ApplicationId other) { throw new UnsupportedOperationException("compile-only stub"); }
}
