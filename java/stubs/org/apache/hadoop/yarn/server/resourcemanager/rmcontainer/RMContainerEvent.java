package org.apache.hadoop.yarn.server.resourcemanager.rmcontainer;

import org.apache.hadoop.yarn.event.AbstractEvent;
import org.apache.hadoop.yarn.api.records.ContainerId;

public class RMContainerEvent extends AbstractEvent<RMContainerEventType> {
  public RMContainerEvent(ContainerId containerId, RMContainerEventType type) { super(type); throw new UnsupportedOperationException("compile-only stub"); }
}
