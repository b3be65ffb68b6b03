package org.spindle.yarn.cs;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.spindle.yarn.cs.CsCluster.CS;
import static org.spindle.yarn.cs.CsCluster.GB;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.NullRMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.LeafQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.OrderingPolicy;
import org.junit.After;
import org.junit.Assume;
import org.junit.Test;
import org.slf4j.LoggerFactory;
import org.spindle.yarn.CoreSetup;
import org.spindle.yarn.SpindleSettings;
import org.spindle.yarn.cs.CsCluster.Mode;

/**
 * Spindle inside the CapacityScheduler (issue 21), on a real
 * ResourceManager (MockRM) against the stock CapacityScheduler: the queue
 * tree of {@link CsCluster} keeps every guarantee, limit and ACL under
 * Spindle; preemption, node labels, asynchronous scheduling and multi-node
 * placement still work; a veto that idles a node lifts within its bound;
 * a missing allocator class is reported; the ordering policy follows the
 * core's job order. The scripted scenario writes both schedulers' shares,
 * grants by locality and Spindle's vetoes to
 * {@code java/target/capacity-comparison.txt}.
 */
public class TestCapacityPlacement {
  private final java.util.function.Function<SpindleSettings, org.spindle.core.Core> realCore =
      CoreSetup.factory;

  @After
  public void restore() {
    CoreSetup.factory = realCore;
    SpindleCapacityScheduler.allocatorClass = SpindlePlacementAllocator.class.getName();
  }

  private static final String[][] APPS = {
      // name, user, queue, AM host, maps, replica offset
      {"p1", "alice", "prod", "h1", "60", "0"},
      {"p2", "bob", "prod", "h2", "30", "1"},
      {"d1", "carol", "dev", "h3", "60", "2"},
      {"d2", "dave", "dev", "h4", "30", "3"}};
  private static final String[] USERS = {"alice", "bob", "carol", "dave"};
  private static final int ROUNDS = 14;

  /** What one run of the scripted scenario saw. */
  static final class Run {
    final Mode mode;
    final List<long[]> steps = new ArrayList<>(); // prod, dev, alice, bob, carol, dave (MB)
    long nodeLocal;
    long rackLocal;
    long offSwitch;
    Map<String, Object> spindle = Collections.emptyMap();
    final List<String> violations = new ArrayList<>();

    Run(Mode mode) {
      this.mode = mode;
    }
  }

  /**
   * Four apps (two per queue, one per user) ask for maps whose replicas
   * rotate over the nodes; every round each node heartbeats once, reporting
   * the containers granted the round before as running and those of two
   * rounds before as finished, so the queues compete for freed slots all
   * along. After every round: dev within its maximum (50 %), each dev user
   * within user-limit-factor 1 of dev's 30 % (rounded up to a container,
   * plus the one container the CapacityScheduler may go over by), prod
   * within 100 %; from round 3 on, with the cluster full, a queue that
   * still asks holds its guarantee (dev 30 %; prod 50 %, all dev leaves it),
   * less one container.
   */
  static Run scenario(Mode mode) throws Exception {
    Run run = new Run(mode);
    try (CsCluster c = new CsCluster(mode)) {
      List<MockAM> ams = new ArrayList<>();
      for (String[] a : APPS) {
        ams.add(c.launch(a[0], a[1], a[2], a[3]));
      }
      for (int i = 0; i < APPS.length; i++) {
        ams.get(i).allocate(CsCluster.maps(20, Integer.parseInt(APPS[i][4]),
            Integer.parseInt(APPS[i][5])), Collections.<ContainerId>emptyList());
      }
      long cluster = c.clusterMb();
      long devMax = cluster / 2;
      long devUser = (long) Math.ceil(cluster * 0.3 / GB) * GB + GB;
      List<Container> last = Collections.emptyList();
      List<Container> before = Collections.emptyList();
      for (int r = 0; r < ROUNDS; r++) {
        List<Container> now = flat(c.round(ams, last, before));
        before = last;
        last = now;
        long[] step = {c.queueMb("prod"), c.queueMb("dev"), c.userMb("prod", "alice"),
            c.userMb("prod", "bob"), c.userMb("dev", "carol"), c.userMb("dev", "dave")};
        run.steps.add(step);
        check(run, r, "dev <= max 50% (" + devMax + " MB)", step[1] <= devMax);
        check(run, r, "prod <= max 100%", step[0] <= cluster);
        check(run, r, "carol <= dev user limit (" + devUser + " MB)", step[4] <= devUser);
        check(run, r, "dave <= dev user limit (" + devUser + " MB)", step[5] <= devUser);
        check(run, r, "prod + dev <= cluster", step[0] + step[1] <= cluster);
        boolean full = step[0] + step[1] >= cluster - GB;
        if (r >= 3 && full && c.queue("dev").getPendingMB() > 0) {
          check(run, r, "dev >= its 30% guarantee", step[1] >= (long) (cluster * 0.3) - GB);
        }
        if (r >= 3 && full && c.queue("prod").getPendingMB() > 0) {
          check(run, r, "prod >= 50%", step[0] >= cluster / 2 - GB);
        }
      }
      QueueMetrics root = c.cs().getRootQueueMetrics();
      run.nodeLocal = root.getAggregateNodeLocalContainersAllocated();
      run.rackLocal = root.getAggregateRackLocalContainersAllocated();
      run.offSwitch = root.getAggregateOffSwitchContainersAllocated();
      if (c.runtime() != null) {
        run.spindle = c.runtime().counters();
      }
    }
    return run;
  }

