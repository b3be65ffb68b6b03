package org.apache.hadoop.yarn.server.resourcemanager.scheduler.common;


public class ContainerRequest {
}
