package org.spindle.bench.sls;

import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.apache.hadoop.yarn.sls.RMRunner;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerWrapper;
import org.apache.hadoop.yarn.sls.scheduler.SlsAccess;
import org.spindle.yarn.CoreSetup;
import org.spindle.yarn.SpindleScheduler;
import org.spindle.yarn.cs.CsRuntime;
import org.spindle.yarn.cs.SpindleCapacityScheduler;

/**
 * One scheduler in Hadoop's Scheduler Load Simulator (hadoop-sls 3.4, in this
 * JVM): SLS's real ResourceManager, simulated NodeManagers and MapReduce AM
 * simulators on an SLS, Rumen or SYNTH trace (or a generated SLS trace); then
 * one JSON line: the jobs' run times (SLS's jobruntime.csv), the containers
 * allocated node-local / rack-local / off-switch (the root queue metrics'
 * aggregate counters), SLS's time costs of the scheduler's {@code allocate}
 * and {@code handle} (NODE_UPDATE is the node heartbeat), and for Spindle
 * (either mode) the asks its core heard and the grants it made by locality.
 *
 * <pre>
 *   SlsBench --scheduler capacity|fair|spindle|capacity-spindle [--policy P] --out DIR
 *            (--trace-type SLS|RUMEN|SYNTH --trace FILE [--node-file FILE]
 *             | --nodes N --jobs J --maps M --task-ms T [--seed S])
 *            [--nm-memory-mb MB] [--nm-vcores V] [--timeout-s S]
 * </pre>
 *
 * <p>SLS runs in real time (1 s NM and AM heartbeats): a run lasts about as
 * long as its trace.
 */
public final class SlsBench {
  private SlsBench() {}

  static final int PER_RACK = 20;
  static final Map<String, String> SCHEDULERS = new LinkedHashMap<>();