  private static void check(Run run, int round, String what, boolean ok) {
    if (!ok) {
      run.violations.add(run.mode + " round " + round + ": " + what);
    }
  }

  @Test
  public void queuesAndUsersKeepTheirGuaranteesAndLimitsUnderSpindle() throws Exception {
    Run stock = scenario(Mode.STOCK);
    Run spindle = scenario(Mode.SPINDLE);
    String table = table(stock, spindle);
    System.out.println(table);
    File out = new File("target/capacity-comparison.txt");
    out.getParentFile().mkdirs();
    Files.write(out.toPath(), table.getBytes(StandardCharsets.UTF_8));
    assertTrue(stock.violations.toString(), stock.violations.isEmpty());
    assertTrue(spindle.violations.toString(), spindle.violations.isEmpty());
    // Spindle's map grants follow the plan: node-local, every one on the
    // node whose decision held it, unless a veto was lifted.
    Map<String, Object> k = spindle.spindle;
    long offPlan = ((Number) k.get("GrantsOffPlan")).longValue();
    long lifts = ((Number) k.get("LiftedVetoes")).longValue();
    assertTrue("grants off the plan " + offPlan + " with " + lifts + " lifts", offPlan == 0
        || lifts > 0);
    assertTrue("node-local grants, Spindle " + spindle.nodeLocal + " vs stock " + stock.nodeLocal,
        spindle.nodeLocal >= stock.nodeLocal);
    assertTrue(k.toString(), ((Number) k.get("GrantsOnPlan")).longValue() > 0);
    assertEquals(k.toString(), 0L, ((Number) k.get("ForeignAllocators")).longValue());
  }

  static String table(Run stock, Run spindle) {
    StringBuilder b = new StringBuilder();
    b.append("Issue 21 scripted scenario: root.prod 70% (max 100%), root.dev 30% (max 50%),\n")
        .append("4 nodes x 8 GB, 1 GB containers; p1/alice 60 maps, p2/bob 30 (prod),\n")
        .append("d1/carol 60, d2/dave 30 (dev), replicas on 2 of the 4 nodes; each round\n")
        .append("every node heartbeats once, containers run two rounds. MB used after\n")
        .append("each round (AMs included).\n\n");
    b.append(String.format("%-5s | %-34s | %-34s%n", "round", "stock CapacityScheduler",
        "SpindleCapacityScheduler"));
    b.append(String.format("%-5s | %5s %5s %5s %5s %5s %5s | %5s %5s %5s %5s %5s %5s%n", "",
        "prod", "dev", "alice", "bob", "carol", "dave", "prod", "dev", "alice", "bob", "carol",
        "dave"));
    for (int r = 0; r < stock.steps.size(); r++) {
      long[] s = stock.steps.get(r);
      long[] p = spindle.steps.get(r);
      b.append(String.format("%-5d | %5d %5d %5d %5d %5d %5d | %5d %5d %5d %5d %5d %5d%n", r,
          s[0], s[1], s[2], s[3], s[4], s[5], p[0], p[1], p[2], p[3], p[4], p[5]));
    }
    b.append(String.format("%ngrants by locality (QueueMetrics, AM containers are off-switch):%n"));
    for (Run run : new Run[] {stock, spindle}) {
      long all = run.nodeLocal + run.rackLocal + run.offSwitch;
      b.append(String.format("  %-8s node-local %d, rack-local %d, off-switch %d (of %d)%n",
          run.mode, run.nodeLocal, run.rackLocal, run.offSwitch, all));
    }
    b.append("Spindle counters (JMX SpindlePlacement):\n");
    for (Map.Entry<String, Object> e : spindle.spindle.entrySet()) {
      b.append("  ").append(e.getKey()).append(" = ").append(e.getValue()).append('\n');
    }
    return b.toString();
  }

