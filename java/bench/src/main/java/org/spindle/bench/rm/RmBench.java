package org.spindle.bench.rm;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * scripts/rm-bench: the whole scheduler's cost per node heartbeat inside the
 * ResourceManager, for each scheduler and cluster size, one real scheduler
 * per JVM ({@link BenchRun}), one after the other on this machine.
 *
 * <pre>
 *   RmBench [--nodes 1000,10000] [--schedulers capacity,fair,spindle,capacity-spindle]
 *           [--seconds 60] [--warmup-seconds 20] [--max-warmup-seconds 600] [--apps N]
 *           [--maps 1200] [--policy asm1] [--quick] [--format text|json] [--out-dir DIR]
 *           [--heap-mb MB]
 *   RmBench --child ... --scheduler S --nodes N --result FILE   (one run, in this JVM)
 * </pre>
 */
public final class RmBench {
  private RmBench() {}

  private static final String USAGE = "usage: rm-bench [--nodes 1000,10000,50000]"
      + " [--schedulers capacity,fair,spindle,capacity-spindle] [--seconds S] [--warmup-seconds S]"
      + " [--max-warmup-seconds S] [--apps N] [--maps N] [--policy P] [--quick]"
      + " [--format text|json] [--out-dir DIR] [--heap-mb MB] [--baseline-jar JAR]";

