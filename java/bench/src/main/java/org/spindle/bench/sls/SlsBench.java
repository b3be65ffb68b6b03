package org.spindle.bench.sls;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.sls.RMRunner;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.spindle.bench.rm.BenchRun;

/**
 * One scheduler in Hadoop's Scheduler Load Simulator (hadoop-sls, in this
 * JVM): a generated SLS trace of MapReduce-like jobs whose maps name a
 * host ({@code container.host}), simulated NodeManagers in racks of 20,
 * SLS's own AM simulators; then the jobs' run times (SLS's
 * jobruntime.csv) and the root queue's node-local / rack-local / off-switch
 * counters, as JSON.
 *
 * <p>NOT WORKING YET (issue 23, part 2; see /work/helpers/rmbench-note.md):
 * on 3.4.2 {@code SLSRunner.start} casts the scheduler to SLS's
 * {@code SchedulerWrapper} (ClassCastException for SpindleScheduler: an
 * {@code org.spindle.yarn.sls.SLSSpindleScheduler} wrapper is needed), and
 * SLS's AMRunner refused every job of the generated trace ("Cannot
 * deserialize value of type String from Array"): compare {@link #writeTrace}
 * with hadoop-sls's src/test/resources/inputsls.json. The JVM needs
 * {@code --add-opens java.base/java.lang=ALL-UNNAMED} (Guice in the RM webapp).
 *
 * <pre>
 *   SlsBench --scheduler capacity|fair|spindle --nodes N --jobs J --maps M
 *            --task-ms T --out DIR [--policy P] [--seed S]
 * </pre>
 */
public final class SlsBench {
  private SlsBench() {}


  static final int PER_RACK = 20;

