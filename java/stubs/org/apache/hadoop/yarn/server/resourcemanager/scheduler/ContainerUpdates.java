package org.apache.hadoop.yarn.server.resourcemanager.scheduler;


public class ContainerUpdates {
}
