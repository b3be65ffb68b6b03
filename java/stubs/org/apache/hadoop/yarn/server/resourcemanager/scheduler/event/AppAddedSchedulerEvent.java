package org.apache.hadoop.yarn.server.resourcemanager.scheduler.event;

import org.apache.hadoop.yarn.api.records.ApplicationId;

public class AppAddedSchedulerEvent extends SchedulerEvent {
  private AppAddedSchedulerEvent() { super(null); throw new UnsupportedOperationException("compile-only stub"); }
  public ApplicationId getApplicationId() { throw new UnsupportedOperationException("compile-only stub"); }
  public String getQueue() { throw new UnsupportedOperationException("compile-only stub"); }
  public String getUser() { throw new UnsupportedOperationException("compile-only stub"); }
  public boolean getIsAppRecovering() { throw new UnsupportedOperationException("compile-only stub"); }
}
