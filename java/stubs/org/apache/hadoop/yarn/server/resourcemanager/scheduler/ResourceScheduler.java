package org.apache.hadoop.yarn.server.resourcemanager.scheduler;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.Recoverable;

public interface ResourceScheduler extends YarnScheduler, Recoverable {
  void setRMContext(RMContext rmContext);
  void reinitialize(Configuration conf, RMContext rmContext) throws IOException;
}
