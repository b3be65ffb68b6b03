package org.spindle.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.spindle.yarn.MockCluster.GB;
import static org.spindle.yarn.MockCluster.asks;
import static org.spindle.yarn.MockCluster.hostsOf;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceBlacklistRequest;
import org.apache.hadoop.yarn.api.records.ResourceOption;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.protocolrecords.UpdateNodeResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.MemoryRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.junit.AfterClass;
import org.junit.Test;
import org.spindle.yarn.MockCluster.Grant;
import org.spindle.yarn.MockCluster.Sched;

/**
 * The scheduler on a real ResourceManager (Hadoop's MockRM, MockNM, MockAM):
 * every scenario is played with SpindleScheduler, the CapacityScheduler and
 * the FairScheduler, and their grants are compared. Each scenario asserts
 * what every correct scheduler must do (all asks served, nothing on a
 * blacklisted node, metrics in range) and, for Spindle, where its policy
 * (asm1-comm, pinned in MockCluster.conf) puts containers. The comparison table is printed
 * at the end and written to target/scheduler-comparison.txt.
 */
public class TestSchedulerScenarios {
  /** scenario -> scheduler -> what it granted. */
  private static final Map<String, Map<Sched, String>> REPORT = new LinkedHashMap<>();

  private static void report(String scenario, Sched s, String what) {
    REPORT.computeIfAbsent(scenario, k -> new LinkedHashMap<>()).put(s, what);
  }

  @AfterClass
  public static void printComparison() throws IOException {
    StringBuilder b = new StringBuilder("Grants per scenario (pPRIORITY@HOST=containers), Hadoop "
        + System.getProperty("hadoop.version", "?") + "\n");
    for (Map.Entry<String, Map<Sched, String>> e : REPORT.entrySet()) {
      b.append(e.getKey()).append('\n');
      for (Map.Entry<Sched, String> r : e.getValue().entrySet()) {
        b.append(String.format("  %-8s %s%n", r.getKey(), r.getValue()));
      }
    }
    System.out.print(b);
    File out = new File("target/scheduler-comparison.txt");
    if (out.getParentFile().isDirectory()) {
      Files.write(out.toPath(), b.toString().getBytes(StandardCharsets.UTF_8));
    }
  }

  private static final String[] ALL = MockCluster.HOSTS;

  /** Node-local, rack-local and off-switch asks; each asked host heartbeats first. */
  @Test
  public void hostRackAndAnyAsks() throws Exception {
    for (Sched s : Sched.values()) {
      try (MockCluster c = new MockCluster(s)) {
        MockAM am = c.launchApp("levels", "h4");
        List<ResourceRequest> req = new ArrayList<>();
        req.addAll(asks(20, 2, "h2"));     // node-local on h2
        req.addAll(asks(21, 2, "h9"));     // h9 has no NodeManager: rack /r2
        req.addAll(asks(22, 2));           // ANY only
        am.allocate(req, null);
        List<Grant> g = c.drive(am, 6, 30, "h2", "h3", "h1", "h4");
        report("host, rack and ANY asks (heartbeats h2 h3 h1 h4)", s, hostsOf(g));
        assertEquals(s + " grants " + g, 6, g.size());
        if (s == Sched.SPINDLE) {
          // asm1-comm serves a node's own asks first; what it spills where is
          // the policy's choice, shown in the comparison.
          for (Grant x : g) {
            if (x.priority == 20) {
              assertEquals(s + ": the h2 asks run on h2: " + g, "h2", x.host);
            }
          }
        }
        c.assertMetricsSane("after the grants");
      }
    }
  }

