package org.apache.hadoop.yarn.server.resourcemanager.scheduler;


public enum NodeType {
  NODE_LOCAL, RACK_LOCAL, OFF_SWITCH
}
