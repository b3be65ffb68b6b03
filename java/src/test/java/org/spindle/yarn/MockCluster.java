package org.spindle.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.RMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;

/**
 * A ResourceManager from Hadoop's own test kit (MockRM) with four MockNMs on
 * two racks (h1, h2 on /r1; h3, h4 on /r2; 8 GB each), run with one of the
 * three schedulers so that a scenario can be played on each and the grants
 * compared. Node names are host names (h1, ...), so host asks are matched
 * exactly as on a real cluster; racks come from a TableMapping file.
 */
public final class MockCluster implements AutoCloseable {
  public enum Sched {
    SPINDLE(SpindleScheduler.class.getName()),
    CAPACITY("org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"),
    FAIR("org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler");

    final String className;

    Sched(String className) {
      this.className = className;
    }
  }

  public static final String[] HOSTS = {"h1", "h2", "h3", "h4"};
  public static final Map<String, String> RACK = new LinkedHashMap<>();
  public static final int NODE_MB = 8192;
  public static final int GB = 1024;

  static {
    // MockNM hosts (h1, ...) do not resolve: container tokens name them by host.
    org.apache.hadoop.security.SecurityUtil.setTokenServiceUseIp(false);
    RACK.put("h1", "/r1");
    RACK.put("h2", "/r1");
    RACK.put("h3", "/r2");
    RACK.put("h4", "/r2");
  }

  private static File table;

  /**
   * One rack table for the whole JVM: Hadoop's RackResolver is initialised
   * once per process, so every MockRM here must see the same topology.
   */
  public static synchronized File rackTable() throws IOException {
    if (table == null) {
      table = File.createTempFile("spindle-racks", ".table");
      table.deleteOnExit();
      StringBuilder b = new StringBuilder();
      for (Map.Entry<String, String> e : RACK.entrySet()) {
        b.append(e.getKey()).append(' ').append(e.getValue()).append('\n');
      }
      b.append("h9 /r2\n"); // a host with blocks but no NodeManager
      Files.write(table.toPath(), b.toString().getBytes(StandardCharsets.UTF_8));
    }
    return table;
  }

  private static File stores;