  /**
   * Three apps at once: all are served; Spindle's default policy keeps each app's local asks
   * local. (Under asm1-comm, which spills at once, h1's first heartbeat ends with c's off-switch
   * container, as the CapacityScheduler's one off-switch container per heartbeat has it, and h4
   * takes one of a's maps before h1 heartbeats again.)
   */
  @Test
  public void severalApps() throws Exception {
    for (Sched s : Sched.values()) {
      YarnConfiguration conf = MockCluster.conf(s);
      conf.unset(SpindleSettings.POLICY);
      // Three AMs start before any asks (a third would wait for one of two starting AMs
      // under spindle.am.admit-on-progress, tested in TestSpindleScheduler).
      conf.set(SpindleSettings.AM_ADMIT_ON_PROGRESS, "false");
      try (MockCluster c = new MockCluster(s, conf, null)) {
        MockAM a = c.launchApp("a", "h4");
        MockAM b = c.launchApp("b", "h4");
        MockAM d = c.launchApp("c", "h4");
        a.allocate(asks(20, 3, "h1"), null);
        b.allocate(asks(20, 3, "h3"), null);
        d.allocate(asks(20, 3), null);
        Map<MockAM, List<Grant>> g = c.drive(Arrays.asList(a, b, d), 9, 30, "h1", "h2", "h3", "h4");
        report("three apps (a: h1, b: h3, c: ANY)", s, "a " + hostsOf(g.get(a)) + " b "
            + hostsOf(g.get(b)) + " c " + hostsOf(g.get(d)));
        assertEquals(s + " a", 3, g.get(a).size());
        assertEquals(s + " b", 3, g.get(b).size());
        assertEquals(s + " c", 3, g.get(d).size());
        if (s == Sched.SPINDLE) {
          for (Grant x : g.get(a)) {
            assertEquals(s + " a runs on h1: " + g.get(a), "h1", x.host);
          }
        }
        c.assertMetricsSane("three apps");
      }
    }
  }

  /** The AM releases one container, the RM kills another; both free their space. */
  @Test
  public void releaseAndKill() throws Exception {
    for (Sched s : Sched.values()) {
      try (MockCluster c = new MockCluster(s)) {
        MockAM am = c.launchApp("release", "h4");
        am.allocate(asks(20, 3, "h1"), null);
        List<Grant> g = c.drive(am, 3, 30, "h1", "h2", "h3", "h4");
        assertEquals(s + " " + g, 3, g.size());
        c.launch(g);
        AbstractYarnScheduler<?, ?> sch = (AbstractYarnScheduler<?, ?>) c.scheduler();
        // Release one (the AM's allocate), kill one (the RM, e.g. preemption).
        List<ContainerStatus> done = new ArrayList<>(am.allocate(
            Collections.<ResourceRequest>emptyList(), Collections.singletonList(g.get(0).id()))
            .getCompletedContainersStatuses());
        RMContainer killed = sch.getRMContainer(g.get(1).id());
        assertNotNull(killed);
        sch.killContainer(killed);
        c.rm.drainEvents();
        c.assertMetricsSane("after release and kill");
        for (int i = 0; i < 10 && done.size() < 2; i++) {
          c.rm.drainEvents();
          done.addAll(am.allocate(Collections.<ResourceRequest>emptyList(),
              Collections.<ContainerId>emptyList()).getCompletedContainersStatuses());
        }
        assertEquals(s + " completed " + done, 2, done.size());
        c.finish(g.subList(0, 2)); // the NM reports both gone
        SchedulerNode h1 = sch.getSchedulerNode(c.nm("h1").getNodeId());
        long left = g.get(2).host.equals("h1") ? GB : 0;
        assertEquals(s + " h1 holds what is left there", left,
            h1.getAllocatedResource().getMemorySize());
        // The freed space serves new asks.
        am.allocate(asks(20, 7, "h1"), null);
        List<Grant> more = c.drive(am, 7, 30, "h1", "h2", "h3", "h4");
        report("release one, kill one, then 7 more on h1", s, hostsOf(more));
        assertEquals(s + " " + more, 7, more.size());
        c.assertMetricsSane("after refilling");
      }
    }
  }