  /**
   * An admin's own queues plus exactly the documented lines: the scheduler
   * class and conf/capacity-scheduler.xml as shipped (root.default).
   */
  @Test
  public void theDocumentedLinesSwitchSpindleOn() throws Exception {
    YarnConfiguration conf = org.spindle.yarn.MockCluster.conf(
        org.spindle.yarn.MockCluster.Sched.CAPACITY);
    conf.set(SpindleSettings.PLANNING_BACKGROUND, "false");
    // The documented lines name no policy: the plugin's default runs.
    conf.unset(SpindleSettings.POLICY);
    conf.set(YarnConfiguration.RM_SCHEDULER, SpindleCapacityScheduler.class.getName());
    File fragment = new File("../conf/capacity-scheduler.xml");
    assertTrue(fragment.getAbsolutePath(), fragment.isFile());
    // As an admin's capacity-scheduler.xml: the CapacityScheduler layers the
    // classpath's capacity-scheduler.xml over the RM conf's resources, so the
    // fragment's lines go in as set values (which win), not as a resource.
    org.apache.hadoop.conf.Configuration lines = new org.apache.hadoop.conf.Configuration(false);
    lines.addResource(new org.apache.hadoop.fs.Path(fragment.getAbsolutePath()));
    for (Map.Entry<String, String> e : lines) {
      conf.set(e.getKey(), e.getValue());
    }
    LogCapturer log = LogCapturer.captureLogs(LoggerFactory.getLogger(CsRuntime.class));
    try (CsCluster c = new CsCluster(Mode.SPINDLE, new MockRM(conf))) {
      LeafQueue q = (LeafQueue) c.cs().getQueue("default");
      assertTrue(q.getOrderingPolicy().getInfo(),
          q.getOrderingPolicy() instanceof SpindleOrderingPolicy);
      MockAM am = c.launch("a", "alice", "default", "h1");
      am.allocate(singleHostMaps(20, "h2", 2, "h4", 2), Collections.<ContainerId>emptyList());
      c.runtime().checkAllocators();
      assertEquals(1, ((Number) c.runtime().counters().get("LiveAllocators")).intValue());
      List<Container> got = c.collect(am, 4, 6, 0);
      assertEquals("{h2=2, h4=2}", hosts(got).toString());
      assertFalse(log.getOutput(), log.getOutput().contains("WARN"));
    } finally {
      log.stopCapturing();
    }
  }

  @Test
  public void queueAclsAreTheCapacitySchedulers() throws Exception {
    for (Mode mode : Mode.values()) {
      try (CsCluster c = new CsCluster(mode)) {
        UserGroupInformation carol = UserGroupInformation.createRemoteUser("carol");
        UserGroupInformation alice = UserGroupInformation.createRemoteUser("alice");
        assertTrue(mode + ": carol submits to dev",
            c.cs().checkAccess(carol, QueueACL.SUBMIT_APPLICATIONS, "dev"));
        assertFalse(mode + ": alice may not submit to dev",
            c.cs().checkAccess(alice, QueueACL.SUBMIT_APPLICATIONS, "dev"));
        assertTrue(mode + ": alice submits to prod",
            c.cs().checkAccess(alice, QueueACL.SUBMIT_APPLICATIONS, "prod"));
      }
    }
  }

  /**
   * ProportionalCapacityPreemptionPolicy takes containers back from dev
   * (allowed up to 100 % here) for prod's pending maps, under both.
   */
  @Test
  public void preemptionStillTakesContainersBackForAnUnderServedQueue() throws Exception {
    Map<Mode, long[]> seen = new LinkedHashMap<>();
    for (Mode mode : Mode.values()) {
      Map<String, String> extra = new HashMap<>();
      extra.put(CS + "root.dev.maximum-capacity", "100");
      extra.put(CS + "root.dev.user-limit-factor", "10");
      extra.put(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, "true");
      extra.put(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES,
          "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity"
              + ".ProportionalCapacityPreemptionPolicy");
      extra.put("yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval",
          "3600000");
      extra.put("yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill", "0");
      try (CsCluster c = new CsCluster(mode, CsCluster.conf(mode, extra))) {
        MockAM prod = c.launch("p", "alice", "prod", "h1");
        MockAM dev = c.launch("d", "carol", "dev", "h2");
        List<MockAM> ams = Arrays.asList(prod, dev);
        dev.allocate(CsCluster.anywhere(20, 30), Collections.<ContainerId>emptyList());
        // One off-switch container per node heartbeat (the CapacityScheduler's default).
        List<Container> devGot = new ArrayList<>();
        for (int r = 0; r < 20 && c.queueMb("dev") < 31L * GB; r++) {
          List<Container> got = flat(c.round(ams));
          c.running(got);
          devGot.addAll(got);
        }
        long devBefore = c.queueMb("dev");
        assertEquals(mode + ": dev fills the cluster", 31L * GB, devBefore);
        prod.allocate(CsCluster.maps(20, 16, 0), Collections.<ContainerId>emptyList());
        SchedulingEditPolicy policy = c.cs().getSchedulingMonitorManager()
            .getAvailableSchedulingMonitor().getSchedulingEditPolicy();
        for (int r = 0; r < 12; r++) {
          policy.editSchedule();
          c.rm.drainEvents();
          // The NodeManagers report the killed containers finished.
          List<ContainerId> killed = new ArrayList<>();
          for (org.apache.hadoop.yarn.api.records.ContainerStatus st : dev.allocate(
              Collections.<ResourceRequest>emptyList(), Collections.<ContainerId>emptyList())
              .getCompletedContainersStatuses()) {
            killed.add(st.getContainerId());
          }
          List<Container> done = new ArrayList<>();
          for (Container x : devGot) {
            if (killed.contains(x.getId())) {
              done.add(x);
            }
          }
          c.running(flat(c.round(ams, Collections.<Container>emptyList(), done)));
        }
        long preempted = c.queue("dev").getAggregatePreemptedContainers();
        seen.put(mode, new long[] {devBefore, c.queueMb("dev"), c.queueMb("prod"), preempted});
        assertTrue(mode + ": dev's containers were preempted", preempted > 0);
        assertTrue(mode + ": prod grew to " + c.queueMb("prod"), c.queueMb("prod") > 4L * GB);
      }
    }
    System.out.println("preemption (dev before, dev after, prod after MB; dev preempted): "
        + toString(seen));
  }

