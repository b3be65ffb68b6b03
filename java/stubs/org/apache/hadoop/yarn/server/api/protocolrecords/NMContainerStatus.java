package org.apache.hadoop.yarn.server.api.protocolrecords;


public abstract class NMContainerStatus {
}