  /** A lost node takes its containers; a node resource update changes what fits. */
  @Test
  public void nodeRemovalAndResourceUpdate() throws Exception {
    for (Sched s : Sched.values()) {
      try (MockCluster c = new MockCluster(s)) {
        MockAM am = c.launchApp("nodes", "h4");
        am.allocate(asks(20, 2, "h1"), null);
        List<Grant> g = c.drive(am, 2, 30, "h1", "h2", "h3", "h4");
        assertEquals(s + " " + g, 2, g.size());
        c.launch(g);
        c.rm.sendNodeLost(c.nm("h1"));
        c.rm.drainEvents();
        AbstractYarnScheduler<?, ?> sch = (AbstractYarnScheduler<?, ?>) c.scheduler();
        assertEquals(s + " cluster without h1", 3L * MockCluster.NODE_MB,
            sch.getClusterResource().getMemorySize());
        List<ContainerStatus> lost = am.allocate(Collections.<ResourceRequest>emptyList(),
            Collections.<ContainerId>emptyList()).getCompletedContainersStatuses();
        int onH1 = 0;
        for (Grant x : g) {
          onH1 += x.host.equals("h1") ? 1 : 0;
        }
        assertEquals(s + " lost " + lost, onH1, lost.size());
        c.assertMetricsSane("after losing h1");
        // h2 shrinks to 2 GB: only two 1 GB containers fit there at once.
        NodeId h2 = c.nm("h2").getNodeId();
        Map<NodeId, ResourceOption> update = new HashMap<>();
        update.put(h2, ResourceOption.newInstance(Resource.newInstance(2 * GB, 2), -1));
        c.rm.getAdminService().updateNodeResource(UpdateNodeResourceRequest.newInstance(update));
        c.rm.drainEvents();
        long already = sch.getSchedulerNode(h2).getAllocatedResource().getMemorySize();
        am.allocate(asks(20, 4, "h2"), null);
        List<Grant> more = c.drive(am, 4, 10, "h2");
        report("h1 lost; h2 updated to 2 GB; 4 asks on h2, h2 heartbeats alone", s, hostsOf(more));
        assertEquals(s + " fits on a 2 GB h2 holding " + already + " MB: " + more,
            (2 * GB - already) / GB, more.size());
        assertEquals(s + " h2 full", 2L * GB,
            sch.getSchedulerNode(h2).getAllocatedResource().getMemorySize());
        c.assertMetricsSane("after the update");
        if (s == Sched.SPINDLE) {
          assertEquals("the core learnt h2's new capacity", 2L * GB,
              ((SpindleScheduler) c.scheduler()).bridgeForTest().nodeMemory("h2"));
        }
      }
    }
  }

  /** The AM fails; the new attempt is served and the old one's asks are gone. */
  @Test
  public void attemptFailureAndNewAttempt() throws Exception {
    for (Sched s : Sched.values()) {
      try (MockCluster c = new MockCluster(s)) {
        MockAM am1 = c.launchApp("retry", "h4");
        am1.allocate(asks(20, 3, "h1"), null); // never served: h1 does not heartbeat
        RMApp app = c.rm.getRMContext().getRMApps().get(am1.getApplicationAttemptId()
            .getApplicationId());
        c.nm("h4").nodeHeartbeat(am1.getApplicationAttemptId(), 1, ContainerState.COMPLETE);
        c.rm.drainEvents();
        c.rm.waitForState(am1.getApplicationAttemptId(), RMAppAttemptState.FAILED);
        MockAM am2 = MockRM.launchAndRegisterAM(app, c.rm, c.nm("h3"));
        assertEquals(2, am2.getApplicationAttemptId().getAttemptId());
        am2.allocate(asks(20, 1, "h2"), null);
        List<Grant> g = c.drive(am2, 2, 10, "h1", "h2", "h3", "h4");
        report("AM fails with 3 asks pending; attempt 2 asks 1 on h2", s, hostsOf(g));
        assertEquals(s + ": only attempt 2's one ask is served: " + g, 1, g.size());
        c.assertMetricsSane("after the new attempt");
      }
    }
  }

