package org.spindle.yarn.cs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AppSchedulingInfo;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.ApplicationSchedulingConfig;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.AppPlacementAllocator;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.spindle.core.Core;
import org.spindle.core.SpindleCore;
import org.spindle.yarn.AppWeights;
import org.spindle.yarn.Beans;
import org.spindle.yarn.CoreBridge;
import org.spindle.yarn.CoreSetup;
import org.spindle.yarn.SpindleSettings;
import org.spindle.yarn.SplitFiles;

/**
 * Spindle inside the CapacityScheduler, one per ResourceManager: the core
 * (through the same {@link CoreBridge} as the whole-scheduler mode), the
 * node decisions the allocators read ({@link PlacementBoard}), the job
 * order the ordering policies read, and the counters of the JMX bean
 * {@code Hadoop:service=ResourceManager,name=SpindlePlacement}.
 *
 * <p>Driven by {@link SpindleCapacityScheduler#handle} (node events, each
 * NODE_UPDATE before the CapacityScheduler allocates) or, when the stock
 * CapacityScheduler runs with {@code yarn.scheduler.app-placement-allocator.class}
 * (Hadoop 3.4+), by a thread of its own that looks at every node once per
 * NodeManager heartbeat interval.
 */
public final class CsRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(CsRuntime.class);
  static final String BEAN = "Hadoop:service=ResourceManager,name=SpindlePlacement";
  /** Hadoop 3.4's cluster-wide allocator key (YarnConfiguration.APPLICATION_PLACEMENT_TYPE_CLASS). */
  public static final String GLOBAL_ALLOCATOR_KEY = "yarn.scheduler.app-placement-allocator.class";
  static final String NODE_DELAY_KEY = "yarn.scheduler.capacity.node-locality-delay";
  static final String RACK_DELAY_KEY = "yarn.scheduler.capacity.rack-locality-additional-delay";
  /** How often the allocators' classes are checked (the WARN when none is Spindle's). */
  private static final long CHECK_MS = 10_000;

  private static volatile CsRuntime current;

  /**
   * What a scheduling thread knows of the node it allocates on, for the
   * leaves' assignment iterators (Hadoop's IteratorSelector carries only
   * the partition, and the CapacityScheduler's allocate-on-a-node methods
   * are package-private on 3.3 and 3.4).
   */
  static final class Walk {
    /** The node whose heartbeat this thread allocates for (synchronous scheduling). */
    SchedulerNode pinned;
    /** The node of the first precheck since the latest walk began on this thread. */
    SchedulerNode seen;
    /** A precheck of another node followed: not a single-node walk. */
    boolean mixed;
    /** Walks begun on this thread; an iterator trusts this state only while its walk is the latest. */
    long walks;
    final Thread owner = Thread.currentThread();

    /** The node of walk {@code walk}, null if unknown. */
    SchedulerNode node(long walk) {
      if (walks != walk || mixed || Thread.currentThread() != owner) {
        return null;
      }
      if (pinned == null) {
        return seen;
      }
      return seen == null || seen == pinned ? pinned : null;
    }
  }

  private static final ThreadLocal<Walk> WALK = ThreadLocal.withInitial(Walk::new);

  final RMContext rmContext;
  final CapacityScheduler scheduler;
  final SpindleSettings settings;
  final CoreBridge bridge;
  final PlacementBoard board;
  private final SplitFiles splits;
  /** How this runtime is driven, for the log and the bean. */
  final String mode;
  /** The allocator class apps are given; why it cannot be theirs, or null. */
  final String allocatorClass;
  private final String allocatorProblem;
  /** The core started (a core that cannot load leaves Spindle's locality delay). */
  private final boolean live;
  /** Core app id of each attempt the core was told of (-1: it refused it). */
  private final Map<ApplicationAttemptId, Integer> appIds = new ConcurrentHashMap<>();
  /** The YARN priority each attempt weighs by (attempts whose weight a tag sets are absent). */
  private final Map<ApplicationAttemptId, Integer> priorities = new ConcurrentHashMap<>();
  private final int[] offerBuf = new int[SpindleCore.GRANT_INTS * 32];
  private volatile int[] ranks = new int[0];
  private volatile long rankVersion;
  private long checkedAt = Long.MIN_VALUE;
  private final Set<String> warned = ConcurrentHashMap.newKeySet();
  private volatile Thread poller;
  private volatile boolean stopped;

  final LongAdder prechecks = new LongAdder();
  final LongAdder locationLessPasses = new LongAdder();
  final LongAdder delayPasses = new LongAdder();
  final LongAdder delayVetoes = new LongAdder();
  final LongAdder unbooked = new LongAdder();
  final LongAdder preferredOrders = new LongAdder();
  /** Whether leaves' walks pass over apps the node would only veto (spindle.cs.veto.skip-apps). */
  final boolean skipApps;

  private CsRuntime(CapacityScheduler scheduler, RMContext rmContext, Configuration conf,
      String allocatorClass, String mode) {
    this.scheduler = scheduler;
    this.rmContext = rmContext;
    this.mode = mode;
    this.allocatorClass = allocatorClass;
    settings = CoreSetup.settings(conf);
    Core core = CoreSetup.factory.apply(settings);
    live = !(core instanceof CoreSetup.BrokenCore);
    bridge = new CoreBridge(core, "the CapacityScheduler places it with Spindle's locality delay");
    board = new PlacementBoard(settings.vetoHeartbeats, settings.core.maxWaitMs);
    splits = new SplitFiles(conf, settings, bridge);
    allocatorProblem = checkClass(allocatorClass);
    skipApps = settings.vetoSkipApps;
  }

  /**
   * Starts the runtime of {@code scheduler}; it becomes the one allocators
   * and ordering policies of this RM find.
   */
  static CsRuntime start(CapacityScheduler scheduler, RMContext rmContext, Configuration conf,
      String allocatorClass, String mode) {
    CsRuntime rt = new CsRuntime(scheduler, rmContext, conf, allocatorClass, mode);
    rt.registerBean();
    current = rt;
    LOG.info("Spindle placement inside the CapacityScheduler (" + mode + "): policy "
        + rt.settings.core.policy + ", job order " + rt.settings.core.jobOrder + ", core "
        + (rt.live ? "live" : "unavailable (the CapacityScheduler places, Spindle's locality delay)")
        + ", vetoes lift after " + rt.settings.vetoHeartbeats + " idle heartbeats or "
        + rt.settings.core.maxWaitMs + " ms");
    // The delays live in capacity-scheduler.xml: the CapacityScheduler's own
    // configuration (over yarn-site.xml), which the RM's conf does not hold.
    Configuration own = scheduler.getConfiguration();
    rt.warnAboutDelays(own != null ? own : conf);
    if (rt.allocatorProblem != null) {
      rt.warnOnce("class", "Spindle is configured but its allocator cannot be used: "
          + rt.allocatorProblem + "; the CapacityScheduler places every container with its own"
          + " allocator (no locality plan). Put spindle-yarn.jar on the RM's classpath.");
    }
    return rt;
  }

  /** The runtime of the RM whose context this is, if Spindle runs in it. */
  static CsRuntime of(RMContext rmContext) {
    CsRuntime rt = current;
    if (rt != null && rt.rmContext == rmContext && !rt.stopped) {
      return rt;
    }
    ResourceScheduler s = rmContext == null ? null : rmContext.getScheduler();
    if (s instanceof SpindleCapacityScheduler) {
      return ((SpindleCapacityScheduler) s).runtime();
    }
    if (s instanceof CapacityScheduler) {
      return polling((CapacityScheduler) s, rmContext);
    }
    return null;
  }

  /** The runtime allocators and ordering policies find (the latest started). */
  static CsRuntime current() {
    CsRuntime rt = current;
    return rt == null || rt.stopped ? null : rt;
  }

  /**
   * The stock CapacityScheduler with Spindle's allocator as the cluster's
   * (3.4's global key): a runtime that polls the nodes itself.
   */
  private static synchronized CsRuntime polling(CapacityScheduler s, RMContext rmContext) {
    CsRuntime rt = current;
    if (rt != null && rt.rmContext == rmContext && !rt.stopped) {
      return rt;
    }
    Configuration conf = rmContext.getYarnConfiguration() != null
        ? rmContext.getYarnConfiguration() : s.getConfig();
    rt = start(s, rmContext, conf, SpindlePlacementAllocator.class.getName(),
        "stock CapacityScheduler, " + GLOBAL_ALLOCATOR_KEY);
    rt.startPolling(conf.getLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS,
        YarnConfiguration.DEFAULT_RM_NM_HEARTBEAT_INTERVAL_MS));
    return rt;
  }

  private void startPolling(long intervalMs) {
    Set<String> known = new HashSet<>();
    Thread t = new Thread(() -> {
      while (!stopped) {
        if (scheduler.isInState(Service.STATE.STOPPED)) {
          stop();
          return;
        }
        try {
          poll(known);
          Thread.sleep(Math.max(10, intervalMs));
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          LOG.warn("spindle placement: polling the nodes failed: " + e, e);
        }
      }
    }, "spindle-placement-poller");
    t.setDaemon(true);
    poller = t;
    t.start();
  }

  /** One look at every node (and the apps that left), in polling mode. */
  private void poll(Set<String> known) {
    Set<String> seen = new HashSet<>();
    for (SchedulerNode n : scheduler.getNodeTracker().getAllNodes()) {
      String name = n.getNodeName();
      if (known.add(name)) {
        nodeAdded(n);
      }
      seen.add(name);
      nodeUpdate(n);
    }
    for (Iterator<String> i = known.iterator(); i.hasNext(); ) {
      String name = i.next();
      if (!seen.contains(name)) {
        i.remove();
        bridge.nodeRemoved(name);
        board.nodeRemoved(name);
      }
    }
    for (ApplicationAttemptId id : new ArrayList<>(appIds.keySet())) {
      SchedulerApplicationAttempt a = scheduler.getApplicationAttempt(id);
      if (a == null || a.isStopped() || !a.getApplicationAttemptId().equals(id)) {
        attemptRemoved(id);
      }
    }
  }

  void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    if (current == this) {
      current = null;
    }
    Thread t = poller;
    if (t != null && t != Thread.currentThread()) {
      t.interrupt();
    }
    splits.close();
    bridge.close();
    Beans.unregister(BEAN);
  }

  // ---- node events (SpindleCapacityScheduler.handle, or the poller) ----

  void nodeAdded(SchedulerNode n) {
    Resource total = n.getTotalResource();
    bridge.nodeAdded(n.getNodeName(), n.getRackName(), total.getMemorySize(),
        total.getVirtualCores());
    board.nodeAdded(n.getNodeName());
  }

  void nodeRemoved(String name) {
    bridge.nodeRemoved(name);
    board.nodeRemoved(name);
  }

  void nodeResourceUpdated(SchedulerNode n) {
    Resource total = n.getTotalResource();
    bridge.nodeResourceUpdated(n.getNodeName(), total.getMemorySize(), total.getVirtualCores());
  }

  /**
   * A node's heartbeat, before the CapacityScheduler allocates on it: the
   * veto bookkeeping and the core's new decision for it (one core call),
   * and the job order when it changed.
   */
  synchronized void nodeUpdate(SchedulerNode n) {
    long now = System.currentTimeMillis();
    String name = n.getNodeName();
    Resource free = n.getUnallocatedResource();
    boolean room = Resources.fitsIn(scheduler.getMinimumResourceCapability(), free);
    int count = live ? bridge.offers(name, free.getMemorySize(), free.getVirtualCores(),
        n.getNumContainers(), now, offerBuf) : -1;
    if (count < 0) {
      board.nodeRemoved(name); // undecided: Spindle's locality delay places there
    } else {
      board.heartbeat(name, room, now, offerBuf, count);
    }
    int[] r = live ? bridge.newRanks() : null;
    if (r != null) {
      ranks = r;
      rankVersion++;
    }
    if (now - checkedAt >= CHECK_MS) {
      checkedAt = now;
      checkAllocators();
    }
  }

  // ---- apps ----

  /** Puts Spindle's allocator in the attempt's scheduling environment, unless the app chose one. */
  void enableAllocator(ApplicationAttemptId id) {
    RMApp app = rmContext.getRMApps().get(id.getApplicationId());
    if (app == null) {
      return;
    }
    Map<String, String> env = app.getApplicationSchedulingEnvs();
    if (env != null) {
      env.putIfAbsent(ApplicationSchedulingConfig.ENV_APPLICATION_PLACEMENT_TYPE_CLASS,
          allocatorClass);
    }
  }

  /**
   * The core's id of the attempt, registering it at its first asks (its
   * weight from its priority or tag, its submission time, its split file):
   * -1 when the core does not hold it.
   */
  int app(ApplicationAttemptId id) {
    Integer known = appIds.get(id);
    if (known != null) {
      return known;
    }
    synchronized (appIds) {
      known = appIds.get(id);
      if (known != null) {
        return known;
      }
      RMApp app = rmContext.getRMApps().get(id.getApplicationId());
      int priority = app == null || app.getApplicationPriority() == null
          ? 0 : app.getApplicationPriority().getPriority();
      AppWeights.Weight w = AppWeights.of(id.getApplicationId().toString(), priority,
          app == null ? null : app.getApplicationTags());
      if (w.warning != null) {
        LOG.warn(w.warning);
      }
      long submit = app == null ? System.currentTimeMillis() : app.getSubmitTime();
      bridge.appAdded(id, w.value, submit);
      int coreId = bridge.appId(id);
      appIds.put(id, coreId);
      if (!w.fromTag) {
        priorities.put(id, priority);
      }
      if (coreId >= 0 && app != null) {
        splits.request(rmContext, id, app.getUser());
      }
      return coreId;
    }
  }

  void attemptRemoved(ApplicationAttemptId id) {
    priorities.remove(id);
    if (appIds.remove(id) != null) {
      bridge.appRemoved(id);
    }
  }

  /**
   * The attempt's YARN priority as the CapacityScheduler holds it (a leaf
   * re-adds an app to its ordering policy when its priority is updated): a
   * change reaches the core as the app's new weight, unless a
   * spindle.job.weight tag fixes it.
   */
  void priorityIs(ApplicationAttemptId id, int priority) {
    Integer last = priorities.get(id);
    if (last != null && last != priority && priorities.replace(id, last, priority)) {
      bridge.weightChanged(id, AppWeights.ofPriority(priority));
    }
  }

  /** The asks of one scheduler key reached Hadoop: they go to the core (absolute counts). */
  int asks(SpindlePlacementAllocator<?> a, Collection<ResourceRequest> requests) {
    ApplicationAttemptId id = a.attemptId();
    int coreId = app(id);
    if (coreId < 0) {
      return coreId;
    }
    List<CoreBridge.Ask> asks = new ArrayList<>(requests.size());
    for (ResourceRequest r : requests) {
      Resource c = r.getCapability();
      asks.add(new CoreBridge.Ask(a.priority(), r.getResourceName(),
          a.countAtPriority(r.getResourceName()), c.getMemorySize(), c.getVirtualCores(),
          r.getRelaxLocality()));
    }
    bridge.asks(id, asks);
    RMApp rmApp = rmContext.getRMApps().get(id.getApplicationId());
    RMAppAttempt attempt = rmApp == null ? null : rmApp.getCurrentAppAttempt();
    if (attempt != null && attempt.getAppAttemptId().equals(id)) {
      bridge.progress(id, attempt.getProgress(), System.currentTimeMillis());
    }
    return coreId;
  }

  /** A container of the attempt ended (from the ordering policy). */
  void released(ApplicationAttemptId id) {
    if (appIds.containsKey(id)) {
      bridge.released(id, System.currentTimeMillis());
    }
  }

  // ---- the allocators' calls (scheduling threads) ----

  /** Whether {@code a}'s key may take {@code node} now; no core call. */
  boolean allows(SpindlePlacementAllocator<?> a, SchedulerNode node) {
    prechecks.increment();
    if (!a.located()) {
      locationLessPasses.increment();
      return true;
    }
    Resource need = a.capability();
    boolean room = need != null && Resources.fitsIn(need, node.getUnallocatedResource());
    int app = a.coreApp();
    if (live && app >= 0) {
      int verdict = board.allows(node.getNodeName(), app, a.priority(), room);
      if (verdict >= 0) {
        return verdict > 0;
      }
    }
    // The core cannot decide for it: Spindle's own locality delay.
    boolean ok = a.delayAllows(node, settings.core.nodeLocalityDelay,
        settings.core.rackLocalityAdditionalDelay, scheduler.getNumClusterNodes());
    (ok ? delayPasses : delayVetoes).increment();
    return ok;
  }

  /**
   * A container placed for {@code a}'s key on {@code node} ({@code located}:
   * the key had host or rack asks): counted, and booked by the core.
   */
  void placed(SpindlePlacementAllocator<?> a, SchedulerNode node, NodeType type,
      boolean located) {
    int locality = type == NodeType.NODE_LOCAL ? SpindleCore.NODE_LOCAL
        : type == NodeType.RACK_LOCAL ? SpindleCore.RACK_LOCAL : SpindleCore.OFF_SWITCH;
    int app = a.coreApp();
    board.granted(node.getNodeName(), app, a.priority(), locality, located);
    if (live && app >= 0 && !bridge.placed(a.attemptId(), node.getNodeName(), a.priority(),
        locality, System.currentTimeMillis())) {
      unbooked.increment();
    }
  }

  /**
   * Multi-node placement: the nodes whose decision holds {@code a}'s key
   * first, in their serve order, then {@code base}'s order.
   */
  <N extends SchedulerNode> Iterator<N> preferred(SpindlePlacementAllocator<?> a,
      Collection<N> nodes, Iterator<N> base) {
    int app = a.coreApp();
    if (!live || app < 0 || !a.located()) {
      return base;
    }
    List<N> planned = null;
    List<Integer> at = null;
    for (N n : nodes) {
      int i = board.planned(n.getNodeName(), app, a.priority());
      if (i >= 0) {
        if (planned == null) {
          planned = new ArrayList<>();
          at = new ArrayList<>();
        }
        int k = 0;
        while (k < at.size() && at.get(k) <= i) {
          k++;
        }
        planned.add(k, n);
        at.add(k, i);
      }
    }
    if (planned == null) {
      return base;
    }
    preferredOrders.increment();
    Set<NodeId> first = new HashSet<>();
    for (N n : planned) {
      first.add(n.getNodeID());
    }
    List<N> order = new ArrayList<>(planned);
    while (base.hasNext()) {
      N n = base.next();
      if (!first.contains(n.getNodeID())) {
        order.add(n);
      }
    }
    return order.iterator();
  }

  // ---- skipping apps the node would only veto ----

  /**
   * The heartbeat of {@code node} allocates on this thread until the next
   * call ({@code null}: it ended). SpindleCapacityScheduler calls it around
   * a NODE_UPDATE when its candidate sets are single nodes.
   */
  static void pin(SchedulerNode node) {
    WALK.get().pinned = node;
  }

  /** A leaf's walk over its apps begins on this thread: its number. */
  static Walk beginWalk() {
    Walk w = WALK.get();
    w.walks++;
    w.seen = null;
    w.mixed = false;
    return w;
  }

  /** A precheck on this thread: within a walk, the node it is for. */
  static void seen(SchedulerNode node) {
    Walk w = WALK.get();
    if (w.seen == null) {
      w.seen = node;
    } else if (w.seen != node) {
      w.mixed = true;
    }
  }

  /**
   * Whether a leaf's walks may pass over apps here: switched on, and the
   * CapacityScheduler offers single nodes (with multi-node placement one
   * walk serves every node of a partition).
   */
  boolean skipsApps() {
    return skipApps && live && !scheduler.isMultiNodePlacementEnabled();
  }

  /**
   * Whether a leaf's walk on {@code node} may pass over {@code app}: the
   * old walk would get nothing from it but vetoes, and those would change
   * no veto state. Every scheduler key with pending asks is Spindle's,
   * located and held by the core, {@code node} has a decision that holds
   * none of them and vetoes that are not lifted, and the node is marked
   * vetoed in this heartbeat already or none of the keys' containers fits
   * on it (PlacementBoard#quietVeto). Counts and marks nothing.
   */
  boolean skips(SchedulerApplicationAttempt app, SchedulerNode node) {
    PlacementBoard.Node s = board.vetoing(node.getNodeName());
    if (s == null) {
      return false;
    }
    AppSchedulingInfo info = app.getAppSchedulingInfo();
    Resource free = null;
    for (SchedulerRequestKey k : info.getSchedulerKeys()) {
      AppPlacementAllocator<SchedulerNode> p = info.getAppPlacementAllocator(k);
      if (!(p instanceof SpindlePlacementAllocator)) {
        return false; // a SchedulingRequest's or another allocator's: it decides
      }
      SpindlePlacementAllocator<?> a = (SpindlePlacementAllocator<?>) p;
      if (a.runtime() != this) {
        return false;
      }
      boolean room = false;
      if (!s.vetoed) { // the first veto's room marks the node: only then it matters
        Resource need = a.capability();
        if (need != null) {
          if (free == null) {
            free = node.getUnallocatedResource();
          }
          room = Resources.fitsIn(need, free);
        }
      }
      if (!PlacementBoard.quietVeto(s, a.coreApp(), a.priority(), a.located(), room)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code app}'s leaf holds reserved containers (NO_LABEL, the ones
   * its max-capacity and user-limit checks weigh). A walk's outcome may then
   * hang on which apps it tries: under its max capacity the queue stops at
   * the first app without a reservation, while one with a reservation may
   * pass by unreserving. So with reservations a walk skips nothing.
   */
  static boolean leafReserves(SchedulerApplicationAttempt app) {
    Queue q = app.getQueue();
    if (!(q instanceof CSQueue)) {
      return true;
    }
    Resource r = ((CSQueue) q).getQueueResourceUsage().getReserved();
    return r == null || r.getMemorySize() != 0 || r.getVirtualCores() != 0;
  }

  // ---- the ordering policies' calls ----

  /** Changes whenever the job order does. */
  long rankVersion() {
    return rankVersion;
  }

  /** The attempt's place in the core's job order (0 first); MAX_VALUE if it has none. */
  int rank(ApplicationAttemptId id) {
    Integer coreId = appIds.get(id);
    int[] r = ranks;
    if (coreId == null || coreId < 0 || coreId >= r.length || r[coreId] < 0) {
      return Integer.MAX_VALUE;
    }
    return r[coreId];
  }

  // ---- no silent fallback ----

  /** Why {@code name} cannot be the apps' allocator, or null if it can. */
  private static String checkClass(String name) {
    try {
      Class<?> c = Class.forName(name);
      if (!AppPlacementAllocator.class.isAssignableFrom(c)) {
        return "class " + name + " is not an AppPlacementAllocator";
      }
      return null;
    } catch (ClassNotFoundException | LinkageError e) {
      return "class " + name + " cannot be loaded (" + e + ")";
    }
  }

  private void warnAboutDelays(Configuration conf) {
    int node = conf.getInt(NODE_DELAY_KEY, 40);
    int rack = conf.getInt(RACK_DELAY_KEY, -1);
    if (node != 0 || rack != 0) {
      warnOnce("delays", NODE_DELAY_KEY + " = " + node + " and " + RACK_DELAY_KEY + " = " + rack
          + ": the CapacityScheduler's own locality delay adds to Spindle's plan (set both to 0"
          + " in capacity-scheduler.xml; Spindle supplies the locality wait)");
    }
  }

  private void warnOnce(String key, String message) {
    if (warned.add(key)) {
      LOG.warn(message);
    }
  }

  /** Allocators of the live apps' keys: Spindle's, and others (not SchedulingRequests'). */
  synchronized int[] allocators() {
    int mine = 0;
    int other = 0;
    String example = null;
    for (SchedulerApplication<?> app : schedulerApps()) {
      SchedulerApplicationAttempt attempt = app.getCurrentAppAttempt();
      if (attempt == null || attempt.isStopped()) {
        continue;
      }
      for (SchedulerRequestKey key : attempt.getAppSchedulingInfo().getSchedulerKeys()) {
        AppPlacementAllocator<SchedulerNode> p =
            attempt.getAppSchedulingInfo().getAppPlacementAllocator(key);
        if (p == null || p.getSchedulingRequest() != null) {
          continue;
        }
        if (p instanceof SpindlePlacementAllocator) {
          mine++;
        } else {
          other++;
          if (example == null) {
            example = attempt.getApplicationId() + " places with " + p.getClass().getName();
          }
        }
      }
    }
    lastForeign = example;
    return new int[] {mine, other};
  }

  private String lastForeign;

  @SuppressWarnings("unchecked")
  private Collection<SchedulerApplication<?>> schedulerApps() {
    return (Collection<SchedulerApplication<?>>) (Collection<?>)
        ((AbstractYarnScheduler<?, ?>) scheduler).getSchedulerApplications().values();
  }

  /**
   * Logs a WARN naming the cause when apps place with another allocator
   * than Spindle's while Spindle is configured.
   */
  void checkAllocators() {
    int[] n = allocators();
    if (n[1] == 0) {
      return;
    }
    String cause = allocatorProblem != null ? allocatorProblem
        : "the app's scheduling environment names another "
            + ApplicationSchedulingConfig.ENV_APPLICATION_PLACEMENT_TYPE_CLASS;
    warnOnce("foreign:" + cause, "Spindle is configured (" + mode + ") but " + n[1]
        + " scheduler keys of live apps place without Spindle's allocator (" + n[0]
        + " with it), e.g. " + lastForeign + ": " + cause);
  }

  // ---- JMX and REST ----

  /** The counters, by name (the bean's attributes; REST /ws/v1/cluster/spindle). */
  public Map<String, Object> counters() {
    Map<String, Object> m = new LinkedHashMap<>();
    int[] alloc = allocators();
    m.put("Mode", mode);
    m.put("Policy", settings.core.policy);
    m.put("JobOrder", settings.core.jobOrder);
    m.put("CoreLive", live);
    m.put("LiveAllocators", alloc[0]);
    m.put("ForeignAllocators", alloc[1]);
    m.put("AllocatorProblem", allocatorProblem == null ? "" : allocatorProblem);
    m.put("Prechecks", prechecks.sum());
    m.put("PlanPasses", board.planPasses.sum());
    m.put("LocationLessPasses", locationLessPasses.sum());
    m.put("Vetoes", board.vetoes.sum());
    m.put("SkippedApps", board.skippedApps.sum());
    m.put("LiftedVetoes", board.lifts.sum());
    m.put("LiftedPasses", board.liftedPasses.sum());
    m.put("DelayPasses", delayPasses.sum());
    m.put("DelayVetoes", delayVetoes.sum());
    m.put("GrantsNodeLocal", board.grants[SpindleCore.NODE_LOCAL].sum());
    m.put("GrantsRackLocal", board.grants[SpindleCore.RACK_LOCAL].sum());
    m.put("GrantsOffSwitch", board.grants[SpindleCore.OFF_SWITCH].sum());
    m.put("GrantsOnPlan", board.grantsOnPlan.sum());
    m.put("GrantsOffPlan", board.grantsOffPlan.sum());
    m.put("GrantsLocationLess", board.grantsLocationLess.sum());
    m.put("UnbookedGrants", unbooked.sum());
    m.put("PreferredOrders", preferredOrders.sum());
    m.put("CoreErrors", bridge.coreErrors());
    m.put("Nodes", board.nodeCount());
    m.put("Applications", appIds.size());
    m.put("ExactInputApps", splits.exactInputs());
    m.put("SplitReadFailures", splits.failures());
    return m;
  }

  /** The counters of the runtime running in the RM of {@code rmContext}; null if none. */
  public static Map<String, Object> counters(RMContext rmContext) {
    CsRuntime rt = current();
    return rt != null && rt.rmContext == rmContext ? rt.counters() : null;
  }

  /** The JMX view of {@link #counters}. */
  public interface SpindlePlacementMXBean {
    Map<String, String> getCounters();

    long getLiveAllocators();

    long getForeignAllocators();

    long getVetoes();

    /** Apps leaves' walks passed over because the node would only have vetoed them. */
    long getSkippedApps();

    long getLiftedVetoes();

    long getGrantsNodeLocal();

    long getGrantsRackLocal();

    long getGrantsOffSwitch();

    long getCoreErrors();

    /** Apps whose split file was read and reached the core (SplitFiles). */
    long getExactInputApps();

    /** Split files that could not be read or used (each logged once per app). */
    long getSplitReadFailures();

    String getMode();
  }

  private void registerBean() {
    Beans.register(BEAN, new SpindlePlacementMXBean() {
      private long num(String k) {
        return ((Number) counters().get(k)).longValue();
      }

      @Override
      public Map<String, String> getCounters() {
        Map<String, String> m = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : counters().entrySet()) {
          m.put(e.getKey(), String.valueOf(e.getValue()));
        }
        return m;
      }

      @Override
      public long getLiveAllocators() {
        return num("LiveAllocators");
      }

      @Override
      public long getForeignAllocators() {
        return num("ForeignAllocators");
      }

      @Override
      public long getVetoes() {
        return num("Vetoes");
      }

      @Override
      public long getSkippedApps() {
        return num("SkippedApps");
      }

      @Override
      public long getExactInputApps() {
        return num("ExactInputApps");
      }

      @Override
      public long getSplitReadFailures() {
        return num("SplitReadFailures");
      }

      @Override
      public long getLiftedVetoes() {
        return num("LiftedVetoes");
      }

      @Override
      public long getGrantsNodeLocal() {
        return num("GrantsNodeLocal");
      }

      @Override
      public long getGrantsRackLocal() {
        return num("GrantsRackLocal");
      }

      @Override
      public long getGrantsOffSwitch() {
        return num("GrantsOffSwitch");
      }

      @Override
      public long getCoreErrors() {
        return num("CoreErrors");
      }

      @Override
      public String getMode() {
        return mode;
      }
    });
  }
}
