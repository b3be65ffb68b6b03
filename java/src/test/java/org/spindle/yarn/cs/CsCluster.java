package org.spindle.yarn.cs;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.spindle.yarn.MockCluster;
import org.spindle.yarn.SpindleSettings;

/**
 * A MockRM running the CapacityScheduler, stock or with Spindle, over the
 * four MockNMs of {@link MockCluster} (h1, h2 on /r1; h3, h4 on /r2; 8 GB and
 * 8 vcores each), with a two-level queue tree:
 *
 * <ul>
 *   <li>{@code root.prod}: 70 %, max 100 %, user-limit-factor 2,
 *       minimum-user-limit-percent 50, submit ACL alice,bob;
 *   <li>{@code root.dev}: 30 %, max 50 %, user-limit-factor 1, submit ACL carol,dave.
 * </ul>
 *
 * The stock run keeps the CapacityScheduler's defaults (node-locality-delay
 * 40); the Spindle run adds exactly the documented lines
 * (docs/capacity-scheduler.md): the scheduler class, Spindle's ordering
 * policy on both leaves and both delays at 0.
 */
final class CsCluster implements AutoCloseable {
  enum Mode {
    STOCK, SPINDLE
  }

  static final String CS = "yarn.scheduler.capacity.";
  static final int GB = MockCluster.GB;

  final Mode mode;
  final MockRM rm;
  final Map<String, MockNM> nms = new LinkedHashMap<>();

  /** The queue tree and, for Spindle, the documented lines; {@code extra} on top. */
  static Configuration conf(Mode mode, Map<String, String> extra) throws Exception {
    YarnConfiguration c = MockCluster.conf(MockCluster.Sched.CAPACITY);
    c.set(SpindleSettings.POLICY, "asm1"); // the default policy, not the scenarios' asm1-comm
    // Plans on the heartbeat that needs one: the scripted rounds are deterministic.
    c.set(SpindleSettings.PLANNING_BACKGROUND, "false");
    c.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
    c.set(YarnConfiguration.YARN_ADMIN_ACL, " ");
    c.set(CS + "root.queues", "prod,dev");
    c.set(CS + "root.acl_submit_applications", " ");
    c.set(CS + "root.acl_administer_queue", " ");
    c.set(CS + "root.prod.capacity", "70");
    c.set(CS + "root.prod.maximum-capacity", "100");
    c.set(CS + "root.prod.user-limit-factor", "2");
    c.set(CS + "root.prod.minimum-user-limit-percent", "50");
    c.set(CS + "root.prod.acl_submit_applications", "alice,bob");
    c.set(CS + "root.dev.capacity", "30");
    c.set(CS + "root.dev.maximum-capacity", "50");
    c.set(CS + "root.dev.user-limit-factor", "1");
    c.set(CS + "root.dev.acl_submit_applications", "carol,dave");
    c.set(CS + "user-metrics.enable", "true");
    if (mode == Mode.SPINDLE) {
      c.set(YarnConfiguration.RM_SCHEDULER, SpindleCapacityScheduler.class.getName());
      c.set(CS + "root.prod.ordering-policy", SpindleOrderingPolicy.class.getName());
      c.set(CS + "root.dev.ordering-policy", SpindleOrderingPolicy.class.getName());
      c.set(CS + "node-locality-delay", "0");
      c.set(CS + "rack-locality-additional-delay", "0");
    }
    for (Map.Entry<String, String> e : extra.entrySet()) {
      c.set(e.getKey(), e.getValue());
    }
    return c;
  }

  CsCluster(Mode mode) throws Exception {
    this(mode, conf(mode, Collections.<String, String>emptyMap()));
  }

  CsCluster(Mode mode, Configuration conf) throws Exception {
    this(mode, new MockRM(conf));
  }

  CsCluster(Mode mode, MockRM rm) throws Exception {
    this.mode = mode;
    this.rm = rm;
    // MockRM turns the root logger to DEBUG: the RM's DEBUG lines cost these
    // tests most of their time.
    org.apache.log4j.LogManager.getRootLogger().setLevel(org.apache.log4j.Level.WARN);
    rm.start();
    for (String h : MockCluster.HOSTS) {
      nms.put(h, rm.registerNode(h + ":1234", MockCluster.NODE_MB, 8));
    }
  }

  CapacityScheduler cs() {
    return (CapacityScheduler) rm.getResourceScheduler();
  }

  /** Spindle's runtime in this RM (null under the stock scheduler). */
  CsRuntime runtime() {
    CsRuntime rt = CsRuntime.current();
    return rt != null && rt.rmContext == rm.getRMContext() ? rt : null;
  }

  MockNM nm(String host) {
    return nms.get(host);
  }