  /**
   * Blacklisted nodes get nothing, and asks refused there are served
   * elsewhere (defect 1: Spindle's core used to lose an ask whose grant the
   * adapter refused, and the job waited for ever).
   */
  @Test
  public void blacklistedNodesAndRefusedGrants() throws Exception {
    for (Sched s : Sched.values()) {
      try (MockCluster c = new MockCluster(s)) {
        MockAM am = c.launchApp("blacklist", "h4");
        AllocateRequest req = AllocateRequest.newInstance(0, 0f, asks(20, 2),
            Collections.<ContainerId>emptyList(),
            ResourceBlacklistRequest.newInstance(Arrays.asList("h1", "h2"),
                Collections.<String>emptyList()));
        am.allocate(req);
        List<Grant> none = c.drive(am, 1, 5, "h1", "h2");
        assertEquals(s + ": nothing on blacklisted h1, h2: " + none, 0, none.size());
        List<Grant> g = c.drive(am, 2, 10, "h1", "h2", "h3");
        report("ANY asks, h1 h2 blacklisted (they heartbeat first)", s, hostsOf(g));
        assertEquals(s + ": the refused asks run on h3: " + g, 2, g.size());
        for (Grant x : g) {
          assertEquals(s + " " + g, "h3", x.host);
        }
        // Off the blacklist again: h1 serves its own asks.
        am.allocate(AllocateRequest.newInstance(0, 0f, asks(20, 1, "h1"),
            Collections.<ContainerId>emptyList(),
            ResourceBlacklistRequest.newInstance(Collections.<String>emptyList(),
                Arrays.asList("h1"))));
        List<Grant> back = c.drive(am, 1, 10, "h1", "h2", "h3", "h4");
        report("then h1 off the blacklist, 1 ask on h1", s, hostsOf(back));
        assertEquals(s + " " + back, 1, back.size());
        if (s == Sched.SPINDLE) {
          assertEquals(s + " " + back, "h1", back.get(0).host);
        }
        c.assertMetricsSane("after the blacklist");
      }
    }
  }

  /**
   * A container killed before its AM pulled it: the RM puts its request
   * back (recoverResourceRequestForContainer) and it is served again without
   * the AM asking (defect 1: Spindle's core never heard of the recovered ask).
   */
  @Test
  public void recoveredRequestOfAKilledAllocatedContainer() throws Exception {
    for (Sched s : Sched.values()) {
      try (MockCluster c = new MockCluster(s)) {
        MockAM am = c.launchApp("recover", "h4");
        am.allocate(asks(20, 1, "h1"), null);
        AbstractYarnScheduler<?, ?> sch = (AbstractYarnScheduler<?, ?>) c.scheduler();
        RMContainer first = null;
        for (int i = 0; i < 30 && first == null; i++) {
          sch.update();
          for (String h : ALL) {
            c.nm(h).nodeHeartbeat(true);
          }
          c.rm.drainEvents();
          SchedulerApplicationAttempt a = sch.getApplicationAttempt(am.getApplicationAttemptId());
          for (RMContainer rc : a.getLiveContainers()) {
            if (rc.getAllocatedSchedulerKey().getPriority().getPriority() == 20) {
              first = rc;
            }
          }
        }
        assertNotNull(s + ": the first container", first);
        assertEquals(RMContainerState.ALLOCATED, first.getState());
        sch.killContainer(first); // before the AM pulled it
        c.rm.drainEvents();
        List<Grant> g = c.drive(am, 1, 30, "h2", "h3", "h1", "h4");
        report("a container killed while ALLOCATED is asked for again by the RM", s, hostsOf(g));
        assertEquals(s + ": the recovered request is served: " + g, 1, g.size());
        assertTrue(s + " a new container", !g.get(0).id().equals(first.getContainerId()));
        c.assertMetricsSane("after recovery");
      }
    }
  }