  /** An exclusive partition (label x on h4) keeps its apps, and only them, under Spindle. */
  @Test
  public void aLabelledPartitionKeepsItsApps() throws Exception {
    for (Mode mode : Mode.values()) {
      Map<String, String> extra = new HashMap<>();
      extra.put(YarnConfiguration.NODE_LABELS_ENABLED, "true");
      extra.put(CS + "root.accessible-node-labels", "x");
      extra.put(CS + "root.accessible-node-labels.x.capacity", "100");
      extra.put(CS + "root.dev.accessible-node-labels", "x");
      extra.put(CS + "root.dev.accessible-node-labels.x.capacity", "100");
      Configuration conf = CsCluster.conf(mode, extra);
      NullRMNodeLabelsManager labels = new NullRMNodeLabelsManager();
      labels.init(conf);
      labels.addToCluserNodeLabelsWithDefaultExclusivity(Collections.singleton("x"));
      labels.addLabelsToNode(Collections.singletonMap(NodeId.newInstance("h4", 1234),
          Collections.singleton("x")));
      MockRM rm = new MockRM(conf) {
        @Override
        protected RMNodeLabelsManager createNodeLabelManager() {
          return labels;
        }
      };
      try (CsCluster c = new CsCluster(mode, rm)) {
        MockAM prod = c.launch("p", "alice", "prod", "h1");
        MockAM dev = c.launch("d", "carol", "dev", "h2");
        // prod's maps have replicas on every node, h4 too; dev's ask the partition x.
        prod.allocate(CsCluster.maps(20, 16, 3), Collections.<ContainerId>emptyList());
        List<ResourceRequest> labelled = new ArrayList<>(CsCluster.anywhere(20, 6));
        labelled.get(0).setNodeLabelExpression("x");
        dev.allocate(labelled, Collections.<ContainerId>emptyList());
        List<Container> prodGot = new ArrayList<>();
        List<Container> devGot = new ArrayList<>();
        for (int r = 0; r < 8 && (prodGot.size() < 16 || devGot.size() < 6); r++) {
          Map<MockAM, List<Container>> got = c.round(Arrays.asList(prod, dev));
          prodGot.addAll(got.get(prod));
          devGot.addAll(got.get(dev));
        }
        assertEquals(mode + ": dev's labelled containers", 6, devGot.size());
        for (Container x : devGot) {
          assertEquals(mode + ": a labelled container off the partition", "h4",
              x.getNodeId().getHost());
        }
        assertTrue(mode + ": prod got " + prodGot.size(), prodGot.size() >= 12);
        for (Container x : prodGot) {
          assertFalse(mode + ": an unlabelled container on the partition",
              x.getNodeId().getHost().equals("h4"));
        }
      }
    }
  }

  /** Asynchronous scheduling: the CapacityScheduler's threads place, by the plan. */
  @Test
  public void asynchronousSchedulingFollowsThePlan() throws Exception {
    Map<String, String> extra = new HashMap<>();
    extra.put(CS + "schedule-asynchronously.enable", "true");
    extra.put(CS + "schedule-asynchronously.maximum-threads", "2");
    extra.put(SpindleSettings.PLANNING_BACKGROUND, "true");
    // The test drives a heartbeat round every 20 ms; on a loaded machine the
    // background plan can take longer than the default 3 vetoed heartbeats
    // (a real cluster's 3 s), and the lifted nodes then take the maps off
    // the plan. The bound is tested elsewhere; here only the plan counts.
    extra.put(SpindleSettings.VETO_HEARTBEATS, "100000");
    extra.put(SpindleSettings.MAX_WAIT, "600000");
    try (CsCluster c = new CsCluster(Mode.SPINDLE, CsCluster.conf(Mode.SPINDLE, extra))) {
      MockAM am = c.launch("a", "alice", "prod", "h2");
      am.allocate(singleHostMaps(20, "h1", 4, "h3", 4), Collections.<ContainerId>emptyList());
      List<Container> got = c.collect(am, 8, 1000, 20);
      assertEquals(8, got.size());
      assertEquals("{h1=4, h3=4}", hosts(got).toString());
      Map<String, Object> k = c.runtime().counters();
      assertEquals(0L, ((Number) k.get("GrantsOffPlan")).longValue());
      assertTrue(k.toString(), ((Number) k.get("GrantsNodeLocal")).longValue() == 8);
    }
  }

