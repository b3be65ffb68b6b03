package org.spindle.yarn;

import org.spindle.core.ForwardingCore;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.spindle.yarn.MockCluster.GB;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.protocolrecords.UpdateApplicationPriorityRequest;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.junit.After;
import org.junit.Test;
import org.slf4j.LoggerFactory;
import org.spindle.core.Core;
import org.spindle.yarn.MockCluster.Sched;

/**
 * Job weights and progress from the ResourceManager (issue 11 C, issue 12
 * items 7-8): an app's YARN priority or its spindle.job.weight tag becomes
 * its weight in the core, a priority update changes it, a bad tag is logged
 * and falls back, and each AM's reported progress reaches the core. Watched
 * through a core that records these calls on their way to the real one.
 */
public class TestJobWeights {
  private final Function<SpindleSettings, Core> real = CoreSetup.factory;

  @After
  public void restoreCore() {
    CoreSetup.factory = real;
  }

  /** Records, by the core's app name (the attempt id), weights and progress sent. */
  static final class Recorder extends ForwardingCore {
    final Map<Integer, String> names = new ConcurrentHashMap<>();
    final Map<String, Double> added = new ConcurrentHashMap<>();
    final List<String> weightUpdates = Collections.synchronizedList(new ArrayList<>());
    final Map<String, Float> progress = new ConcurrentHashMap<>();
    final List<String> progressCalls = Collections.synchronizedList(new ArrayList<>());

    Recorder(Core inner) {
      super(inner);
    }

    @Override
    public int addApp(String appId, double weight, long submitMs) {
      int id = super.addApp(appId, weight, submitMs);
      names.put(id, appId);
      added.put(appId, weight);
      return id;
    }

    @Override
    public void setAppWeight(int app, double weight) {
      super.setAppWeight(app, weight);
      weightUpdates.add(names.get(app) + " " + weight);
    }

    @Override
    public void appProgress(int app, float p, long nowMs) {
      super.appProgress(app, p, nowMs);
      progress.put(names.get(app), p);
      progressCalls.add(names.get(app) + " " + p);
    }
  }

  private Recorder[] recordCore() {
    Recorder[] r = new Recorder[1];
    CoreSetup.factory = s -> r[0] = new Recorder(CoreSetup.open(s));
    return r;
  }

  /** Priorities up to 10 count (Hadoop's yarn.cluster.max-application-priority). */
  private static YarnConfiguration conf() throws Exception {
    YarnConfiguration conf = MockCluster.conf(Sched.SPINDLE);
    conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
    // Several AMs start before any asks: admission is not what these tests are about
    // (TestSpindleScheduler tests spindle.am.admit-on-progress).
    conf.set(SpindleSettings.AM_ADMIT_ON_PROGRESS, "false");
    return conf;
  }

  /** Submits an app at {@code priority} with {@code tags}; its AM runs on {@code host}. */
  private static MockAM launch(MockCluster c, String name, int priority, String host,
      String... tags) throws Exception {
    MockRM rm = c.rm;
    RMApp app = MockRMAppSubmitter.submit(rm, MockRMAppSubmissionData.Builder
        .createWithMemory(GB, rm).withAppName(name).withAppPriority(Priority.newInstance(priority))
        .withApplicationTags(new HashSet<>(Arrays.asList(tags))).build());
    return MockRM.launchAndRegisterAM(app, rm, c.nm(host));
  }

  private static String key(MockAM am) {
    return am.getApplicationAttemptId().toString();
  }