  /**
   * An AM release racing the NodeManager's report of the same completion:
   * the container completes twice (defect 2: Spindle's used resources went
   * negative, so the available metric exceeded the cluster).
   */
  @Test
  public void doubleCompletionKeepsMetricsInRange() throws Exception {
    for (Sched s : Sched.values()) {
      try (MockCluster c = new MockCluster(s)) {
        MockAM am = c.launchApp("twice", "h4");
        am.allocate(asks(20, 2, "h1"), null);
        List<Grant> g = c.drive(am, 2, 30, "h1", "h2", "h3", "h4");
        assertEquals(s + " " + g, 2, g.size());
        c.launch(g);
        AbstractYarnScheduler<?, ?> sch = (AbstractYarnScheduler<?, ?>) c.scheduler();
        RMContainer rc = sch.getRMContainer(g.get(0).id());
        // The NM reports it finished; the AM's release of the same container,
        // looked up before, arrives after.
        c.nm("h1").nodeHeartbeat(Collections.singletonList(ContainerStatus.newInstance(
            g.get(0).id(), ContainerState.COMPLETE, "done", 0)), true);
        c.rm.drainEvents();
        sch.completedContainer(rc, SchedulerUtils.createAbnormalContainerStatus(rc.getContainerId(),
            SchedulerUtils.RELEASED_CONTAINER), RMContainerEventType.RELEASED);
        c.rm.drainEvents();
        c.assertMetricsSane("after a double completion");
        report("one container completes twice (NM report, then AM release)", s,
            "allocated MB " + sch.getRootQueueMetrics().getAllocatedMB() + ", available MB "
                + sch.getRootQueueMetrics().getAvailableMB());
        assertEquals(s + ": AM and one container", 2L * GB,
            sch.getRootQueueMetrics().getAllocatedMB());
      }
    }
  }

  /** Work-preserving RM restart: the running containers come back from the NMs. */
  @Test
  public void workPreservingRestart() throws Exception {
    for (Sched s : Sched.values()) {
      YarnConfiguration conf = MockCluster.conf(s);
      MemoryRMStateStore store = MockCluster.enableRecovery(conf);
      MockCluster c1 = new MockCluster(s, conf, store);
      MockAM am = c1.launchApp("restart", "h4");
      am.allocate(asks(20, 2, "h1", "h2"), null);
      List<Grant> g = c1.drive(am, 2, 30, "h1", "h2", "h3", "h4");
      assertEquals(s + " " + g, 2, g.size());
      c1.launch(g);
      ApplicationAttemptId attempt = am.getApplicationAttemptId();
      // The RM restarts; each NM re-registers with what runs on it.
      MockRM rm2 = new MockRM(conf, store);
      try {
        rm2.start();
        Map<String, MockNM> nms = c1.reregister(rm2, attempt, "h4", g, ALL);
        AbstractYarnScheduler<?, ?> sch = (AbstractYarnScheduler<?, ?>) rm2.getResourceScheduler();
        SchedulerApplicationAttempt a = null;
        for (int i = 0; i < 50 && (a == null || a.getLiveContainers().size() < 3); i++) {
          Thread.sleep(100);
          a = sch.getApplicationAttempt(attempt);
        }
        assertNotNull(s + " attempt recovered", a);
        assertEquals(s + " AM and 2 containers recovered", 3, a.getLiveContainers().size());
        assertEquals(s + " used after recovery", 3L * GB,
            sch.getRootQueueMetrics().getAllocatedMB());
        // The AM comes back and asks again; the new RM serves it.
        am.setAMRMProtocol(rm2.getApplicationMasterService(), rm2.getRMContext());
        am.registerAppAttempt(false);
        am.allocate(asks(20, 1, "h3"), null);
        List<Grant> more = new ArrayList<>();
        for (int r = 0; r < 30 && more.isEmpty(); r++) {
          sch.update();
          for (MockNM nm : nms.values()) {
            nm.nodeHeartbeat(true);
          }
          rm2.drainEvents();
          for (Container ct : am.allocate(Collections.<ResourceRequest>emptyList(),
              Collections.<ContainerId>emptyList()).getAllocatedContainers()) {
            more.add(new Grant(ct, r));
          }
        }
        report("work-preserving restart, then 1 ask on h3", s, "recovered "
            + a.getLiveContainers().size() + " containers; " + hostsOf(more));
        assertEquals(s + " served after restart " + more, 1, more.size());
        long cluster = sch.getClusterResource().getMemorySize();
        assertTrue(s + " available " + sch.getRootQueueMetrics().getAvailableMB(),
            sch.getRootQueueMetrics().getAvailableMB() <= cluster);
      } finally {
        rm2.stop();
        c1.close();
      }
    }
  }