  public static void main(String[] args) throws Exception {
    BenchRun.Options o = new BenchRun.Options();
    List<Integer> sizes = new ArrayList<>(Arrays.asList(1000, 10000));
    List<String> schedulers = new ArrayList<>(BenchRun.SCHEDULERS.keySet());
    boolean child = false;
    boolean json = false;
    boolean quick = false;
    Path result = null;
    Path outDir = Paths.get("target/rm-bench");
    long heapMb = -1;
    Path baselineJar = null;
    boolean secondsSet = false;
    boolean warmupSet = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      try {
        switch (a) {
          case "--child":
            child = true;
            break;
          case "--scheduler":
            o.scheduler = value(args, ++i, a);
            break;
          case "--result":
            result = Paths.get(value(args, ++i, a));
            break;
          case "--safepoint-log":
            o.safepointLog = Paths.get(value(args, ++i, a));
            break;
          case "--nodes":
            sizes.clear();
            for (String s : value(args, ++i, a).split(",")) {
              sizes.add(positive(s.trim(), a, 2, 200_000));
            }
            o.nodes = sizes.get(0);
            break;
          case "--schedulers":
            schedulers.clear();
            for (String s : value(args, ++i, a).split(",")) {
              if (!BenchRun.SCHEDULERS.containsKey(s.trim())) {
                throw new IllegalArgumentException("--schedulers: unknown scheduler \"" + s
                    + "\"; known: " + String.join(", ", BenchRun.SCHEDULERS.keySet()));
              }
              schedulers.add(s.trim());
            }
            break;
          case "--seconds":
            o.seconds = seconds(value(args, ++i, a), a, 1);
            secondsSet = true;
            break;
          case "--warmup-seconds":
            o.warmupSeconds = seconds(value(args, ++i, a), a, 0);
            warmupSet = true;
            break;
          case "--max-warmup-seconds":
            o.maxWarmupSeconds = seconds(value(args, ++i, a), a, 1);
            break;
          case "--apps":
            o.apps = positive(value(args, ++i, a), a, 1, 100_000);
            break;
          case "--maps":
            o.maps = positive(value(args, ++i, a), a, 1, 100_000);
            break;
          case "--policy":
            o.policy = value(args, ++i, a);
            break;
          case "--app-end":
            o.appEnd = value(args, ++i, a);
            if (!o.appEnd.equals("done") && !o.appEnd.equals("oldest")) {
              throw new IllegalArgumentException(
                  "--app-end: done or oldest, got \"" + o.appEnd + "\"");
            }
            break;
          case "--seed":
            o.seed = positive(value(args, ++i, a), a, 0, Integer.MAX_VALUE);
            break;
          case "--quick":
            quick = true;
            break;
          case "--format":
            String f = value(args, ++i, a);
            if (!f.equals("json") && !f.equals("text")) {
              throw new IllegalArgumentException("--format: json or text, got \"" + f + "\"");
            }
            json = f.equals("json");
            break;
          case "--out-dir":
            outDir = Paths.get(value(args, ++i, a));
            break;
          case "--baseline-jar":
            baselineJar = Paths.get(value(args, ++i, a));
            if (!Files.isRegularFile(baselineJar)) {
              throw new IllegalArgumentException("--baseline-jar: no file " + baselineJar);
            }
            break;
          case "--heap-mb":
            heapMb = positive(value(args, ++i, a), a, 256, 1 << 20);
            break;
          default:
            throw new IllegalArgumentException("unknown argument \"" + a + "\"");
        }
      } catch (IllegalArgumentException e) {
        System.err.println("rm-bench: " + e.getMessage());
        System.err.println(USAGE);
        System.exit(2);
      }
    }
    if (quick) {
      if (!argsHave(args, "--nodes")) {
        sizes = new ArrayList<>(Arrays.asList(200));
        o.nodes = 200;
      }
      if (!secondsSet) {
        o.seconds = 5;
      }
      if (!warmupSet) {
        o.warmupSeconds = 5;
      }
      o.maxWarmupSeconds = Math.min(o.maxWarmupSeconds, 15);
    }
    if (child) {
      runChild(o, result);
      return;
    }
    if (baselineJar != null) {
      // The plugin as built at another revision, run beside this one.
      int at = schedulers.indexOf("spindle");
      schedulers.add(at < 0 ? schedulers.size() : at, BenchRun.BASELINE);
    }
    Files.createDirectories(outDir);
    List<Map<String, Object>> runs = new ArrayList<>();
    for (int nodes : sizes) {
      for (String s : schedulers) {
        Map<String, Object> r = spawn(o, s, nodes, outDir, heapMb, baselineJar);
        runs.add(r);
        if (!json) {
          System.err.println(line(r));
        }
      }
    }
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("runs", runs);
    String text = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(all);
    Files.write(outDir.resolve("rm-bench.json"), text.getBytes(StandardCharsets.UTF_8));
    if (json) {
      System.out.println(text);
    } else {
      System.out.println(table(runs));
    }
    // A run counts as passed when its scheduler ran and allocated under churn.
    int passed = 0;
    for (Map<String, Object> r : runs) {
      Object n = r.get("containers_allocated");
      Object live = r.get("cs_live_allocators");
      Object foreign = r.get("cs_foreign_allocators");
      if (live instanceof Number && (((Number) live).longValue() == 0
          || ((Number) foreign).longValue() > 0)) {
        System.err.println("rm-bench: FAIL " + r.get("scheduler") + " at " + r.get("nodes")
            + " nodes: Spindle's allocator is not the one placing (LiveAllocators " + live
            + ", ForeignAllocators " + foreign + ")");
      } else if ("done".equals(r.get("app_end"))
          && !(r.get("containers_completed_per_s") instanceof Number
              && ((Number) r.get("containers_completed_per_s")).doubleValue() > 0)) {
        System.err.println("rm-bench: FAIL " + r.get("scheduler") + " at " + r.get("nodes")
            + " nodes: no container ran to its end in the window");
      } else if (!r.containsKey("error") && n instanceof Number && ((Number) n).longValue() > 0) {
        passed++;
      } else {
        System.err.println("rm-bench: FAIL " + r.get("scheduler") + " at " + r.get("nodes")
            + " nodes: " + r.getOrDefault("error", "no container allocated in the window"));
      }
    }
    System.err.println("rm-bench: " + passed + " passed, " + (runs.size() - passed) + " failed");
    if (passed < runs.size()) {
      System.exit(1);
    }
  }

  private static boolean argsHave(String[] args, String flag) {
    return Arrays.asList(args).contains(flag);
  }

  private static String value(String[] args, int i, String flag) {
    if (i >= args.length) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return args[i];
  }

  private static int positive(String s, String flag, int min, int max) {
    try {
      long v = Long.parseLong(s);
      if (v < min || v > max) {
        throw new IllegalArgumentException(flag + ": " + s + " is outside " + min + ".." + max);
      }
      return (int) v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": \"" + s + "\" is not a whole number");
    }
  }

  private static double seconds(String s, String flag, double min) {
    try {
      double v = Double.parseDouble(s);
      if (!(v >= min && v <= 86_400)) {
        throw new IllegalArgumentException(flag + ": " + s + " is outside " + min + "..86400 s");
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": \"" + s + "\" is not a number of seconds");
    }
  }

  private static void runChild(BenchRun.Options o, Path result) throws Exception {
    Map<String, Object> r;
    try {
      BenchRun run = new BenchRun(o);
      run.setUp();
      r = run.run();
    } catch (Throwable t) {
      // The RM's non-daemon threads would keep a failed run's JVM alive.
      t.printStackTrace();
      System.err.flush();
      Runtime.getRuntime().halt(1);
      return;
    }
    String text = new ObjectMapper().writeValueAsString(r);
    if (result != null) {
      Files.write(result, text.getBytes(StandardCharsets.UTF_8));
    } else {
      System.out.println(text);
    }
    System.out.flush();
    // The RM's non-daemon threads and shutdown hooks are not the bench's business.
    Runtime.getRuntime().halt(0);
  }

  /** One run in a JVM of its own; its log goes to OUT/SCHED-NODES.log. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> spawn(BenchRun.Options o, String scheduler, int nodes,
      Path outDir, long heapMb, Path baselineJar) throws IOException, InterruptedException {
    String tag = scheduler + "-" + nodes;
    Path result = outDir.resolve(tag + ".json");
    Path log = outDir.resolve(tag + ".log");
    Path safepoints = outDir.resolve(tag + ".safepoints.log");
    Files.deleteIfExists(result);
    long heap = heapMb > 0 ? heapMb : nodes <= 2_000 ? 2_048 : nodes <= 20_000 ? 8_192 : 18_432;
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + heap + "m");
    cmd.add("-Xms" + Math.min(heap, 2_048) + "m");
    cmd.add("-Xlog:disable");
    cmd.add("-Xlog:safepoint:file=" + safepoints + ":uptime:filecount=0");
    for (String opens : new String[] {"java.base/java.lang", "java.base/java.util",
        "java.base/java.util.concurrent", "java.base/java.lang.reflect", "java.base/java.io",
        "java.base/java.net", "java.base/sun.nio.ch", "java.base/java.nio"}) {
      cmd.add("--add-opens");
      cmd.add(opens + "=ALL-UNNAMED");
    }
    String lib = System.getProperty("spindle.library.path", "");
    if (!lib.isEmpty()) {
      cmd.add("-Dspindle.library.path=" + lib);
    }
    // Extra options for each run's JVM, e.g. a JFR recording of the heartbeat thread:
    // RM_BENCH_JAVA_OPTS="-XX:StartFlightRecording=filename=%s.jfr" (%s = the run's tag).
    String extra = System.getenv("RM_BENCH_JAVA_OPTS");
    if (extra != null && !extra.trim().isEmpty()) {
      for (String opt : extra.trim().split("\\s+")) {
        cmd.add(opt.replace("%s", outDir.resolve(tag).toString()));
      }
    }
    cmd.add("-cp");
    String cp = System.getProperty("java.class.path");
    if (scheduler.equals(BenchRun.BASELINE)) {
      List<String> entries = new ArrayList<>();
      for (String e : cp.split(java.io.File.pathSeparator)) {
        entries.add(e.endsWith("spindle-yarn.jar") ? baselineJar.toString() : e);
      }
      cp = String.join(java.io.File.pathSeparator, entries);
    }
    cmd.add(cp);
    cmd.add(RmBench.class.getName());
    cmd.addAll(Arrays.asList("--child", "--scheduler", scheduler, "--nodes", String.valueOf(nodes),
        "--seconds", String.valueOf(o.seconds), "--warmup-seconds", String.valueOf(o.warmupSeconds),
        "--max-warmup-seconds", String.valueOf(o.maxWarmupSeconds), "--maps", String.valueOf(o.maps),
        "--policy", o.policy, "--app-end", o.appEnd, "--seed", String.valueOf(o.seed),
        "--result", result.toString(), "--safepoint-log", safepoints.toString()));
    if (o.apps > 0) {
      cmd.add("--apps");
      cmd.add(String.valueOf(o.apps));
    }
    System.err.println("rm-bench: " + tag + " (log " + log + ")");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    int rc = p.waitFor();
    if (rc != 0 || !Files.exists(result)) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("scheduler", scheduler);
      r.put("nodes", nodes);
      r.put("error", "exit " + rc + "; see " + log);
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      System.err.println("rm-bench: " + tag + " failed (exit " + rc + "); last lines of " + log + ":");
      for (String l : lines.subList(Math.max(0, lines.size() - 30), lines.size())) {
        System.err.println("  " + l);
      }
      return r;
    }
    return new ObjectMapper().readValue(result.toFile(), LinkedHashMap.class);
  }

  private static String line(Map<String, Object> r) {
    if (r.containsKey("error")) {
      return "rm-bench: " + r.get("scheduler") + " at " + r.get("nodes") + " nodes: " + r.get("error");
    }
    return String.format(Locale.ROOT,
        "rm-bench: %s at %s nodes: heartbeat p50 %s us, p99 %s us, %s containers/s (%s completed),"
            + " node-local %s (load %s)", r.get("scheduler"), r.get("nodes"),
        r.get("heartbeat_p50_us"),
        r.get("heartbeat_p99_us"), r.get("containers_per_s"),
        r.getOrDefault("containers_completed_per_s", "-"), r.get("node_local"),
        r.get("load_at_start"));
  }

  static String table(List<Map<String, Object>> runs) {
    StringBuilder b = new StringBuilder();
    b.append("| nodes / apps | scheduler | heartbeat p50 | p99 | p999 | max | max outside pauses"
        + " | CPU p50 | CPU p99"
        + " | heartbeats/s | rounds/s | containers/s | completed/s | node-local | rack-local"
        + " | off-switch"
        + " | allocate p50 | p99 | core share | allocated | GC pauses (max) | load |\n");
    b.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Map<String, Object> r : runs) {
      if (r.containsKey("error")) {
        b.append(String.format("| %s | %s | %s |%n", r.get("nodes"), r.get("scheduler"),
            r.get("error")));
        continue;
      }
      b.append(String.format(Locale.ROOT,
          "| %,d / %,d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s"
              + " | %s | %s ms (%s ms) | %s |%n",
          ((Number) r.get("nodes")).intValue(), ((Number) r.get("apps")).intValue(),
          r.get("scheduler"), r.get("heartbeat_p50_us"), r.get("heartbeat_p99_us"),
          r.get("heartbeat_p999_us"), r.get("heartbeat_max_us"),
          r.get("heartbeat_max_outside_pauses_us"), r.get("heartbeat_cpu_p50_us"),
          r.get("heartbeat_cpu_p99_us"), r.get("heartbeats_per_s"),
          r.get("rounds_per_s"), r.get("containers_per_s"),
          r.getOrDefault("containers_completed_per_s", "-"), r.get("node_local"),
          r.get("rack_local"), r.get("off_switch"), r.get("allocate_p50_us"),
          r.get("allocate_p99_us"), r.getOrDefault("core_share", "-"), r.get("allocated_mean"),
          r.get("gc_pause_total_ms"), r.get("gc_pause_max_ms"), r.get("load_at_start")));
    }
    b.append("(times in us; CPU = the heartbeat's CPU time on its thread; core share = time in Spindle's core calls / heartbeat time;"
        + " allocated = mean share of cluster memory allocated in the window;"
        + " completed = containers that ran to their end, not killed with their app)");
    return b.toString();
  }
}
