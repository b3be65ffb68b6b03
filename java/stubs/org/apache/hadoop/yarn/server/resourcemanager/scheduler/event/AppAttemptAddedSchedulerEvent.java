package org.apache.hadoop.yarn.server.resourcemanager.scheduler.event;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;

public class AppAttemptAddedSchedulerEvent extends SchedulerEvent {
  private AppAttemptAddedSchedulerEvent() { super(null); throw new UnsupportedOperationException("compile-only stub"); }
  public ApplicationAttemptId getApplicationAttemptId() { throw new UnsupportedOperationException("compile-only stub"); }
  public boolean getTransferStateFromPreviousAttempt() { throw new UnsupportedOperationException("compile-only stub"); }
  public boolean getIsAttemptRecovering() { throw new UnsupportedOperationException("compile-only stub"); }
}
