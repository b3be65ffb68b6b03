package org.spindle.yarn;

import java.util.Locale;
import java.util.function.Function;
import org.spindle.core.SpindleCore;

/**
 * The {@code spindle.*} keys the RM plugin reads, validated. Hadoop-free: the
 * scheduler passes {@code Configuration::get}, tests pass a map. Every error
 * names the key and the bad value.
 */
public final class SpindleSettings {
  public static final String POLICY = "spindle.policy";
  public static final String COST_LOCAL = "spindle.cost.local";
  public static final String COST_REMOTE = "spindle.cost.remote";
  public static final String COST_REMOTE_GROWTH = "spindle.cost.remote-growth";
  public static final String NODE_DELAY = "spindle.locality.node-delay";
  public static final String RACK_ADDITIONAL_DELAY = "spindle.locality.rack-additional-delay";
  public static final String FALLBACK = "spindle.fallback";
  public static final String WEBHDFS_ADDRESS = "spindle.webhdfs.address";
  public static final String LIBRARY_PATH = "spindle.library.path";
  public static final String SEED = "spindle.seed";
  public static final String PLANNING_BACKGROUND = "spindle.planning.background";
  public static final String PLANNING_INCREMENTAL = "spindle.planning.incremental";
  public static final String MAX_HOST_ASK = "spindle.limits.max-host-ask";
  public static final String MAX_PLANNED_TASKS = "spindle.limits.max-planned-tasks";
  public static final String MAX_WAIT = "spindle.locality.max-wait-ms";
  public static final String MAX_OFFSWITCH =
      "spindle.per-node-heartbeat.maximum-offswitch-assignments";
  public static final String JOB_ORDER = "spindle.job.order";
  /** CapacityScheduler mode: heartbeats a node may idle under vetoes before they lift. */
  public static final String VETO_HEARTBEATS = "spindle.cs.veto.max-heartbeats";
  /** CapacityScheduler mode: a leaf's walk passes over the apps the node would only veto. */
  public static final String VETO_SKIP_APPS = "spindle.cs.veto.skip-apps";
  /** Whole-scheduler mode: the AMs' share of the cluster (the CapacityScheduler has its own). */
  public static final String AM_MAX_SHARE = "spindle.am.max-share";
  /**
   * Whole-scheduler mode: admit the next AM only while the admitted apps progress (none
   * waits for its first task container, fewer AMs than racks still start).
   */
  public static final String AM_ADMIT_ON_PROGRESS = "spindle.am.admit-on-progress";
  /** How long one starting AM or one starved app may hold back the next AM, in ms. */
  public static final String AM_PROGRESS_WAIT = "spindle.am.progress-wait-ms";
  /** Whether the RM reads MapReduce jobs' split files (as each job's user). */
  public static final String SPLITS_READ = "spindle.splits.read";
  /** Threads reading split files. */
  public static final String SPLITS_THREADS = "spindle.splits.threads";
  /** A split-file read is interrupted after this many milliseconds. */
  public static final String SPLITS_TIMEOUT = "spindle.splits.timeout-ms";
  /** Every key above, for documentation checks. */
  public static final String[] KEYS = {POLICY, COST_LOCAL, COST_REMOTE, COST_REMOTE_GROWTH,
      NODE_DELAY, RACK_ADDITIONAL_DELAY, FALLBACK, WEBHDFS_ADDRESS, LIBRARY_PATH, SEED,
      PLANNING_BACKGROUND, PLANNING_INCREMENTAL, MAX_HOST_ASK, MAX_PLANNED_TASKS, MAX_WAIT,
      MAX_OFFSWITCH, JOB_ORDER, VETO_HEARTBEATS, VETO_SKIP_APPS, AM_MAX_SHARE, AM_ADMIT_ON_PROGRESS, AM_PROGRESS_WAIT, SPLITS_READ, SPLITS_THREADS, SPLITS_TIMEOUT};
  /** The optional extra resource the scheduler adds to the RM's configuration. */
  public static final String SITE_FILE = "spindle-site.xml";