  /** A scratch directory of this JVM's own for the RM's file stores. */
  private static synchronized File storeDir() throws IOException {
    if (stores == null) {
      stores = Files.createTempDirectory("spindle-mockrm").toFile();
      final java.nio.file.Path root = stores.toPath();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try (java.util.stream.Stream<java.nio.file.Path> all = Files.walk(root)) {
          all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
          // a scratch directory left in /tmp is harmless
        }
      }));
    }
    return stores;
  }

  public static YarnConfiguration conf(Sched s) throws IOException {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RM_SCHEDULER, s.className);
    // The scenarios were written against asm1-comm (it spills at once, so
    // their expected placements hold at the first heartbeat); the default
    // asm1 waits up to spindle.locality.max-wait-ms for a replica holder.
    conf.set(SpindleSettings.POLICY, "asm1-comm");
    conf.set("net.topology.node.switch.mapping.impl", "org.apache.hadoop.net.TableMapping");
    conf.set("net.topology.table.file.name", rackTable().getAbsolutePath());
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, GB);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, NODE_MB);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 2);
    // The FairScheduler's queue per user would be root.root here (we run as root).
    conf.setBoolean("yarn.scheduler.fair.user-as-default-queue", false);
    // The RM's node-attribute store defaults to /tmp/hadoop-yarn-$USER, which
    // every MockRM on the machine shares: two test JVMs at once broke each
    // other's mirror file (FileNotFoundException on nodeattribute.mirror.writing).
    String store = storeDir().toURI().toString();
    conf.set("yarn.node-attribute.fs-store.root-dir", store + "node-attribute/");
    conf.set("yarn.node-labels.fs-store.root-dir", store + "node-labels/");
    String lib = System.getProperty("spindle.library.path", "");
    if (!lib.isEmpty()) {
      conf.set(SpindleSettings.LIBRARY_PATH, lib);
    }
    return conf;
  }

  final Sched sched;
  final MockRM rm;
  final Map<String, MockNM> nms = new LinkedHashMap<>();

  MockCluster(Sched sched) throws Exception {
    this(sched, conf(sched), null);
  }

  MockCluster(Sched sched, Configuration conf, RMStateStore store) throws Exception {
    this.sched = sched;
    rm = store == null ? new MockRM(conf) : new MockRM(conf, store);
    rm.start();
    for (String h : HOSTS) {
      nms.put(h, rm.registerNode(h + ":1234", NODE_MB, 8));
    }
  }

  MockNM nm(String host) {
    return nms.get(host);
  }

  ResourceScheduler scheduler() {
    return rm.getResourceScheduler();
  }

  /** Submits an app (1 GB AM) and launches and registers its AM on {@code amHost}. */
  MockAM launchApp(String name, String amHost) throws Exception {
    RMApp app = MockRMAppSubmitter.submit(rm,
        MockRMAppSubmissionData.Builder.createWithMemory(GB, rm).withAppName(name).build());
    return MockRM.launchAndRegisterAM(app, rm, nm(amHost));
  }

  /** Work-preserving recovery on {@code conf}, in a fresh in-memory state store. */
  static org.apache.hadoop.yarn.server.resourcemanager.recovery.MemoryRMStateStore enableRecovery(
      YarnConfiguration conf) {
    conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
    conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 0);
    conf.set(YarnConfiguration.RM_STORE,
        org.apache.hadoop.yarn.server.resourcemanager.recovery.MemoryRMStateStore.class.getName());
    org.apache.hadoop.yarn.server.resourcemanager.recovery.MemoryRMStateStore store =
        new org.apache.hadoop.yarn.server.resourcemanager.recovery.MemoryRMStateStore();
    store.init(conf);
    return store;
  }

  /** A NodeManager's report of a running container of {@code attempt} (1 GB, 1 vcore). */
  static NMContainerStatus running(ApplicationAttemptId attempt, long id, int priority) {
    return NMContainerStatus.newInstance(ContainerId.newContainerId(attempt, id), 0,
        ContainerState.RUNNING, Resource.newInstance(GB, 1), "", 0, Priority.newInstance(priority),
        System.currentTimeMillis());
  }

  /**
   * After an RM restart: each NodeManager of {@code hosts} re-registers with
   * {@code rm2}, reporting the AM of {@code attempt} running on {@code amHost}
   * (container 1, priority 0) and each of {@code maps} (priority 20) on its
   * host, as a work-preserving NM does. Returns the NMs by host.
   */
  Map<String, MockNM> reregister(MockRM rm2, ApplicationAttemptId attempt, String amHost,
      List<Grant> maps, String... hosts) throws Exception {
    Map<String, List<NMContainerStatus>> reports = new java.util.HashMap<>();
    reports.computeIfAbsent(amHost, k -> new ArrayList<>()).add(running(attempt, 1, 0));
    for (Grant x : maps) {
      reports.computeIfAbsent(x.host, k -> new ArrayList<>())
          .add(running(attempt, x.id().getContainerId(), 20));
    }
    Map<String, MockNM> nms = new LinkedHashMap<>();
    for (String h : hosts) {
      MockNM n = nm(h);
      n.setResourceTrackerService(rm2.getResourceTrackerService());
      n.registerNode(reports.getOrDefault(h, Collections.<NMContainerStatus>emptyList()),
          Collections.singletonList(attempt.getApplicationId()));
      nms.put(h, n);
    }
    rm2.drainEvents();
    return nms;
  }

  /**
   * The asks of {@code count} tasks that each read a block on all of
   * {@code hosts}, as the MapReduce AM sends them: each host, each distinct
   * rack and ANY at {@code count} (facts file section 3).
   */
  public static List<ResourceRequest> asks(int priority, int count, String... hosts) {
    List<ResourceRequest> out = new ArrayList<>();
    Set<String> racks = new LinkedHashSet<>();
    for (String h : hosts) {
      out.add(ask(priority, h, count));
      racks.add(RACK.containsKey(h) ? RACK.get(h) : "/r2");
    }
    for (String r : racks) {
      out.add(ask(priority, r, count));
    }
    out.add(ask(priority, ResourceRequest.ANY, count));
    return out;
  }

  public static ResourceRequest ask(int priority, String resource, int count) {
    return ResourceRequest.newInstance(Priority.newInstance(priority), resource,
        Resource.newInstance(GB, 1), count);
  }

  /** A container the RM handed an AM, with where it runs. */
  static final class Grant {
    final Container container;
    final String host;
    final int priority;
    final int round;

    Grant(Container c, int round) {
      container = c;
      host = c.getNodeId().getHost();
      priority = c.getPriority().getPriority();
      this.round = round;
    }

    ContainerId id() {
      return container.getId();
    }

    @Override
    public String toString() {
      return "p" + priority + "@" + host + "(r" + round + ")";
    }
  }

  /**
   * Heartbeats the nodes in {@code order}, one round after another, and pulls
   * what the AMs were given, until {@code want} containers arrived (over all
   * {@code ams}) or {@code rounds} rounds passed. Returns the grants per AM.
   */
  Map<MockAM, List<Grant>> drive(List<MockAM> ams, int want, int rounds, String... order)
      throws Exception {
    Map<MockAM, List<Grant>> got = new LinkedHashMap<>();
    for (MockAM am : ams) {
      got.put(am, new ArrayList<>());
    }
    int total = 0;
    for (int r = 0; r < rounds && total < want; r++) {
      // The FairScheduler computes demands and shares in its update pass.
      ((AbstractYarnScheduler<?, ?>) scheduler()).update();
      for (String h : order) {
        nm(h).nodeHeartbeat(true);
        rm.drainEvents();
      }
      for (MockAM am : ams) {
        AllocateResponse resp = am.allocate(Collections.<ResourceRequest>emptyList(),
            Collections.<ContainerId>emptyList());
        for (Container c : resp.getAllocatedContainers()) {
          got.get(am).add(new Grant(c, r));
          total++;
        }
      }
    }
    return got;
  }

  List<Grant> drive(MockAM am, int want, int rounds, String... order) throws Exception {
    return drive(Collections.singletonList(am), want, rounds, order).get(am);
  }

  /** Reports the containers RUNNING on their nodes (so they can complete later). */
  void launch(List<Grant> grants) throws Exception {
    for (Grant g : grants) {
      nm(g.host).nodeHeartbeat(Collections.singletonList(ContainerStatus.newInstance(g.id(),
          ContainerState.RUNNING, "", 0)), true);
    }
    rm.drainEvents();
  }

  /** The NodeManagers report the containers finished (the RM waits for that to free a node). */
  void finish(List<Grant> grants) throws Exception {
    for (Grant g : grants) {
      nm(g.host).nodeHeartbeat(Collections.singletonList(ContainerStatus.newInstance(g.id(),
          ContainerState.COMPLETE, "", 0)), true);
    }
    rm.drainEvents();
  }

  static String hostsOf(List<Grant> grants) {
    Map<String, Integer> m = new TreeMap<>();
    for (Grant g : grants) {
      m.merge("p" + g.priority + "@" + g.host, 1, Integer::sum);
    }
    return m.toString();
  }

  /** Queue metrics that a correct scheduler never lets go out of range. */
  void assertMetricsSane(String when) {
    // The FairScheduler refreshes its metrics in its update pass.
    ((AbstractYarnScheduler<?, ?>) scheduler()).update();
    QueueMetrics m = scheduler().getRootQueueMetrics();
    long cluster = ((AbstractYarnScheduler<?, ?>) scheduler()).getClusterResource().getMemorySize();
    String at = sched + " " + when + ": ";
    assertTrue(at + "allocated MB " + m.getAllocatedMB() + " < 0", m.getAllocatedMB() >= 0);
    assertTrue(at + "allocated containers " + m.getAllocatedContainers() + " < 0",
        m.getAllocatedContainers() >= 0);
    assertTrue(at + "pending MB " + m.getPendingMB() + " < 0", m.getPendingMB() >= 0);
    assertTrue(at + "available MB " + m.getAvailableMB() + " > cluster " + cluster,
        m.getAvailableMB() <= cluster);
    assertTrue(at + "available MB " + m.getAvailableMB() + " < 0", m.getAvailableMB() >= 0);
    // One queue over the whole cluster: what is not allocated is available.
    assertEquals(at + "available + allocated MB", cluster, m.getAvailableMB() + m.getAllocatedMB());
    if (scheduler() instanceof SpindleScheduler) {
      Resource used = ((SpindleScheduler) scheduler()).usedResource();
      assertTrue(at + "used " + used + " < 0", used.getMemorySize() >= 0);
      assertTrue(at + "used " + used + " > cluster " + cluster, used.getMemorySize() <= cluster);
    }
  }

  static List<String> list(String... s) {
    return Arrays.asList(s);
  }

  /** HTTP GET as JSON: {status, body}. */
  public static String[] httpGet(String url) throws IOException {
    java.net.HttpURLConnection h = (java.net.HttpURLConnection) new java.net.URL(url).openConnection();
    h.setRequestProperty("Accept", "application/json");
    h.setConnectTimeout(10000);
    h.setReadTimeout(10000);
    int code = h.getResponseCode();
    java.io.InputStream in = code < 400 ? h.getInputStream() : h.getErrorStream();
    String body = "";
    if (in != null) {
      try (java.util.Scanner sc = new java.util.Scanner(in, "UTF-8").useDelimiter("\\A")) {
        body = sc.hasNext() ? sc.next() : "";
      }
    }
    return new String[] {String.valueOf(code), body};
  }

  @Override
  public void close() {
    rm.stop();
  }

  /** A job.splitmetainfo (JobSplitWriter's layout) for splits on these hosts; small numbers only. */
  public static byte[] splitFile(String[][] hosts) {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    b.write("META-SPL".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, 8);
    b.write(1); // version
    b.write(hosts.length);
    int offset = 7;
    for (String[] split : hosts) {
      b.write(split.length);
      for (String h : split) {
        byte[] t = h.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        b.write(t.length);
        b.write(t, 0, t.length);
      }
      b.write(offset); // start offset in job.split
      b.write(100); // input length
      offset += 10;
    }
    return b.toByteArray();
  }

  /**
   * Submits an app to {@code queue} as the MapReduce client does, its split file (on the local
   * filesystem) among the AM's resources; as the current user.
   */
  public static org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp submitWithSplits(
      MockRM rm, String queue, String splitPath) throws Exception {
    org.apache.hadoop.yarn.api.records.ApplicationId id = rm.getClientRMService()
        .getNewApplication(org.apache.hadoop.yarn.api.protocolrecords.GetNewApplicationRequest
            .newInstance()).getApplicationId();
    java.util.Map<String, org.apache.hadoop.yarn.api.records.LocalResource> res =
        new java.util.HashMap<>();
    res.put("jobSubmitDir/job.splitmetainfo", org.apache.hadoop.yarn.api.records.LocalResource
        .newInstance(org.apache.hadoop.yarn.api.records.URL.newInstance("file", null, -1,
            splitPath), org.apache.hadoop.yarn.api.records.LocalResourceType.FILE,
            org.apache.hadoop.yarn.api.records.LocalResourceVisibility.APPLICATION, 100, 1));
    org.apache.hadoop.yarn.api.records.ContainerLaunchContext clc =
        org.apache.hadoop.yarn.api.records.ContainerLaunchContext.newInstance(res,
            Collections.<String, String>emptyMap(), Collections.<String>emptyList(), null, null,
            null);
    org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext ctx =
        org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext.newInstance(id, "wordcount",
            queue, org.apache.hadoop.yarn.api.records.Priority.newInstance(0), clc, false, false,
            2, org.apache.hadoop.yarn.api.records.Resource.newInstance(MockCluster.GB, 1),
            "MAPREDUCE");
    rm.getClientRMService().submitApplication(
        org.apache.hadoop.yarn.api.protocolrecords.SubmitApplicationRequest.newInstance(ctx));
    return rm.getRMContext().getRMApps().get(id);
  }
}
