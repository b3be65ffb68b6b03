package org.apache.hadoop.yarn.server.resourcemanager.rmapp;

import org.apache.hadoop.yarn.event.AbstractEvent;
import org.apache.hadoop.yarn.api.records.ApplicationId;

public class RMAppEvent extends AbstractEvent<RMAppEventType> {
  public RMAppEvent(ApplicationId appId, RMAppEventType type) { super(type); throw new UnsupportedOperationException("compile-only stub"); }
}
