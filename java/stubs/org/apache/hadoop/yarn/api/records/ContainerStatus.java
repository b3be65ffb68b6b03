package org.apache.hadoop.yarn.api.records;


public abstract class ContainerStatus {
}
