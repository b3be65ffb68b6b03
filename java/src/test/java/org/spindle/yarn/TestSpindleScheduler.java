package org.spindle.yarn;

import org.spindle.core.ForwardingCore;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.spindle.yarn.MockCluster.asks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.management.ObjectName;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ResourceBlacklistRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.MemoryRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.junit.After;
import org.junit.Test;
import org.spindle.core.Core;
import org.spindle.yarn.MockCluster.Grant;
import org.spindle.yarn.MockCluster.Sched;

/**
 * What only SpindleScheduler has: the core behind it (asks kept in step,
 * failures that fall back to FIFO), watched through a core that records or
 * breaks calls.
 */
public class TestSpindleScheduler {
  private final Function<SpindleSettings, Core> real = CoreSetup.factory;

  @After
  public void restoreCore() {
    CoreSetup.factory = real;
  }

  /** Records the asks and the exact inputs the core is sent. */
  static class AskLog extends ForwardingCore {
    final List<String> asks = Collections.synchronizedList(new ArrayList<>());
    final List<String> inputs = Collections.synchronizedList(new ArrayList<>());

    AskLog(Core inner) {
      super(inner);
    }

    @Override
    public void updateAsk(int app, int priority, String resource, int count, long memoryMb,
        int vcores, boolean relaxLocality) {
      asks.add(priority + " " + resource + " " + count);
      super.updateAsk(app, priority, resource, count, memoryMb, vcores, relaxLocality);
    }

    @Override
    public void inputBlocks(int app, int priority, String[] tasks) {
      inputs.add(priority + ": " + String.join(" | ", tasks));
      super.inputBlocks(app, priority, tasks);
    }
  }

  /** An ask log whose core never hears one given update: a core out of step with the RM. */
  static final class StaleCore extends AskLog {
    private String drop;

    StaleCore(Core inner, String drop) {
      super(inner);
      this.drop = drop;
    }

    @Override
    public void updateAsk(int app, int priority, String resource, int count, long memoryMb,
        int vcores, boolean relaxLocality) {
      if ((priority + " " + resource + " " + count).equals(drop)) {
        drop = null;
        asks.add("dropped");
        return;
      }
      super.updateAsk(app, priority, resource, count, memoryMb, vcores, relaxLocality);
    }
  }

  /**
   * A core grant the RM refuses (the core still thinks h1 asks) is put right
   * with the RM's counts of that node's host, its rack and ANY only: the
   * names one allocation lowers. Re-sending the app's whole ask set cost 13 %
   * of the heartbeat at 10,000 nodes (issue 23). The asks are then served.
   */
  @Test
  public void refusedGrantResyncsOnlyThatNodesNames() throws Exception {
    StaleCore[] log = new StaleCore[1];
    CoreSetup.factory = s -> log[0] = new StaleCore(CoreSetup.open(s), "20 h1 0");
    try (MockCluster c = new MockCluster(Sched.SPINDLE)) {
      MockAM am = c.launchApp("refused", "h4");
      am.allocate(asks(20, 2, "h1", "h3"), null);
      am.allocate(Arrays.asList(MockCluster.ask(20, "h1", 0)), null);
      assertTrue("the core missed h1's drop: " + log[0].asks, log[0].asks.contains("dropped"));
      log[0].asks.clear();
      List<Grant> g = c.drive(am, 2, 10, "h1", "h2", "h3", "h4");
      assertEquals("both asks served: " + g, 2, g.size());
      assertTrue("the refused grant on h1 put h1 right: " + log[0].asks,
          log[0].asks.contains("20 h1 0"));
      for (String a : log[0].asks) {
        assertTrue("only h1, /r1 and * re-sent: " + log[0].asks,
            a.startsWith("20 h1 ") || a.startsWith("20 /r1 ") || a.startsWith("20 * "));
      }
    }
  }

