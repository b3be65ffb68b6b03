package org.spindle.yarn.cs;

import java.util.Collection;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AppSchedulingInfo;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ContainerRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.activities.DiagnosticsCollector;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.SchedulingMode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.PendingAskUpdateResult;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.AppPlacementAllocator;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.CandidateNodeSet;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.CandidateNodeSetUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.LocalityAppPlacementAllocator;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;

/**
 * Where each container of an app goes, inside the stock CapacityScheduler:
 * the allocator of one app attempt's scheduler key. Hadoop's own
 * {@link LocalityAppPlacementAllocator} keeps the asks, node labels, strict
 * locality and pending counts; Spindle adds:
 *
 * <ul>
 *   <li>{@link #updatePendingAsk}: after Hadoop's update, the key's host,
 *       rack and ANY counts go to the core (also asks the RM recovers after a
 *       preemption or a lost container);
 *   <li>{@link #precheckNode}: Hadoop's partition check, then the plan's: a
 *       look in the node's decision, which the core made at the node's
 *       heartbeat ({@link PlacementBoard}; no core call here, no lock: it
 *       runs on the CapacityScheduler's scheduling threads), with the
 *       bounded veto. Keys with no host or rack asks left (reducers, AMs)
 *       go anywhere. With no core (it could not load, or lost the app),
 *       Spindle's own locality delay decides. It also tells the leaf's
 *       walk which node it is on ({@link SpindleOrderingPolicy});
 *   <li>{@link #allocate}: the grant reaches the core, which books it;
 *   <li>{@link #getPreferredNodeIterator}, with multi-node placement: the
 *       nodes whose decision holds this key first.
 * </ul>
 *
 * Switched on for every app by {@link SpindleCapacityScheduler}, or on Hadoop
 * 3.4+ by {@code yarn.scheduler.app-placement-allocator.class} naming this class.
 */
public class SpindlePlacementAllocator<N extends SchedulerNode>
    extends LocalityAppPlacementAllocator<N> {
  private CsRuntime runtime;
  private ApplicationAttemptId attempt;
  private int priority;
  private volatile int coreApp = -1;
  private volatile Resource capability;
  /** This key's host and rack names with containers asked. */
  private final AtomicInteger located = new AtomicInteger();
  /** Vetoes by Spindle's own locality delay since the last grant. */
  private final AtomicInteger missed = new AtomicInteger();

  @Override
  public void initialize(AppSchedulingInfo appSchedulingInfo,
      SchedulerRequestKey schedulerRequestKey, RMContext rmContext) {
    super.initialize(appSchedulingInfo, schedulerRequestKey, rmContext);
    attempt = appSchedulingInfo.getApplicationAttemptId();
    priority = schedulerRequestKey.getPriority().getPriority();
    runtime = CsRuntime.of(rmContext);
  }

  @Override
  public PendingAskUpdateResult updatePendingAsk(Collection<ResourceRequest> requests,
      boolean recoverPreemptedRequestForAContainer) {
    PendingAskUpdateResult result =
        super.updatePendingAsk(requests, recoverPreemptedRequestForAContainer);
    int names = 0;
    for (ResourceRequest r : getResourceRequests().values()) {
      if (!ResourceRequest.ANY.equals(r.getResourceName()) && r.getNumContainers() > 0) {
        names++;
      }
    }
    located.set(names);
    ResourceRequest any = getResourceRequests().get(ResourceRequest.ANY);
    if (any != null) {
      capability = any.getCapability();
    }
    if (runtime != null) {
      int id = runtime.asks(this, requests);
      if (id >= 0) {
        coreApp = id;
      }
    }
    return result;
  }

  @Override
  public boolean precheckNode(SchedulerNode node, SchedulingMode mode,
      Optional<DiagnosticsCollector> dcOpt) {
    if (runtime != null && runtime.skipApps) {
      CsRuntime.seen(node); // tells the leaf's walk its node (SpindleOrderingPolicy)
    }
    return super.precheckNode(node, mode, dcOpt)
        && (runtime == null || runtime.allows(this, node));
  }

  @Override
  public ContainerRequest allocate(SchedulerRequestKey key, NodeType type, SchedulerNode node) {
    boolean wasLocated = located();
    // The names whose last container this is stop being asked for.
    int drop = 0;
    if (type == NodeType.NODE_LOCAL && getOutstandingAsksCount(node.getNodeName()) == 1) {
      drop++;
    }
    if (type != NodeType.OFF_SWITCH && getOutstandingAsksCount(node.getRackName()) == 1) {
      drop++;
    }
    ContainerRequest request = super.allocate(key, type, node);
    located.addAndGet(-drop);
    missed.set(0);
    if (runtime != null) {
      runtime.placed(this, node, type, wasLocated);
    }
    return request;
  }

  @Override
  public Iterator<N> getPreferredNodeIterator(CandidateNodeSet<N> candidates) {
    Iterator<N> base = super.getPreferredNodeIterator(candidates);
    if (runtime == null || CandidateNodeSetUtils.getSingleNode(candidates) != null) {
      return base;
    }
    return runtime.preferred(this, candidates.getAllNodes().values(), base);
  }

  // ---- for CsRuntime ----

  CsRuntime runtime() {
    return runtime;
  }

  ApplicationAttemptId attemptId() {
    return attempt;
  }

  int priority() {
    return priority;
  }

  /** The core's id of the app, -1 until it holds it. */
  int coreApp() {
    return coreApp;
  }

  /** Whether host or rack asks are left (else the key may go anywhere). */
  boolean located() {
    return located.get() > 0;
  }

  /** The size of one container of this key; null before its ANY ask. */
  Resource capability() {
    return capability;
  }

  /**
   * The app's count for {@code name} at this key's priority, over every
   * scheduler key of that priority (the core keeps one ask group per priority).
   */
  int countAtPriority(String name) {
    int total = getOutstandingAsksCount(name);
    for (SchedulerRequestKey k : appSchedulingInfo.getSchedulerKeys()) {
      if (k.equals(schedulerRequestKey) || k.getPriority().getPriority() != priority) {
        continue;
      }
      AppPlacementAllocator<SchedulerNode> other = appSchedulingInfo.getAppPlacementAllocator(k);
      if (other != null) {
        total += other.getOutstandingAsksCount(name);
      }
    }
    return total;
  }

  /**
   * Spindle's locality delay, when the core cannot decide: node-local at
   * once; rack-local after {@code nodeDelay} vetoes (at most the cluster's
   * nodes); off-switch after {@code nodeDelay + rackAdditional} (negative
   * additional: none). A negative {@code nodeDelay} waits for nothing.
   */
  boolean delayAllows(SchedulerNode node, int nodeDelay, int rackAdditional, int nodes) {
    if (nodeDelay < 0 || getOutstandingAsksCount(node.getNodeName()) > 0) {
      return true;
    }
    int m = missed.get();
    if (m > Math.min(nodes, nodeDelay) && getOutstandingAsksCount(node.getRackName()) > 0) {
      return true;
    }
    if (m > Math.min(nodes, nodeDelay + Math.max(0, rackAdditional))) {
      return true;
    }
    missed.incrementAndGet();
    return false;
  }
}
