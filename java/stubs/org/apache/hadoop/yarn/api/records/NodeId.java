package org.apache.hadoop.yarn.api.records;


public abstract class NodeId implements Comparable<NodeId> {
  @Override
  public int compareTo(NodeId other) { throw new UnsupportedOperationException("compile-only stub"); }
}