  /**
   * yarn.resourcemanager.scheduler.monitor.* runs its policies (defect 3:
   * Spindle never initialised its monitors, so none ran).
   */
  @Test
  public void schedulingMonitorsRun() throws Exception {
    for (Sched s : Sched.values()) {
      YarnConfiguration conf = MockCluster.conf(s);
      conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
      conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, CountingPolicy.class.getName());
      CountingPolicy.INITS.set(0);
      CountingPolicy.EDITS.set(0);
      CountingPolicy.seen = null;
      try (MockCluster c = new MockCluster(s, conf, null)) {
        for (int i = 0; i < 100 && CountingPolicy.EDITS.get() < 2; i++) {
          Thread.sleep(50);
        }
        report("scheduling monitor policy runs", s, "init " + CountingPolicy.INITS.get()
            + ", editSchedule " + (CountingPolicy.EDITS.get() >= 2 ? ">= 2" : CountingPolicy.EDITS.get()));
        assertEquals(s + " policy initialised once", 1, CountingPolicy.INITS.get());
        assertTrue(s + " policy given this scheduler", CountingPolicy.seen == c.scheduler());
        assertTrue(s + " editSchedule runs", CountingPolicy.EDITS.get() >= 2);
      }
    }
  }

  /**
   * GET /ws/v1/cluster/scheduler (defect 4: the stock REST layer answers 404
   * "Unknown scheduler configured" for a plugin scheduler). On 3.4+ Spindle's
   * web services class serves it; 3.3.x has no key to plug it in, so there
   * it stays 404 (documented) and the /jmx bean carries the state.
   */
  @Test
  public void restSchedulerInfo() throws Exception {
    String version = System.getProperty("hadoop.version", "3.4.2");
    boolean line33 = version.startsWith("3.3.");
    boolean jersey2 = !line33 && !version.startsWith("3.4.");
    for (Sched s : Sched.values()) {
      YarnConfiguration conf = MockCluster.conf(s);
      int port;
      try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
        port = free.getLocalPort();
      }
      conf.setBoolean("mockrm.webapp.enabled", true);
      conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "localhost:" + port);
      if (s == Sched.SPINDLE && !line33) {
        conf.set("yarn.webapp.custom.webservice.class", jersey2
            ? org.spindle.yarn.webapp.SpindleRMWebServicesJersey2.class.getName()
            : org.spindle.yarn.webapp.SpindleRMWebServices.class.getName());
      }
      try (MockCluster c = new MockCluster(s, conf, null)) {
        c.launchApp("rest", "h4");
        String base = "http://localhost:" + port;
        String[] got = MockCluster.httpGet(base + "/ws/v1/cluster/scheduler");
        report("GET /ws/v1/cluster/scheduler", s, got[0] + " " + got[1].replaceAll("\\s+", " ")
            .substring(0, Math.min(90, got[1].replaceAll("\\s+", " ").length())));
        if (s == Sched.SPINDLE && line33) {
          assertEquals("3.3.x: documented limit " + got[1], "404", got[0]);
          String[] jmx = MockCluster.httpGet(
              base + "/jmx?qry=Hadoop:service=ResourceManager,name=SpindleScheduler");
          assertEquals(jmx[1], "200", jmx[0]);
          assertTrue(jmx[1], jmx[1].contains("\"Policy\" : \"asm1-comm\"")
              && jmx[1].contains("\"Nodes\" : 4"));
          continue;
        }
        assertEquals(s + " " + got[1], "200", got[0]);
        assertTrue(s + " " + got[1], got[1].contains("schedulerInfo"));
        if (s == Sched.SPINDLE) {
          assertTrue(got[1], got[1].contains("\"type\":\"fifoScheduler\""));
          assertTrue(got[1], got[1].contains("\"numNodes\":4"));
          assertTrue(got[1], got[1].contains("\"numContainers\":1"));
        }
      }
    }
  }

  /**
   * GET /ws/v1/cluster/scheduler/spindle/activities names why an app waits:
   * under asm1 with no locality-wait cap, a map whose block is on h1 gets
   * nothing at h3's heartbeat, and the endpoint says "locality-wait" for the
   * app and for the node; the /jmx bean counts it. 3.3.x has no key to plug
   * the REST class in: there the bean's counts and the scheduler's own
   * answer are checked.
   */
  @Test
  public void activitiesNameWhyAnAppWaits() throws Exception {
    String version = System.getProperty("hadoop.version", "3.4.2");
    boolean line33 = version.startsWith("3.3.");
    boolean jersey2 = !line33 && !version.startsWith("3.4.");
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    conf.set(SpindleSettings.POLICY, "asm1");
    conf.setLong(SpindleSettings.MAX_WAIT, -1);
    int port;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      port = free.getLocalPort();
    }
    conf.setBoolean("mockrm.webapp.enabled", true);
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "localhost:" + port);
    if (!line33) {
      conf.set("yarn.webapp.custom.webservice.class", jersey2
          ? org.spindle.yarn.webapp.SpindleRMWebServicesJersey2.class.getName()
          : org.spindle.yarn.webapp.SpindleRMWebServices.class.getName());
    }
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf, null)) {
      MockAM am = c.launchApp("waits", "h4");
      String app = am.getApplicationAttemptId().getApplicationId().toString();
      // The core knows the app by its attempt; the endpoint takes either id.
      String attempt = am.getApplicationAttemptId().toString();
      am.allocate(MockCluster.asks(5, 1, "h1"), Collections.<ContainerId>emptyList());
      List<MockCluster.Grant> got = c.drive(am, 1, 3, "h3");
      assertTrue("h3 holds no replica: " + got, got.isEmpty());
      SpindleScheduler s = (SpindleScheduler) c.scheduler();
      String own = s.activities(app, null);
      assertTrue(own, own.contains("\"reason\":\"locality-wait\"") && own.contains(attempt));
      String base = "http://localhost:" + port;
      String[] jmx = MockCluster.httpGet(
          base + "/jmx?qry=Hadoop:service=ResourceManager,name=SpindleScheduler");
      report("JMX IdleLocalityWait", Sched.SPINDLE,
          jmx[1].replaceAll("(?s).*(\"IdleLocalityWait\" : \\d+).*", "$1"));
      assertTrue(jmx[1], jmx[1].matches("(?s).*\"IdleLocalityWait\" : [1-9].*"));
      if (line33) {
        return;
      }
      String[] byApp = MockCluster.httpGet(
          base + "/ws/v1/cluster/scheduler/spindle/activities?app=" + app);
      report("GET .../scheduler/spindle/activities?app=" + app, Sched.SPINDLE,
          byApp[0] + " " + byApp[1].substring(0, Math.min(200, byApp[1].length())));
      assertEquals(byApp[1], "200", byApp[0]);
      assertTrue(byApp[1], byApp[1].contains("\"app\":\"" + attempt + "\"")
          && byApp[1].contains("\"reason\":\"locality-wait\"")
          && byApp[1].contains("\"host\":\"h3\""));
      String[] byNode = MockCluster.httpGet(
          base + "/ws/v1/cluster/scheduler/spindle/activities?node=h3");
      assertEquals(byNode[1], "200", byNode[0]);
      assertTrue(byNode[1], byNode[1].contains("\"app\":\"\",\"reason\":\"locality-wait\""));
      String[] unknown = MockCluster.httpGet(
          base + "/ws/v1/cluster/scheduler/spindle/activities?app=application_0_0001");
      assertEquals(unknown[1], "404", unknown[0]);
      assertTrue(unknown[1], unknown[1].contains("application_0_0001"));
    }
  }
}
