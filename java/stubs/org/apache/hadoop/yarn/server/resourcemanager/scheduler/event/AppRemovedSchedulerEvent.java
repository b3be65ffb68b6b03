package org.apache.hadoop.yarn.server.resourcemanager.scheduler.event;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;

public class AppRemovedSchedulerEvent extends SchedulerEvent {
  private AppRemovedSchedulerEvent() { super(null); throw new UnsupportedOperationException("compile-only stub"); }
  public ApplicationId getApplicationID() { throw new UnsupportedOperationException("compile-only stub"); }
  public RMAppState getFinalState() { throw new UnsupportedOperationException("compile-only stub"); }
}
