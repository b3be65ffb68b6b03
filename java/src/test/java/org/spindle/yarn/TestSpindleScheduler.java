package org.spindle.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.spindle.yarn.MockCluster.asks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import javax.management.ObjectName;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ResourceBlacklistRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
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
  private final Function<SpindleSettings, Core> real = SpindleScheduler.coreFactory;

  @After
  public void restoreCore() {
    SpindleScheduler.coreFactory = real;
  }

  /** Records the asks the core is sent. */
  static final class AskLog extends ForwardingCore {
    final List<String> asks = Collections.synchronizedList(new ArrayList<>());

    AskLog(Core inner) {
      super(inner);
    }

    @Override
    public void updateAsk(int app, int priority, String resource, int count, long memoryMb,
        int vcores, boolean relaxLocality) {
      asks.add(priority + " " + resource + " " + count);
      super.updateAsk(app, priority, resource, count, memoryMb, vcores, relaxLocality);
    }
  }

  /**
   * Defect 1, blacklist path: a blacklisted host asks for nothing in the
   * core, and comes back when the AM lifts the blacklist.
   */
  @Test
  public void blacklistChangesReachTheCore() throws Exception {
    AskLog[] log = new AskLog[1];
    SpindleScheduler.coreFactory = s -> log[0] = new AskLog(SpindleScheduler.openCore(s));
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

  /** A core that cannot load: every heartbeat is FIFO's, counted in JMX, and nothing hangs. */
  @Test
  public void aMissingCoreLeavesAFifoCluster() throws Exception {
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    SpindleScheduler.coreFactory = s -> new SpindleScheduler.BrokenCore("test: no library");
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
    SpindleScheduler.coreFactory = s -> new ForwardingCore(SpindleScheduler.openCore(s)) {
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
