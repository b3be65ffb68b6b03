package org.spindle.yarn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.spindle.core.Core;
import org.spindle.core.SpindleCore;

/**
 * The adapter's view of the core, Hadoop-free: names to dense ids, every core
 * call guarded. A call that throws is logged and counted, and whatever it
 * concerned falls back to FIFO: a node the core does not know, an app whose
 * registration or asks were lost, or one heartbeat. So a core that throws on
 * every call leaves a FIFO cluster, never a stuck one.
 *
 * <p>Thread-safety: the RM calls node, app and heartbeat methods from its one
 * dispatcher thread and {@link #asks} from AM RPC threads; methods are
 * synchronized on this bridge (the core itself is thread-safe; this guards
 * the maps and the grant buffer).
 */
public final class CoreBridge implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CoreBridge.class);

  /** One ResourceRequest, Hadoop-free. */
  public static final class Ask {
    public final int priority;
    public final String resource;
    public final int count;
    public final long memoryMb;
    public final int vcores;
    public final boolean relaxLocality;

    public Ask(int priority, String resource, int count, long memoryMb, int vcores,
        boolean relaxLocality) {
      this.priority = priority;
      this.resource = resource;
      this.count = count;
      this.memoryMb = memoryMb;
      this.vcores = vcores;
      this.relaxLocality = relaxLocality;
    }
  }

  private final Core core;
  private final Map<String, Integer> nodes = new HashMap<>();
  /**
   * NodeManagers registered under each node name. Several NMs can share a
   * host name (a restarted NM whose old NodeId has not expired yet, or a mini
   * cluster); the core knows the host once, until the last of them leaves.
   */
  private final Map<String, Integer> nodeManagers = new HashMap<>();
  /** The capacity (MB) the core knows of each node, as last sent. */
  private final Map<String, Long> nodeMemory = new HashMap<>();
  private final Map<Object, Integer> apps = new HashMap<>();
  /**
   * Per app and priority, the count the core was last sent for each resource
   * name: a resync must also zero the names the RM has dropped.
   */
  private final Map<Object, Map<Integer, Map<String, Integer>>> sent = new HashMap<>();
  /** The progress last sent for each app. */
  private final Map<Object, Float> lastProgress = new HashMap<>();
  /** Core app id to the caller's app key. */
  private final List<Object> appKeys = new ArrayList<>();
  /** Apps the core lost track of: served by FIFO after the core's grants. */
  private final Set<Object> fifoApps = new HashSet<>();
  private int[] buf = new int[SpindleCore.GRANT_INTS * 64];
  /** The last heartbeat's grants with their app keys, handed out after the lock is released. */
  private int[] grants = new int[SpindleCore.GRANT_INTS * 64];
  private Object[] grantApps = new Object[64];
  private final AtomicLong fallbackHeartbeats = new AtomicLong();
  private final AtomicLong coreErrors = new AtomicLong();

  /** What serves whatever a failed call concerned, for the log. */
  private final String fallback;

  /** A bridge whose failed calls fall back to FIFO (the whole-scheduler mode). */
  public CoreBridge(Core core) {
    this(core, "FIFO serves it");
  }

  /** A bridge whose failed calls are served by {@code fallback} (said in the log). */
  public CoreBridge(Core core, String fallback) {
    this.core = core;
    this.fallback = fallback;
  }

  /** Heartbeats (wholly or partly) allocated by the FIFO fallback. */
  public long fallbackHeartbeats() {
    return fallbackHeartbeats.get();
  }

  /**
   * The core's record of idle heartbeats (JSON), about {@code app} on {@code host} when not
   * null. Throws IllegalArgumentException naming an app or host the core does not know; any
   * other failure counts as a core error and is rethrown.
   */
  public String activities(String app, String host) {
    try {
      return core.activities(app, host);
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException | LinkageError e) {
      failed("activities", e, "no activities served");
      throw new IllegalStateException("spindle core failed: " + e, e);
    }
  }

  /** Idle heartbeats by reason ({@link SpindleCore#REASONS} order); empty if the core failed. */
  public long[] reasonCounts() {
    try {
      return core.reasonCounts();
    } catch (RuntimeException | LinkageError e) {
      failed("reason counts", e, "no counts read");
      return new long[0];
    }
  }

  /** Core calls that threw. */
  public long coreErrors() {
    return coreErrors.get();
  }

  /**
   * Logs and counts a failed core call. LinkageError too: a stale native
   * library links its methods lazily, so a missing one fails on first use,
   * and an Error thrown out of the RM's dispatcher stops the RM.
   */
  private void failed(String what, Throwable e) {
    failed(what, e, fallback);
  }

  /** {@link #failed(String, Throwable)}, saying what follows from it. */
  private void failed(String what, Throwable e, String consequence) {
    long n = coreErrors.incrementAndGet();
    // A core that fails on every call must not flood the RM log.
    if (n <= 10) {
      LOG.error("spindle core failed on " + what + "; " + consequence + ": " + e, e);
    } else if (n % 1000 == 0) {
      LOG.error(n + " spindle core failures so far; latest, on " + what + ": " + e);
    }
  }

  public synchronized void nodeAdded(String name, String rack, long memoryMb, int vcores) {
    if (nodeManagers.merge(name, 1, Integer::sum) > 1) {
      LOG.info("another NodeManager on " + name + "; the core keeps one node for the host");
      return;
    }
    try {
      nodes.put(name, core.addNode(name, rack, memoryMb, vcores, 1.0));
      nodeMemory.put(name, memoryMb);
    } catch (RuntimeException | LinkageError e) {
      failed("adding node " + name, e);
    }
  }

  public synchronized void nodeRemoved(String name) {
    Integer left = nodeManagers.computeIfPresent(name, (k, n) -> n > 1 ? n - 1 : null);
    if (left != null) {
      return; // another NodeManager still runs on this host
    }
    Integer id = nodes.remove(name);
    nodeMemory.remove(name);
    if (id == null) {
      return;
    }
    try {
      core.removeNode(id);
    } catch (RuntimeException | LinkageError e) {
      failed("removing node " + name, e);
    }
  }

  /** Registers an app attempt; {@code key} identifies it in grants. */
  public synchronized void appAdded(Object key, long submitMs) {
    appAdded(key, 1.0, submitMs);
  }

  /** Registers an app attempt of weight {@code weight} (see {@link AppWeights}). */
  public synchronized void appAdded(Object key, double weight, long submitMs) {
    try {
      int id = core.addApp(key.toString(), weight, submitMs);
      apps.put(key, id);
      while (appKeys.size() <= id) {
        appKeys.add(null);
      }
      appKeys.set(id, key);
    } catch (RuntimeException | LinkageError e) {
      failed("adding app " + key, e);
      fifoApps.add(key);
    }
  }

  /**
   * The app's weight changed (its priority was updated). A refusal is logged
   * and the app keeps its old weight: the order is off, nothing is lost.
   */
  public synchronized void weightChanged(Object key, double weight) {
    Integer id = apps.get(key);
    if (id == null) {
      return;
    }
    try {
      core.setAppWeight(id, weight);
    } catch (RuntimeException | LinkageError e) {
      failed("the weight " + weight + " of app " + key, e, "it keeps its previous weight");
    }
  }

  /**
   * The app's AM reported {@code progress} at allocate; sent only when it
   * changed, since AMs heartbeat every second. A refusal is logged; the
   * app stays the core's.
   */
  public synchronized void progress(Object key, float progress, long nowMs) {
    Integer id = apps.get(key);
    if (id == null) {
      return;
    }
    Float last = lastProgress.put(key, progress);
    if (last != null && last.floatValue() == progress) {
      return;
    }
    try {
      core.appProgress(id, progress, nowMs);
    } catch (RuntimeException | LinkageError e) {
      failed("the progress " + progress + " of app " + key, e, "its last progress stands");
    }
  }

  public synchronized void appRemoved(Object key) {
    fifoApps.remove(key);
    sent.remove(key);
    lastProgress.remove(key);
    Integer id = apps.remove(key);
    if (id == null) {
      return;
    }
    appKeys.set(id, null);
    try {
      core.finishApp(id);
    } catch (RuntimeException | LinkageError e) {
      failed("finishing app " + key, e);
    }
  }

  /** Forwards an AM's asks (absolute counts, as YARN keeps them). */
  public synchronized void asks(Object key, List<Ask> asks) {
    Integer id = apps.get(key);
    if (id == null) {
      return; // unknown to the core: FIFO reads the asks from the attempt itself
    }
    for (Ask a : asks) {
      if (!send(key, id, a.priority, a.resource, a.count, a)) {
        return;
      }
    }
  }

  /**
   * Puts the core's asks of {@code key} at {@code priority} in step with
   * {@code asks}, the RM's outstanding requests at that priority (several
   * entries for one resource name are summed: several scheduler keys can
   * share a priority). Names the core holds that are missing go to 0.
   */
  public synchronized void resync(Object key, int priority, List<Ask> asks) {
    Integer id = apps.get(key);
    if (id == null) {
      return;
    }
    Map<String, Integer> total = new HashMap<>();
    Map<String, Ask> shape = new HashMap<>();
    for (Ask a : asks) {
      total.merge(a.resource, a.count, Integer::sum);
      shape.putIfAbsent(a.resource, a);
    }
    Map<String, Integer> held = sent.getOrDefault(key, Collections.emptyMap())
        .getOrDefault(priority, Collections.emptyMap());
    for (String name : new ArrayList<>(held.keySet())) {
      if (!total.containsKey(name) && !send(key, id, priority, name, 0, null)) {
        return;
      }
    }
    for (Map.Entry<String, Integer> e : total.entrySet()) {
      if (!send(key, id, priority, e.getKey(), e.getValue(), shape.get(e.getKey()))) {
        return;
      }
    }
  }

  /**
   * One ask to the core ({@code shape} gives capability and relaxLocality; a
   * zero count may go without); remembers it. On failure the app leaves the
   * core and FIFO alone serves it; returns false then.
   */
  private boolean send(Object key, int id, int priority, String resource, int count, Ask shape) {
    long mb = shape == null ? 0 : shape.memoryMb;
    int vcores = shape == null ? 0 : shape.vcores;
    boolean relax = shape == null || shape.relaxLocality;
    try {
      core.updateAsk(id, priority, resource, count, mb, vcores, relax);
    } catch (RuntimeException | LinkageError e) {
      failed("asks of app " + key + " (priority " + priority + ", resource " + resource
          + ", count " + count + ")", e);
      // The core's view of this app is now wrong: take it out of the core so
      // that FIFO alone serves it, rather than both.
      fifoApps.add(key);
      apps.remove(key);
      sent.remove(key);
      lastProgress.remove(key);
      appKeys.set(id, null);
      try {
        core.finishApp(id);
      } catch (RuntimeException | LinkageError again) {
        failed("dropping app " + key, again);
      }
      return false;
    }
    Map<String, Integer> m = sent.computeIfAbsent(key, k -> new HashMap<>())
        .computeIfAbsent(priority, k -> new HashMap<>());
    if (count == 0) {
      m.remove(resource);
    } else {
      m.put(resource, count);
    }
    return true;
  }

  /**
   * The exact input of {@code key} at {@code priority} (see {@link Core#inputBlocks}). False
   * when the app is not the core's (any more) or the core refused (logged).
   */
  public synchronized boolean inputBlocks(Object key, int priority, String[] tasks) {
    Integer id = apps.get(key);
    if (id == null) {
      return false;
    }
    try {
      core.inputBlocks(id, priority, tasks);
      return true;
    } catch (RuntimeException | LinkageError e) {
      // Not a core failure: the app is planned from its asks, as without the file.
      LOG.warn("the core refused the exact input of " + key + " (" + tasks.length + " splits): "
          + e + "; planned from its asks");
      return false;
    }
  }

  /** A node's total resource changed. */
  public synchronized void nodeResourceUpdated(String name, long memoryMb, int vcores) {
    Integer id = nodes.get(name);
    if (id == null) {
      return;
    }
    try {
      core.updateNode(id, memoryMb, vcores);
      nodeMemory.put(name, memoryMb);
    } catch (RuntimeException | LinkageError e) {
      failed("updating node " + name + " to " + memoryMb + " MB, " + vcores + " vcores", e);
    }
  }

  public synchronized void containerFinished(String node, Object appKey) {
    Integer id = nodes.get(node);
    if (id == null) {
      return;
    }
    Integer app = apps.get(appKey);
    try {
      if (app != null) {
        core.containerFinished(id, app);
      } else {
        core.containerFinished(id);
      }
    } catch (RuntimeException | LinkageError e) {
      failed("a finished container on node " + node, e);
    }
  }

  /**
   * A running container of {@code appKey} on {@code node}, recovered after an RM restart: the
   * core counts it as granted. False when the core does not know the node or the app (then
   * its end must not be reported either) or refused (logged).
   */
  public synchronized boolean containerRecovered(String node, Object appKey) {
    Integer id = nodes.get(node);
    Integer app = apps.get(appKey);
    if (id == null || app == null) {
      return false;
    }
    try {
      core.containerRecovered(id, app);
      return true;
    } catch (RuntimeException | LinkageError e) {
      failed("a recovered container of " + appKey + " on node " + node, e,
          "the core does not count it");
      return false;
    }
  }

  /** The memory the core was last told {@code node} has; -1 if it does not know the node. */
  public synchronized long nodeMemory(String node) {
    Long mb = nodeMemory.get(node);
    return mb == null ? -1 : mb;
  }

  /** Whether FIFO must serve {@code app} (the core lost it). */
  public synchronized boolean isFifoApp(Object key) {
    return fifoApps.contains(key);
  }

  /** Whether any app is served by FIFO. */
  public synchronized boolean hasFifoApps() {
    return !fifoApps.isEmpty();
  }

  /**
   * Asks the core what {@code node} runs next and hands each grant to
   * {@code sink}. Returns false when the core could not decide (unknown node,
   * or the core threw): the caller then runs the FIFO fallback for this
   * heartbeat. One heartbeat at a time (the RM's dispatcher thread); the sink
   * is called after this bridge's lock is released, because it takes app
   * locks, which {@link #asks} holds while taking this one.
   */
  public boolean heartbeat(String node, long freeMemoryMb, int freeVcores, long nowMs,
      GrantSink sink) {
    int n = decide(node, freeMemoryMb, freeVcores, nowMs);
    if (n < 0) {
      return false;
    }
    for (int g = 0; g < n; g++) {
      int o = g * SpindleCore.GRANT_INTS;
      sink.grant(grantApps[g], grants[o + 1], grants[o + 2], grants[o + 3]);
      grantApps[g] = null;
    }
    return true;
  }

  /** The core's grants for a heartbeat into {@link #grants} / {@link #grantApps}; -1 to fall back. */
  private synchronized int decide(String node, long freeMemoryMb, int freeVcores, long nowMs) {
    Integer id = nodes.get(node);
    if (id == null) {
      fallbackHeartbeats.incrementAndGet();
      return -1;
    }
    int n;
    try {
      n = core.heartbeat(id, freeMemoryMb, freeVcores, nowMs, buf);
      int fitted = buf.length / SpindleCore.GRANT_INTS;
      if (n > fitted) {
        // A rare big heartbeat: grow the buffer once and fetch the rest.
        int[] rest = new int[(n - fitted) * SpindleCore.GRANT_INTS];
        int got = core.drain(rest);
        if (got != n - fitted) {
          throw new IllegalStateException(
              "drain returned " + got + " grants, expected " + (n - fitted));
        }
        int[] grown = new int[n * SpindleCore.GRANT_INTS];
        System.arraycopy(buf, 0, grown, 0, buf.length);
        System.arraycopy(rest, 0, grown, buf.length, rest.length);
        buf = grown;
      }
    } catch (RuntimeException | LinkageError e) {
      failed("the heartbeat of node " + node, e);
      fallbackHeartbeats.incrementAndGet();
      return -1;
    }
    if (grants.length < buf.length) {
      grants = new int[buf.length];
      grantApps = new Object[buf.length / SpindleCore.GRANT_INTS];
    }
    int kept = 0;
    for (int g = 0; g < n; g++) {
      int o = g * SpindleCore.GRANT_INTS;
      int app = buf[o];
      Object key = app >= 0 && app < appKeys.size() ? appKeys.get(app) : null;
      if (key == null) {
        LOG.warn("spindle core granted to unknown app id " + app + " on node " + node);
        continue;
      }
      System.arraycopy(buf, o, grants, kept * SpindleCore.GRANT_INTS, SpindleCore.GRANT_INTS);
      grantApps[kept++] = key;
    }
    if (!fifoApps.isEmpty()) {
      fallbackHeartbeats.incrementAndGet();
    }
    return kept;
  }

  /** The core's id of app {@code key}; -1 when the core does not hold it. */
  public synchronized int appId(Object key) {
    Integer id = apps.get(key);
    return id == null ? -1 : id;
  }

  /** The caller's key of core app id {@code id}; null if none. */
  public synchronized Object appKey(int id) {
    return id >= 0 && id < appKeys.size() ? appKeys.get(id) : null;
  }

  /**
   * A node's decision for a host that places containers itself (see
   * {@link Core#nodeOffers}), into {@code out}; returns how many offers the
   * core made, or -1 when it could not decide (unknown node, the core
   * threw: logged and counted).
   */
  public synchronized int offers(String node, long freeMemoryMb, int freeVcores, int running,
      long nowMs, int[] out) {
    Integer id = nodes.get(node);
    if (id == null) {
      return -1;
    }
    try {
      return core.nodeOffers(id, freeMemoryMb, freeVcores, running, nowMs, out);
    } catch (RuntimeException | LinkageError e) {
      failed("the decision of node " + node, e, "its placement is the CapacityScheduler's");
      return -1;
    }
  }

  /**
   * A container the host placed for {@code key} on {@code node}: the core
   * books it. False when it was not booked (app or node not the core's,
   * no asks at that priority, or the core threw: logged and counted).
   */
  public synchronized boolean placed(Object key, String node, int priority, int locality,
      long nowMs) {
    Integer id = apps.get(key);
    Integer n = nodes.get(node);
    if (id == null || n == null) {
      return false;
    }
    try {
      return core.bookPlaced(n, id, priority, locality, nowMs);
    } catch (RuntimeException | LinkageError e) {
      failed("booking a container of " + key + " on " + node, e,
          "the core's view of it is corrected by the app's next asks");
      return false;
    }
  }

  /** A container the host placed for {@code key} ended. */
  public synchronized void released(Object key, long nowMs) {
    Integer id = apps.get(key);
    if (id == null) {
      return;
    }
    try {
      core.placedReleased(id, nowMs);
    } catch (RuntimeException | LinkageError e) {
      failed("a released container of " + key, e, "its job-order usage stays higher");
    }
  }

  /** The signature of the job order last handed out by {@link #newRanks}. */
  private long rankSignature = Long.MIN_VALUE;

  /**
   * The core's job order if it changed since the last call (a new array:
   * the rank of each core app id, -1 finished), else null; null too when
   * the core threw (logged and counted).
   */
  public synchronized int[] newRanks() {
    long sig;
    try {
      sig = core.orderSignature();
    } catch (RuntimeException | LinkageError e) {
      failed("the job order's signature", e, "the last job order stands");
      return null;
    }
    if (sig == rankSignature) {
      return null;
    }
    int[] r = ranks();
    if (r != null) {
      rankSignature = sig;
    }
    return r;
  }

  private int[] rankBuf = new int[64];

  /**
   * The core's job order: a new array of the rank of each core app id (-1
   * finished); null when the core threw (logged and counted).
   */
  private synchronized int[] ranks() {
    try {
      int n = core.appRanks(rankBuf);
      if (n > rankBuf.length) {
        rankBuf = new int[Math.max(n, rankBuf.length * 2)];
        n = core.appRanks(rankBuf);
      }
      return java.util.Arrays.copyOf(rankBuf, Math.min(n, rankBuf.length));
    } catch (RuntimeException | LinkageError e) {
      failed("the job order", e, "the last job order stands");
      return null;
    }
  }

  @Override
  public synchronized void close() {
    try {
      core.close();
    } catch (RuntimeException | LinkageError e) {
      failed("close", e);
    }
  }
}