  /** Submits an app (1 GB AM) as {@code user} to {@code queue} and launches its AM on {@code amHost}. */
  MockAM launch(String name, String user, String queue, String amHost) throws Exception {
    RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withAppName(name).withUser(user).withQueue(queue).build());
    return MockRM.launchAndRegisterAM(app, rm, nm(amHost));
  }

  /**
   * The asks of {@code n} maps as the MapReduce AM sends them, map i with
   * replicas on hosts {@code i + offset} and {@code i + offset + 1} (mod 4):
   * each host and each rack with its count, and ANY.
   */
  static List<ResourceRequest> maps(int priority, int n, int offset) {
    Map<String, Integer> hosts = new TreeMap<>();
    Map<String, Integer> racks = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      Set<String> mapRacks = new LinkedHashSet<>();
      for (int r = 0; r < 2; r++) {
        String h = MockCluster.HOSTS[(i + offset + r) % MockCluster.HOSTS.length];
        hosts.merge(h, 1, Integer::sum);
        mapRacks.add(MockCluster.RACK.get(h));
      }
      for (String rack : mapRacks) {
        racks.merge(rack, 1, Integer::sum);
      }
    }
    List<ResourceRequest> out = new ArrayList<>();
    for (Map.Entry<String, Integer> e : hosts.entrySet()) {
      out.add(MockCluster.ask(priority, e.getKey(), e.getValue()));
    }
    for (Map.Entry<String, Integer> e : racks.entrySet()) {
      out.add(MockCluster.ask(priority, e.getKey(), e.getValue()));
    }
    out.add(MockCluster.ask(priority, ResourceRequest.ANY, n));
    return out;
  }

  /** Asks {@code n} containers anywhere at {@code priority}. */
  static List<ResourceRequest> anywhere(int priority, int n) {
    return Collections.singletonList(ResourceRequest.newInstance(Priority.newInstance(priority),
        ResourceRequest.ANY, Resource.newInstance(GB, 1), n));
  }

  /** One round: every node heartbeats in order, then each AM pulls what it was given. */
  Map<MockAM, List<Container>> round(List<MockAM> ams) throws Exception {
    return round(ams, Collections.<Container>emptyList(), Collections.<Container>emptyList());
  }

  /**
   * One round in which each node's heartbeat also reports its containers
   * of {@code running} as running and of {@code done} as finished.
   */
  Map<MockAM, List<Container>> round(List<MockAM> ams, List<Container> running,
      List<Container> done) throws Exception {
    for (Map.Entry<String, MockNM> e : nms.entrySet()) {
      List<ContainerStatus> report = new ArrayList<>();
      for (Container c : running) {
        if (c.getNodeId().getHost().equals(e.getKey())) {
          report.add(ContainerStatus.newInstance(c.getId(), ContainerState.RUNNING, "", 0));
        }
      }
      for (Container c : done) {
        if (c.getNodeId().getHost().equals(e.getKey())) {
          report.add(ContainerStatus.newInstance(c.getId(), ContainerState.COMPLETE, "", 0));
        }
      }
      e.getValue().nodeHeartbeat(report, true);
      rm.drainEvents();
    }
    return pull(ams);
  }

  /**
   * Rounds ({@code sleepMs} before each: time for background threads) until
   * {@code am} got {@code n} containers or {@code rounds} ran; what it got.
   */
  List<Container> collect(MockAM am, int n, int rounds, long sleepMs) throws Exception {
    List<Container> got = new ArrayList<>();
    for (int r = 0; r < rounds && got.size() < n; r++) {
      if (sleepMs > 0) {
        Thread.sleep(sleepMs);
      }
      got.addAll(round(Collections.singletonList(am)).get(am));
    }
    return got;
  }

  Map<MockAM, List<Container>> pull(List<MockAM> ams) throws Exception {
    Map<MockAM, List<Container>> got = new LinkedHashMap<>();
    for (MockAM am : ams) {
      AllocateResponse r = am.allocate(Collections.<ResourceRequest>emptyList(),
          Collections.<ContainerId>emptyList());
      got.put(am, new ArrayList<>(r.getAllocatedContainers()));
    }
    return got;
  }

  /**
   * Up to 10 rounds in which only {@code hosts} heartbeat, each followed by
   * the AMs pulling and the NodeManagers reporting their grants running,
   * until {@code want} containers were granted. Returns how many were.
   */
  int fillOn(List<MockAM> ams, int want, String... hosts) throws Exception {
    int total = 0;
    for (int r = 0; r < 10 && total < want; r++) {
      for (String h : hosts) {
        nm(h).nodeHeartbeat(true);
        rm.drainEvents();
      }
      List<Container> got = new ArrayList<>();
      for (List<Container> l : pull(ams).values()) {
        got.addAll(l);
      }
      running(got);
      total += got.size();
    }
    return total;
  }

  /** The NodeManagers report {@code done} finished. */
  void finish(List<Container> done) throws Exception {
    for (Container c : done) {
      nm(c.getNodeId().getHost()).nodeHeartbeat(Collections.singletonList(
          ContainerStatus.newInstance(c.getId(), ContainerState.COMPLETE, "", 0)), true);
    }
    rm.drainEvents();
  }

  /** The NodeManagers report {@code running} as running. */
  void running(List<Container> running) throws Exception {
    for (Container c : running) {
      nm(c.getNodeId().getHost()).nodeHeartbeat(Collections.singletonList(
          ContainerStatus.newInstance(c.getId(), ContainerState.RUNNING, "", 0)), true);
    }
    rm.drainEvents();
  }

  QueueMetrics queue(String name) {
    return cs().getQueue(name).getMetrics();
  }

  long queueMb(String name) {
    return queue(name).getAllocatedMB();
  }

  long userMb(String queue, String user) {
    QueueMetrics u = queue(queue).getUserMetrics(user);
    return u == null ? 0 : u.getAllocatedMB();
  }

  long clusterMb() {
    return cs().getClusterResource().getMemorySize();
  }

  @Override
  public void close() {
    rm.stop();
  }
}
