package org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt;

import org.apache.hadoop.yarn.event.AbstractEvent;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;

public class RMAppAttemptEvent extends AbstractEvent<RMAppAttemptEventType> {
  public RMAppAttemptEvent(ApplicationAttemptId appAttemptId, RMAppAttemptEventType type) { super(type); throw new UnsupportedOperationException("compile-only stub"); }
}
