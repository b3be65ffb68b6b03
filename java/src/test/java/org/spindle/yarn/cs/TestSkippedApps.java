package org.spindle.yarn.cs;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.spindle.yarn.cs.CsCluster.CS;
import static org.spindle.yarn.cs.CsCluster.GB;
import static org.spindle.yarn.cs.TestCapacityPlacement.flat;
import static org.spindle.yarn.cs.TestCapacityPlacement.hosts;
import static org.spindle.yarn.cs.TestCapacityPlacement.singleHostMaps;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.junit.Test;
import org.spindle.yarn.SpindleSettings;
import org.spindle.yarn.cs.CsCluster.Mode;

/**
 * A leaf's walk passes over the apps the node would only veto
 * (spindle.cs.veto.skip-apps, SpindleOrderingPolicy's assignment iterator):
 * on a MockRM, the same grants and the same bounded veto with it on as off,
 * with fewer vetoes.
 */
public class TestSkippedApps {
  /** What one scripted run granted, round by round, and the bean's counters after it. */
  static final class Run {
    final List<String> rounds = new ArrayList<>();
    Map<String, Object> counters;

    long count(String k) {
      return ((Number) counters.get(k)).longValue();
    }
  }

  private static Map<String, String> extra(boolean skip) {
    Map<String, String> extra = new HashMap<>();
    extra.put(SpindleSettings.VETO_SKIP_APPS, Boolean.toString(skip));
    extra.put(SpindleSettings.MAX_WAIT, "600000"); // no clock in the plan or the veto's bound
    return extra;
  }

