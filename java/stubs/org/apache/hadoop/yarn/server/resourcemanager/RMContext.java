package org.apache.hadoop.yarn.server.resourcemanager;

import org.apache.hadoop.yarn.event.Dispatcher;

public interface RMContext {
  Dispatcher getDispatcher();
  boolean isWorkPreservingRecoveryEnabled();
  boolean isSchedulerReadyForAllocatingContainers();
}
