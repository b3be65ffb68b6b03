package org.spindle.yarn.fair;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.Schedulable;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies.FairSharePolicy;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.spindle.yarn.AppWeights;
import org.spindle.yarn.CoreBridge;
import org.spindle.yarn.CoreSetup;
import org.spindle.yarn.SpindleSettings;

/**
 * The FairScheduler as far as it can be plugged: the order of the apps of a
 * fair queue. Placement cannot be (the FairScheduler's FSAppAttempt never
 * consults an AppPlacementAllocator), so a fair queue keeps Hadoop's
 * locality delay. In the allocation file:
 * {@code <schedulingPolicy>org.spindle.yarn.fair.SpindleFairPolicy</schedulingPolicy>}
 * per queue, or as {@code <defaultQueueSchedulingPolicy>}.
 *
 * <p>Fair shares, headroom and usage checks are {@link FairSharePolicy}'s,
 * and so is the order of child queues. Apps are ordered by the core's job
 * order ({@code spindle.job.order}, weighted remaining work by default),
 * then by the fair comparator. The core hears of each queue's apps (their
 * weight from their YARN priority, their pending containers per priority)
 * when the FairScheduler recomputes the queue's shares (its update thread,
 * every {@code yarn.scheduler.fair.update-interval-ms}), and the order is
 * refreshed there, under the scheduler's lock, so no sort sees it change.
 * What the FairScheduler does not tell a policy the core does not know:
 * grants (so no overtaking bound), where asks are (so S-PC sees every app as
 * one stage), tags (so no spindle.job.weight). Settings come from the RM's
 * classpath (yarn-site.xml, spindle-site.xml).
 */
public class SpindleFairPolicy extends FairSharePolicy {
  public static final String NAME = "spindle";

  private final Comparator<Schedulable> fair = super.getComparator();
  private final Object lock = new Object();
  private CoreBridge bridge;
  private final Map<ApplicationAttemptId, FSAppAttempt> apps = new HashMap<>();
  private final Map<ApplicationAttemptId, Integer> ids = new HashMap<>();
  /** The priorities last sent for each app (a drained one is sent as 0). */
  private final Map<ApplicationAttemptId, Set<Integer>> priorities = new HashMap<>();
  private volatile int[] ranks = new int[0];
  private volatile Map<ApplicationAttemptId, Integer> rankIds = new HashMap<>();

  private final Comparator<Schedulable> comparator = (a, b) -> {
    if (a instanceof FSAppAttempt && b instanceof FSAppAttempt) {
      int c = Integer.compare(rank((FSAppAttempt) a), rank((FSAppAttempt) b));
      if (c != 0) {
        return c;
      }
    }
    return fair.compare(a, b);
  };

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public Comparator<Schedulable> getComparator() {
    return comparator;
  }

  /** The app's place in the job order at the last refresh; MAX_VALUE if none. */
  int rank(FSAppAttempt a) {
    Integer id = rankIds.get(a.getApplicationAttemptId());
    int[] r = ranks;
    return id == null || id < 0 || id >= r.length || r[id] < 0 ? Integer.MAX_VALUE : r[id];
  }

  @Override
  public void computeShares(Collection<? extends Schedulable> schedulables,
      Resource totalResources) {
    super.computeShares(schedulables, totalResources);
    List<FSAppAttempt> queueApps = new ArrayList<>();
    for (Schedulable s : schedulables) {
      if (s instanceof FSAppAttempt) {
        queueApps.add((FSAppAttempt) s);
      }
    }
    if (!queueApps.isEmpty()) {
      feed(queueApps);
    }
  }

  /** The apps' pending containers to the core; apps that stopped leave it; the order refreshed. */
  private void feed(List<FSAppAttempt> queueApps) {
    synchronized (lock) {
      if (bridge == null) {
        SpindleSettings settings = CoreSetup.settings(new YarnConfiguration());
        bridge = new CoreBridge(CoreSetup.factory.apply(settings),
            "the FairScheduler's own order serves it");
      }
      for (FSAppAttempt a : queueApps) {
        ApplicationAttemptId id = a.getApplicationAttemptId();
        if (!ids.containsKey(id)) {
          int p = a.getPriority() == null ? 0 : a.getPriority().getPriority();
          bridge.appAdded(id, AppWeights.ofPriority(p), a.getStartTime());
          ids.put(id, bridge.appId(id));
          apps.put(id, a);
        }
        Map<Integer, List<CoreBridge.Ask>> byPriority = new HashMap<>();
        for (SchedulerRequestKey k : a.getAppSchedulingInfo().getSchedulerKeys()) {
          int p = k.getPriority().getPriority();
          Resource c = a.getPendingAsk(k, ResourceRequest.ANY).getPerAllocationResource();
          byPriority.computeIfAbsent(p, x -> new ArrayList<>()).add(new CoreBridge.Ask(p,
              ResourceRequest.ANY, a.getOutstandingAsksCount(k), c.getMemorySize(),
              c.getVirtualCores(), true));
        }
        Set<Integer> sent = priorities.computeIfAbsent(id, x -> new HashSet<>());
        for (int p : sent) {
          byPriority.putIfAbsent(p, new ArrayList<>()); // drained since: zeroed
        }
        for (Map.Entry<Integer, List<CoreBridge.Ask>> e : byPriority.entrySet()) {
          bridge.resync(id, e.getKey(), e.getValue());
        }
        sent.clear();
        sent.addAll(byPriority.keySet());
      }
      apps.entrySet().removeIf(e -> {
        if (e.getValue().isStopped()) {
          bridge.appRemoved(e.getKey());
          ids.remove(e.getKey());
          priorities.remove(e.getKey());
          return true;
        }
        return false;
      });
      int[] r = bridge.newRanks();
      if (r != null) {
        ranks = r;
      }
      rankIds = new HashMap<>(ids);
    }
  }
}