  /** "app@host/priority" of each container granted, sorted: one round's grants. */
  private static String grants(Map<MockAM, List<Container>> got, Map<MockAM, String> names) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<MockAM, List<Container>> e : got.entrySet()) {
      for (Container x : e.getValue()) {
        out.add(names.get(e.getKey()) + "@" + x.getNodeId().getHost() + "/"
            + x.getPriority().getPriority());
      }
    }
    Collections.sort(out);
    return out.toString();
  }

  /**
   * Four apps of two users in prod, each with 10 maps whose only replica is
   * one node (a on h1, b on h2, c on h3, d on h4), more than a node holds,
   * and b with 2 reducers (a key that may go anywhere, so b is never
   * skipped while it asks). Every round each node heartbeats once; the
   * containers of two rounds before finish.
   */
  static Run scripted(boolean skip) throws Exception {
    Run run = new Run();
    try (CsCluster c = new CsCluster(Mode.SPINDLE, CsCluster.conf(Mode.SPINDLE, extra(skip)))) {
      String[][] apps = {{"a", "alice", "h1"}, {"b", "bob", "h2"}, {"c", "alice", "h3"},
          {"d", "bob", "h4"}};
      List<MockAM> ams = new ArrayList<>();
      Map<MockAM, String> names = new LinkedHashMap<>();
      for (String[] a : apps) {
        MockAM am = c.launch(a[0], a[1], "prod", a[2]);
        ams.add(am);
        names.put(am, a[0]);
      }
      for (int i = 0; i < apps.length; i++) {
        ams.get(i).allocate(singleHostMaps(20, apps[i][2], 10),
            Collections.<ContainerId>emptyList());
      }
      ams.get(1).allocate(CsCluster.anywhere(10, 2), Collections.<ContainerId>emptyList());
      List<Container> last = Collections.emptyList();
      List<Container> before = Collections.emptyList();
      for (int r = 0; r < 10; r++) {
        Map<MockAM, List<Container>> got = c.round(ams, last, before);
        run.rounds.add(grants(got, names));
        before = last;
        last = flat(got);
      }
      run.counters = c.runtime().counters();
    }
    return run;
  }

  @Test
  public void skippingKeepsTheGrantsAndCutsTheVetoes() throws Exception {
    Run off = scripted(false);
    Run on = scripted(true);
    System.out.println("skipped apps: on " + on.counters + "\n  off " + off.counters);
    for (int r = 0; r < off.rounds.size(); r++) {
      assertEquals("round " + r, off.rounds.get(r), on.rounds.get(r));
    }
    assertTrue("every map and reducer granted: " + off.rounds,
        off.rounds.toString().split("@").length - 1 == 42);
    assertEquals(0L, off.count("SkippedApps"));
    assertTrue(on.counters.toString(), on.count("SkippedApps") > 0);
    assertTrue(on.count("Vetoes") + " vetoes skipping, " + off.count("Vetoes") + " not",
        on.count("Vetoes") < off.count("Vetoes"));
    for (String k : new String[] {"LiftedVetoes", "LiftedPasses", "GrantsOnPlan",
        "GrantsOffPlan", "GrantsLocationLess", "GrantsNodeLocal", "GrantsRackLocal",
        "GrantsOffSwitch", "PlanPasses"}) {
      assertEquals(k, off.count(k), on.count(k));
    }
  }

  /**
   * The bounded veto of TestCapacityPlacement with two prod apps kept off
   * h1: dev is at its maximum and the plan holds h1 for dev's d; prod's p
   * and q wait for the full h2. The first app of prod's walk is vetoed (it
   * marks h1), the other is skipped, and h1 still lifts after 3 idle
   * heartbeats: one of them takes it at the 4th, the same one either way.
   */
  @Test
  public void theVetoStillLiftsWithinItsBoundWhenAppsAreSkipped() throws Exception {
    Map<Boolean, String> at = new LinkedHashMap<>();
    for (boolean skip : new boolean[] {false, true}) {
      Map<String, String> extra = extra(skip);
      extra.put(CS + "root.dev.user-limit-factor", "10"); // carol alone fills dev
      try (CsCluster c = new CsCluster(Mode.SPINDLE, CsCluster.conf(Mode.SPINDLE, extra))) {
        MockAM d = c.launch("d", "carol", "dev", "h3");
        MockAM p = c.launch("p", "alice", "prod", "h2");
        MockAM q = c.launch("q", "bob", "prod", "h2");
        d.allocate(singleHostMaps(20, "h3", 7, "h4", 8), Collections.<ContainerId>emptyList());
        p.allocate(singleHostMaps(20, "h2", 6), Collections.<ContainerId>emptyList());
        List<MockAM> ams = Arrays.asList(d, p, q);
        c.fillOn(ams, 21, "h2", "h3", "h4"); // h1 stays out until the test
        assertEquals("dev at its maximum", 16L * GB, c.queueMb("dev"));
        assertEquals("prod fills h2", 8L * GB, c.queueMb("prod"));
        long skippedBefore = ((Number) c.runtime().counters().get("SkippedApps")).longValue();
        d.allocate(singleHostMaps(20, "h1", 4), Collections.<ContainerId>emptyList());
        p.allocate(singleHostMaps(20, "h2", 4), Collections.<ContainerId>emptyList());
        q.allocate(singleHostMaps(20, "h2", 4), Collections.<ContainerId>emptyList());
        String when = null;
        for (int beat = 1; beat <= 10 && when == null; beat++) {
          c.nm("h1").nodeHeartbeat(true);
          c.rm.drainEvents();
          Map<MockAM, List<Container>> got = c.pull(ams);
          assertTrue("d is over its queue's maximum", got.get(d).isEmpty());
          if (!got.get(p).isEmpty() || !got.get(q).isEmpty()) {
            when = "beat " + beat + ": p " + hosts(got.get(p)) + ", q " + hosts(got.get(q));
          }
        }
        at.put(skip, when);
        Map<String, Object> k = c.runtime().counters();
        assertEquals(k.toString(), 1L, ((Number) k.get("LiftedVetoes")).longValue());
        long skipped = ((Number) k.get("SkippedApps")).longValue() - skippedBefore;
        assertTrue(k.toString(), skip ? skipped >= 3 : skipped == 0);
      }
    }
    System.out.println("veto lift with two prod apps, skipping off and on: " + at);
    assertTrue(at.toString(), at.get(false) != null && at.get(false).startsWith("beat 4:"));
    assertEquals(at.get(false), at.get(true));
  }

  /** An app in prod whose AM the asynchronous scheduling threads place (on any node). */
  private static MockAM launchAsync(CsCluster c, String name, String user) throws Exception {
    RMApp app = MockRMAppSubmitter.submit(c.rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, c.rm).withAppName(name).withUser(user).withQueue("prod")
        .withWaitForAppAcceptedState(false).build()); // it may be ALLOCATED before SCHEDULED is seen
    // The threads pass over nodes silent for two heartbeat intervals: the nodes heartbeat.
    for (int i = 0; i < 500; i++) {
      RMAppAttempt attempt = app.getCurrentAppAttempt();
      if (attempt != null && attempt.getAppAttemptState() == RMAppAttemptState.ALLOCATED) {
        MockAM am = c.rm.sendAMLaunched(attempt.getAppAttemptId());
        c.rm.waitForState(attempt.getAppAttemptId(), RMAppAttemptState.LAUNCHED);
        am.registerAppAttempt();
        return am;
      }
      for (MockNM nm : c.nms.values()) {
        nm.nodeHeartbeat(true);
      }
      c.rm.drainEvents();
      Thread.sleep(20);
    }
    throw new AssertionError(name + "'s AM was not allocated");
  }

  /**
   * Asynchronous scheduling: the CapacityScheduler's threads walk without a
   * heartbeat; the walk learns its node from its first precheck and skips
   * after it. The maps still land on their planned nodes.
   */
  @Test
  public void asynchronousWalksLearnTheirNodeAndSkip() throws Exception {
    Map<String, String> extra = extra(true);
    extra.put(CS + "schedule-asynchronously.enable", "true");
    extra.put(CS + "schedule-asynchronously.maximum-threads", "2");
    extra.put(SpindleSettings.PLANNING_BACKGROUND, "true");
    extra.put(SpindleSettings.VETO_HEARTBEATS, "100000"); // see asynchronousSchedulingFollowsThePlan
    try (CsCluster c = new CsCluster(Mode.SPINDLE, CsCluster.conf(Mode.SPINDLE, extra))) {
      MockAM a = launchAsync(c, "a", "alice");
      MockAM b = launchAsync(c, "b", "bob");
      MockAM e = launchAsync(c, "e", "alice");
      a.allocate(singleHostMaps(20, "h1", 3), Collections.<ContainerId>emptyList());
      b.allocate(singleHostMaps(20, "h2", 3), Collections.<ContainerId>emptyList());
      e.allocate(singleHostMaps(20, "h3", 3), Collections.<ContainerId>emptyList());
      List<MockAM> ams = Arrays.asList(a, b, e);
      Map<MockAM, List<Container>> got = new LinkedHashMap<>();
      for (MockAM am : ams) {
        got.put(am, new ArrayList<>());
      }
      for (int r = 0; r < 1000 && flat(got).size() < 9; r++) {
        Thread.sleep(20);
        for (Map.Entry<MockAM, List<Container>> x : c.round(ams).entrySet()) {
          got.get(x.getKey()).addAll(x.getValue());
        }
      }
      assertEquals("{h1=3}", hosts(got.get(a)).toString());
      assertEquals("{h2=3}", hosts(got.get(b)).toString());
      assertEquals("{h3=3}", hosts(got.get(e)).toString());
      Map<String, Object> k = c.runtime().counters();
      assertEquals(k.toString(), 0L, ((Number) k.get("GrantsOffPlan")).longValue());
      assertTrue(k.toString(), ((Number) k.get("SkippedApps")).longValue() > 0);
    }
  }
}