  /** Multi-node placement: the allocator's iterator puts the planned nodes first. */
  @Test
  public void multiNodePlacementTriesThePlannedNodesFirst() throws Exception {
    Map<String, String> extra = new HashMap<>();
    extra.put(CS + "multi-node-placement-enabled", "true");
    extra.put(CS + "multi-node-sorting.policy.names", "resource-based");
    extra.put(CS + "multi-node-sorting.policy", "resource-based");
    extra.put(CS + "multi-node-sorting.policy.resource-based.class",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement"
            + ".ResourceUsageMultiNodeLookupPolicy");
    extra.put(CS + "multi-node-sorting.policy.resource-based.sorting-interval.ms", "100");
    try (CsCluster c = new CsCluster(Mode.SPINDLE, CsCluster.conf(Mode.SPINDLE, extra))) {
      Thread.sleep(500); // the node sorter's first pass (it knows no node before)
      MockAM am = c.launch("a", "alice", "prod", "h1");
      am.allocate(singleHostMaps(20, "h2", 3, "h4", 3), Collections.<ContainerId>emptyList());
      List<Container> got = c.collect(am, 6, 6, 0);
      assertEquals("{h2=3, h4=3}", hosts(got).toString());
      Map<String, Object> k = c.runtime().counters();
      assertEquals(k.toString(), 0L, ((Number) k.get("GrantsOffPlan")).longValue());
      assertTrue(k.toString(), ((Number) k.get("PreferredOrders")).longValue() > 0);
    }
  }

  /**
   * dev is at its maximum and the plan holds h1 for dev's d (its maps'
   * only replicas are there); prod's p waits for the full h2. h1 idles
   * under vetoes for spindle.cs.veto.max-heartbeats = 3 heartbeats, then p
   * takes it (rack-local): never before, and d never (its queue limit).
   */
  @Test
  public void aVetoThatWouldIdleANodeLiftsWithinItsBound() throws Exception {
    Map<Mode, Integer> at = new LinkedHashMap<>();
    String counters = "";
    for (Mode mode : Mode.values()) {
      Map<String, String> extra = new HashMap<>();
      extra.put(SpindleSettings.MAX_WAIT, "600000"); // the count bound alone
      extra.put(CS + "root.dev.user-limit-factor", "10"); // carol alone fills dev
      try (CsCluster c = new CsCluster(mode, CsCluster.conf(mode, extra))) {
        MockAM d = c.launch("d", "carol", "dev", "h3");
        MockAM p = c.launch("p", "alice", "prod", "h2");
        d.allocate(singleHostMaps(20, "h3", 7, "h4", 8), Collections.<ContainerId>emptyList());
        p.allocate(singleHostMaps(20, "h2", 7), Collections.<ContainerId>emptyList());
        List<MockAM> ams = Arrays.asList(d, p);
        c.fillOn(ams, 22, "h2", "h3", "h4"); // h1 stays out until the test
        assertEquals(mode + ": dev at its maximum", 16L * GB, c.queueMb("dev"));
        assertEquals(mode + ": prod on h2", 8L * GB, c.queueMb("prod"));
        d.allocate(singleHostMaps(20, "h1", 4), Collections.<ContainerId>emptyList());
        p.allocate(singleHostMaps(20, "h2", 4), Collections.<ContainerId>emptyList());
        int when = -1;
        for (int beat = 1; beat <= 10 && when < 0; beat++) {
          c.nm("h1").nodeHeartbeat(true);
          c.rm.drainEvents();
          List<Container> dGot = c.pull(Collections.singletonList(d)).get(d);
          assertTrue(mode + ": d is over its queue's maximum", dGot.isEmpty());
          if (!c.pull(Collections.singletonList(p)).get(p).isEmpty()) {
            when = beat;
          }
        }
        at.put(mode, when);
        if (mode == Mode.SPINDLE) {
          assertEquals("p takes h1 at its 4th heartbeat: 3 idle, then lifted", 4, when);
          Map<String, Object> k = c.runtime().counters();
          assertEquals(k.toString(), 1L, ((Number) k.get("LiftedVetoes")).longValue());
          assertTrue(k.toString(), ((Number) k.get("Vetoes")).longValue() >= 3);
          counters = "; Spindle: Vetoes " + k.get("Vetoes") + ", LiftedVetoes "
              + k.get("LiftedVetoes") + ", LiftedPasses " + k.get("LiftedPasses")
              + ", GrantsOffPlan " + k.get("GrantsOffPlan") + ", GrantsRackLocal "
              + k.get("GrantsRackLocal");
        } else {
          assertTrue("stock: p takes h1 at heartbeat " + when, when > 0);
        }
      }
    }
    System.out.println("veto lift: heartbeat of h1 at which prod's app got it: " + at + counters);
  }

