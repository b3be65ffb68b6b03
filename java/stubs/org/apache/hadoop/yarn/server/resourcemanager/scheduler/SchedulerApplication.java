package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;

public class SchedulerApplication<T extends SchedulerApplicationAttempt> {
  // Constructors differ: (Queue, String) in 3.3.6, (Queue, String, boolean) in 3.4;
  // the adapter calls them reflectively (HadoopCompat), so none is declared here.
  private SchedulerApplication() { throw new UnsupportedOperationException("compile-only stub"); }
  public String getUser() { throw new UnsupportedOperationException("compile-only stub"); }
  public T getCurrentAppAttempt() { throw new UnsupportedOperationException("compile-only stub"); }
  public void setCurrentAppAttempt(T currentAttempt) { throw new UnsupportedOperationException("compile-only stub"); }
  public void stop(RMAppState rmAppFinalState) { throw new UnsupportedOperationException("compile-only stub"); }
}
