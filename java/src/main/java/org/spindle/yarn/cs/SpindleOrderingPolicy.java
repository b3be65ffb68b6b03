package org.spindle.yarn.cs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoComparator;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.IteratorSelector;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.OrderingPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.PriorityComparator;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.SchedulableEntity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which app of a leaf queue goes first: the core's job order
 * ({@code spindle.job.order}: weighted remaining work with the overtaking
 * bound by default, or S-PC), then the app's YARN priority, then submission
 * order (Hadoop's own comparators). Set per leaf queue:
 * {@code yarn.scheduler.capacity.<queue-path>.ordering-policy =
 * org.spindle.yarn.cs.SpindleOrderingPolicy}. The preemption iterator is the
 * reverse. Apps the core does not rank (yet) follow the ranked ones. A
 * walk on one node passes over the apps that node would only veto
 * ({@code spindle.cs.veto.skip-apps}, docs/capacity-scheduler.md).
 *
 * <p>Parameters ({@code ...ordering-policy.<key>}): {@code job-order} =
 * {@code spindle} (the default: the core's order) or {@code fifo} (priority,
 * then submission: Spindle places this queue's containers but does not
 * reorder its apps).
 *
 * <p>The order is kept sorted in an immutable snapshot, rebuilt only when
 * the core's order or the queue's apps changed; readers never lock. Nothing
 * is kept in the instance that a refreshQueues (which builds a new one) would
 * lose: the order lives in the core.
 */
public class SpindleOrderingPolicy<S extends SchedulableEntity> implements OrderingPolicy<S> {
  private static final Logger LOG = LoggerFactory.getLogger(SpindleOrderingPolicy.class);
  public static final String JOB_ORDER = "job-order";
  private static final Comparator<SchedulableEntity> PRIORITY = new PriorityComparator();
  private static final Comparator<SchedulableEntity> FIFO = new FifoComparator();
  private static volatile boolean warnedNoRuntime;

  private final Set<S> entities = ConcurrentHashMap.newKeySet();
  private final AtomicLong members = new AtomicLong();
  private volatile Snapshot snapshot;
  private volatile boolean coreOrder = true;

  private static final class Snapshot {
    final Object[] order;
    final long ranks;
    final long members;

    Snapshot(Object[] order, long ranks, long members) {
      this.order = order;
      this.ranks = ranks;
      this.members = members;
    }
  }

  @Override
  public void configure(Map<String, String> conf) {
    for (Map.Entry<String, String> e : conf.entrySet()) {
      String v = e.getValue() == null ? "" : e.getValue().trim();
      if (!JOB_ORDER.equals(e.getKey())) {
        throw new IllegalArgumentException("SpindleOrderingPolicy: unknown parameter ordering-policy."
            + e.getKey() + "; the only one is ordering-policy." + JOB_ORDER);
      }
      if (v.equals("spindle")) {
        coreOrder = true;
      } else if (v.equals("fifo")) {
        coreOrder = false;
      } else {
        throw new IllegalArgumentException("SpindleOrderingPolicy: ordering-policy." + JOB_ORDER
            + " = \"" + v + "\": expected spindle (the core's spindle.job.order) or fifo");
      }
    }
  }

  /** The apps in order; rebuilt when the core's order or the apps changed. */
  private Object[] order() {
    CsRuntime rt = coreOrder ? CsRuntime.current() : null;
    if (coreOrder && rt == null && !warnedNoRuntime) {
      warnedNoRuntime = true;
      LOG.warn("SpindleOrderingPolicy is configured but Spindle does not run in this RM"
          + " (yarn.resourcemanager.scheduler.class is not"
          + " org.spindle.yarn.cs.SpindleCapacityScheduler, and no app placed with"
          + " SpindlePlacementAllocator yet): apps are ordered by priority and submission");
    }
    long ranks = rt == null ? -1 : rt.rankVersion();
    long m = members.get();
    Snapshot s = snapshot;
    if (s != null && s.ranks == ranks && s.members == m) {
      return s.order;
    }
    List<S> list = new ArrayList<>(entities);
    Comparator<SchedulableEntity> byRank = (a, b) -> Integer.compare(rank(rt, a), rank(rt, b));
    list.sort(byRank.thenComparing(PRIORITY).thenComparing(FIFO));
    Object[] order = list.toArray();
    snapshot = new Snapshot(order, ranks, m);
    return order;
  }

  private static int rank(CsRuntime rt, SchedulableEntity e) {
    if (rt == null || !(e instanceof SchedulerApplicationAttempt)) {
      return Integer.MAX_VALUE;
    }
    return rt.rank(((SchedulerApplicationAttempt) e).getApplicationAttemptId());
  }

  @Override
  public Collection<S> getSchedulableEntities() {
    return Collections.unmodifiableSet(entities);
  }

  /**
   * The apps in order; in a walk on one node, without those the node would
   * only veto ({@link SkippingIterator}).
   */
  @Override
  public Iterator<S> getAssignmentIterator(IteratorSelector sel) {
    Object[] order = order();
    CsRuntime rt = CsRuntime.current();
    if (rt != null && rt.skipsApps()) {
      return new SkippingIterator<>(order, rt, CsRuntime.beginWalk());
    }
    return new ArrayIterator<>(order, false);
  }

  @Override
  public Iterator<S> getPreemptionIterator() {
    return new ArrayIterator<>(order(), true);
  }

  /** A leaf adds an app at activation and again after a priority update (the weight follows). */
  @Override
  public void addSchedulableEntity(S s) {
    if (entities.add(s)) {
      members.incrementAndGet();
    }
    CsRuntime rt = CsRuntime.current();
    if (rt != null && s instanceof SchedulerApplicationAttempt && s.getPriority() != null) {
      rt.priorityIs(((SchedulerApplicationAttempt) s).getApplicationAttemptId(),
          s.getPriority().getPriority());
    }
  }

  @Override
  public boolean removeSchedulableEntity(S s) {
    boolean removed = entities.remove(s);
    if (removed) {
      members.incrementAndGet();
    }
    return removed;
  }

  @Override
  public void addAllSchedulableEntities(Collection<S> sc) {
    if (entities.addAll(sc)) {
      members.incrementAndGet();
    }
  }

  @Override
  public int getNumSchedulableEntities() {
    return entities.size();
  }

  @Override
  public void containerAllocated(S entity, RMContainer r) {}

  /** The core's job order counts the app's running containers (S-PC's estimate). */
  @Override
  public void containerReleased(S entity, RMContainer r) {
    CsRuntime rt = CsRuntime.current();
    if (rt != null && entity instanceof SchedulerApplicationAttempt) {
      rt.released(((SchedulerApplicationAttempt) entity).getApplicationAttemptId());
    }
  }

  /** Asks reach the core through the app's allocators; its order follows at the next plan. */
  @Override
  public void demandUpdated(S entity) {}

  @Override
  public String getInfo() {
    CsRuntime rt = CsRuntime.current();
    String order = !coreOrder ? "fifo"
        : rt == null ? "spindle (no Spindle runtime: priority, then submission)"
            : "spindle, " + rt.settings.core.jobOrder;
    return "SpindleOrderingPolicy: " + order;
  }

  @Override
  public String getConfigName() {
    return SpindleOrderingPolicy.class.getName();
  }

  /** Over a snapshot array, forwards or backwards; read-only. */
  private static final class ArrayIterator<S> implements Iterator<S> {
    private final Object[] a;
    private final boolean reverse;
    private int i;

    ArrayIterator(Object[] a, boolean reverse) {
      this.a = a;
      this.reverse = reverse;
      this.i = 0;
    }

    @Override
    public boolean hasNext() {
      return i < a.length;
    }

    @SuppressWarnings("unchecked")
    @Override
    public S next() {
      if (i >= a.length) {
        throw new NoSuchElementException();
      }
      int k = reverse ? a.length - 1 - i : i;
      i++;
      return (S) a[k];
    }
  }

  /**
   * A leaf's walk over its apps on one node, passing over each app the node
   * would only veto ({@link CsRuntime#skips}): the CapacityScheduler then
   * does none of its per-app work (queue and user limits, headroom, the
   * activities) for it. The walk's node is the heartbeat's, or else the one
   * its first precheck names ({@link CsRuntime.Walk}); until it is known,
   * and while the leaf holds reservations, every app is walked. The old
   * walk would have gone on past a skipped app (a veto is an app skip to
   * the CapacityScheduler) and changed nothing on it, so the grants are
   * the same.
   */
  private static final class SkippingIterator<S> implements Iterator<S> {
    private final Object[] a;
    private final CsRuntime rt;
    private final CsRuntime.Walk walk;
    private final long id;
    private int i;
    /** The index hasNext found to be walked. */
    private int kept = -1;
    /** Whether the leaf holds reservations: -1 not looked at yet in this walk. */
    private int reserves = -1;

    SkippingIterator(Object[] a, CsRuntime rt, CsRuntime.Walk walk) {
      this.a = a;
      this.rt = rt;
      this.walk = walk;
      this.id = walk.walks;
    }

    @Override
    public boolean hasNext() {
      while (i < a.length) {
        if (i == kept || !skip(a[i])) {
          kept = i;
          return true;
        }
        i++;
        rt.board.skippedApps.increment();
      }
      return false;
    }

    private boolean skip(Object o) {
      if (!(o instanceof SchedulerApplicationAttempt)) {
        return false;
      }
      SchedulerNode node = walk.node(id);
      if (node == null) {
        return false;
      }
      SchedulerApplicationAttempt app = (SchedulerApplicationAttempt) o;
      if (reserves > 0 || !rt.skips(app, node)) {
        return false;
      }
      if (reserves < 0) {
        reserves = CsRuntime.leafReserves(app) ? 1 : 0;
      }
      return reserves == 0;
    }

    @SuppressWarnings("unchecked")
    @Override
    public S next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return (S) a[i++];
    }
  }

  @Override
  public String toString() {
    return getInfo() + " " + Arrays.toString(order());
  }
}