  /** What a heartbeat does when the core throws. */
  public enum Fallback {
    /** Allocate that heartbeat as FifoScheduler would. */
    FIFO,
    /** Allocate nothing on that heartbeat (for experiments; a broken core then idles the cluster). */
    NONE
  }

  public final SpindleCore.Config core = new SpindleCore.Config();
  public Fallback fallback = Fallback.FIFO;
  /** NameNode HTTP address for `spindle plan --webhdfs`; the RM does not use it. */
  public String webhdfsAddress = "";
  /** Absolute path of libspindle_jni.so; empty means java.library.path. */
  public String libraryPath = "";
  /**
   * CapacityScheduler mode: a node that idled this many heartbeats in a row
   * under Spindle's vetoes (or spindle.locality.max-wait-ms since the first)
   * takes any app until it gets a container.
   */
  public int vetoHeartbeats = 3;
  /**
   * CapacityScheduler mode: a leaf queue's walk over its apps passes over those the
   * node's decision would certainly veto (the same grants, less work per heartbeat).
   */
  public boolean vetoSkipApps = true;
  /**
   * Most of the cluster's memory that ApplicationMasters may hold (FairScheduler's
   * maxAMShare, the CapacityScheduler's maximum-am-resource-percent): the AM of an app past
   * it waits, so that running AMs never leave their tasks no room. One AM always runs.
   */
  public double amMaxShare = 0.25;
  /**
   * Under the share, the next AM also waits while an admitted app asks for tasks and runs
   * none (it is starved: more AMs would only hold containers idle), or while as many
   * admitted AMs as the cluster has racks have not asked for a task yet. Each of those
   * holds the next AM back for at most {@link #amProgressWaitMs}.
   */
  public boolean amAdmitOnProgress = true;
  /** The bound on how long one starting AM or one starved app holds back the next AM. */
  public int amProgressWaitMs = 120_000;
  /** Read each MapReduce job's split file (SplitFiles). */
  public boolean splitsRead = true;
  /** Split-file reader threads. */
  public int splitsThreads = 2;
  /** Deadline of one split-file read, in ms. */
  public int splitsTimeoutMs = 30_000;

  private SpindleSettings() {
    core.policy = "asm1";
  }