  /**
   * Defect 1, blacklist path: a blacklisted host asks for nothing in the
   * core, and comes back when the AM lifts the blacklist.
   */
  @Test
  public void blacklistChangesReachTheCore() throws Exception {
    AskLog[] log = new AskLog[1];
    CoreSetup.factory = s -> log[0] = new AskLog(CoreSetup.open(s));
    try (MockCluster c = new MockCluster(Sched.SPINDLE)) {
      MockAM am = c.launchApp("blacklist", "h4");
      am.allocate(asks(20, 2, "h1", "h3"), null);
      log[0].asks.clear();
      am.allocate(AllocateRequest.newInstance(0, 0f, Collections.emptyList(),
          Collections.<ContainerId>emptyList(), ResourceBlacklistRequest.newInstance(
              Arrays.asList("h1"), Collections.<String>emptyList())));
      assertTrue("h1 blacklisted: the core asks for nothing there: " + log[0].asks,
          log[0].asks.contains("20 h1 0"));
      assertTrue("h3 unchanged: " + log[0].asks, log[0].asks.contains("20 h3 2"));
      List<Grant> g = c.drive(am, 2, 10, "h1", "h3");
      assertEquals("served on h3 only: " + g, 2, g.size());
      for (Grant x : g) {
        assertEquals(g.toString(), "h3", x.host);
      }
      am.allocate(asks(20, 1, "h1"), null);
      log[0].asks.clear();
      am.allocate(AllocateRequest.newInstance(0, 0f, Collections.emptyList(),
          Collections.<ContainerId>emptyList(), ResourceBlacklistRequest.newInstance(
              Collections.<String>emptyList(), Arrays.asList("h1"))));
      assertTrue("h1 off the blacklist: its ask is back: " + log[0].asks,
          log[0].asks.contains("20 h1 1"));
    }
  }

  /** Records the containers the core is told were recovered, and the ends of containers. */
  static final class RecoveryLog extends ForwardingCore {
    final List<String> recovered = Collections.synchronizedList(new ArrayList<>());
    final List<String> finished = Collections.synchronizedList(new ArrayList<>());

    RecoveryLog(Core inner) {
      super(inner);
    }

    @Override
    public void containerRecovered(int node, int app) {
      recovered.add(node + "/" + app);
      super.containerRecovered(node, app);
    }

    @Override
    public void containerFinished(int node, int app) {
      finished.add(node + "/" + app);
      super.containerFinished(node, app);
    }
  }

  /**
   * Issue 22 item 5: after a work-preserving RM restart the core comes back
   * with the running containers the NodeManagers report (the AM's and two
   * maps'), counts them on their nodes, and takes their ends without an
   * error.
   */
  @Test
  public void recoveredContainersReachTheCore() throws Exception {
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    MemoryRMStateStore store = MockCluster.enableRecovery(conf);
    try (MockCluster c1 = new MockCluster(Sched.SPINDLE, conf, store)) {
      MockAM am = c1.launchApp("recover", "h4");
      am.allocate(asks(20, 2, "h1", "h2"), null);
      List<Grant> g = c1.drive(am, 2, 30, "h1", "h2", "h3", "h4");
      assertEquals(g.toString(), 2, g.size());
      c1.launch(g);
      ApplicationAttemptId attempt = am.getApplicationAttemptId();
      RecoveryLog[] log = new RecoveryLog[1];
      CoreSetup.factory = s -> log[0] = new RecoveryLog(CoreSetup.open(s));
      MockRM rm2 = new MockRM(conf, store);
      try {
        rm2.start();
        Map<String, MockNM> nms = c1.reregister(rm2, attempt, "h4", g, "h1", "h2", "h3", "h4");
        for (int i = 0; i < 50 && log[0].recovered.size() < 3; i++) {
          Thread.sleep(100);
        }
        assertEquals("the AM and both maps reach the core: " + log[0].recovered, 3,
            log[0].recovered.size());
        // A recovered map ends: the core takes its end like one of its own grants'.
        Grant done = g.get(0);
        nms.get(done.host).nodeHeartbeat(attempt, done.id().getContainerId(),
            ContainerState.COMPLETE);
        rm2.drainEvents();
        for (int i = 0; i < 50 && log[0].finished.isEmpty(); i++) {
          Thread.sleep(100);
        }
        assertEquals("its end reaches the core: " + log[0].finished, 1, log[0].finished.size());
        SpindleScheduler sch = (SpindleScheduler) rm2.getResourceScheduler();
        assertEquals("core errors", 0, sch.getCoreErrors());
      } finally {
        rm2.stop();
      }
    }
  }

