package org.spindle.core;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The Spindle scheduling core (a Rust Session behind JNI), in plain Java: no
 * Hadoop types. One method per Session event. Thread-safe: events may come
 * from the RM's dispatcher thread and allocate() from AM RPC threads; the
 * core serialises them. Errors come back as IllegalArgumentException (bad
 * input: unknown node, negative count, ...) or IllegalStateException (closed
 * core, internal fault), with the core's message; the state is intact after
 * either.
 */
public final class SpindleCore implements Core {
  /** Locality codes in grant buffers. */
  public static final int NODE_LOCAL = 0;
  public static final int RACK_LOCAL = 1;
  public static final int OFF_SWITCH = 2;
  /** Ints per grant in a grant buffer: app, priority, count, locality. */
  public static final int GRANT_INTS = 4;

  /**
   * The reasons an idle heartbeat records, in the order of {@link #reasonCounts}: no app asks,
   * the plan put no work on the node, an app waits for locality, the job order put another app
   * first, no ask fits the node's free resources.
   */
  public static final String[] REASONS =
      {"no-ask", "no-planned-work", "locality-wait", "job-order", "no-room"};

  /** Policy and cost model of a core. */
  public static final class Config {
    public String policy = "asm1";
    public double costLocal = 1.0;
    public double costRemote = 3.0;
    public double remoteGrowth = 0.0;
    public long seed = 1;
    public int nodeLocalityDelay = 40;
    public int rackLocalityAdditionalDelay = -1;
    /**
     * Plan on a thread owned by the core (heartbeats never wait for a plan). False: plan on the
     * first heartbeat after a change, deterministically (replay tests).
     */
    public boolean backgroundPlanning = true;
    /**
     * Under asm1, queue a new job's tasks between full plans, each by an augmenting path from its
     * replica holders (a few per heartbeat); false (the default: it costs heartbeat time under
     * churn for little locality): new work waits for the next plan.
     */
    public boolean incrementalPlanning = false;
    /** Largest count of one host ask; above it the ask is refused (the Session's max-host-ask). */
    public int maxHostAsk = 1_000_000;
    /** Most tasks synthesised from host asks for the planner; the rest stay counts. */
    public long maxPlannedTasks = 4_000_000;
    /**
     * Locality-wait cap in ms: under a local-only policy, maps with no container for this long
     * take a rack-local or off-switch slot before reducers do; negative: wait for ever.
     */
    public long maxWaitMs = 3_000;
    /**
     * Most off-switch containers one node heartbeat grants, then the heartbeat ends (the
     * CapacityScheduler's per-node-heartbeat.maximum-offswitch-assignments, default 1).
     */
    public int maxOffSwitchPerHeartbeat = 1;
    /**
     * Order of applications under planned policies: fifo, weighted-remaining (pending containers
     * over weight), spc (S-PC's LP order) or an S-PC baseline's order (spc-identical,
     * spc-map-only, huwf, tetris); see {@code spindle.job.order}.
     */
    public String jobOrder = "weighted-remaining";
  }

  private static volatile boolean loaded;

  /**
   * Loads the native library: from the system property {@code spindle.library.path}
   * (a file) when set, else {@code libspindle_jni.so} from {@code java.library.path}.
   */
  public static synchronized void load(String path) {
    if (loaded) {
      return;
    }
    if (path != null && !path.isEmpty()) {
      System.load(path);
    } else {
      System.loadLibrary("spindle_jni");
    }
    loaded = true;
  }

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private long handle;