  /**
   * The CapacityScheduler mode reads a MapReduce app's split file as the app's user, as the
   * whole-scheduler mode does (SplitFiles), and counts it in its bean.
   */
  @Test
  public void splitFilesAreReadAsTheAppsUser() throws Exception {
    File dir = Files.createTempDirectory("spindle-cs-splits").toFile();
    File split = new File(dir, "job.splitmetainfo");
    Files.write(split.toPath(), org.spindle.yarn.MockCluster.splitFile(
        new String[][] {{"h1", "h2"}, {"h3"}}));
    try (CsCluster c = new CsCluster(Mode.SPINDLE)) {
      org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp app =
          UserGroupInformation.createRemoteUser("alice").doAs(
              (java.security.PrivilegedExceptionAction<
                  org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp>) () ->
                  org.spindle.yarn.MockCluster.submitWithSplits(c.rm, "prod", split.getPath()));
      MockAM am = MockRM.launchAndRegisterAM(app, c.rm, c.nm("h1"));
      ObjectName bean = new ObjectName(CsRuntime.BEAN);
      javax.management.MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      for (int i = 0; i < 100 && (Long) server.getAttribute(bean, "ExactInputApps") < 1; i++) {
        Thread.sleep(50);
      }
      assertEquals(1L, server.getAttribute(bean, "ExactInputApps"));
      assertEquals(0L, server.getAttribute(bean, "SplitReadFailures"));
      am.allocate(CsCluster.maps(20, 2, 0), Collections.<ContainerId>emptyList());
      assertEquals(2, c.collect(am, 2, 8, 0).size());
    } finally {
      Files.delete(split.toPath());
      Files.delete(dir.toPath());
    }
  }

  /**
   * Spindle configured but its allocator class cannot be loaded: Hadoop
   * places with its own, silently; Spindle says so in a WARN and the JMX bean.
   */
  @Test
  public void aMissingAllocatorClassIsReported() throws Exception {
    SpindleCapacityScheduler.allocatorClass = "org.spindle.yarn.cs.NoSuchAllocator";
    LogCapturer log = LogCapturer.captureLogs(LoggerFactory.getLogger(CsRuntime.class));
    try (CsCluster c = new CsCluster(Mode.SPINDLE)) {
      MockAM am = c.launch("a", "alice", "prod", "h1");
      am.allocate(CsCluster.maps(20, 4, 0), Collections.<ContainerId>emptyList());
      // While the maps are asked for: their key places with Hadoop's allocator.
      c.runtime().checkAllocators();
      ObjectName bean = new ObjectName(CsRuntime.BEAN);
      javax.management.MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      assertEquals(0L, server.getAttribute(bean, "LiveAllocators"));
      assertEquals(1L, server.getAttribute(bean, "ForeignAllocators"));
      List<Container> got = c.collect(am, 4, 8, 0);
      assertEquals("the CapacityScheduler still places", 4, got.size());
      String out = log.getOutput();
      assertTrue(out, out.contains("its allocator cannot be used: class "
          + "org.spindle.yarn.cs.NoSuchAllocator cannot be loaded"));
      assertTrue(out, out.contains("place without Spindle's allocator"));
    } finally {
      log.stopCapturing();
    }
  }

  /**
   * With no core (its library cannot load), Spindle's own locality delay
   * holds: node-local at once, rack-local only after the delay's vetoes.
   */
  @Test
  public void withoutItsCoreSpindleStillSuppliesTheLocalityWait() throws Exception {
    CoreSetup.factory = s -> new CoreSetup.BrokenCore("test: no library");
    Map<String, String> extra = new HashMap<>();
    extra.put(SpindleSettings.NODE_DELAY, "3");
    try (CsCluster c = new CsCluster(Mode.SPINDLE, CsCluster.conf(Mode.SPINDLE, extra))) {
      MockAM am = c.launch("a", "alice", "prod", "h3");
      am.allocate(singleHostMaps(20, "h1", 2), Collections.<ContainerId>emptyList());
      int beats = 0;
      List<Container> got = new ArrayList<>();
      while (got.isEmpty() && beats < 20) {
        beats++;
        c.nm("h2").nodeHeartbeat(true);
        c.rm.drainEvents();
        got = c.pull(Collections.singletonList(am)).get(am);
      }
      assertEquals("rack-local h2 after the delay", "h2", got.get(0).getNodeId().getHost());
      assertTrue("waited " + beats + " heartbeats", beats >= 4);
      c.nm("h1").nodeHeartbeat(true);
      c.rm.drainEvents();
      assertEquals("node-local at once", "{h1=1}",
          hosts(c.pull(Collections.singletonList(am)).get(am)).toString());
      Map<String, Object> k = c.runtime().counters();
      assertEquals(false, k.get("CoreLive"));
      assertTrue(k.toString(), ((Number) k.get("DelayVetoes")).longValue() >= 3);
    }
  }

