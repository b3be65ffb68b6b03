package org.spindle.core;

import java.util.Arrays;
import java.util.Random;

/**
 * Heartbeat decisions through JNI on a core holding 10,000 nodes and 1,000
 * applications with pending asks (30 hosts each, their racks, ANY). Times
 * each call with System.nanoTime after the core's planner thread has planned
 * every task and a warm-up. Last line: "heartbeat p50 X us, p99 Y us, N calls".
 */
public final class JniBench {
  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("--churn")) {
      churn(Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    String policy = args.length > 0 ? args[0] : "asm1";
    int nodes = 10_000;
    int apps = 1_000;
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    SpindleCore.Config config = new SpindleCore.Config();
    config.policy = policy;
    try (SpindleCore core = new SpindleCore(config)) {
      for (int n = 0; n < nodes; n++) {
        core.addNode(String.format("node%05d", n), "/rack" + (n % 100), 8192, 8, 1.0);
      }
      Random rnd = new Random(1);
      for (int a = 0; a < apps; a++) {
        int app = core.addApp("application_1_" + a, 1.0, a);
        int[] racks = new int[100];
        // 30 hosts of 120 containers: 3,600 host entries for 1,200 tasks (3 replicas).
        for (int k = 0; k < 30; k++) {
          int n = rnd.nextInt(nodes);
          core.updateAsk(app, 20, String.format("node%05d", n), 120, 1024, 1, true);
          racks[n % 100] += 120;
        }
        for (int r = 0; r < 100; r++) {
          if (racks[r] > 0) {
            core.updateAsk(app, 20, "/rack" + r, racks[r], 1024, 1, true);
          }
        }
        core.updateAsk(app, 20, "*", 1200, 1024, 1, true);
      }
      int[] out = new int[64 * SpindleCore.GRANT_INTS];
      long planStart = System.nanoTime();
      // The core's planner thread plans; wait for a plan of every task.
      double[] st;
      while ((st = core.planStats()).length > 1 && st[1] < apps * 1_200L
          && System.nanoTime() - planStart < 120_000_000_000L) {
        sleep(1);
      }
      long planMs = (System.nanoTime() - planStart) / 1_000_000;
      // 1.2 M containers are asked for: the warm-up (100,000 calls) and the
      // timed calls all find work, as on a busy cluster.
      int warmup = 100_000;
      long[] times = new long[calls];
      long[] empty = new long[calls];
      int empties = 0;
      long granted = 0;
      for (int i = 0; i < warmup + calls; i++) {
        int node = i % nodes;
        long t0 = System.nanoTime();
        int n = core.heartbeat(node, 1024, 1, i, out);
        long dt = System.nanoTime() - t0;
        if (i >= warmup) {
          times[i - warmup] = dt;
          if (n == 0) {
            empty[empties++] = dt;
          }
        }
        for (int g = 0; g < n; g++) {
          granted += out[4 * g + 2];
          core.containerFinished(node);
        }
      }
      Arrays.sort(times);
      Arrays.sort(empty, 0, empties);
      if (empties > 0) {
        System.out.printf("%d timed calls granted nothing: p50 %.2f us, p99 %.2f us%n", empties,
            empty[empties / 2] / 1000.0, empty[(int) (empties * 0.99)] / 1000.0);
      }
      System.out.println("policy " + policy + ": first plan " + planMs + " ms; " + granted
          + " containers granted in " + (warmup + calls) + " heartbeats (the last " + calls + " timed)");
      System.out.printf("heartbeat p50 %.2f us, p99 %.2f us, %d calls%n",
          times[calls / 2] / 1000.0, times[(int) (calls * 0.99)] / 1000.0, calls);
    }
  }

  /** One application's asks as its AM would send them, scaled to what it still wants. */
  static final class Am {
    final String id;
    int app;
    final int[] hosts = new int[30];
    int pending = 1_200;
    int next;

    Am(String id, Random rnd, int nodes) {
      this.id = id;
      for (int k = 0; k < hosts.length; k++) {
        hosts[k] = rnd.nextInt(nodes);
      }
    }

    /** Registers the app and sends its first asks (30 hosts, their racks, ANY). */
    void submit(SpindleCore core, long now) {
      app = core.addApp(id, 1.0, now);
      int[] racks = new int[100];
      for (int h : hosts) {
        core.updateAsk(app, 20, String.format("node%05d", h), 120, 1024, 1, true);
        racks[h % 100] += 120;
      }
      for (int r = 0; r < 100; r++) {
        if (racks[r] > 0) {
          core.updateAsk(app, 20, "/rack" + r, racks[r], 1024, 1, true);
        }
      }
      core.updateAsk(app, 20, "*", pending, 1024, 1, true);
    }
  }

  /**
   * Issue 11 F: the cluster above under churn. One AM ask update (one host, its rack, ANY) per 10
   * node heartbeats, as AMs heartbeat once a second; one app finishing and one arriving every 500
   * heartbeats. Times every heartbeat and every updateAsk.
   *   --churn [--quick] [--policy P] [--calls N] [--no-background] [--incremental]
   */
  static void churn(String[] args) {
    String policy = "asm1";
    int calls = 1_000_000;
    int nodes = 10_000;
    int apps = 1_000;
    boolean background = true;
    boolean incremental = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick":
          calls = 100_000;
          break;
        case "--policy":
          policy = args[++i];
          break;
        case "--calls":
          calls = Integer.parseInt(args[++i]);
          break;
        case "--no-background":
          background = false;
          break;
        case "--incremental":
          incremental = true;
          break;
        default:
          throw new IllegalArgumentException("unknown argument " + args[i]
              + "; usage: --churn [--quick] [--policy P] [--calls N] [--no-background]"
              + " [--incremental]");
      }
    }
    SpindleCore.Config config = new SpindleCore.Config();
    config.policy = policy;
    config.backgroundPlanning = background;
    config.incrementalPlanning = incremental;
    Random rnd = new Random(1);
    try (SpindleCore core = new SpindleCore(config)) {
      for (int n = 0; n < nodes; n++) {
        core.addNode(String.format("node%05d", n), "/rack" + (n % 100), 8192, 8, 1.0);
      }
      java.util.ArrayDeque<Am> live = new java.util.ArrayDeque<>();
      java.util.HashMap<Integer, Am> byApp = new java.util.HashMap<>();
      int submitted = 0;
      for (int a = 0; a < apps; a++) {
        Am am = new Am("application_1_" + submitted++, rnd, nodes);
        am.submit(core, 0);
        live.add(am);
        byApp.put(am.app, am);
      }
      int[] out = new int[64 * SpindleCore.GRANT_INTS];
      // The first full plan: 1.2 M pending maps on 10,000 nodes.
      long t0 = System.nanoTime();
      double[] st = core.planStats();
      if (background) {
        // A plan may have started while apps were still arriving: wait for one of every task.
        while ((st = core.planStats()).length > 1 && st[1] < apps * 1_200L
            && System.nanoTime() - t0 < 120_000_000_000L) {
          sleep(1);
        }
        st = core.planStats();
        System.out.printf("background re-plan of %d pending maps on %d nodes: %.0f ms (plan time on the planner thread)%n",
            (long) st[1], nodes, st[2]);
      } else {
        core.heartbeat(0, 0, 0, 0, out);
      }
      long firstPlanMs = (System.nanoTime() - t0) / 1_000_000;
      System.out.println("policy " + policy + (background ? ", background planning" : ", planning on the heartbeat")
          + ": first plan of " + (st.length > 1 ? (long) st[1] + " tasks" : "the asks") + " took " + firstPlanMs + " ms");
      long[] hb = new long[calls];
      long[] ask = new long[calls / 10 * 3 + 16];
      int asks = 0;
      long granted = 0;
      int arrivals = 0;
      Am[] ring = live.toArray(new Am[0]);
      int cursor = 0;
      long start = System.nanoTime();
      for (int i = 0; i < calls; i++) {
        int node = (int) ((i * 7919L) % nodes);
        long a = System.nanoTime();
        int n = core.heartbeat(node, 1024, 1, i, out);
        hb[i] = System.nanoTime() - a;
        for (int g = 0; g < n && g < 64; g++) {
          int count = out[4 * g + 2];
          granted += count;
          Am am = byApp.get(out[4 * g]);
          if (am != null) {
            am.pending = Math.max(0, am.pending - count);
          }
          for (int k = 0; k < count; k++) {
            core.containerFinished(node);
          }
        }
        if (i % 10 == 9 && ring.length > 0) {
          // One AM heartbeat: its next host, that host's rack and ANY, scaled to what is left.
          Am am = ring[cursor++ % ring.length];
          if (byApp.get(am.app) == am) {
            int h = am.hosts[am.next++ % am.hosts.length];
            int perHost = (int) Math.round(120.0 * am.pending / 1_200);
            long b = System.nanoTime();
            core.updateAsk(am.app, 20, String.format("node%05d", h), perHost, 1024, 1, true);
            ask[asks++] = System.nanoTime() - b;
            b = System.nanoTime();
            core.updateAsk(am.app, 20, "/rack" + (h % 100), perHost, 1024, 1, true);
            ask[asks++] = System.nanoTime() - b;
            b = System.nanoTime();
            core.updateAsk(am.app, 20, "*", am.pending, 1024, 1, true);
            ask[asks++] = System.nanoTime() - b;
          }
        }
        if (i % 500 == 499) {
          Am done = live.poll();
          if (done != null) {
            core.finishApp(done.app);
            byApp.remove(done.app);
          }
          Am am = new Am("application_1_" + submitted++, rnd, nodes);
          am.submit(core, i);
          live.add(am);
          byApp.put(am.app, am);
          arrivals++;
          ring = live.toArray(new Am[0]);
        }
      }
      long wallMs = (System.nanoTime() - start) / 1_000_000;
      Arrays.sort(hb);
      Arrays.sort(ask, 0, asks);
      st = core.planStats();
      System.out.println(granted + " containers granted; " + asks + " ask updates; " + arrivals
          + " apps arrived and finished; " + wallMs + " ms in all");
      if (st.length == 7) {
        System.out.printf("background planner: %d plans, last %d tasks in %.0f ms, longest %.0f ms; longest lock hold: copy %.0f us, install %.0f us%n",
            (long) st[0], (long) st[1], st[2], st[3], st[5], st[6]);
      }
      if (asks > 0) {
        System.out.printf("ask update p50 %.2f us, p99 %.2f us, max %.2f us, %d calls%n",
            ask[asks / 2] / 1000.0, ask[(int) (asks * 0.99)] / 1000.0, ask[asks - 1] / 1000.0, asks);
      }
      System.out.printf("churn heartbeat p50 %.2f us, p99 %.2f us, p999 %.2f us, max %.2f us, %d calls%n",
          hb[calls / 2] / 1000.0, hb[(int) (calls * 0.99)] / 1000.0, hb[(int) (calls * 0.999)] / 1000.0,
          hb[calls - 1] / 1000.0, calls);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
