package org.spindle.yarn;

import static org.junit.Assert.assertEquals;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.junit.Test;
import org.spindle.yarn.MockCluster.Grant;
import org.spindle.yarn.MockCluster.Sched;
import org.spindle.yarn.fair.SpindleFairPolicy;

/**
 * The FairScheduler's app order through {@link SpindleFairPolicy} (issue 21
 * item 6): two apps of one fair queue hold 15 containers each, a with 20
 * more to go and b with 2. One of a's containers finishes: the stock fair
 * policy gives the slot to a (it now uses less), Spindle's job order
 * (weighted remaining work) to b (less left).
 */
public class TestFairOrder {
  @Test
  public void aFairQueueOrdersItsAppsByTheCoresJobOrder() throws Exception {
    Map<String, String> got = new LinkedHashMap<>();
    for (String policy : new String[] {"fair", SpindleFairPolicy.class.getName()}) {
      File alloc = File.createTempFile("spindle-fair", ".xml");
      alloc.deleteOnExit();
      Files.write(alloc.toPath(), ("<?xml version=\"1.0\"?>\n<allocations>\n"
          + "  <defaultQueueSchedulingPolicy>" + policy + "</defaultQueueSchedulingPolicy>\n"
          + "</allocations>\n").getBytes(StandardCharsets.UTF_8));
      YarnConfiguration conf = MockCluster.conf(Sched.FAIR);
      conf.set("yarn.scheduler.fair.allocation.file", alloc.getAbsolutePath());
      try (MockCluster c = new MockCluster(Sched.FAIR, conf, null)) {
        org.apache.log4j.LogManager.getRootLogger().setLevel(org.apache.log4j.Level.WARN);
        MockAM a = c.launchApp("a", "h1");
        MockAM b = c.launchApp("b", "h2");
        a.allocate(anywhere(15), Collections.<ContainerId>emptyList());
        b.allocate(anywhere(15), Collections.<ContainerId>emptyList());
        Map<MockAM, List<Grant>> first = c.drive(Arrays.asList(a, b), 30, 60, MockCluster.HOSTS);
        assertEquals(policy, 15, first.get(a).size());
        assertEquals(policy, 15, first.get(b).size());
        List<Grant> all = new ArrayList<>(first.get(a));
        all.addAll(first.get(b));
        c.launch(all);
        a.allocate(anywhere(20), Collections.<ContainerId>emptyList());
        b.allocate(anywhere(2), Collections.<ContainerId>emptyList());
        AbstractYarnScheduler<?, ?> fs = (AbstractYarnScheduler<?, ?>) c.scheduler();
        fs.update(); // the core hears of the asks
        Thread.sleep(300); // its planner re-ranks
        fs.update(); // the policy reads the order
        // One of a's containers finishes: a now uses less than b, one slot is free.
        Grant ga = first.get(a).get(0);
        c.nm(ga.host).nodeHeartbeat(Collections.singletonList(
            ContainerStatus.newInstance(ga.id(), ContainerState.COMPLETE, "", 0)), true);
        c.rm.drainEvents();
        fs.update();
        c.nm(ga.host).nodeHeartbeat(true);
        c.rm.drainEvents();
        List<Container> toA = a.allocate(Collections.<ResourceRequest>emptyList(),
            Collections.<ContainerId>emptyList()).getAllocatedContainers();
        List<Container> toB = b.allocate(Collections.<ResourceRequest>emptyList(),
            Collections.<ContainerId>emptyList()).getAllocatedContainers();
        got.put(policy.equals("fair") ? "fair" : "spindle",
            "a " + toA.size() + ", b " + toB.size());
      }
    }
    assertEquals("{fair=a 1, b 0, spindle=a 0, b 1}", got.toString());
  }

  private static List<ResourceRequest> anywhere(int n) {
    return Collections.singletonList(MockCluster.ask(20, ResourceRequest.ANY, n));
  }
}