  public static void main(String[] args) throws Exception {
    String scheduler = "capacity";
    int nodes = 50;
    int jobs = 10;
    int maps = 40;
    int taskMs = 10_000;
    long seed = 1;
    String policy = "asm1";
    Path out = Paths.get("target/sls-bench");
    for (int i = 0; i + 1 < args.length; i += 2) {
      String v = args[i + 1];
      switch (args[i]) {
        case "--scheduler":
          scheduler = v;
          break;
        case "--nodes":
          nodes = Integer.parseInt(v);
          break;
        case "--jobs":
          jobs = Integer.parseInt(v);
          break;
        case "--maps":
          maps = Integer.parseInt(v);
          break;
        case "--task-ms":
          taskMs = Integer.parseInt(v);
          break;
        case "--seed":
          seed = Long.parseLong(v);
          break;
        case "--policy":
          policy = v;
          break;
        case "--out":
          out = Paths.get(v);
          break;
        default:
          fail("unknown argument \"" + args[i] + "\"");
      }
    }
    if (args.length % 2 != 0) {
      fail("every argument takes a value: " + String.join(" ", args));
    }
    String cls = BenchRun.SCHEDULERS.get(scheduler);
    if (cls == null) {
      fail("--scheduler: one of " + BenchRun.SCHEDULERS.keySet() + ", got \"" + scheduler + "\"");
    }
    if (nodes < 1 || nodes > 100_000 || jobs < 1 || jobs > 10_000 || maps < 1
        || maps > 100_000 || taskMs < 1 || taskMs > 3_600_000) {
      fail("out of range: --nodes 1..100000, --jobs 1..10000, --maps 1..100000,"
          + " --task-ms 1..3600000");
    }
    Path dir = out.resolve(scheduler);
    Files.createDirectories(dir);
    Path nodeFile = dir.resolve("nodes.json");
    Path trace = dir.resolve("trace.json");
    writeTrace(nodes, jobs, maps, taskMs, new Random(seed), nodeFile, trace);

    Configuration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RM_SCHEDULER, cls);
    conf.set("yarn.scheduler.capacity.root.queues", "default");
    conf.set("yarn.scheduler.capacity.root.default.capacity", "100");
    conf.set("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5");
    conf.set("spindle.policy", policy);
    String lib = System.getProperty("spindle.library.path", "");
    if (!lib.isEmpty()) {
      conf.set("spindle.library.path", lib);
    }
    // Ephemeral ports: another RM (hadoop-bench) may hold the defaults.
    for (String key : new String[] {YarnConfiguration.RM_ADDRESS,
        YarnConfiguration.RM_SCHEDULER_ADDRESS, YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS,
        YarnConfiguration.RM_ADMIN_ADDRESS, YarnConfiguration.RM_WEBAPP_ADDRESS}) {
      conf.set(key, "127.0.0.1:0");
    }
    conf.setBoolean("yarn.sls.metrics.switch", false);
    conf.setInt("yarn.sls.nm.memory.mb", 8192);
    conf.setInt("yarn.sls.nm.vcores", 8);
    conf.setInt("yarn.sls.runner.pool.size", 20);
    SLSRunner sls = new SLSRunner(conf);
    long t0 = System.nanoTime();
    // slsrun.sh turns --output-dir into these single-dash options.
    int rc = sls.run(new String[] {"-tracetype", "SLS", "-tracelocation", trace.toString(),
        "-nodes", nodeFile.toString(), "-output", dir.resolve("sls").toString()});
    if (rc != 0) {
      fail("SLSRunner returned " + rc);
    }
    // SLS simulates in real time: wait for its apps, bounded by the trace's own length.
    long limitMs = 120_000L + (long) jobs * 2_000 + 20L * taskMs * Math.max(1, maps * jobs / (nodes * 7));
    long deadline = System.currentTimeMillis() + limitMs;
    while (sls.getRemainingApps() > 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(200);
    }
    double wall = (System.nanoTime() - t0) / 1e9;
    Field f = SLSRunner.class.getDeclaredField("rmRunner");
    f.setAccessible(true);
    ResourceManager rm = ((RMRunner) f.get(sls)).getRm();
    QueueMetrics m = rm.getResourceScheduler().getRootQueueMetrics();
    long node = m.getAggregateNodeLocalContainersAllocated();
    long rack = m.getAggregateRackLocalContainersAllocated();
    long off = m.getAggregateOffSwitchContainersAllocated();
    long all = node + rack + off;
    List<double[]> runs = jobRuntimes(dir.resolve("sls").resolve("jobruntime.csv"));
    double sum = 0;
    double end = 0;
    for (double[] r : runs) {
      sum += r[1] - r[0];
      end = Math.max(end, r[1]);
    }
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("scheduler", scheduler);
    r.put("policy", scheduler.equals("spindle") ? policy : "");
    r.put("nodes", nodes);
    r.put("jobs", jobs);
    r.put("maps_per_job", maps);
    r.put("task_ms", taskMs);
    r.put("jobs_finished", runs.size());
    r.put("remaining_apps", sls.getRemainingApps());
    r.put("mean_jct_s", runs.isEmpty() ? 0 : Math.round(sum / runs.size() / 100.0) / 10.0);
    r.put("last_job_end_s", Math.round(end / 100.0) / 10.0);
    r.put("containers", all);
    r.put("node_local", all == 0 ? 0 : Math.round(1000.0 * node / all) / 1000.0);
    r.put("rack_local", all == 0 ? 0 : Math.round(1000.0 * rack / all) / 1000.0);
    r.put("off_switch", all == 0 ? 0 : Math.round(1000.0 * off / all) / 1000.0);
    r.put("wall_s", Math.round(wall * 10) / 10.0);
    String text = new ObjectMapper().writeValueAsString(r);
    Files.write(dir.resolve("result.json"), text.getBytes(StandardCharsets.UTF_8));
    System.out.println(text);
    System.out.flush();
    // SLS's and the RM's threads are not daemons.
    Runtime.getRuntime().halt(runs.size() == jobs ? 0 : 3);
  }

  private static void fail(String why) {
    System.err.println("sls-bench: " + why);
    System.exit(2);
  }

  /**
   * Jobs arriving 1 s apart, each of {@code maps} maps of {@code taskMs},
   * every map naming one host (its block's first replica) as SLS asks
   * (host, rack, ANY); nodes in racks of 20.
   */
  static void writeTrace(int nodes, int jobs, int maps, int taskMs, Random rnd, Path nodeFile,
      Path trace) throws IOException {
    ObjectMapper json = new ObjectMapper();
    StringBuilder nb = new StringBuilder();
    int racks = (nodes + PER_RACK - 1) / PER_RACK;
    for (int r = 0; r < racks; r++) {
      Map<String, Object> rack = new LinkedHashMap<>();
      rack.put("rack", "rack" + r);
      List<Map<String, Object>> list = new ArrayList<>();
      for (int n = r * PER_RACK; n < Math.min(nodes, (r + 1) * PER_RACK); n++) {
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("node", "node" + n);
        list.add(node);
      }
      rack.put("nodes", list);
      nb.append(json.writeValueAsString(rack)).append('\n');
    }
    Files.write(nodeFile, nb.toString().getBytes(StandardCharsets.UTF_8));
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

  /** (simulate start, simulate end) ms of each job in SLS's jobruntime.csv. */
  static List<double[]> jobRuntimes(Path csv) throws IOException {
    List<double[]> out = new ArrayList<>();
    if (!Files.exists(csv)) {
      return out;
    }
    for (String line : Files.readAllLines(csv, StandardCharsets.UTF_8)) {
      String[] f = line.split(",");
      if (f.length < 5 || f[0].equals("JobID")) {
        continue;
      }
      try {
        out.add(new double[] {Double.parseDouble(f[3].trim()), Double.parseDouble(f[4].trim())});
      } catch (NumberFormatException e) {
        // a partial line
      }
    }
    return out;
  }
}
