package org.apache.hadoop.yarn.api.records;


public abstract class ResourceRequest implements Comparable<ResourceRequest> {
  public static final String ANY = "*";
  public abstract Priority getPriority();
  public abstract String getResourceName();
  public abstract Resource getCapability();
  public abstract int getNumContainers();
  public abstract boolean getRelaxLocality();
  @Override
  public int compareTo(ResourceRequest other) { throw new UnsupportedOperationException("compile-only stub"); }
}
