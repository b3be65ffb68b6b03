package org.apache.hadoop.yarn.server.resourcemanager.rmcontainer;

import org.apache.hadoop.yarn.event.EventHandler;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Resource;

public interface RMContainer extends EventHandler<RMContainerEvent> {
  ContainerId getContainerId();
  RMContainerState getState();
  Container getContainer();
  Resource getAllocatedResource();
}
