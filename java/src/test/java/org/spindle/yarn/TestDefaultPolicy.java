package org.spindle.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.spindle.yarn.MockCluster.asks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.junit.Assume;
import org.junit.Test;
import org.spindle.yarn.MockCluster.Grant;
import org.spindle.yarn.MockCluster.Sched;

/**
 * The plugin as an admin switches it on: no {@code spindle.policy} set, so
 * the default ({@code asm1}, local-only) runs in a real ResourceManager
 * (MockRM). The other scenarios pin {@code asm1-comm}, which spills at once.
 */
public class TestDefaultPolicy {

  /** A cluster with the plugin's defaults, and {@code maxWaitMs} if not null. */
  private static MockCluster cluster(Integer maxWaitMs) throws Exception {
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    conf.unset(SpindleSettings.POLICY);
    if (maxWaitMs != null) {
      conf.setInt(SpindleSettings.MAX_WAIT, maxWaitMs);
    }
    return new MockCluster(Sched.SPINDLE, conf, null);
  }

  /** One round: each host heartbeats, then the AM pulls its containers. */
  private static List<Grant> round(MockCluster c, MockAM am, int r, String... hosts)
      throws Exception {
    for (String h : hosts) {
      c.nm(h).nodeHeartbeat(true);
      c.rm.drainEvents();
    }
    AllocateResponse resp = am.allocate(Collections.<ResourceRequest>emptyList(),
        Collections.<ContainerId>emptyList());
    List<Grant> out = new ArrayList<>();
    for (Container x : resp.getAllocatedContainers()) {
      out.add(new Grant(x, r));
    }
    return out;
  }

  /**
   * Maps whose block is on h2 are not handed to the other nodes' free slots
   * while the wait lasts (asm1-comm would place them rack-local on h1 at
   * once); h2's first heartbeat takes them all, node-local.
   */
  @Test
  public void theDefaultKeepsMapsForTheirReplicaHolder() throws Exception {
    try (MockCluster c = cluster(60_000)) {
      MockAM am = c.launchApp("local", "h4");
      am.allocate(asks(20, 3, "h2"), null);
      List<Grant> early = new ArrayList<>();
      for (int r = 0; r < 5; r++) {
        early.addAll(round(c, am, r, "h1", "h3", "h4"));
      }
      assertEquals("nodes without the block get none of its maps: " + early, 0, early.size());
      List<Grant> got = new ArrayList<>();
      for (int r = 5; r < 10 && got.size() < 3; r++) {
        got.addAll(round(c, am, r, "h2", "h1", "h3", "h4"));
      }
      assertEquals("all three maps: " + got, 3, got.size());
      for (Grant g : got) {
        assertEquals("node-local on the replica holder: " + got, "h2", g.host);
      }
      c.assertMetricsSane("after the local grants");
    }
  }

  /**
   * The wait has a hard cap (spindle.locality.max-wait-ms): when the replica
   * holder never has room (here it never heartbeats), the maps go rack-local
   * once the cap has passed, not before, and not never. The cap is measured
   * on the wall clock, so the rounds are timed: a round that ends before the
   * cap must grant nothing, and the spill is looked at only after a pause
   * past the cap, so that h1 (h2's rack) heartbeats first after it.
   */
  @Test
  public void theDefaultCapsTheLocalityWait() throws Exception {
    final long capMs = 2_000;
    try (MockCluster c = cluster((int) capMs)) {
      MockAM am = c.launchApp("capped", "h4");
      long asked = System.nanoTime();
      am.allocate(asks(20, 2, "h2"), null);
      List<Grant> first = round(c, am, 0, "h1", "h3", "h4");
      long round0End = System.nanoTime();
      long round0Ms = (round0End - asked) / 1_000_000;
      // On a machine too loaded to finish one round within the cap, the test
      // cannot tell early from late: skipped, not passed.
      Assume.assumeTrue("round 0 took " + round0Ms + " ms, past the " + capMs + " ms cap",
          round0Ms < capMs);
      assertEquals("within the cap nothing spills: " + first, 0, first.size());
      // The wait starts at the latest with round 0's heartbeats.
      long left = capMs + 200 - (System.nanoTime() - round0End) / 1_000_000;
      if (left > 0) {
        Thread.sleep(left);
      }
      // A grant restarts the group's wait (delay scheduling), so the second
      // map spills one more cap later: every round starts past a cap, so
      // the expiry never falls between h1's heartbeat and h3's.
      List<Grant> got = new ArrayList<>();
      for (int r = 1; r < 6 && got.size() < 2; r++) {
        got.addAll(round(c, am, r, "h1", "h3", "h4"));
        if (got.size() < 2) {
          Thread.sleep(capMs + 200);
        }
      }
      assertEquals("both maps once the cap passed: " + got, 2, got.size());
      for (Grant g : got) {
        assertEquals("rack-local first (h1 shares h2's rack): " + got, "h1", g.host);
      }
      c.assertMetricsSane("after the capped grants");
    }
  }

  /** Reducers (ANY-only asks) of one app until {@code want} arrive, every host heartbeating. */
  private static List<Grant> reducers(MockCluster c, MockAM am, int want) throws Exception {
    am.allocate(asks(10, want), null);
    List<Grant> got = new ArrayList<>();
    for (int r = 0; r < 10 && got.size() < want; r++) {
      got.addAll(round(c, am, r, "h1", "h2", "h3", "h4"));
    }
    assertEquals("every reducer: " + got, want, got.size());
    return got;
  }

  /**
   * As the CapacityScheduler (per-node-heartbeat.maximum-offswitch-assignments,
   * default 1), a node heartbeat takes one off-switch container: the two
   * reducers of a job on an otherwise idle cluster land on two nodes, not both
   * on the first to heartbeat.
   */
  @Test
  public void twoReducersLandOnTwoNodes() throws Exception {
    try (MockCluster c = cluster(null)) {
      MockAM am = c.launchApp("wordcount", "h4");
      List<Grant> got = reducers(c, am, 2);
      assertNotEquals("two nodes: " + got, got.get(0).host, got.get(1).host);
      c.assertMetricsSane("after the reducers");
    }
  }

  /** The limit is the admin's: at 2 the first node to heartbeat takes both. */
  @Test
  public void theOffSwitchLimitIsASetting() throws Exception {
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    conf.unset(SpindleSettings.POLICY);
    conf.setInt(SpindleSettings.MAX_OFFSWITCH, 2);
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf, null)) {
      MockAM am = c.launchApp("wordcount", "h4");
      List<Grant> got = reducers(c, am, 2);
      assertEquals("one node: " + got, got.get(0).host, got.get(1).host);
    }
  }
}
