package org.spindle.bench.rm;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.placement.ApplicationPlacementContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNodeReport;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.spindle.yarn.CoreSetup;
import org.spindle.yarn.SpindleSettings;
import org.spindle.yarn.cs.CsRuntime;

/**
 * One scheduler, one cluster size, in this JVM: MockRM's RMContext around
 * the real scheduler, {@code nodes} NodeManagers in racks of 100, nodes/10
 * MapReduce-like apps ({@link BenchApp}), and node heartbeats driven
 * round-robin as fast as the scheduler takes them, each
 * {@code handle(NodeUpdateSchedulerEvent)} timed. Every 10 heartbeats one AM
 * heartbeats (pull, then send its changed asks: two allocate calls, timed),
 * every 500 the oldest app finishes and a new one arrives, and a container
 * finishes at its node's heartbeat 4 to 12 heartbeats after it was pulled.
 * The cluster first warms up until it is full (or stops filling), then the
 * window of {@code seconds} is measured.
 */
public final class BenchRun {
  static final String CS = "yarn.scheduler.capacity.";

  /** The schedulers by bench name: the RM's scheduler class and what it adds to the conf. */
  public static final Map<String, String> SCHEDULERS = new LinkedHashMap<>();

  static {
    SCHEDULERS.put("capacity",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler");
    SCHEDULERS.put("fair",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler");
    SCHEDULERS.put("spindle", "org.spindle.yarn.SpindleScheduler");
    SCHEDULERS.put("capacity-spindle", "org.spindle.yarn.cs.SpindleCapacityScheduler");
  }

  /** SpindleScheduler from the plugin jar given by --baseline-jar (another revision). */
  static final String BASELINE = "spindle-base";

  static final class Options {
    String scheduler = "capacity";
    int nodes = 1000;
    int apps = -1;
    int maps = 1200;
    int nodeMb = 8192;
    int nodeVcores = 8;
    int containerMb = 1024;
    int minBeats = 4;
    int maxBeats = 12;
    double seconds = 60;
    double warmupSeconds = 20;
    double maxWarmupSeconds = 600;
    String policy = "asm1";
    /**
     * How apps end: "done" when their last map completes (another arrives),
     * or "oldest": the oldest finished every 500 heartbeats whatever it has
     * left (issue 11's churn; a FIFO order then grants nearly every
     * container to an app about to go, so its containers are killed, not
     * completed).
     */
    String appEnd = "done";
    long seed = 1;
    Path safepointLog;

    int apps() {
      return apps > 0 ? apps : Math.max(1, nodes / 10);
    }
  }

  private static final List<ResourceRequest> NO_ASKS = Collections.emptyList();
  private static final List<SchedulingRequest> NO_SCHEDULING = Collections.emptyList();
  private static final List<ContainerId> NO_RELEASES = Collections.emptyList();
  private static final List<String> NO_BLACKLIST = Collections.emptyList();

  private final Options o;
  private MockRM rm;
  private RMContext ctx;
  private ResourceScheduler sched;
  private BenchNode[] nodes;
  private final Map<String, BenchNode> byHost = new HashMap<>();
  private String[] hostNames;
  private String[] rackNames;
  private final ArrayDeque<BenchApp> live = new ArrayDeque<>();
  private final List<BenchApp> ring = new ArrayList<>();
  private int amCursor;
  private int appSeq;
  private final Random rnd;
  private Resource capability;

  // Timings of the measured window.
  private long[] hb = new long[1 << 20];
  private long[] hbStart = new long[1 << 20];
  /** Each timed heartbeat's CPU time on this thread, and its time in core calls. */
  private long[] hbCpu = new long[1 << 20];
  private long[] hbCore = new long[1 << 20];
  /**
   * Each timed heartbeat's containers allocated (the root queue's aggregate
   * counter) and containers the node reported launched or finished: Hadoop's
   * own work per container, which every scheduler pays, apart from the rest.
   */
  private int[] hbAllocated = new int[1 << 20];
  private int[] hbReported = new int[1 << 20];
  private static final java.lang.management.ThreadMXBean THREADS =
      ManagementFactory.getThreadMXBean();
  private int hbCount;
  private long[] alloc = new long[1 << 16];
  private int allocCount;
  private boolean measuring;
  private long heartbeats;
  private long pulled;
  private long pulledTotal;
  private long released;
  /** Containers that ran to their end, and containers killed with their app (window). */
  private long completed;
  private long killed;
  private long appsEnded;
  private final boolean endWhenDone;
  private long amDataLocal;
  private long amRackLocal;
  private long arrivals;

  BenchRun(Options o) {
    this.o = o;
    this.rnd = new Random(o.seed);
    this.endWhenDone = "done".equals(o.appEnd);
  }

  YarnConfiguration conf() {
    YarnConfiguration conf = new YarnConfiguration();
    String cls = SCHEDULERS.get(o.scheduler.equals(BASELINE) ? "spindle" : o.scheduler);
    if (cls == null) {
      throw new IllegalArgumentException("unknown scheduler \"" + o.scheduler + "\"; one of "
          + SCHEDULERS.keySet());
    }
    conf.set(YarnConfiguration.RM_SCHEDULER, cls);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, o.containerMb);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, o.nodeMb);
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, false);
    // One leaf, as shipped: root.default at 100 %.
    conf.set(CS + "root.queues", "default");
    conf.set(CS + "root.default.capacity", "100");
    String lib = System.getProperty("spindle.library.path", "");
    if (!lib.isEmpty()) {
      conf.set(SpindleSettings.LIBRARY_PATH, lib);
    }
    conf.set(SpindleSettings.POLICY, o.policy);
    if (o.scheduler.equals("capacity-spindle")) {
      // conf/capacity-scheduler.xml's lines (docs/capacity-scheduler.md).
      conf.set(CS + "node-locality-delay", "0");
      conf.set(CS + "rack-locality-additional-delay", "0");
      conf.set(CS + "root.default.ordering-policy", "org.spindle.yarn.cs.SpindleOrderingPolicy");
      // A/B of the walk's skipping: RM_BENCH_JAVA_OPTS="-Dspindle.cs.veto.skip-apps=false".
      String skip = System.getProperty(SpindleSettings.VETO_SKIP_APPS);
      if (skip != null) {
        conf.set(SpindleSettings.VETO_SKIP_APPS, skip);
      }
    }
    return conf;
  }

  void setUp() throws Exception {
    CoreSetup.factory = s -> new TimingCore(CoreSetup.open(s));
    int n = o.nodes;
    hostNames = new String[n];
    int rackCount = (n + 99) / 100;
    rackNames = new String[rackCount];
    for (int r = 0; r < rackCount; r++) {
      rackNames[r] = "/rack" + r;
    }
    for (int i = 0; i < n; i++) {
      hostNames[i] = String.format("node%05d", i);
      // Container tokens resolve the node's host: no DNS for the bench's names.
      NetUtils.addStaticResolution(hostNames[i], "127.0.0.1");
    }
    rm = new MockRM(conf());
    rm.start();
    // MockRM turns the root logger to DEBUG; the schedulers' log lines are not what is timed.
    org.apache.log4j.LogManager.getRootLogger().setLevel(org.apache.log4j.Level.WARN);
    ctx = rm.getRMContext();
    sched = rm.getResourceScheduler();
    capability = Resource.newInstance(o.containerMb, 1);
    Resource nodeCap = Resource.newInstance(o.nodeMb, o.nodeVcores);
    nodes = new BenchNode[n];
    for (int i = 0; i < n; i++) {
      nodes[i] = new BenchNode(i, hostNames[i], rackNames[i / 100], nodeCap, ctx);
      byHost.put(hostNames[i], nodes[i]);
      sched.handle(new NodeAddedSchedulerEvent(nodes[i]));
    }
    long t0 = System.nanoTime();
    for (int a = 0; a < o.apps(); a++) {
      submit();
    }
    log(String.format("%s: %d nodes, %d apps of %d maps (%.0f distinct hosts per app) submitted in %.1f s",
        o.scheduler, n, o.apps(), o.maps, live.stream().mapToInt(BenchApp::distinctHosts).average()
            .orElse(0), (System.nanoTime() - t0) / 1e9));
  }

  private void submit() {
    BenchRMApp rmApp = new BenchRMApp(++appSeq, System.currentTimeMillis());
    BenchApp app = new BenchApp(rmApp, o.maps, o.nodes, 100, capability, new Random(o.seed * 7919 + appSeq));
    ctx.getRMApps().put(app.appId, rmApp);
    sched.handle(new AppAddedSchedulerEvent(BenchRMApp.USER, rmApp.getApplicationSubmissionContext(),
        false, Priority.newInstance(0), new ApplicationPlacementContext(BenchRMApp.QUEUE)));
    sched.handle(new AppAttemptAddedSchedulerEvent(app.attemptId, false));
    allocate(app, app.initialAsks(hostNames, rackNames), NO_RELEASES);
    live.add(app);
    ring.add(app);
    arrivals++;
  }

  private void finish(BenchApp app) {
    if (app == null || !live.remove(app)) {
      return;
    }
    ring.remove(app);
    if (measuring) {
      appsEnded++;
    }
    // Its NodeManagers kill its containers and report them complete at their next
    // heartbeat: the scheduler frees a launched container's room only then
    // (SchedulerNode.releaseContainer waits for the node's report).
    if (measuring) {
      killed += app.tasks.size();
    }
    for (BenchApp.Task t : app.tasks) {
      t.node.running.remove(t);
      t.node.launched.removeIf(s -> s.getContainerId().equals(t.id));
      t.node.killed.add(ContainerStatus.newInstance(t.id, ContainerState.COMPLETE, "",
          ContainerExitStatus.KILLED_BY_RESOURCEMANAGER));
    }
    app.tasks.clear();
    sched.handle(new AppAttemptRemovedSchedulerEvent(app.attemptId, RMAppAttemptState.FINISHED, false));
    sched.handle(new AppRemovedSchedulerEvent(app.appId, RMAppState.FINISHED));
    ctx.getRMApps().remove(app.appId);
  }

  private Allocation allocate(BenchApp app, List<ResourceRequest> asks, List<ContainerId> releases) {
    long t0 = System.nanoTime();
    Allocation a = sched.allocate(app.attemptId, asks, NO_SCHEDULING, releases, NO_BLACKLIST,
        NO_BLACKLIST, new ContainerUpdates());
    long dt = System.nanoTime() - t0;
    if (measuring) {
      if (allocCount == alloc.length) {
        alloc = Arrays.copyOf(alloc, alloc.length * 2);
      }
      alloc[allocCount++] = dt;
    }
    return a;
  }

  /** One AM heartbeat: pull what was allocated, then send the asks that changed (YARN-1902). */
  private void amHeartbeat(BenchApp app) {
    Allocation a = allocate(app, NO_ASKS, NO_RELEASES);
    List<ContainerId> releases = null;
    for (Container c : a.getContainers()) {
      BenchNode node = byHost.get(c.getNodeId().getHost());
      long before = app.dataLocal;
      long beforeRack = app.rackLocal;
      BenchApp.Task t = node == null ? null
          : app.assign(c, node, node.beats + o.minBeats + rnd.nextInt(o.maxBeats - o.minBeats + 1));
      if (t == null) {
        if (releases == null) {
          releases = new ArrayList<>();
        }
        releases.add(c.getId());
        if (measuring) {
          released++;
        }
        continue;
      }
      node.running.add(t);
      node.launched.add(ContainerStatus.newInstance(c.getId(), ContainerState.RUNNING, "", 0));
      pulledTotal++;
      if (measuring) {
        pulled++;
        amDataLocal += app.dataLocal - before;
        amRackLocal += app.rackLocal - beforeRack;
      }
    }
    List<ResourceRequest> changed = app.changedAsks(hostNames, rackNames);
    if (changed != null || releases != null) {
      allocate(app, changed == null ? NO_ASKS : changed, releases == null ? NO_RELEASES : releases);
    }
  }

  /** One node heartbeat, timed; then the AM and app churn it triggers. */
  private void heartbeat() {
    BenchNode n = nodes[(int) (heartbeats % nodes.length)];
    n.beats++;
    List<ContainerStatus> done = new ArrayList<>(2);
    List<BenchApp> ended = null;
    for (Iterator<BenchApp.Task> it = n.running.iterator(); it.hasNext(); ) {
      BenchApp.Task t = it.next();
      if (t.finishBeat <= n.beats) {
        if (measuring) {
          completed++;
        }
        it.remove();
        t.app.tasks.remove(t);
        if (endWhenDone && t.app.unassigned() == 0 && t.app.tasks.isEmpty()) {
          if (ended == null) {
            ended = new ArrayList<>(1);
          }
          ended.add(t.app);
        }
        done.add(ContainerStatus.newInstance(t.id, ContainerState.COMPLETE, "",
            ContainerExitStatus.SUCCESS));
      }
    }
    if (!n.killed.isEmpty()) {
      done.addAll(n.killed);
      n.killed.clear();
    }
    List<ContainerStatus> launched = new ArrayList<>(n.launched);
    n.launched.clear();
    n.report(launched, done);
    NodeUpdateSchedulerEvent event = new NodeUpdateSchedulerEvent(n);
    // CPU time apart from wall time: on a loaded machine the wall time also holds the
    // waits for a CPU (and GC pauses), which no scheduler controls.
    long c0 = measuring ? THREADS.getCurrentThreadCpuTime() : 0;
    long core0 = TimingCore.heartbeatCoreNanos;
    QueueMetrics rootMetrics = sched.getRootQueueMetrics();
    long allocated0 = measuring ? rootMetrics.getAggregateAllocatedContainers() : 0;
    long t0 = System.nanoTime();
    TimingCore.inHeartbeat = true;
    sched.handle(event);
    TimingCore.inHeartbeat = false;
    long dt = System.nanoTime() - t0;
    if (measuring) {
      long cpu = THREADS.getCurrentThreadCpuTime() - c0;
      if (hbCount == hb.length) {
        hb = Arrays.copyOf(hb, hb.length * 2);
        hbStart = Arrays.copyOf(hbStart, hbStart.length * 2);
        hbCpu = Arrays.copyOf(hbCpu, hbCpu.length * 2);
        hbCore = Arrays.copyOf(hbCore, hbCore.length * 2);
        hbAllocated = Arrays.copyOf(hbAllocated, hbAllocated.length * 2);
        hbReported = Arrays.copyOf(hbReported, hbReported.length * 2);
      }
      hbAllocated[hbCount] =
          (int) (rootMetrics.getAggregateAllocatedContainers() - allocated0);
      hbReported[hbCount] = launched.size() + done.size();
      hbStart[hbCount] = t0;
      hbCpu[hbCount] = cpu;
      hbCore[hbCount] = TimingCore.heartbeatCoreNanos - core0;
      hb[hbCount++] = dt;
    }
    heartbeats++;
    if (heartbeats % 10 == 0 && !ring.isEmpty()) {
      amHeartbeat(ring.get(amCursor++ % ring.size()));
    }
    if (ended != null) {
      // After the heartbeat that reported its last container, as an AM
      // unregisters after its tasks' ends.
      for (BenchApp app : ended) {
        finish(app);
        submit();
      }
    }
    if (!endWhenDone && heartbeats % 500 == 0) {
      finish(live.peek());
      submit();
    }
  }

  /**
   * Heartbeat p50 by the containers it allocated (0 .. 4, then 5 or more),
   * and the least-squares cost per container allocated and per container
   * reported over all heartbeats of the window: the recipe every scheduler
   * shares (section 1.4) against each scheduler's own work per heartbeat.
   */
  private void byContainers(Map<String, Object> r) {
    int groups = 6;
    long[][] bucket = new long[groups][];
    long[][] coreBucket = new long[groups][];
    int[] fill = new int[groups];
    for (int g = 0; g < groups; g++) {
      bucket[g] = new long[16];
      coreBucket[g] = new long[16];
    }
    // Normal equations of dt = a + b * allocated + c * reported.
    double n = 0, sa = 0, sr = 0, saa = 0, srr = 0, sar = 0, sy = 0, say = 0, sry = 0;
    long[] share = new long[groups];
    for (int i = 0; i < hbCount; i++) {
      int a = hbAllocated[i];
      int rep = hbReported[i];
      double y = hbCpu[i] / 1e3; // CPU: a wait for a CPU or a GC pause is no container's cost
      n++;
      sa += a;
      sr += rep;
      saa += (double) a * a;
      srr += (double) rep * rep;
      sar += (double) a * rep;
      sy += y;
      say += a * y;
      sry += rep * y;
      int g = Math.min(Math.max(a, 0), groups - 1);
      share[g]++;
      if (fill[g] == bucket[g].length) {
        bucket[g] = Arrays.copyOf(bucket[g], fill[g] * 2);
        coreBucket[g] = Arrays.copyOf(coreBucket[g], fill[g] * 2);
      }
      coreBucket[g][fill[g]] = hbCore[i];
      bucket[g][fill[g]++] = hb[i];
    }
    Map<String, Object> p50 = new LinkedHashMap<>();
    Map<String, Object> coreP50 = new LinkedHashMap<>();
    Map<String, Object> fracs = new LinkedHashMap<>();
    for (int g = 0; g < groups; g++) {
      String key = g == groups - 1 ? g + "+" : Integer.toString(g);
      long[] b = Arrays.copyOf(bucket[g], fill[g]);
      Arrays.sort(b);
      p50.put(key, fill[g] == 0 ? null : us(pct(b, 0.50)));
      long[] c = Arrays.copyOf(coreBucket[g], fill[g]);
      Arrays.sort(c);
      coreP50.put(key, fill[g] == 0 ? null : us(pct(c, 0.50)));
      fracs.put(key, frac(share[g], hbCount));
    }
    r.put("heartbeat_p50_by_allocated_us", p50);
    if (o.scheduler.contains("spindle")) {
      r.put("core_p50_by_allocated_us", coreP50);
    }
    r.put("heartbeats_by_allocated", fracs);
    r.put("containers_allocated_per_heartbeat", n == 0 ? 0.0 : round3(sa / n));
    r.put("containers_reported_per_heartbeat", n == 0 ? 0.0 : round3(sr / n));
    double[] fit = leastSquares3(n, sa, sr, saa, srr, sar, sy, say, sry);
    if (fit != null) {
      r.put("fit_cpu_fixed_us", round(fit[0]));
      r.put("fit_cpu_per_allocated_us", round(fit[1]));
      r.put("fit_cpu_per_reported_us", round(fit[2]));
    }
  }

  /** Solves the 3x3 normal equations; null when they are singular. */
  static double[] leastSquares3(double n, double sa, double sr, double saa, double srr,
      double sar, double sy, double say, double sry) {
    double[][] m = {{n, sa, sr, sy}, {sa, saa, sar, say}, {sr, sar, srr, sry}};
    for (int c = 0; c < 3; c++) {
      int piv = c;
      for (int k = c + 1; k < 3; k++) {
        if (Math.abs(m[k][c]) > Math.abs(m[piv][c])) {
          piv = k;
        }
      }
      double[] t = m[c];
      m[c] = m[piv];
      m[piv] = t;
      if (Math.abs(m[c][c]) < 1e-9) {
        return null;
      }
      for (int k = 0; k < 3; k++) {
        if (k != c) {
          double f = m[k][c] / m[c][c];
          for (int j = c; j < 4; j++) {
            m[k][j] -= f * m[c][j];
          }
        }
      }
    }
    return new double[] {m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]};
  }

  private double utilization() {
    QueueMetrics m = sched.getRootQueueMetrics();
    return (double) m.getAllocatedMB() / ((double) o.nodes * o.nodeMb);
  }

  private static void log(String s) {
    System.err.println("rm-bench: " + s);
    System.err.flush();
  }

  private static String loadAverage() {
    try {
      String[] f = new String(Files.readAllBytes(Paths.get("/proc/loadavg")), StandardCharsets.UTF_8)
          .trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static long peakRssMb() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return -1;
  }

  /** Warms up, measures, and returns the run's figures (the keys first). */
  Map<String, Object> run() {
    Pauses pauses = new Pauses();
    pauses.listen();
    long start = System.nanoTime();
    double util = 0;
    double lastRoundUtil = 0;
    long rounds = 0;
    boolean full = false;
    long lastLog = start;
    // Warm-up: until full (95 % of memory allocated, or no longer filling over a round),
    // at least warmupSeconds and 2 rounds, at most maxWarmupSeconds. When apps end as
    // their maps do, at least a container's longest life more: until then the
    // containers of the fill have not ended and a full node allocates nothing
    // (50,000 nodes, 20 s: 60 % of heartbeats allocated nothing against 34 % later).
    int minRounds = endWhenDone ? o.maxBeats + 2 : 2;
    while (true) {
      heartbeat();
      if (heartbeats % nodes.length == 0) {
        rounds++;
        util = utilization();
        double elapsed = (System.nanoTime() - start) / 1e9;
        boolean steady = util >= 0.95 || (rounds >= 3 && util - lastRoundUtil < 0.01);
        lastRoundUtil = util;
        if (elapsed >= o.warmupSeconds && rounds >= minRounds && steady) {
          full = true;
          break;
        }
        if (elapsed >= o.maxWarmupSeconds) {
          break;
        }
      }
      if (System.nanoTime() - lastLog > 2_000_000_000L) {
        lastLog = System.nanoTime();
        QueueMetrics qm = sched.getRootQueueMetrics();
        log(String.format("%s warm-up: %.0f s, %d heartbeats, %d rounds, %.1f %% allocated"
            + " (apps running %d, pending %d; containers allocated %d, pending %d; pulled %d)",
            o.scheduler, (lastLog - start) / 1e9, heartbeats, rounds, 100 * utilization(),
            qm.getAppsRunning(), qm.getAppsPending(), qm.getAllocatedContainers(),
            qm.getPendingContainers(), pulledTotal));
      }
    }
    double warmup = (System.nanoTime() - start) / 1e9;
    double utilStart = utilization();
    log(String.format("%s: warm-up %.1f s (%d rounds, %.1f %% allocated%s); measuring %.0f s",
        o.scheduler, warmup, rounds, 100 * utilStart, full ? "" : ", NOT steady yet", o.seconds));
    QueueMetrics m = sched.getRootQueueMetrics();
    long alloc0 = m.getAggregateAllocatedContainers();
    long node0 = m.getAggregateNodeLocalContainersAllocated();
    long rack0 = m.getAggregateRackLocalContainersAllocated();
    long off0 = m.getAggregateOffSwitchContainersAllocated();
    String load0 = loadAverage();
    Map<String, Object> cs0 = CsRuntime.counters(ctx);
    TimingCore.heartbeatCoreNanos = 0;
    TimingCore.heartbeatCoreCalls = 0;
    long hb0 = heartbeats;
    double up0 = ManagementFactory.getRuntimeMXBean().getUptime();
    // -Drmbench.jfr=FILE: a JFR recording ("profile" settings) of the window only.
    String jfrFile = System.getProperty("rmbench.jfr", "");
    jdk.jfr.Recording jfr = null;
    if (!jfrFile.isEmpty()) {
      try {
        // -Drmbench.jfr.sample-ms=N: execution samples only, every N ms; the
        // "profile" settings' allocation and lock events slow the RM many times.
        long sampleMs = Long.getLong("rmbench.jfr.sample-ms", 0L);
        if (sampleMs > 0) {
          jfr = new jdk.jfr.Recording();
          jfr.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(sampleMs));
        } else {
          jfr = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
        }
        jfr.start();
      } catch (IOException | java.text.ParseException e) {
        log("no JFR recording: " + e);
      }
    }
    measuring = true;
    long w0 = System.nanoTime();
    long end = w0 + (long) (o.seconds * 1e9);
    double utilSum = 0;
    int utilSamples = 0;
    while (System.nanoTime() < end) {
      heartbeat();
      if (heartbeats % nodes.length == 0) {
        utilSum += utilization();
        utilSamples++;
      }
    }
    long w1 = System.nanoTime();
    measuring = false;
    if (jfr != null) {
      try {
        jfr.stop();
        jfr.dump(Paths.get(jfrFile));
      } catch (IOException e) {
        log("JFR dump to " + jfrFile + " failed: " + e);
      }
      jfr.close();
    }
    double up1 = ManagementFactory.getRuntimeMXBean().getUptime();
    // Uptime of nanoTime 0, to place each heartbeat among the pauses (ms precision).
    double upAtNano0 = up1 - w1 / 1e6;
    double secs = (w1 - w0) / 1e9;
    long allocated = m.getAggregateAllocatedContainers() - alloc0;
    long nodeLocal = m.getAggregateNodeLocalContainersAllocated() - node0;
    long rackLocal = m.getAggregateRackLocalContainersAllocated() - rack0;
    long offSwitch = m.getAggregateOffSwitchContainersAllocated() - off0;
    double utilEnd = utilization();
    // The same at the end as the nodes book it, and as the AMs run it: a
    // queue's books above the nodes' would be a leak in its accounting;
    // the nodes' above the running tasks, containers not yet pulled.
    long nodesMb = 0;
    long tasksRunning = 0;
    for (BenchNode n : nodes) {
      SchedulerNodeReport rep = sched.getNodeReport(n.getNodeID());
      if (rep != null) {
        nodesMb += rep.getUsedResource().getMemorySize();
      }
      tasksRunning += n.running.size();
    }
    double clusterMb = (double) o.nodes * o.nodeMb;

    long hbTotal = 0;
    for (int i = 0; i < hbCount; i++) {
      hbTotal += hb[i];
    }
    List<Pauses.Pause> gc = pauses.gcPauses(up0, up1 + 1);
    List<Pauses.Pause> sp = Pauses.safepoints(o.safepointLog, up0, up1 + 1);
    // Heartbeats that overlapped no safepoint of 1 ms or more (GC pauses are safepoints).
    long[] clean = new long[hbCount];
    int cleanCount = 0;
    List<Pauses.Pause> long1 = new ArrayList<>();
    for (Pauses.Pause p : sp.isEmpty() ? gc : sp) {
      if (p.ms() >= 1.0) {
        long1.add(p);
      }
    }
    long1.sort((a, b) -> Double.compare(a.startMs, b.startMs));
    int pi = 0;
    for (int i = 0; i < hbCount; i++) {
      double s = hbStart[i] / 1e6 + upAtNano0;
      double e = s + hb[i] / 1e6;
      while (pi < long1.size() && long1.get(pi).endMs < s - 1) {
        pi++;
      }
      boolean overlaps = false;
      for (int k = pi; k < long1.size() && long1.get(k).startMs <= e + 1; k++) {
        overlaps |= long1.get(k).endMs >= s - 1;
      }
      if (!overlaps) {
        clean[cleanCount++] = hb[i];
      }
    }
    // Where the slowest 1 % of heartbeats spent their time: on this thread's CPU, in
    // core calls (JNI, Rust, and waits for the core's lock), or waiting (CPU, GC).
    Integer[] order = new Integer[hbCount];
    for (int i = 0; i < hbCount; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(hb[b], hb[a]));
    long slowWall = 0;
    long slowCpu = 0;
    long slowCore = 0;
    for (int k = 0; k < Math.max(1, hbCount / 100) && k < hbCount; k++) {
      slowWall += hb[order[k]];
      slowCpu += hbCpu[order[k]];
      slowCore += hbCore[order[k]];
    }
    long[] cpuSorted = Arrays.copyOf(hbCpu, hbCount);
    Arrays.sort(cpuSorted);
    long[] h = Arrays.copyOf(hb, hbCount);
    Arrays.sort(h);
    Arrays.sort(clean, 0, cleanCount);
    long[] al = Arrays.copyOf(alloc, allocCount);
    Arrays.sort(al);

    Map<String, Object> r = new LinkedHashMap<>();
    r.put("scheduler", o.scheduler);
    r.put("policy", o.scheduler.contains("spindle") ? o.policy : defaultPolicy());
    r.put("nodes", o.nodes);
    r.put("apps", o.apps());
    r.put("heartbeat_p50_us", us(pct(h, 0.50)));
    r.put("heartbeat_p99_us", us(pct(h, 0.99)));
    r.put("heartbeat_p999_us", us(pct(h, 0.999)));
    r.put("heartbeat_max_us", us(h.length == 0 ? 0 : h[h.length - 1]));
    r.put("heartbeats_per_s", round(hbCount / secs));
    r.put("containers_per_s", round(allocated / secs));
    r.put("node_local", frac(nodeLocal, allocated));
    r.put("rack_local", frac(rackLocal, allocated));
    r.put("off_switch", frac(offSwitch, allocated));
    r.put("allocate_p50_us", us(pct(al, 0.50)));
    r.put("allocate_p99_us", us(pct(al, 0.99)));
    // Beyond the keys.
    if (o.scheduler.contains("spindle")) {
      r.put("core_share", hbTotal == 0 ? 0.0 : round3((double) TimingCore.heartbeatCoreNanos / hbTotal));
      r.put("core_calls_per_heartbeat", hbCount == 0 ? 0.0
          : round((double) TimingCore.heartbeatCoreCalls / hbCount));
      TimingCore core = TimingCore.current;
      double[] st = core == null ? new double[0] : core.planStats();
      if (st.length == 7) {
        r.put("planner_plans", (long) st[0]);
        r.put("planner_last_plan_tasks", (long) st[1]);
        r.put("planner_last_plan_ms", round(st[2]));
        r.put("planner_longest_plan_ms", round(st[3]));
        r.put("planner_longest_copy_lock_us", round(st[5]));
        r.put("planner_longest_install_lock_us", round(st[6]));
      }
    }
    Map<String, Object> cs1 = CsRuntime.counters(ctx);
    if (cs1 != null) {
      // The CapacityScheduler mode: Spindle's allocator must be the one placing (its JMX
      // check, docs/capacity-scheduler.md), and how its grants went in the window.
      r.put("cs_live_allocators", cs1.get("LiveAllocators"));
      r.put("cs_foreign_allocators", cs1.get("ForeignAllocators"));
      for (String k : new String[] {"GrantsOnPlan", "GrantsOffPlan", "GrantsLocationLess",
          "Vetoes", "SkippedApps", "LiftedVetoes", "UnbookedGrants", "CoreErrors"}) {
        r.put("cs_" + k, ((Number) cs1.get(k)).longValue()
            - (cs0 == null ? 0 : ((Number) cs0.get(k)).longValue()));
      }
    }
    r.put("heartbeat_cpu_p50_us", us(pct(cpuSorted, 0.50)));
    byContainers(r);
    r.put("heartbeat_cpu_p99_us", us(pct(cpuSorted, 0.99)));
    r.put("heartbeat_cpu_p999_us", us(pct(cpuSorted, 0.999)));
    r.put("slowest_1pct_cpu_share", frac(slowCpu, slowWall));
    r.put("slowest_1pct_core_share", frac(slowCore, slowWall));
    r.put("rounds_per_s", round3(hbCount / secs / o.nodes));
    r.put("heartbeat_mean_us", us(hbCount == 0 ? 0 : hbTotal / hbCount));
    r.put("heartbeat_p999_outside_pauses_us", us(pct(Arrays.copyOf(clean, cleanCount), 0.999)));
    r.put("heartbeat_max_outside_pauses_us", us(cleanCount == 0 ? 0 : clean[cleanCount - 1]));
    r.put("heartbeats_in_pauses", hbCount - cleanCount);
    r.put("gc_pauses", gc.size());
    r.put("gc_pause_total_ms", round(Pauses.totalMs(gc)));
    r.put("gc_pause_max_ms", round(Pauses.maxMs(gc)));
    r.put("safepoints", sp.size());
    r.put("safepoint_total_ms", round(Pauses.totalMs(sp)));
    r.put("safepoint_max_ms", round(Pauses.maxMs(sp)));
    r.put("containers_allocated", allocated);
    r.put("containers_pulled", pulled);
    // The work done: the bench finishes its oldest app every 500 heartbeats
    // whatever it has left, so containers granted to the apps about to go
    // are allocations (containers_per_s) that never complete.
    r.put("containers_completed_per_s", round(completed / secs));
    r.put("containers_killed_per_s", round(killed / secs));
    r.put("app_end", o.appEnd);
    r.put("apps_ended", appsEnded);
    r.put("containers_released_unneeded", released);
    r.put("am_data_local", frac(amDataLocal, pulled));
    r.put("am_rack_local", frac(amRackLocal, pulled));
    r.put("allocate_calls", allocCount);
    r.put("heartbeats", hbCount);
    r.put("window_s", round(secs));
    r.put("warmup_s", round(warmup));
    r.put("warmup_rounds", rounds);
    r.put("full_at_start", full);
    r.put("allocated_at_start", round3(utilStart));
    r.put("allocated_mean", round3(utilSamples == 0 ? (utilStart + utilEnd) / 2 : utilSum / utilSamples));
    r.put("allocated_at_end", round3(utilEnd));
    r.put("allocated_at_end_by_nodes", round3(nodesMb / clusterMb));
    r.put("running_at_end_by_ams", round3(tasksRunning * capability.getMemorySize() / clusterMb));
    r.put("apps_arrived", arrivals);
    r.put("load_at_start", load0);
    r.put("load_at_end", loadAverage());
    r.put("peak_rss_mb", peakRssMb());
    r.put("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20);
    return r;
  }

  private String defaultPolicy() {
    switch (o.scheduler) {
      case "capacity":
        return "fifo, node-locality-delay 40, multiple assignments";
      case "fair":
        return "fair, no locality delay, one container per heartbeat";
      default:
        return "";
    }
  }

  void tearDown() {
    try {
      rm.stop();
    } catch (RuntimeException e) {
      log("stopping the RM: " + e);
    }
  }

  private static long pct(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    return sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))];
  }

  private static double us(long ns) {
    return round(ns / 1000.0);
  }

  private static double frac(long a, long b) {
    return b == 0 ? 0.0 : round3((double) a / b);
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }

  private static double round3(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
