package org.apache.hadoop.yarn.api.records;


public abstract class Container implements Comparable<Container> {
  public abstract ContainerId getId();
  public abstract NodeId getNodeId();
  public abstract Resource getResource();
  @Override
  public int compareTo(Container other) { throw new UnsupportedOperationException("compile-only stub"); }
}