  /** Submits an app with a {@code mb} AM and does not wait for it. */
  private static RMApp submit(MockCluster c, String name, int mb) throws Exception {
    return MockRMAppSubmitter.submit(c.rm,
        MockRMAppSubmissionData.Builder.createWithMemory(mb, c.rm).withAppName(name).build());
  }

  /** Heartbeats every node a few times; whether each app's AM container was allocated. */
  private static boolean[] amsAllocated(MockCluster c, RMApp... apps) throws Exception {
    for (int r = 0; r < 3; r++) {
      for (String h : MockCluster.HOSTS) {
        c.nm(h).nodeHeartbeat(true);
      }
      c.rm.drainEvents();
    }
    boolean[] out = new boolean[apps.length];
    for (int i = 0; i < apps.length; i++) {
      out[i] = apps[i].getCurrentAppAttempt() != null
          && apps[i].getCurrentAppAttempt().getMasterContainer() != null;
    }
    return out;
  }

  /**
   * Concurrent jobs must not fill the cluster with AMs: past
   * spindle.am.max-share the next AM waits for a running one to end, as the
   * CapacityScheduler and the FairScheduler keep theirs. 4 x 8 GB at 0.1:
   * one 2 GB AM runs, the second waits until the first app ends.
   */
  @Test
  public void applicationMastersWaitPastTheirShare() throws Exception {
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    conf.set(SpindleSettings.AM_MAX_SHARE, "0.1");
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf, null)) {
      RMApp a = submit(c, "first", 2 * MockCluster.GB);
      RMApp b = submit(c, "second", 2 * MockCluster.GB);
      boolean[] got = amsAllocated(c, a, b);
      assertTrue("the first AM runs", got[0]);
      assertTrue("the second AM waits: 4 GB of AMs is over 0.1 of 32 GB", !got[1]);
      c.rm.killApp(a.getApplicationId());
      c.rm.waitForState(a.getApplicationId(), RMAppState.KILLED);
      got = amsAllocated(c, b);
      assertTrue("the second AM runs once the first app ended", got[0]);
    }
    // The whole cluster as the share: both run at once.
    conf.set(SpindleSettings.AM_MAX_SHARE, "1");
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf, null)) {
      RMApp a = submit(c, "first", 2 * MockCluster.GB);
      RMApp b = submit(c, "second", 2 * MockCluster.GB);
      boolean[] got = amsAllocated(c, a, b);
      assertTrue("both AMs run", got[0] && got[1]);
    }
  }

  /** A {@code count}-task ask at priority 20 of {@code mb} each, anywhere. */
  private static List<org.apache.hadoop.yarn.api.records.ResourceRequest> anywhere(int count,
      int mb) {
    return Collections.singletonList(org.apache.hadoop.yarn.api.records.ResourceRequest
        .newInstance(org.apache.hadoop.yarn.api.records.Priority.newInstance(20),
            org.apache.hadoop.yarn.api.records.ResourceRequest.ANY,
            org.apache.hadoop.yarn.api.records.Resource.newInstance(mb, 1), count));
  }

  /**
   * A fills the cluster with 29 tasks, B's AM runs and asks for two 2 GB tasks that find no
   * room (B is starved), 1 GB stays free; then C is submitted. Returns C's app and whether
   * its AM got that 1 GB; {@code then} runs before the cluster closes.
   */
  private static boolean nextAmWhileStarved(YarnConfiguration conf, ScenarioTail then)
      throws Exception {
    conf.set(SpindleSettings.AM_MAX_SHARE, "1");
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf, null)) {
      MockAM a = c.launchApp("big", "h4");
      MockAM b = c.launchApp("starved", "h4");
      a.allocate(anywhere(29, MockCluster.GB), null);
      List<Grant> ga = c.drive(a, 29, 40, MockCluster.HOSTS);
      assertEquals("A fills the cluster: " + MockCluster.hostsOf(ga), 29, ga.size());
      b.allocate(anywhere(2, 2 * MockCluster.GB), null);
      assertEquals("no room for B's 2 GB tasks", 0,
          c.drive(b, 1, 3, MockCluster.HOSTS).size());
      RMApp next = submit(c, "next", MockCluster.GB);
      boolean got = amsAllocated(c, next)[0];
      then.run(c, ga, b, next);
      return got;
    }
  }

  interface ScenarioTail {
    void run(MockCluster c, List<Grant> bigTasks, MockAM starved, RMApp next) throws Exception;
  }

  /**
   * spindle.am.admit-on-progress (default on): while an admitted app asks for tasks and
   * runs none, the next AM waits even though it would fit (an AM admitted then would hold
   * its container idle: the shaped mix's AM-idle time). Once the starved app gets a task
   * container, the held AM is admitted and runs.
   */
  @Test
  public void aStarvedAppHoldsTheNextAm() throws Exception {
    boolean got = nextAmWhileStarved(MockCluster.conf(Sched.SPINDLE), (c, ga, b, next) -> {
      // Two of A's tasks end on one host: room for one of B's 2 GB tasks there.
      String host = null;
      List<Grant> two = new ArrayList<>();
      for (Grant g : ga) {
        if (host == null || g.host.equals(host)) {
          host = g.host;
          two.add(g);
        }
        if (two.size() == 2) {
          break;
        }
      }
      c.launch(two);
      c.finish(two);
      List<Grant> gb = c.drive(b, 1, 5, MockCluster.HOSTS);
      assertEquals("B gets a task container: " + gb, 1, gb.size());
      assertTrue("B progresses: the held AM is admitted and runs", amsAllocated(c, next)[0]);
    });
    assertTrue("the next AM waits while B is starved", !got);
  }

  /**
   * The bound on a starved app: one whose asks are never met holds the next AM back for
   * spindle.am.progress-wait-ms (8 s here) from when the scheduler first saw it starved,
   * then no longer, though it still runs no task.
   */
  @Test
  public void aStarvedAppHoldsTheNextAmOnlyForTheWait() throws Exception {
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    int waitMs = 8_000;
    conf.set(SpindleSettings.AM_PROGRESS_WAIT, Integer.toString(waitMs));
    boolean got = nextAmWhileStarved(conf, (c, ga, b, next) -> {
      Thread.sleep(waitMs + 500);
      assertTrue("after the wait the next AM is admitted and runs", amsAllocated(c, next)[0]);
      assertEquals("B still has no room", 0, c.drive(b, 1, 1, MockCluster.HOSTS).size());
    });
    assertTrue("the next AM waited at first", !got);
  }

  /** spindle.am.admit-on-progress = false: today's rule, the share only; the next AM runs. */
  @Test
  public void withoutAdmitOnProgressOnlyTheShareHoldsAms() throws Exception {
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    conf.set(SpindleSettings.AM_ADMIT_ON_PROGRESS, "false");
    boolean got = nextAmWhileStarved(conf, (c, ga, b, next) -> { });
    assertTrue("the next AM runs beside the starved app", got);
  }

  /**
   * The bounded rule for AMs that have not asked for a task yet: one per rack (two here)
   * may start at once, and each holds the next AM back for at most
   * spindle.am.progress-wait-ms after its admission.
   */
  @Test
  public void startingAmsAreBoundedByRacksAndTime() throws Exception {
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    conf.set(SpindleSettings.AM_MAX_SHARE, "1");
    int waitMs = 10_000;
    conf.set(SpindleSettings.AM_PROGRESS_WAIT, Integer.toString(waitMs));
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf, null)) {
      MockAM a = c.launchApp("first", "h4");
      RMApp b = submit(c, "second", MockCluster.GB);
      RMApp third = submit(c, "third", MockCluster.GB);
      boolean[] got = amsAllocated(c, b, third);
      assertTrue("two racks: a second AM starts beside the first", got[0]);
      assertTrue("a third waits while two have not asked for a task", !got[1]);
      a.allocate(anywhere(1, MockCluster.GB), null);
      assertEquals(1, c.drive(a, 1, 5, MockCluster.HOSTS).size());
      assertTrue("the first runs a task: the third is admitted", amsAllocated(c, third)[0]);
      long admitted = System.currentTimeMillis(); // the third was admitted before this
      // The second and the third are starting: a fourth waits until they are too old.
      RMApp fourth = submit(c, "fourth", MockCluster.GB);
      assertTrue("a fourth waits", !amsAllocated(c, fourth)[0]);
      Thread.sleep(Math.max(0, admitted + waitMs + 500 - System.currentTimeMillis()));
      assertTrue("after spindle.am.progress-wait-ms starting AMs hold nothing back",
          amsAllocated(c, fourth)[0]);
    }
  }

  /**
   * Under spindle.am.admit-on-progress held AMs go in the core's task order: the job with
   * the fewest maps (from its split file) first, whatever its app id; without it in
   * app-id order. 0.05 of 32 GB: one 1 GB AM at a time.
   */
  @Test
  public void heldAmsGoSmallestJobFirst() throws Exception {
    assertEquals("small job first", "small", firstAdmittedOfTwoHeld(true));
    assertEquals("app-id order without admit-on-progress", "big", firstAdmittedOfTwoHeld(false));
  }

  /** Which of a 3-map job and a later 1-map job, both held, gets its AM first. */
  private static String firstAdmittedOfTwoHeld(boolean onProgress) throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("spindle-order");
    java.nio.file.Path big = dir.resolve("big.splitmetainfo");
    java.nio.file.Path small = dir.resolve("small.splitmetainfo");
    java.nio.file.Files.write(big, MockCluster.splitFile(new String[][] {{"h1"}, {"h2"}, {"h3"}}));
    java.nio.file.Files.write(small, MockCluster.splitFile(new String[][] {{"h1"}}));
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    conf.set(SpindleSettings.AM_MAX_SHARE, "0.05");
    conf.set(SpindleSettings.AM_ADMIT_ON_PROGRESS, Boolean.toString(onProgress));
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf, null)) {
      RMApp first = submit(c, "first", MockCluster.GB);
      assertTrue("the first AM runs", amsAllocated(c, first)[0]);
      RMApp b = MockCluster.submitWithSplits(c.rm, "default", big.toString());
      RMApp s = MockCluster.submitWithSplits(c.rm, "default", small.toString());
      for (int i = 0; i < 100 && bean("ExactInputApps") < 2; i++) {
        Thread.sleep(50);
      }
      assertEquals("both split files read", 2, bean("ExactInputApps"));
      boolean[] got = amsAllocated(c, b, s);
      assertTrue("both held behind the first", !got[0] && !got[1]);
      c.rm.killApp(first.getApplicationId());
      c.rm.waitForState(first.getApplicationId(), RMAppState.KILLED);
      got = amsAllocated(c, b, s);
      assertTrue("exactly one admitted: " + Arrays.toString(got), got[0] != got[1]);
      return got[1] ? "small" : "big";
    } finally {
      java.nio.file.Files.delete(big);
      java.nio.file.Files.delete(small);
      java.nio.file.Files.delete(dir);
    }
  }

  private static long bean(String attribute) throws Exception {
    return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(
        new ObjectName("Hadoop:service=ResourceManager,name=SpindleScheduler"), attribute);
  }

  /**
   * The plugin reads a MapReduce app's job.splitmetainfo (here on the local
   * filesystem: any Hadoop FileSystem does) in the background as the app's
   * user and gives the core its exact input; a file it cannot read leaves
   * the app planned from its asks, with one log line. The kerberized HDFS
   * path is TestSecureSplits'.
   */
  @Test
  public void splitFilesAreReadInTheBackground() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("spindle-splits");
    java.nio.file.Path file = dir.resolve("job.splitmetainfo");
    java.nio.file.Files.write(file, MockCluster.splitFile(new String[][] {{"h1", "h2"}, {"h3", "h1"}, {"h9"}}));
    String path = file.toAbsolutePath().toString();
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    AskLog[] log = new AskLog[1];
    CoreSetup.factory = s -> log[0] = new AskLog(CoreSetup.open(s));
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf, null)) {
      MockAM am = org.apache.hadoop.yarn.server.resourcemanager.MockRM.launchAndRegisterAM(
          MockCluster.submitWithSplits(c.rm, "default", path), c.rm, c.nm("h4"));
      for (int i = 0; i < 100 && bean("ExactInputApps") < 1; i++) {
        Thread.sleep(50);
      }
      assertEquals("one app with exact input", 1, bean("ExactInputApps"));
      assertEquals(0, bean("SplitReadFailures"));
      assertEquals("the split hosts reach the core", "[20: h1,h2 | h3,h1 | h9]",
          log[0].inputs.toString());
      // The maps' asks are served as before.
      am.allocate(asks(20, 2, "h1"), null);
      List<Grant> g = c.drive(am, 2, 10, "h1", "h2", "h3", "h4");
      assertEquals(g.toString(), 2, g.size());
    } finally {
      java.nio.file.Files.delete(file);
      java.nio.file.Files.delete(dir);
    }
    // A split file that is not there: one WARN line, the app runs from its asks.
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf, null)) {
      MockAM am = org.apache.hadoop.yarn.server.resourcemanager.MockRM.launchAndRegisterAM(
          MockCluster.submitWithSplits(c.rm, "default", "/no/such/job.splitmetainfo"), c.rm, c.nm("h4"));
      for (int i = 0; i < 100 && bean("SplitReadFailures") < 1; i++) {
        Thread.sleep(50);
      }
      assertEquals(1, bean("SplitReadFailures"));
      assertEquals(0, bean("ExactInputApps"));
      am.allocate(asks(20, 2, "h1"), null);
      assertEquals(2, c.drive(am, 2, 10, "h1", "h2", "h3", "h4").size());
    }
  }

  /** A core that cannot load: every heartbeat is FIFO's, counted in JMX, and nothing hangs. */
  @Test
  public void aMissingCoreLeavesAFifoCluster() throws Exception {
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    CoreSetup.factory = s -> new CoreSetup.BrokenCore("test: no library");
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf, null)) {
      MockAM am = c.launchApp("fifo", "h4");
      am.allocate(asks(20, 3, "h2"), null);
      List<Grant> g = c.drive(am, 3, 10, "h1", "h2", "h3", "h4");
      assertEquals("FIFO serves every ask: " + g, 3, g.size());
      ObjectName bean = new ObjectName("Hadoop:service=ResourceManager,name=SpindleScheduler");
      long fallbacks = (Long) ManagementFactory.getPlatformMBeanServer()
          .getAttribute(bean, "FallbackHeartbeats");
      long errors = (Long) ManagementFactory.getPlatformMBeanServer()
          .getAttribute(bean, "CoreErrors");
      assertTrue("fallback heartbeats counted: " + fallbacks, fallbacks > 0);
      assertTrue("core errors counted: " + errors, errors > 0);
      c.assertMetricsSane("FIFO fallback");
    }
  }

  /** A core that throws on one heartbeat: that heartbeat is FIFO's, the next the core's. */
  @Test
  public void aFailingHeartbeatFallsBackOnce() throws Exception {
    int[] calls = {0};
    CoreSetup.factory = s -> new ForwardingCore(CoreSetup.open(s)) {
      @Override
      public int heartbeat(int node, long free, int vcores, long now, int[] out) {
        if (++calls[0] == 3) {
          throw new IllegalStateException("test: the core fails once");
        }
        return super.heartbeat(node, free, vcores, now, out);
      }
    };
    try (MockCluster c = new MockCluster(Sched.SPINDLE)) {
      SpindleScheduler sch = (SpindleScheduler) c.scheduler();
      MockAM am = c.launchApp("once", "h4");
      long before = sch.getFallbackHeartbeats();
      am.allocate(asks(20, 4, "h2"), null);
      List<Grant> g = c.drive(am, 4, 10, "h2", "h1", "h3", "h4");
      assertEquals("all served: " + g, 4, g.size());
      assertEquals("one fallback heartbeat", 1, sch.getFallbackHeartbeats() - before);
      assertEquals("one core error", 1, sch.getCoreErrors());
      c.assertMetricsSane("after one failed heartbeat");
    }
  }
}
