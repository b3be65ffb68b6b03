package org.apache.hadoop.yarn.server.resourcemanager.rmnode;

import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;

public interface RMNode {
  NodeId getNodeID();
  String getHostName();
  String getHttpAddress();
  String getRackName();
  Resource getTotalCapability();
}
