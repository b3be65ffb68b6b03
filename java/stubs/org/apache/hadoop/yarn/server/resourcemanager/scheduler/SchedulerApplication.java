package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;

public class SchedulerApplication<T extends SchedulerApplicationAttempt> {
  public SchedulerApplication(Queue queue, String user) { throw new UnsupportedOperationException("compile-only stub"); }
  public String getUser() { throw new UnsupportedOperationException("compile-only stub"); }
  public T getCurrentAppAttempt() { throw new UnsupportedOperationException("compile-only stub"); }
  public void setCurrentAppAttempt(T currentAttempt) { throw new UnsupportedOperationException("compile-only stub"); }
  public void stop(RMAppState rmAppFinalState) { throw new UnsupportedOperationException("compile-only stub"); }
}
