package org.spindle.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.junit.Test;
import org.spindle.yarn.MockCluster.Sched;

/** Asks of one size share one capability object; other sizes and the bound keep their own. */
public class TestCapabilityCache {
  private static ResourceRequest ask(String host, long mb, int vcores) {
    return ResourceRequest.newInstance(Priority.newInstance(20), host,
        Resource.newInstance(mb, vcores), 1);
  }

  @Test
  public void equalSizesShareOneObjectAndOthersKeepTheirValue() {
    CapabilityCache cache = new CapabilityCache();
    List<ResourceRequest> asks = new ArrayList<>(Arrays.asList(ask("h1", 1024, 1),
        ask("h2", 1024, 1), ask("h3", 2048, 1), ask("h4", 1024, 2)));
    Resource askedForH1 = asks.get(0).getCapability();
    cache.share(asks);
    assertSame("equal sizes share", asks.get(0).getCapability(), asks.get(1).getCapability());
    assertNotSame("not the caller's object", askedForH1, asks.get(0).getCapability());
    assertEquals(Resource.newInstance(1024, 1), asks.get(0).getCapability());
    assertEquals(Resource.newInstance(2048, 1), asks.get(2).getCapability());
    assertEquals(Resource.newInstance(1024, 2), asks.get(3).getCapability());
    assertNotSame(asks.get(0).getCapability(), asks.get(3).getCapability());
    assertEquals("three sizes", 3, cache.size());
    cache.share(null); // an allocate without asks
  }

  @Test
  public void beyondTheBoundAnAskKeepsItsOwnObject() {
    CapabilityCache cache = new CapabilityCache();
    for (int i = 0; i < CapabilityCache.MAX_SIZES; i++) {
      cache.share(new ArrayList<>(Arrays.asList(ask("h1", 1 + i, 1))));
    }
    ResourceRequest late = ask("h1", CapabilityCache.MAX_SIZES + 7, 1);
    Resource own = late.getCapability();
    cache.share(new ArrayList<>(Arrays.asList(late)));
    assertSame(own, late.getCapability());
    assertEquals(CapabilityCache.MAX_SIZES, cache.size());
    // A size already kept is still shared.
    ResourceRequest early = ask("h2", 1, 1);
    Resource before = early.getCapability();
    cache.share(new ArrayList<>(Arrays.asList(early)));
    assertNotSame(before, early.getCapability());
  }

  /** In the RM: an app's stored host, rack and ANY asks of one size hold one capability. */
  @Test
  public void theRmKeepsOneCapabilityForAnAppsHostAsks() throws Exception {
    try (MockCluster c = new MockCluster(Sched.SPINDLE)) {
      MockAM am = c.launchApp("share", "h4");
      am.allocate(MockCluster.asks(20, 2, "h1", "h2", "h3"), null);
      assertOneCapability(c.rm, am, 20);
    }
  }

  /** Asserts the app's asks at {@code priority} (at least host, rack and ANY) share one object. */
  public static void assertOneCapability(MockRM rm, MockAM am, int priority) {
    AbstractYarnScheduler<?, ?> sched = (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
    SchedulerApplicationAttempt app = sched.getApplicationAttempt(am.getApplicationAttemptId());
    Map<Resource, Boolean> objects = new IdentityHashMap<>();
    int asks = 0;
    for (ResourceRequest r : app.getAppSchedulingInfo().getAllResourceRequests()) {
      if (r.getPriority().getPriority() == priority) {
        objects.put(r.getCapability(), true);
        asks++;
      }
    }
    assertTrue("host, rack and ANY asks kept: " + asks, asks >= 3);
    assertEquals("one capability object for " + asks + " asks", 1, objects.size());
  }
}