  /**
   * SpindleOrderingPolicy: the core's job order (weighted remaining: the
   * app with less left first) where the stock FIFO policy keeps
   * submission order; the preemption iterator is the reverse.
   */
  @Test
  public void theOrderingPolicyFollowsTheCoresJobOrder() throws Exception {
    Map<Mode, String> freed = new LinkedHashMap<>();
    for (Mode mode : Mode.values()) {
      try (CsCluster c = new CsCluster(mode)) {
        MockAM big = c.launch("big", "alice", "prod", "h1");
        MockAM small = c.launch("small", "alice", "prod", "h2");
        big.allocate(CsCluster.anywhere(20, 30), Collections.<ContainerId>emptyList());
        List<MockAM> ams = Arrays.asList(big, small);
        List<Container> bigGot = new ArrayList<>();
        for (int r = 0; r < 20 && bigGot.size() < 30; r++) {
          bigGot.addAll(c.round(ams).get(big));
        }
        assertEquals(30, bigGot.size());
        c.running(bigGot);
        big.allocate(CsCluster.anywhere(20, 10), Collections.<ContainerId>emptyList());
        small.allocate(CsCluster.anywhere(20, 2), Collections.<ContainerId>emptyList());
        c.round(ams); // the core learns the asks, re-plans, re-ranks
        c.finish(bigGot.subList(0, 1));
        Map<MockAM, List<Container>> got = c.round(ams);
        freed.put(mode, got.get(big).size() == 1 ? "big" : got.get(small).size() == 1
            ? "small" : got.toString());
        LeafQueue prod = (LeafQueue) c.cs().getQueue("prod");
        OrderingPolicy<FiCaSchedulerApp> policy = prod.getOrderingPolicy();
        if (mode == Mode.SPINDLE) {
          assertTrue(policy.getInfo(), policy instanceof SpindleOrderingPolicy);
          List<String> order = names(policy.getAssignmentIterator(null), c);
          List<String> reverse = names(policy.getPreemptionIterator(), c);
          Collections.reverse(reverse);
          assertEquals(order, reverse);
          assertEquals("[small, big]", order.toString());
        }
      }
    }
    assertEquals("{STOCK=big, SPINDLE=small}", freed.toString());
  }