  public SpindleCore(Config config) {
    load(System.getProperty("spindle.library.path"));
    handle = nativeCreate(config.policy, config.costLocal, config.costRemote, config.remoteGrowth,
        config.seed, config.nodeLocalityDelay, config.rackLocalityAdditionalDelay,
        config.backgroundPlanning);
    try {
      nativeSetLimits(handle, config.maxHostAsk, config.maxPlannedTasks);
      nativeSetLocalityWait(handle, config.maxWaitMs);
      nativeSetOffSwitchLimit(handle, config.maxOffSwitchPerHeartbeat);
      nativeSetJobOrder(handle, config.jobOrder);
      nativeSetIncremental(handle, config.incrementalPlanning);
    } catch (RuntimeException e) {
      nativeDestroy(handle);
      handle = 0;
      throw e;
    }
  }

  private long open() {
    if (handle == 0) {
      throw new IllegalStateException("the spindle core is closed");
    }
    return handle;
  }

  @Override
  public int addNode(String host, String rack, long memoryMb, int vcores, double speed) {
    lock.readLock().lock();
    try {
      return nativeAddNode(open(), host, rack, memoryMb, vcores, speed);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void removeNode(int node) {
    lock.readLock().lock();
    try {
      nativeRemoveNode(open(), node);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void updateNode(int node, long memoryMb, int vcores) {
    lock.readLock().lock();
    try {
      nativeUpdateNode(open(), node, memoryMb, vcores);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public int addApp(String appId, double weight, long submitMs) {
    lock.readLock().lock();
    try {
      return nativeAddApp(open(), appId, weight, submitMs);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void finishApp(int app) {
    lock.readLock().lock();
    try {
      nativeFinishApp(open(), app);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Bad weight (not positive and finite): IllegalArgumentException naming the app. */
  @Override
  public void setAppWeight(int app, double weight) {
    lock.readLock().lock();
    try {
      nativeSetAppWeight(open(), app, weight);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Bad progress (not finite, outside 0..1) or time: IllegalArgumentException naming the app. */
  @Override
  public void appProgress(int app, float progress, long nowMs) {
    lock.readLock().lock();
    try {
      nativeAppProgress(open(), app, progress, nowMs);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** One ResourceRequest: an absolute count at a host, a rack or "*". */
  @Override
  public void updateAsk(int app, int priority, String resource, int count, long memoryMb, int vcores,
      boolean relaxLocality) {
    lock.readLock().lock();
    try {
      nativeUpdateAsk(open(), app, priority, resource, count, memoryMb, vcores, relaxLocality);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void inputBlocks(int app, int priority, String[] tasks) {
    lock.readLock().lock();
    try {
      nativeInputBlocks(open(), app, priority, tasks);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void containerFinished(int node) {
    lock.readLock().lock();
    try {
      nativeContainerFinished(open(), node);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void containerFinished(int node, int app) {
    lock.readLock().lock();
    try {
      nativeAppContainerFinished(open(), node, app);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void containerRecovered(int node, int app) {
    lock.readLock().lock();
    try {
      nativeContainerRecovered(open(), node, app);
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * A node heartbeat: writes grants into {@code out} ({@link #GRANT_INTS} ints
   * each) and returns how many the core decided. If that is more than
   * {@code out.length / GRANT_INTS}, fetch the rest with {@link #drain}.
   */
  @Override
  public int heartbeat(int node, long freeMemoryMb, int freeVcores, long nowMs, int[] out) {
    lock.readLock().lock();
    try {
      return nativeHeartbeat(open(), node, freeMemoryMb, freeVcores, nowMs, out);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public int nodeOffers(int node, long freeMemoryMb, int freeVcores, int running, long nowMs,
      int[] out) {
    lock.readLock().lock();
    try {
      return nativeNodeOffers(open(), node, freeMemoryMb, freeVcores, running, nowMs, out);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public boolean bookPlaced(int node, int app, int priority, int locality, long nowMs) {
    lock.readLock().lock();
    try {
      return nativeBookPlaced(open(), node, app, priority, locality, nowMs);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void placedReleased(int app, long nowMs) {
    lock.readLock().lock();
    try {
      nativePlacedReleased(open(), app, nowMs);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public long orderSignature() {
    lock.readLock().lock();
    try {
      return nativeOrderSignature(open());
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public int appRanks(int[] out) {
    lock.readLock().lock();
    try {
      return nativeAppRanks(open(), out);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The grants of the last heartbeat that did not fit its buffer; returns how many were written. */
  @Override
  public int drain(int[] out) {
    lock.readLock().lock();
    try {
      return nativeDrain(open(), out);
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * The planner thread's figures: plans installed, tasks of the last plan, its time in ms, the
   * longest plan in ms, the longest time it held the core's lock in us (then the longest copy of
   * the inputs and the longest install, in us). Empty without background planning.
   */
  public double[] planStats() {
    lock.readLock().lock();
    try {
      double[] out = new double[7];
      int n = nativePlanStats(open(), out);
      return java.util.Arrays.copyOf(out, n);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public String activities(String app, String host) {
    lock.readLock().lock();
    try {
      return nativeActivities(open(), app, host);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public long[] reasonCounts() {
    lock.readLock().lock();
    try {
      long[] out = new long[REASONS.length];
      int n = nativeReasonCounts(open(), out);
      return java.util.Arrays.copyOf(out, n);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Makes the core panic internally (tests of the failure path only). */
  public void panicForTest() {
    lock.readLock().lock();
    try {
      nativePanicForTest(open());
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void close() {
    lock.writeLock().lock();
    try {
      if (handle != 0) {
        nativeDestroy(handle);
        handle = 0;
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  private static native long nativeCreate(String policy, double costLocal, double costRemote,
      double remoteGrowth, long seed, int nodeLocalityDelay, int rackLocalityAdditionalDelay,
      boolean backgroundPlanning);

  private static native int nativePlanStats(long handle, double[] out);

  private static native void nativeSetLimits(long handle, int maxHostAsk, long maxPlannedTasks);

  private static native void nativeSetLocalityWait(long handle, long maxWaitMs);

  private static native void nativeSetOffSwitchLimit(long handle, int limit);

  private static native void nativeSetJobOrder(long handle, String order);

  private static native void nativeSetIncremental(long handle, boolean on);

  private static native void nativeDestroy(long handle);

  private static native int nativeAddNode(long handle, String host, String rack, long memoryMb,
      int vcores, double speed);

  private static native void nativeRemoveNode(long handle, int node);

  private static native void nativeUpdateNode(long handle, int node, long memoryMb, int vcores);

  private static native int nativeAddApp(long handle, String app, double weight, long submitMs);

  private static native void nativeFinishApp(long handle, int app);

  private static native void nativeSetAppWeight(long handle, int app, double weight);

  private static native void nativeAppProgress(long handle, int app, float progress, long nowMs);

  private static native void nativeUpdateAsk(long handle, int app, int priority, String resource,
      int count, long memoryMb, int vcores, boolean relaxLocality);

  private static native void nativeInputBlocks(long handle, int app, int priority, String[] tasks);

  private static native void nativeContainerFinished(long handle, int node);

  private static native void nativeAppContainerFinished(long handle, int node, int app);

  private static native void nativeContainerRecovered(long handle, int node, int app);

  private static native int nativeHeartbeat(long handle, int node, long freeMemoryMb, int freeVcores,
      long nowMs, int[] out);

  private static native int nativeDrain(long handle, int[] out);

  private static native int nativeNodeOffers(long handle, int node, long freeMemoryMb,
      int freeVcores, int running, long nowMs, int[] out);

  private static native boolean nativeBookPlaced(long handle, int node, int app, int priority,
      int locality, long nowMs);

  private static native void nativePlacedReleased(long handle, int app, long nowMs);

  private static native long nativeOrderSignature(long handle);

  private static native int nativeAppRanks(long handle, int[] out);

  private static native void nativePanicForTest(long handle);
  private static native String nativeActivities(long handle, String app, String host);

  private static native int nativeReasonCounts(long handle, long[] out);
}