  static {
    SCHEDULERS.put("capacity",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler");
    // SLS's SLSFairScheduler, with an SLS race fixed (BenchFairScheduler).
    SCHEDULERS.put("fair", "org.spindle.bench.sls.BenchFairScheduler");
    SCHEDULERS.put("spindle", "org.spindle.yarn.sls.SLSSpindleScheduler");
    // Spindle's CapacityScheduler mode, with conf/capacity-scheduler.xml's lines.
    SCHEDULERS.put("capacity-spindle", "org.spindle.yarn.sls.SLSSpindleCapacityScheduler");
  }

  /** The command line, checked. */
  static final class Args {
    String scheduler = "capacity";
    String policy = "asm1";
    String traceType;
    Path trace;
    Path nodeFile;
    int nodes = 50;
    boolean nodesGiven;
    int jobs = 10;
    int maps = 40;
    int taskMs = 10_000;
    long seed = 1;
    int nmMemoryMb = 10_240;
    int nmVcores = 10;
    int timeoutS = 0;
    /** Earlier runs of this scheduler that lost a job (scripts/sls-bench's --retries). */
    int earlierFailures = 0;
    Path out = Paths.get("target/sls-bench");

    static Args parse(String[] argv) {
      Args a = new Args();
      if (argv.length % 2 != 0) {
        throw new IllegalArgumentException(
            "every argument takes a value: " + String.join(" ", argv));
      }
      for (int i = 0; i < argv.length; i += 2) {
        String v = argv[i + 1];
        switch (argv[i]) {
          case "--scheduler":
            a.scheduler = v;
            break;
          case "--policy":
            a.policy = v;
            break;
          case "--trace-type":
            a.traceType = v.toUpperCase(Locale.ROOT);
            break;
          case "--trace":
            a.trace = Paths.get(v);
            break;
          case "--node-file":
            a.nodeFile = Paths.get(v);
            break;
          case "--nodes":
            a.nodes = num(argv[i], v, 1, 100_000);
            a.nodesGiven = true;
            break;
          case "--jobs":
            a.jobs = num(argv[i], v, 1, 100_000);
            break;
          case "--maps":
            a.maps = num(argv[i], v, 1, 100_000);
            break;
          case "--task-ms":
            a.taskMs = num(argv[i], v, 1, 86_400_000);
            break;
          case "--seed":
            a.seed = num(argv[i], v, 0, Integer.MAX_VALUE);
            break;
          case "--nm-memory-mb":
            a.nmMemoryMb = num(argv[i], v, 1024, 1 << 24);
            break;
          case "--nm-vcores":
            a.nmVcores = num(argv[i], v, 1, 4096);
            break;
          case "--timeout-s":
            a.timeoutS = num(argv[i], v, 1, 86_400);
            break;
          case "--out":
            a.out = Paths.get(v);
            break;
          case "--earlier-failures":
            a.earlierFailures = num(argv[i], v, 0, 100);
            break;
          default:
            throw new IllegalArgumentException("unknown argument \"" + argv[i] + "\"");
        }
      }
      if (!SCHEDULERS.containsKey(a.scheduler)) {
        throw new IllegalArgumentException(
            "--scheduler: one of " + SCHEDULERS.keySet() + ", got \"" + a.scheduler + "\"");
      }
      if ((a.traceType == null) != (a.trace == null)) {
        throw new IllegalArgumentException("--trace-type and --trace go together");
      }
      if (a.nodesGiven && a.nodeFile != null) {
        throw new IllegalArgumentException("--nodes or --node-file, not both");
      }
      if (a.traceType != null && !Arrays.asList("SLS", "RUMEN", "SYNTH").contains(a.traceType)) {
        throw new IllegalArgumentException(
            "--trace-type: SLS, RUMEN or SYNTH, got \"" + a.traceType + "\"");
      }
      return a;
    }

    private static int num(String flag, String v, int min, int max) {
      try {
        int n = Integer.parseInt(v);
        if (n >= min && n <= max) {
          return n;
        }
      } catch (NumberFormatException e) {
        // the message below
      }
      throw new IllegalArgumentException(
          flag + ": an integer in " + min + ".." + max + ", got \"" + v + "\"");
    }
  }

  public static void main(String[] argv) {
    try {
      run(argv);
    } catch (Throwable t) {
      // SLS's and the RM's threads are not daemons: a failed run must still end.
      System.err.println("sls-bench: the run failed: " + t);
      t.printStackTrace();
      System.err.flush();
      Runtime.getRuntime().halt(1);
    }
  }

  static void run(String[] argv) throws Exception {
    Args a;
    try {
      a = Args.parse(argv);
    } catch (IllegalArgumentException e) {
      System.err.println("sls-bench: " + e.getMessage());
      System.exit(2);
      return;
    }
    Path dir = a.out.resolve(a.scheduler);
    Files.createDirectories(dir);
    String traceType = a.traceType;
    Path trace = a.trace;
    Path nodeFile = a.nodeFile;
    if (trace == null) {
      traceType = "SLS";
      trace = dir.resolve("trace.json");
      nodeFile = dir.resolve("nodes.json");
      writeTrace(a.nodes, a.jobs, a.maps, a.taskMs, new Random(a.seed), nodeFile, trace);
    } else if (a.nodesGiven) {
      // A trace on a cluster of --nodes (racks of 20): SYNTH's num_nodes and
      // an SLS trace's hosts give way to the node file.
      nodeFile = dir.resolve("nodes.json");
      writeNodes(a.nodes, nodeFile);
    }
    if (traceType.equals("SLS")) {
      SlsTrace.read(trace); // a bad trace fails here, naming what is wrong
    }
    // The RM builds a token for each container's node and refuses a name that
    // does not resolve; a lookup that goes to DNS stalls. All on loopback.
    for (String host : hostNames(traceType, trace, nodeFile)) {
      NetUtils.addStaticResolution(host, "127.0.0.1");
    }
    if (a.scheduler.contains("spindle")) {
      CoreSetup.factory = CoreSetup.factory.andThen(CountingCore::new);
    }
    SLSRunner sls = new SLSRunner(conf(a, dir));
    SlsTraceAmRunner.install(sls);
    long t0 = System.nanoTime();
    List<String> args = new ArrayList<>(Arrays.asList("-tracetype", traceType,
        "-tracelocation", trace.toString(), "-output", dir.resolve("sls").toString()));
    if (nodeFile != null) {
      args.add("-nodes");
      args.add(nodeFile.toString());
    }
    sls.run(args.toArray(new String[0]));
    int apps = sls.getRemainingApps();
    // SLS simulates in real time; the bound is generous, never endless.
    long limitMs = a.timeoutS > 0 ? a.timeoutS * 1000L : 3_600_000L;
    long deadline = System.currentTimeMillis() + limitMs;
    Field f = SLSRunner.class.getDeclaredField("rmRunner");
    f.setAccessible(true);
    ResourceManager rm = ((RMRunner) f.get(sls)).getRm();
    // The CapacityScheduler mode's allocators are counted over the live apps:
    // sampled while jobs run (every 2 s), the most seen of each is kept.
    long[] allocatorsSeen = {0, 0};
    long nextSample = 0;
    while (sls.getRemainingApps() > 0 && System.currentTimeMillis() < deadline) {
      if (System.currentTimeMillis() >= nextSample) {
        Map<String, Object> cs = CsRuntime.counters(rm.getRMContext());
        if (cs != null) {
          allocatorsSeen[0] = Math.max(allocatorsSeen[0],
              ((Number) cs.get("LiveAllocators")).longValue());
          allocatorsSeen[1] = Math.max(allocatorsSeen[1],
              ((Number) cs.get("ForeignAllocators")).longValue());
        }
        nextSample = System.currentTimeMillis() + 2000;
      }
      Thread.sleep(200);
    }
    double wall = (System.nanoTime() - t0) / 1e9;
    Map<String, double[]> runs = jobRuntimes(dir.resolve("sls").resolve("jobruntime.csv"));
    Map<String, Object> r = result(a, apps, sls.getRemainingApps(),
        ranToEnd(rm, runs.keySet()), rm.getResourceScheduler(),
        new ArrayList<>(runs.values()), wall);
    if (r.containsKey("cs_GrantsOnPlan")) {
      r.put("cs_LiveAllocatorsSeen", allocatorsSeen[0]);
      r.put("cs_ForeignAllocatorsSeen", allocatorsSeen[1]);
    }
    String text = new ObjectMapper().writeValueAsString(r);
    Files.write(dir.resolve("result.json"), text.getBytes(StandardCharsets.UTF_8));
    System.out.println(text);
    System.out.flush();
    // SLS's and the RM's threads are not daemons.
    // Exit 3 (sls-bench reruns): a job lost, in the RM or to SLS's races.
    Runtime.getRuntime().halt(sls.getRemainingApps() == 0 && r.get("jobs_finished")
        .equals(r.get("jobs")) ? 0 : 3);
  }

  static Configuration conf(Args a, Path dir) throws IOException {
    Configuration conf = new YarnConfiguration();
    // The FairScheduler with its defaults, and the queue traces name (SLS
    // looks each job's queue up before it submits; the placement stays FS's).
    Path alloc = dir.resolve("fair-scheduler.xml");
    Files.write(alloc, ("<?xml version=\"1.0\"?>\n<allocations>\n  <queue name=\"default\"/>\n"
        + "</allocations>\n").getBytes(StandardCharsets.UTF_8));
    conf.set("yarn.scheduler.fair.allocation.file", alloc.toAbsolutePath().toString());
    conf.set(YarnConfiguration.RM_SCHEDULER, SCHEDULERS.get(a.scheduler));
    // No sls-runner.xml ships in the hadoop-sls jar: the AM simulators by type.
    conf.set("yarn.sls.am.type.mapreduce", "org.apache.hadoop.yarn.sls.appmaster.MRAMSimulator");
    conf.set("yarn.sls.am.type.stream", "org.apache.hadoop.yarn.sls.appmaster.StreamAMSimulator");
    conf.set("yarn.scheduler.capacity.root.queues", "default");
    conf.set("yarn.scheduler.capacity.root.default.capacity", "100");
    if (a.scheduler.equals("capacity-spindle")) {
      // conf/capacity-scheduler.xml's lines (docs/capacity-scheduler.md).
      conf.set("yarn.scheduler.capacity.node-locality-delay", "0");
      conf.set("yarn.scheduler.capacity.rack-locality-additional-delay", "0");
      conf.set("yarn.scheduler.capacity.root.default.ordering-policy",
          "org.spindle.yarn.cs.SpindleOrderingPolicy");
    }
    conf.set("spindle.policy", a.policy);
    String lib = System.getProperty("spindle.library.path", "");
    if (!lib.isEmpty()) {
      conf.set("spindle.library.path", lib);
    }
    // Ephemeral ports: another RM (hadoop-bench, another SLS) may hold the defaults.
    for (String key : new String[] {YarnConfiguration.RM_ADDRESS,
        YarnConfiguration.RM_SCHEDULER_ADDRESS, YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS,
        YarnConfiguration.RM_ADMIN_ADDRESS, YarnConfiguration.RM_WEBAPP_ADDRESS}) {
      conf.set(key, "127.0.0.1:0");
    }
    // SLS's metrics write jobruntime.csv and time allocate/handle; its web page on any port.
    conf.setBoolean("yarn.sls.metrics.switch", true);
    conf.setInt("yarn.sls.metrics.web.address.port", 0);
    // Every allocate and handle kept (SLS keeps the last 100 by default).
    conf.setInt("yarn.sls.metrics.timer.window.size", 1 << 20);
    conf.setInt("yarn.sls.nm.memory.mb", a.nmMemoryMb);
    conf.setInt("yarn.sls.nm.vcores", a.nmVcores);
    conf.setInt("yarn.sls.runner.pool.size", 100);
    // Every finished app stays in the RM's books until the count above.
    conf.setInt(YarnConfiguration.RM_MAX_COMPLETED_APPLICATIONS, 1 << 20);
    return conf;
  }

  /**
   * Jobs that ran to their end: those with a row in SLS's jobruntime.csv
   * (written after the AM unregistered) and those the RM finished with
   * SUCCEEDED. Either alone loses jobs to two races in SLS 3.4.2: (1) the
   * AM simulator releases its AM container before it unregisters, so an NM
   * heartbeat in between makes the RM fail the attempt ("AM Container ...
   * exited with exitCode: 0") although every task ran; (2) SLS closes
   * jobruntime.csv when the last attempt is removed, which can precede the
   * last AM's row. Both can hit one job; its RM diagnostics then still say
   * the AM container exited 0, which in SLS only its AM's last step does
   * (NMSimulator.cleanupContainer; the AM container has no lifetime of its
   * own). Returns {jobs that ran to their end, of them failed by the RM}.
   */
  static int[] ranToEnd(ResourceManager rm, Set<String> timed) {
    int done = 0;
    int failedByRm = 0;
    for (RMApp app : rm.getRMContext().getRMApps().values()) {
      boolean ok = app.getState() == RMAppState.FINISHED
          && app.getFinalApplicationStatus() == FinalApplicationStatus.SUCCEEDED;
      boolean raced = app.getState() == RMAppState.FAILED
          && amExitedAfterLastStep(String.valueOf(app.getDiagnostics()));
      if (ok || raced || timed.contains(app.getApplicationId().toString())) {
        done++;
        failedByRm += ok ? 0 : 1;
      }
    }
    return new int[] {done, failedByRm};
  }

  private static final java.util.regex.Pattern AM_EXIT_0 =
      java.util.regex.Pattern.compile("AM Container for \\S+ exited with\\s+exitCode: 0\\b");

  /** The RM failed the app because its AM container exited with code 0. */
  static boolean amExitedAfterLastStep(String diagnostics) {
    return AM_EXIT_0.matcher(diagnostics).find();
  }

  static Map<String, Object> result(Args a, int apps, int remaining, int[] ranToEnd,
      ResourceScheduler s, List<double[]> runs, double wall) {
    QueueMetrics m = s.getRootQueueMetrics();
    long node = m.getAggregateNodeLocalContainersAllocated();
    long rack = m.getAggregateRackLocalContainersAllocated();
    long off = m.getAggregateOffSwitchContainersAllocated();
    long all = node + rack + off;
    double[] jct = new double[runs.size()];
    double first = Double.MAX_VALUE;
    double end = 0;
    for (int i = 0; i < jct.length; i++) {
      jct[i] = (runs.get(i)[1] - runs.get(i)[0]) / 1000.0;
      first = Math.min(first, runs.get(i)[0]);
      end = Math.max(end, runs.get(i)[1]);
    }
    Arrays.sort(jct);
    double sum = 0;
    for (double j : jct) {
      sum += j;
    }
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("scheduler", a.scheduler);
    r.put("policy", a.scheduler.contains("spindle") ? a.policy : "");
    r.put("jobs", apps);
    r.put("jobs_finished", ranToEnd[0]);
    // Of them, failed by the RM after every task ran (SLS's AM container race).
    r.put("jobs_failed_by_rm", ranToEnd[1]);
    // Jobs with a row in SLS's jobruntime.csv: the JCT figures are over these.
    r.put("jobs_timed", runs.size());
    r.put("remaining_apps", remaining);
    r.put("nodes", s.getNumClusterNodes());
    r.put("mean_jct_s", round(jct.length == 0 ? 0 : sum / jct.length, 2));
    r.put("p50_jct_s", round(quantile(jct, 0.5), 2));
    r.put("p90_jct_s", round(quantile(jct, 0.9), 2));
    r.put("makespan_s", round(jct.length == 0 ? 0 : (end - first) / 1000.0, 2));
    r.put("containers", all);
    // Over the simulated span (first job start to last job end), not the JVM's wall time.
    double span = jct.length == 0 ? 0 : (end - first) / 1000.0;
    r.put("containers_per_s", round(span <= 0 ? 0 : all / span, 1));
    r.put("node_local_containers", node);
    r.put("rack_local_containers", rack);
    r.put("off_switch_containers", off);
    r.put("node_local", frac(node, all));
    r.put("rack_local", frac(rack, all));
    r.put("off_switch", frac(off, all));
    SchedulerMetrics sm = s instanceof SchedulerWrapper
        ? ((SchedulerWrapper) s).getSchedulerMetrics() : null;
    if (sm != null) {
      timer(r, "allocate", SlsAccess.allocateTimer(sm));
      timer(r, "heartbeat", SlsAccess.handleTimer(sm, SchedulerEventType.NODE_UPDATE));
      timer(r, "handle", SlsAccess.handleTimer(sm));
    }
    if (s instanceof SpindleScheduler) {
      SpindleScheduler sp = (SpindleScheduler) s;
      long cn = CountingCore.GRANTED[0].get();
      long cr = CountingCore.GRANTED[1].get();
      long co = CountingCore.GRANTED[2].get();
      long call = cn + cr + co;
      r.put("core_ask_updates", CountingCore.ASK_UPDATES.get());
      r.put("core_heartbeats", CountingCore.HEARTBEATS.get());
      r.put("core_grants", call);
      r.put("core_node_local", frac(cn, call));
      r.put("core_rack_local", frac(cr, call));
      r.put("core_off_switch", frac(co, call));
      r.put("fallback_heartbeats", sp.getFallbackHeartbeats());
      r.put("core_errors", sp.getCoreErrors());
    }
    // The CapacityScheduler mode: whether Spindle's allocator placed the containers.
    Map<String, Object> cs = s instanceof SpindleCapacityScheduler
        ? CsRuntime.counters(((SpindleCapacityScheduler) s).getRMContext()) : null;
    if (cs != null) {
      r.put("core_ask_updates", CountingCore.ASK_UPDATES.get());
      for (String k : new String[] {"GrantsNodeLocal",
          "GrantsRackLocal", "GrantsOffSwitch", "GrantsOnPlan", "GrantsOffPlan", "Vetoes",
          "CoreErrors"}) {
        r.put("cs_" + k, ((Number) cs.get(k)).longValue());
      }
    }
    r.put("earlier_failed_runs", a.earlierFailures);
    r.put("wall_s", round(wall, 1));
    return r;
  }

  /** p50, p99 and mean of one of SLS's timers, in us, with its count. */
  private static void timer(Map<String, Object> r, String name, Timer t) {
    if (t == null) {
      return;
    }
    Snapshot s = t.getSnapshot();
    r.put(name + "_count", t.getCount());
    r.put(name + "_mean_us", round(s.getMean() / 1e3, 1));
    r.put(name + "_p50_us", round(s.getMedian() / 1e3, 1));
    r.put(name + "_p99_us", round(s.get99thPercentile() / 1e3, 1));
    r.put(name + "_max_us", round(s.getMax() / 1e3, 1));
  }

  static double quantile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    return sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)];
  }

  private static double frac(long part, long all) {
    return all == 0 ? 0 : round((double) part / all, 3);
  }

  private static double round(double v, int digits) {
    double p = Math.pow(10, digits);
    return Math.round(v * p) / p;
  }

  /**
   * Jobs arriving 1 s apart, each of {@code maps} maps of {@code taskMs},
   * every map naming one host (its block's first replica), as SLS then asks
   * (host, rack, ANY); nodes in racks of 20. The format is
   * SchedulerLoadSimulator.md's (hadoop-sls's inputsls.json).
   */
  static void writeTrace(int nodes, int jobs, int maps, int taskMs, Random rnd, Path nodeFile,
      Path trace) throws IOException {
    ObjectMapper json = new ObjectMapper();
    writeNodes(nodes, nodeFile);
    StringBuilder tb = new StringBuilder();
    for (int j = 0; j < jobs; j++) {
      Map<String, Object> job = new LinkedHashMap<>();
      job.put("am.type", "mapreduce");
      job.put("job.start.ms", j * 1000L);
      job.put("job.queue.name", "default");
      job.put("job.id", "job_" + j);
      job.put("job.user", "bench");
      List<Map<String, Object>> tasks = new ArrayList<>();
      for (int m = 0; m < maps; m++) {
        int n = rnd.nextInt(nodes);
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("container.host", "/rack" + (n / PER_RACK) + "/node" + n);
        t.put("container.duration.ms", taskMs);
        t.put("container.priority", 20);
        t.put("container.type", "map");
        tasks.add(t);
      }
      job.put("job.tasks", tasks);
      tb.append(json.writeValueAsString(job)).append('\n');
    }
    Files.write(trace, tb.toString().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The simulated NodeManagers' host names, as SLS will make them: from the
   * node file, else SYNTH's {@code num_nodes} (SLSUtils.generateNodes names
   * them node0..), else the SLS trace's {@code container.host}s and
   * {@code num.nodes}. A Rumen trace needs a node file.
   */
  static Set<String> hostNames(String traceType, Path trace, Path nodeFile) throws IOException {
    Set<String> hosts = new LinkedHashSet<>();
    ObjectMapper json = new ObjectMapper();
    if (nodeFile != null) {
      try (MappingIterator<JsonNode> it = json.readerFor(JsonNode.class).readValues(nodeFile.toFile())) {
        while (it.hasNextValue()) {
          for (JsonNode n : it.nextValue().path("nodes")) {
            hosts.add(n.path("node").asText());
          }
        }
      }
    } else if (traceType.equals("SYNTH")) {
      generated(hosts, json.readTree(trace.toFile()).path("num_nodes").asInt());
    } else if (traceType.equals("SLS")) {
      for (Map<String, Object> job : SlsTrace.read(trace)) {
        for (Object t : (List<?>) job.get("job.tasks")) {
          Object h = ((Map<?, ?>) t).get("container.host");
          if (h != null) {
            String s = h.toString();
            hosts.add(s.substring(s.lastIndexOf('/') + 1));
          }
        }
      }
      try (MappingIterator<JsonNode> it = json.readerFor(JsonNode.class).readValues(trace.toFile())) {
        while (it.hasNextValue()) {
          generated(hosts, it.nextValue().path("num.nodes").asInt());
        }
      }
    } else {
      throw new IOException("a " + traceType + " trace needs --node-file (the nodes to simulate)");
    }
    hosts.remove("");
    return hosts;
  }

  private static void generated(Set<String> hosts, int n) {
    for (int i = 0; i < n; i++) {
      hosts.add("node" + i);
    }
  }

  /** An SLS node file: node0.. in racks of 20 (rack0..), SLS's default resources. */
  static void writeNodes(int nodes, Path nodeFile) throws IOException {
    ObjectMapper json = new ObjectMapper();
    StringBuilder nb = new StringBuilder();
    int racks = (nodes + PER_RACK - 1) / PER_RACK;
    for (int r = 0; r < racks; r++) {
      Map<String, Object> rack = new LinkedHashMap<>();
      rack.put("rack", "rack" + r);
      List<Map<String, Object>> list = new ArrayList<>();
      for (int n = r * PER_RACK; n < Math.min(nodes, (r + 1) * PER_RACK); n++) {
        list.add(Map.of("node", "node" + n));
      }
      rack.put("nodes", list);
      nb.append(json.writeValueAsString(rack)).append('\n');
    }
    Files.write(nodeFile, nb.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** (simulate start, simulate end) ms of each job in SLS's jobruntime.csv. */
  /** SLS's jobruntime.csv: app id to {simulated start, end} ms. */
  static Map<String, double[]> jobRuntimes(Path csv) throws IOException {
    Map<String, double[]> out = new LinkedHashMap<>();
    if (!Files.exists(csv)) {
      return out;
    }
    for (String line : Files.readAllLines(csv, StandardCharsets.UTF_8)) {
      String[] f = line.split(",");
      if (f.length < 5 || f[0].equals("JobID")) {
        continue;
      }
      try {
        out.put(f[0].trim(),
            new double[] {Double.parseDouble(f[3].trim()), Double.parseDouble(f[4].trim())});
      } catch (NumberFormatException e) {
        // a line being written
      }
    }
    return out;
  }
}