  /**
   * The counters on the RM's /jmx page (every line) and at
   * /ws/v1/cluster/spindle (3.4+, with Spindle's web services class), while
   * /ws/v1/cluster/scheduler stays the CapacityScheduler's.
   */
  @Test
  public void countersAreOnJmxAndRest() throws Exception {
    String version = System.getProperty("hadoop.version", "3.4.2");
    boolean line33 = version.startsWith("3.3.");
    boolean jersey2 = !line33 && !version.startsWith("3.4.");
    Map<String, String> extra = new HashMap<>();
    int port;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      port = free.getLocalPort();
    }
    extra.put("mockrm.webapp.enabled", "true");
    extra.put(YarnConfiguration.RM_WEBAPP_ADDRESS, "localhost:" + port);
    if (!line33) {
      extra.put("yarn.webapp.custom.webservice.class", jersey2
          ? org.spindle.yarn.webapp.SpindleRMWebServicesJersey2.class.getName()
          : org.spindle.yarn.webapp.SpindleRMWebServices.class.getName());
    }
    try (CsCluster c = new CsCluster(Mode.SPINDLE, CsCluster.conf(Mode.SPINDLE, extra))) {
      MockAM am = c.launch("a", "alice", "prod", "h1");
      am.allocate(singleHostMaps(20, "h2", 2, "h3", 2), Collections.<ContainerId>emptyList());
      List<Container> got = c.collect(am, 4, 6, 0);
      assertEquals(4, got.size());
      String base = "http://localhost:" + port;
      String[] jmx = org.spindle.yarn.MockCluster.httpGet(base + "/jmx?qry=" + CsRuntime.BEAN);
      assertEquals(jmx[1], "200", jmx[0]);
      assertTrue(jmx[1], jmx[1].contains("\"GrantsNodeLocal\" : 4"));
      assertTrue(jmx[1], jmx[1].contains("\"Mode\" : \"SpindleCapacityScheduler\""));
      if (line33) {
        return; // no custom web services key on 3.3.x: /jmx is the REST view
      }
      String[] rest = org.spindle.yarn.MockCluster.httpGet(base + "/ws/v1/cluster/spindle");
      assertEquals(rest[1], "200", rest[0]);
      assertTrue(rest[1], rest[1].contains("\"GrantsNodeLocal\":4"));
      assertTrue(rest[1], rest[1].contains("\"LiftedVetoes\":0"));
      String[] sched = org.spindle.yarn.MockCluster.httpGet(base + "/ws/v1/cluster/scheduler");
      assertEquals(sched[1], "200", sched[0]);
      assertTrue(sched[1], sched[1].contains("capacityScheduler"));
    }
  }

  /** A priority update (yarn application -updatePriority) becomes the app's weight in the core. */
  @Test
  public void aPriorityUpdateReachesTheCoreAsTheAppsWeight() throws Exception {
    List<String> weights = Collections.synchronizedList(new ArrayList<>());
    CoreSetup.factory = s -> new org.spindle.core.ForwardingCore(CoreSetup.open(s)) {
      @Override
      public void setAppWeight(int app, double weight) {
        super.setAppWeight(app, weight);
        weights.add(app + " " + weight);
      }
    };
    Map<String, String> extra = new HashMap<>();
    extra.put(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, "10");
    try (CsCluster c = new CsCluster(Mode.SPINDLE, CsCluster.conf(Mode.SPINDLE, extra))) {
      MockAM am = c.launch("a", "alice", "prod", "h1");
      org.apache.hadoop.yarn.api.records.ApplicationId id =
          am.getApplicationAttemptId().getApplicationId();
      UserGroupInformation.createRemoteUser("alice").doAs(
          (java.security.PrivilegedExceptionAction<Object>) () -> c.rm.getClientRMService()
              .updateApplicationPriority(org.apache.hadoop.yarn.api.protocolrecords
                  .UpdateApplicationPriorityRequest.newInstance(id, Priority.newInstance(5))));
      c.rm.drainEvents();
      assertEquals("[0 6.0]", weights.toString());
    }
  }

  /** Hadoop 3.4+: the stock CapacityScheduler with the cluster-wide allocator key. */
  @Test
  public void theStockSchedulerWithTheGlobalAllocatorKeyFollowsThePlan() throws Exception {
    Assume.assumeTrue("Hadoop 3.4+ only (3.3.6 ignores the key)",
        hasField(YarnConfiguration.class, "APPLICATION_PLACEMENT_TYPE_CLASS"));
    Map<String, String> extra = new HashMap<>();
    extra.put(CsRuntime.GLOBAL_ALLOCATOR_KEY, SpindlePlacementAllocator.class.getName());
    extra.put(CS + "node-locality-delay", "0");
    extra.put(CS + "rack-locality-additional-delay", "0");
    extra.put(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, "50");
    try (CsCluster c = new CsCluster(Mode.STOCK, CsCluster.conf(Mode.STOCK, extra))) {
      MockAM am = c.launch("a", "alice", "prod", "h1");
      am.allocate(singleHostMaps(20, "h2", 3, "h4", 3), Collections.<ContainerId>emptyList());
      List<Container> got = c.collect(am, 6, 100, 60); // the poller decides between rounds
      assertEquals("{h2=3, h4=3}", hosts(got).toString());
      CsRuntime rt = c.runtime();
      assertTrue(rt != null && rt.mode.startsWith("stock CapacityScheduler"));
      Map<String, Object> k = rt.counters();
      assertTrue(k.toString(), ((Number) k.get("LiveAllocators")).longValue()
          + ((Number) k.get("GrantsOnPlan")).longValue() > 0);
    }
  }

  // ---- helpers ----

  /** Maps with one replica each: {@code host, n, host, n, ...}. */
  static List<ResourceRequest> singleHostMaps(int priority, Object... hostCounts) {
    Map<String, Integer> racks = new TreeMap<>();
    List<ResourceRequest> out = new ArrayList<>();
    int total = 0;
    for (int i = 0; i < hostCounts.length; i += 2) {
      String h = (String) hostCounts[i];
      int n = (Integer) hostCounts[i + 1];
      out.add(org.spindle.yarn.MockCluster.ask(priority, h, n));
      racks.merge(org.spindle.yarn.MockCluster.RACK.get(h), n, Integer::sum);
      total += n;
    }
    for (Map.Entry<String, Integer> e : racks.entrySet()) {
      out.add(org.spindle.yarn.MockCluster.ask(priority, e.getKey(), e.getValue()));
    }
    out.add(ResourceRequest.newInstance(Priority.newInstance(priority), ResourceRequest.ANY,
        Resource.newInstance(GB, 1), total));
    return out;
  }

  static List<Container> flat(Map<MockAM, List<Container>> m) {
    List<Container> all = new ArrayList<>();
    for (List<Container> l : m.values()) {
      all.addAll(l);
    }
    return all;
  }

  static Map<String, Integer> hosts(List<Container> cs) {
    Map<String, Integer> m = new TreeMap<>();
    for (Container x : cs) {
      m.merge(x.getNodeId().getHost(), 1, Integer::sum);
    }
    return m;
  }

  private static List<String> names(Iterator<FiCaSchedulerApp> it, CsCluster c) {
    List<String> out = new ArrayList<>();
    while (it.hasNext()) {
      FiCaSchedulerApp a = it.next();
      out.add(c.rm.getRMContext().getRMApps().get(a.getApplicationId()).getName());
    }
    return out;
  }

  private static boolean hasField(Class<?> c, String name) {
    try {
      c.getField(name);
      return true;
    } catch (NoSuchFieldException e) {
      return false;
    }
  }

  private static String toString(Map<Mode, long[]> m) {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<Mode, long[]> e : m.entrySet()) {
      b.append(e.getKey()).append('=').append(Arrays.toString(e.getValue())).append(' ');
    }
    return b.toString().trim();
  }
}
