package org.spindle.bench.rm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.net.Node;
import org.apache.hadoop.net.NodeBase;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeAttribute;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceUtilization;
import org.apache.hadoop.yarn.server.api.protocolrecords.NodeHeartbeatResponse;
import org.apache.hadoop.yarn.server.api.records.OpportunisticContainersStatus;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.UpdatedContainerInfo;

/**
 * A NodeManager as the scheduler sees it: the RMNode a heartbeat hands to
 * {@code handle(NodeUpdateSchedulerEvent)}, with the containers launched and
 * completed since its last heartbeat (what RMNodeImpl queues from an NM's
 * status). No RPC, no state machine: the bench drives the scheduler itself.
 */
final class BenchNode implements RMNode {
  private static final ResourceUtilization ZERO = ResourceUtilization.newInstance(0, 0, 0f);

  final int index;
  private final NodeId id;
  private final String host;
  private final String rack;
  private final Node node;
  private final Resource capability;
  private final RMContext context;
  private List<UpdatedContainerInfo> updates = new ArrayList<>();

  /** This node's heartbeats so far: containers finish after a number of them. */
  long beats;
  /** Containers the AMs pulled, reported RUNNING at the next heartbeat. */
  final List<ContainerStatus> launched = new ArrayList<>();
  /** Containers of finished apps, reported complete at the next heartbeat. */
  final List<ContainerStatus> killed = new ArrayList<>();
  /** Running containers: the bench's records, finished by heartbeat count. */
  final List<BenchApp.Task> running = new ArrayList<>();

  BenchNode(int index, String host, String rack, Resource capability, RMContext context) {
    this.index = index;
    this.id = NodeId.newInstance(host, 8041);
    this.host = host;
    this.rack = rack;
    this.node = new NodeBase(host, rack);
    this.capability = capability;
    this.context = context;
  }

  /** The next heartbeat reports these launched and completed containers. */
  void report(List<ContainerStatus> launchedNow, List<ContainerStatus> completedNow) {
    updates.add(new UpdatedContainerInfo(launchedNow, completedNow, Collections.emptyList()));
  }

  @Override
  public List<UpdatedContainerInfo> pullContainerUpdates() {
    List<UpdatedContainerInfo> u = updates;
    updates = new ArrayList<>(1);
    return u;
  }

  @Override
  public NodeId getNodeID() {
    return id;
  }

  @Override
  public String getHostName() {
    return host;
  }

  @Override
  public int getCommandPort() {
    return id.getPort();
  }

  @Override
  public int getHttpPort() {
    return 8042;
  }

  @Override
  public String getNodeAddress() {
    return host + ":" + id.getPort();
  }

  @Override
  public String getHttpAddress() {
    return host + ":8042";
  }

  @Override
  public String getHealthReport() {
    return "";
  }

  @Override
  public long getLastHealthReportTime() {
    return 0;
  }

  @Override
  public String getNodeManagerVersion() {
    return "3.4.2";
  }

  @Override
  public Resource getTotalCapability() {
    return capability;
  }

  @Override
  public boolean isUpdatedCapability() {
    return false;
  }

  @Override
  public void resetUpdatedCapability() {}

  @Override
  public ResourceUtilization getAggregatedContainersUtilization() {
    return ZERO;
  }

  @Override
  public ResourceUtilization getNodeUtilization() {
    return ZERO;
  }

  @Override
  public Resource getPhysicalResource() {
    return capability;
  }

  @Override
  public String getRackName() {
    return rack;
  }

  @Override
  public Node getNode() {
    return node;
  }

  @Override
  public NodeState getState() {
    return NodeState.RUNNING;
  }

  @Override
  public List<ContainerId> getContainersToCleanUp() {
    return Collections.emptyList();
  }

  @Override
  public List<ApplicationId> getAppsToCleanup() {
    return Collections.emptyList();
  }

  @Override
  public List<ApplicationId> getRunningApps() {
    return Collections.emptyList();
  }

  @Override
  public void setAndUpdateNodeHeartbeatResponse(NodeHeartbeatResponse response) {}

  @Override
  public NodeHeartbeatResponse getLastNodeHeartBeatResponse() {
    return null;
  }

  @Override
  public void resetLastNodeHeartBeatResponse() {}

  @Override
  public Set<String> getNodeLabels() {
    return Collections.emptySet();
  }

  @Override
  public List<Container> pullNewlyIncreasedContainers() {
    return Collections.emptyList();
  }

  @Override
  public OpportunisticContainersStatus getOpportunisticContainersStatus() {
    return null;
  }

  @Override
  public long getUntrackedTimeStamp() {
    return 0;
  }

  @Override
  public void setUntrackedTimeStamp(long timestamp) {}

  @Override
  public Integer getDecommissioningTimeout() {
    return null;
  }

  @Override
  public Map<String, Long> getAllocationTagsWithCount() {
    return Collections.emptyMap();
  }

  @Override
  public RMContext getRMContext() {
    return context;
  }

  @Override
  public Set<NodeAttribute> getAllNodeAttributes() {
    return Collections.emptySet();
  }

  @Override
  public long calculateHeartBeatInterval(long defaultInterval, long minInterval,
      long maxInterval, float speedupFactor, float slowdownFactor) {
    return defaultInterval;
  }

  @Override
  public String toString() {
    return host;
  }
}