  @Test
  public void priorityAndTagSetTheWeight() throws Exception {
    Recorder[] rec = recordCore();
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf(), null)) {
      MockAM plain = launch(c, "plain", 0, "h1");
      MockAM high = launch(c, "high", 4, "h2");
      MockAM tagged = launch(c, "tagged", 4, "h3", "spindle.job.weight=2.5", "nightly");
      MockAM capped = launch(c, "capped", 50, "h4");
      Map<String, Double> w = rec[0].added;
      assertEquals("priority 0 weighs 1", 1.0, w.get(key(plain)), 0);
      assertEquals("priority 4 weighs 5", 5.0, w.get(key(high)), 0);
      assertEquals("the tag wins over the priority", 2.5, w.get(key(tagged)), 0);
      assertEquals("priority 50 is capped at the cluster's 10: weight 11", 11.0,
          w.get(key(capped)), 0);
      assertEquals("the RM shows the capped priority", 10, c.rm.getRMContext().getRMApps()
          .get(capped.getApplicationAttemptId().getApplicationId()).getApplicationPriority()
          .getPriority());
    }
  }

  /**
   * The weight orders the node's queue: two apps each ask for 8 containers
   * on h2, which has room for 8. At equal priority the first submitted gets
   * them; when the second has priority 9 (weight 10), it does (weighted
   * remaining work: 8 / 10 against 8 / 1). asm1, planned on the heartbeat,
   * so that the first heartbeat already follows the plan.
   */
  @Test
  public void theHeavierAppIsServedFirst() throws Exception {
    for (int priority : new int[] {0, 9}) {
      YarnConfiguration conf = conf();
      conf.set(SpindleSettings.POLICY, "asm1");
      conf.set(SpindleSettings.PLANNING_BACKGROUND, "false");
      try (MockCluster c = new MockCluster(Sched.SPINDLE, conf, null)) {
        MockAM first = launch(c, "first", 0, "h3");
        MockAM second = launch(c, "second", priority, "h4");
        first.allocate(MockCluster.asks(20, 8, "h2"), null);
        second.allocate(MockCluster.asks(20, 8, "h2"), null);
        Map<MockAM, List<MockCluster.Grant>> g =
            c.drive(Arrays.asList(first, second), 8, 1, "h2");
        String got = "first " + g.get(first) + ", second " + g.get(second);
        MockAM winner = priority == 0 ? first : second;
        assertEquals("priority " + priority + ": " + got, 8, g.get(winner).size());
      }
    }
  }

  @Test
  public void badTagsAreLoggedAndFallBackToThePriority() throws Exception {
    Recorder[] rec = recordCore();
    LogCapturer log = LogCapturer.captureLogs(LoggerFactory.getLogger(SpindleScheduler.class));
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf(), null)) {
      MockAM word = launch(c, "word", 2, "h1", "spindle.job.weight=heavy");
      MockAM huge = launch(c, "huge", 0, "h2", "spindle.job.weight=1e7");
      MockAM two = launch(c, "two", 1, "h3", "spindle.job.weight=2", "spindle.job.weight=3");
      String out = log.getOutput();
      Map<String, Double> w = rec[0].added;
      assertEquals("priority 2's weight", 3.0, w.get(key(word)), 0);
      assertEquals("priority 0's weight", 1.0, w.get(key(huge)), 0);
      assertEquals("priority 1's weight", 2.0, w.get(key(two)), 0);
      for (String want : new String[] {
          "application " + word.getApplicationAttemptId().getApplicationId()
              + ": tag \"spindle.job.weight=heavy\": \"heavy\" is not a number; using the weight"
              + " of its priority 2, 3.0",
          "application " + huge.getApplicationAttemptId().getApplicationId()
              + ": tag \"spindle.job.weight=1e7\": weight 1e7 is outside 1.0E-6 to 1000000.0",
          "application " + two.getApplicationAttemptId().getApplicationId()
              + ": tags [spindle.job.weight=2, spindle.job.weight=3] give different weights"}) {
        assertTrue("logged: " + want + "\nlog:\n" + out, out.contains(want));
      }
      // The apps are the core's and are served.
      two.allocate(MockCluster.asks(20, 1, "h3"), null);
      assertEquals(1, c.drive(two, 1, 10, "h3", "h1").size());
    } finally {
      log.stopCapturing();
    }
  }

  @Test
  public void aPriorityUpdateChangesTheWeightUnlessTagged() throws Exception {
    Recorder[] rec = recordCore();
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf(), null)) {
      MockAM am = launch(c, "bumped", 1, "h1");
      MockAM tagged = launch(c, "tagged", 1, "h2", "spindle.job.weight=3");
      assertEquals(2.0, rec[0].added.get(key(am)), 0);
      setPriority(c, am, 6);
      assertEquals("priority 6 weighs 7", Arrays.asList(key(am) + " 7.0"), rec[0].weightUpdates);
      setPriority(c, am, 99);
      assertEquals("capped at 10: weight 11",
          Arrays.asList(key(am) + " 7.0", key(am) + " 11.0"), rec[0].weightUpdates);
      assertEquals(10, rmApp(c, am).getApplicationPriority().getPriority());
      rec[0].weightUpdates.clear();
      setPriority(c, tagged, 8);
      assertEquals("the tag fixes the weight", Collections.emptyList(), rec[0].weightUpdates);
      assertEquals("the priority still changes", 8,
          rmApp(c, tagged).getApplicationPriority().getPriority());
    }
  }

  private static RMApp rmApp(MockCluster c, MockAM am) {
    return c.rm.getRMContext().getRMApps().get(am.getApplicationAttemptId().getApplicationId());
  }

  private static void setPriority(MockCluster c, MockAM am, int priority) throws Exception {
    c.rm.getClientRMService().updateApplicationPriority(UpdateApplicationPriorityRequest
        .newInstance(am.getApplicationAttemptId().getApplicationId(),
            Priority.newInstance(priority)));
    c.rm.drainEvents();
  }

  @Test
  public void amProgressReachesTheCore() throws Exception {
    Recorder[] rec = recordCore();
    try (MockCluster c = new MockCluster(Sched.SPINDLE, conf(), null)) {
      MockAM am = launch(c, "progress", 0, "h1");
      for (float p : new float[] {0.25f, 0.25f, 0.75f, 1.0f}) {
        progress(c, am, p);
      }
      assertEquals(1.0f, rec[0].progress.get(key(am)), 0);
      assertEquals("each change once, repeats not sent",
          Arrays.asList(key(am) + " 0.25", key(am) + " 0.75", key(am) + " 1.0"),
          rec[0].progressCalls.subList(rec[0].progressCalls.size() - 3,
              rec[0].progressCalls.size()));
    }
  }

  /** One allocate reporting {@code p}; the next allocate forwards what the attempt recorded. */
  private static void progress(MockCluster c, MockAM am, float p) throws Exception {
    for (int i = 0; i < 2; i++) {
      am.allocate(AllocateRequest.newInstance(0, p, Collections.<ResourceRequest>emptyList(),
          Collections.<ContainerId>emptyList(), null));
      c.rm.drainEvents();
    }
  }
}
