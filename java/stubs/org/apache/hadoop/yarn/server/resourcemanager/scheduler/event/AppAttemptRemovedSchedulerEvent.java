package org.apache.hadoop.yarn.server.resourcemanager.scheduler.event;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;

public class AppAttemptRemovedSchedulerEvent extends SchedulerEvent {
  private AppAttemptRemovedSchedulerEvent() { super(null); throw new UnsupportedOperationException("compile-only stub"); }
  public ApplicationAttemptId getApplicationAttemptID() { throw new UnsupportedOperationException("compile-only stub"); }
  public RMAppAttemptState getFinalAttemptState() { throw new UnsupportedOperationException("compile-only stub"); }
  public boolean getKeepContainersAcrossAppAttempts() { throw new UnsupportedOperationException("compile-only stub"); }
}
