package org.spindle.bench.sls;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * scripts/sls-bench's report: each scheduler's result.json as a table (or
 * JSON), and the checks: every job finished, the scheduler allocated
 * containers and SLS timed its heartbeats, and for Spindle its core heard the
 * asks, made the grants (no FIFO fallback, no core error) and reported their
 * locality. Last line: {@code sls-bench: N passed, M failed}.
 *
 * <pre>  SlsSummary OUT_DIR SCHEDULER[,SCHEDULER...] text|json</pre>
 */
public final class SlsSummary {
  private SlsSummary() {}

  public static void main(String[] args) throws IOException {
    Path dir = Paths.get(args[0]);
    String[] schedulers = args[1].split(",");
    boolean json = args.length > 2 && args[2].equals("json");
    ObjectMapper mapper = new ObjectMapper();
    ArrayNode runs = mapper.createArrayNode();
    List<String> checks = new ArrayList<>();
    int passed = 0;
    int failed = 0;
    for (String s : schedulers) {
      Path f = dir.resolve(s).resolve("result.json");
      JsonNode r = Files.exists(f) ? mapper.readTree(f.toFile()) : null;
      List<String[]> cs = checks(s, r);
      for (String[] c : cs) {
        boolean ok = c[0] != null;
        checks.add((ok ? "ok   " : "FAIL ") + s + ": " + (ok ? c[0] : c[1]));
        if (ok) {
          passed++;
        } else {
          failed++;
        }
      }
      if (r != null) {
        runs.add(r);
      }
    }
    if (json) {
      ObjectNode o = mapper.createObjectNode();
      o.set("runs", runs);
      System.out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(o));
    } else {
      System.out.println(table(runs));
    }
    Files.write(dir.resolve("sls-bench.json"),
        mapper.writeValueAsString(mapper.createObjectNode().set("runs", runs))
            .getBytes(StandardCharsets.UTF_8));
    for (String c : checks) {
      System.err.println(c);
    }
    System.err.println("sls-bench: " + passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }

  /** Each check as {passed message, null} or {null, failure message}. */
  static List<String[]> checks(String s, JsonNode r) {
    List<String[]> out = new ArrayList<>();
    if (r == null) {
      out.add(new String[] {null, "no result.json (the run failed; see its log)"});
      return out;
    }
    long jobs = r.path("jobs").asLong();
    long done = r.path("jobs_finished").asLong();
    long timed = r.path("jobs_timed").asLong(done);
    long failedByRm = r.path("jobs_failed_by_rm").asLong();
    out.add(check(jobs > 0 && done == jobs && r.path("remaining_apps").asLong() == 0,
        "all " + jobs + " jobs finished" + (timed == done ? "" : ", " + timed + " timed by SLS")
            + (failedByRm == 0 ? "" : ", " + failedByRm
                + " failed by the RM after their last task (SLS's AM container race)")
            + (r.path("earlier_failed_runs").asInt() == 0 ? "" : "; on run "
                + (r.path("earlier_failed_runs").asInt() + 1) + ", the earlier lost a job"),
        done + " of " + jobs + " jobs finished, " + r.path("remaining_apps").asLong()
            + " apps left"));
    long containers = r.path("containers").asLong();
    out.add(check(containers > jobs, containers + " containers allocated",
        containers + " containers allocated for " + jobs + " jobs"));
    out.add(check(r.path("heartbeat_count").asLong() > 0,
        "SLS timed " + r.path("heartbeat_count").asLong() + " node heartbeats",
        "SLS timed no node heartbeat (its metrics are off or the wrapper is missing)"));
    if (r.has("core_grants")) {
      long asks = r.path("core_ask_updates").asLong();
      long grants = r.path("core_grants").asLong();
      out.add(check(asks > 0, "the core heard " + asks + " ask updates", "the core heard no ask"));
      out.add(check(grants > 0 && r.path("fallback_heartbeats").asLong() == 0
              && r.path("core_errors").asLong() == 0,
          "the core granted " + grants + " containers (node-local "
              + r.path("core_node_local").asDouble() + "), no fallback, no core error",
          "core grants " + grants + ", fallback heartbeats " + r.path("fallback_heartbeats")
              + ", core errors " + r.path("core_errors")));
    }
    if (r.has("cs_LiveAllocatorsSeen")) {
      // The most allocators seen at once while jobs ran, sampled every 2 s: a short run can
      // finish between samples, so only the grants (counted by Spindle's allocator) must be > 0.
      long live = r.path("cs_LiveAllocatorsSeen").asLong();
      long foreign = r.path("cs_ForeignAllocatorsSeen").asLong();
      long grants = r.path("cs_GrantsNodeLocal").asLong() + r.path("cs_GrantsRackLocal").asLong()
          + r.path("cs_GrantsOffSwitch").asLong();
      long errors = r.path("cs_CoreErrors").asLong();
      out.add(check(foreign == 0 && grants > 0 && errors == 0,
          "Spindle's allocator placed " + grants + " containers (scheduler keys at once: up to "
              + live + ", none with another allocator), no core error",
          "Spindle's allocator: scheduler keys at once up to " + live + ", " + foreign
              + " with another allocator, "
              + grants + " grants, " + errors + " core errors"));
    }
    return out;
  }

  private static String[] check(boolean ok, String pass, String fail) {
    return ok ? new String[] {pass, null} : new String[] {null, fail};
  }

  static String table(ArrayNode runs) {
    StringBuilder b = new StringBuilder();
    b.append(String.format("%-9s %-6s %6s %5s %9s %9s %8s %8s %6s %6s %6s %9s %9s %9s %9s%n",
        "scheduler", "policy", "nodes", "jobs", "mean JCT", "p90 JCT", "makespan", "cont/s",
        "node", "rack", "off", "hb p50us", "hb p99us", "alloc p50", "alloc p99"));
    for (JsonNode r : runs) {
      b.append(String.format("%-9s %-6s %6d %5d %9.2f %9.2f %8.2f %8.1f %6.3f %6.3f %6.3f %9.1f %9.1f %9.1f %9.1f%n",
          r.path("scheduler").asText(), r.path("policy").asText(), r.path("nodes").asInt(),
          r.path("jobs").asInt(), r.path("mean_jct_s").asDouble(), r.path("p90_jct_s").asDouble(),
          r.path("makespan_s").asDouble(), r.path("containers_per_s").asDouble(),
          r.path("node_local").asDouble(), r.path("rack_local").asDouble(),
          r.path("off_switch").asDouble(), r.path("heartbeat_p50_us").asDouble(),
          r.path("heartbeat_p99_us").asDouble(), r.path("allocate_p50_us").asDouble(),
          r.path("allocate_p99_us").asDouble()));
    }
    return b.toString();
  }
}