  /** Reads and validates every key; {@code get} returns null for an unset key. */
  public static SpindleSettings read(Function<String, String> get) {
    SpindleSettings s = new SpindleSettings();
    s.core.policy = string(get, POLICY, s.core.policy);
    s.core.costLocal = positive(get, COST_LOCAL, s.core.costLocal);
    s.core.costRemote = positive(get, COST_REMOTE, s.core.costRemote);
    s.core.remoteGrowth = nonNegative(get, COST_REMOTE_GROWTH, s.core.remoteGrowth);
    s.core.nodeLocalityDelay = integer(get, NODE_DELAY, s.core.nodeLocalityDelay, -1);
    s.core.rackLocalityAdditionalDelay =
        integer(get, RACK_ADDITIONAL_DELAY, s.core.rackLocalityAdditionalDelay, -1);
    s.core.seed = integer(get, SEED, 1, 0);
    s.core.backgroundPlanning = bool(get, PLANNING_BACKGROUND, true);
    s.core.incrementalPlanning = bool(get, PLANNING_INCREMENTAL, false);
    s.core.maxHostAsk = integer(get, MAX_HOST_ASK, s.core.maxHostAsk, 1);
    s.core.maxPlannedTasks = integer(get, MAX_PLANNED_TASKS, (int) s.core.maxPlannedTasks, 0);
    s.core.maxWaitMs = integer(get, MAX_WAIT, (int) s.core.maxWaitMs, Integer.MIN_VALUE);
    s.core.maxOffSwitchPerHeartbeat =
        integer(get, MAX_OFFSWITCH, s.core.maxOffSwitchPerHeartbeat, 1);
    // Checked by the core, which names the allowed values.
    s.core.jobOrder = string(get, JOB_ORDER, s.core.jobOrder);
    String fb = string(get, FALLBACK, "fifo");
    try {
      s.fallback = Fallback.valueOf(fb.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          FALLBACK + " = \"" + fb + "\": expected \"fifo\" or \"none\"");
    }
    s.webhdfsAddress = string(get, WEBHDFS_ADDRESS, "");
    if (!s.webhdfsAddress.isEmpty() && !s.webhdfsAddress.startsWith("http://")
        && !s.webhdfsAddress.startsWith("https://")) {
      throw new IllegalArgumentException(WEBHDFS_ADDRESS + " = \"" + s.webhdfsAddress
          + "\": expected an http:// or https:// NameNode address, e.g. http://nn:9870");
    }
    s.libraryPath = string(get, LIBRARY_PATH, "");
    s.vetoHeartbeats = integer(get, VETO_HEARTBEATS, s.vetoHeartbeats, 1);
    s.vetoSkipApps = bool(get, VETO_SKIP_APPS, s.vetoSkipApps);
    s.amMaxShare = positive(get, AM_MAX_SHARE, s.amMaxShare);
    if (s.amMaxShare > 1) {
      throw new IllegalArgumentException(AM_MAX_SHARE + " = " + s.amMaxShare
          + ": a share of the cluster, at most 1");
    }
    s.amAdmitOnProgress = bool(get, AM_ADMIT_ON_PROGRESS, s.amAdmitOnProgress);
    s.amProgressWaitMs = integer(get, AM_PROGRESS_WAIT, s.amProgressWaitMs, 0);
    s.splitsRead = bool(get, SPLITS_READ, s.splitsRead);
    s.splitsThreads = integer(get, SPLITS_THREADS, s.splitsThreads, 1);
    if (s.splitsThreads > 16) {
      throw new IllegalArgumentException(SPLITS_THREADS + " = " + s.splitsThreads
          + ": at most 16 (each holds a NameNode connection per read)");
    }
    s.splitsTimeoutMs = integer(get, SPLITS_TIMEOUT, s.splitsTimeoutMs, 100);
    return s;
  }

  private static boolean bool(Function<String, String> get, String key, boolean dflt) {
    String v = string(get, key, Boolean.toString(dflt));
    if (!v.equals("true") && !v.equals("false")) {
      throw new IllegalArgumentException(key + " = \"" + v + "\": expected true or false");
    }
    return v.equals("true");
  }

  private static String string(Function<String, String> get, String key, String dflt) {
    String v = get.apply(key);
    return v == null || v.trim().isEmpty() ? dflt : v.trim();
  }

  private static double number(Function<String, String> get, String key, double dflt) {
    String v = string(get, key, null);
    if (v == null) {
      return dflt;
    }
    try {
      double d = Double.parseDouble(v);
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new NumberFormatException();
      }
      return d;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " = \"" + v + "\": not a number");
    }
  }

  private static double positive(Function<String, String> get, String key, double dflt) {
    double d = number(get, key, dflt);
    if (d <= 0) {
      throw new IllegalArgumentException(key + " = " + d + ": must be greater than 0");
    }
    return d;
  }

  private static double nonNegative(Function<String, String> get, String key, double dflt) {
    double d = number(get, key, dflt);
    if (d < 0) {
      throw new IllegalArgumentException(key + " = " + d + ": must not be negative");
    }
    return d;
  }

  private static int integer(Function<String, String> get, String key, int dflt, int min) {
    String v = string(get, key, null);
    if (v == null) {
      return dflt;
    }
    int i;
    try {
      i = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " = \"" + v + "\": not an integer");
    }
    if (i < min) {
      throw new IllegalArgumentException(key + " = " + i + ": must be at least " + min);
    }
    return i;
  }
}
