package org.spindle.core;

import java.util.Arrays;
import java.util.Random;

/**
 * Heartbeat decisions through JNI on a core holding 10,000 nodes and 1,000
 * applications with pending asks (30 hosts each, their racks, ANY). Times
 * each call with System.nanoTime after a warm-up that includes the first
 * plan. Last line: "heartbeat p50 X us, p99 Y us, N calls".
 */
public final class JniBench {
  public static void main(String[] args) {
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
      core.heartbeat(0, 1024, 1, 0, out); // the first heartbeat plans
      long planMs = (System.nanoTime() - planStart) / 1_000_000;
      core.containerFinished(0);
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
}
