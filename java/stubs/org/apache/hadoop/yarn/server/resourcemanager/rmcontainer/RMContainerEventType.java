package org.apache.hadoop.yarn.server.resourcemanager.rmcontainer;


public enum RMContainerEventType {
  START, RECOVER, ACQUIRED, KILL, RESERVED, LAUNCHED, FINISHED, RELEASED, EXPIRE, NM_DONE_CHANGE_RESOURCE, ACQUIRE_UPDATED_CONTAINER, CHANGE_RESOURCE
}
