package org.apache.hadoop.yarn.server.resourcemanager.recovery;

import org.apache.hadoop.yarn.server.resourcemanager.recovery.RMStateStore.RMState;

public interface Recoverable {
  void recover(RMState state) throws Exception;
}
