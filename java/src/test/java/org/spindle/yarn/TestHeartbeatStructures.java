package org.spindle.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.spindle.yarn.MockCluster.asks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.junit.Test;
import org.spindle.yarn.MockCluster.Sched;

/**
 * What SpindleScheduler keeps in place of Hadoop's structures on the heartbeat's path: the
 * unpulled-container list behaves as the ArrayList Hadoop had, for what Hadoop does, and the
 * app index as the skip list.
 */
public class TestHeartbeatStructures {
  private static UnpulledContainers<String> of(String... s) {
    UnpulledContainers<String> l = new UnpulledContainers<>();
    l.addAll(Arrays.asList(s));
    return l;
  }

  @Test
  public void keepsAllocationOrderAndRemovesByValue() {
    UnpulledContainers<String> l = of("c1", "c2", "c3", "c4");
    assertTrue(l.remove("c2"));
    assertFalse("an already pulled container is not there", l.remove("c9"));
    assertEquals(Arrays.asList("c1", "c3", "c4"), l);
    assertEquals(new ArrayList<>(l), l);
    assertEquals("c3", l.get(1));
    assertEquals(3, l.size());
    assertTrue(l.contains("c4"));
    l.add("c5");
    assertEquals(Arrays.asList("c1", "c3", "c4", "c5"), new ArrayList<>(l));
  }

  /** The AM's pull: iterate in order, removing what was handed over. */
  @Test
  public void theIteratorRemovesWhatItHandsOver() {
    UnpulledContainers<String> l = of("c1", "c2", "c3");
    for (Iterator<String> it = l.iterator(); it.hasNext(); ) {
      if (!it.next().equals("c2")) {
        it.remove();
      }
    }
    assertEquals(Collections.singletonList("c2"), l);
    UnpulledContainers<String> m = of("a", "b", "c");
    ListIterator<String> li = m.listIterator(1);
    assertEquals("b", li.next());
    li.remove();
    assertEquals(Arrays.asList("a", "c"), m);
    m.remove(0);
    assertEquals(Collections.singletonList("c"), m);
    try {
      m.set(0, "x");
      fail("positional writes are refused");
    } catch (UnsupportedOperationException e) {
      assertEquals("unpulled containers keep allocation order", e.getMessage());
    }
  }

  /**
   * Through the RM: a container that completes before its AM pulls it leaves the list (the
   * AM never sees it), the other is pulled, and nothing stays behind.
   */
  @Test
  public void aContainerFinishedBeforeThePullIsNotHandedOver() throws Exception {
    try (MockCluster c = new MockCluster(Sched.SPINDLE)) {
      SpindleScheduler sch = (SpindleScheduler) c.scheduler();
      MockAM am = c.launchApp("unpulled", "h4");
      SpindleAppAttempt attempt = sch.getApplicationAttempt(am.getApplicationAttemptId());
      assertEquals("the AM's container was pulled at launch", 0, attempt.unpulled());
      am.allocate(asks(20, 2, "h1"), null);
      for (int i = 0; i < 10 && attempt.unpulled() < 2; i++) {
        c.nm("h1").nodeHeartbeat(true);
        c.rm.drainEvents();
      }
      assertEquals("two maps granted, not pulled", 2, attempt.unpulled());
      List<ContainerId> maps = new ArrayList<>();
      for (RMContainer rc : attempt.getLiveContainers()) {
        if (!rc.isAMContainer()) {
          maps.add(rc.getContainerId());
        }
      }
      Collections.sort(maps);
      assertEquals(2, maps.size());
      c.nm("h1").nodeHeartbeat(Collections.singletonList(
          ContainerStatus.newInstance(maps.get(0), ContainerState.COMPLETE, "", 0)), true);
      c.rm.drainEvents();
      List<ContainerId> pulled = new ArrayList<>();
      for (Container got : am.allocate(Collections.<ResourceRequest>emptyList(),
          Collections.<ContainerId>emptyList()).getAllocatedContainers()) {
        pulled.add(got.getId());
      }
      // The RM put the finished map's request back, so the same heartbeat may grant it anew.
      assertFalse("the finished container is not handed over: " + pulled,
          pulled.contains(maps.get(0)));
      assertTrue("the other one is: " + pulled, pulled.contains(maps.get(1)));
      assertEquals(0, attempt.unpulled());
      c.assertMetricsSane("after a container finished unpulled");
    }
  }

  /**
   * The scheduler's hash index of its applications follows the skip list Hadoop reads: an
   * attempt and its containers are found while the app runs and gone when it is killed.
   */
  @Test
  public void theAppIndexFollowsTheApplications() throws Exception {
    try (MockCluster c = new MockCluster(Sched.SPINDLE)) {
      SpindleScheduler sch = (SpindleScheduler) c.scheduler();
      MockAM am = c.launchApp("indexed", "h4");
      ApplicationAttemptId id = am.getApplicationAttemptId();
      SpindleAppAttempt attempt = sch.getApplicationAttempt(id);
      assertSame(sch.getSchedulerApplications().get(id.getApplicationId()).getCurrentAppAttempt(),
          attempt);
      ContainerId amContainer = ContainerId.newContainerId(id, 1);
      assertSame(attempt, sch.getCurrentAttemptForContainer(amContainer));
      assertEquals(amContainer, sch.getRMContainer(amContainer).getContainerId());
      c.rm.killApp(id.getApplicationId());
      c.rm.waitForState(id.getApplicationId(), RMAppState.KILLED);
      c.rm.drainEvents();
      assertNull(sch.getSchedulerApplications().get(id.getApplicationId()));
      assertNull(sch.getApplicationAttempt(id));
      assertNull(sch.getRMContainer(amContainer));
    }
  }
}
