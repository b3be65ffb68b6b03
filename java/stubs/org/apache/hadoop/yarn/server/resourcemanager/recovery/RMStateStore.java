package org.apache.hadoop.yarn.server.resourcemanager.recovery;


public abstract class RMStateStore {
  public static class RMState {
  }
}
