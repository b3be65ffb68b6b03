package org.spindle.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import static org.spindle.core.TestKit.check;
import static org.spindle.core.TestKit.expect;
import static org.spindle.core.TestKit.finish;
import static org.spindle.core.TestKit.test;

/**
 * JVM tests of the JNI core ({@link TestKit} harness). System properties: spindle.library.path (the .so),
 * spindle.events (a stream recorded by `spindle simulate --record-events`),
 * spindle.events.policy (the policy it was recorded with).
 */
public final class SpindleCoreTest {
  static SpindleCore core(String policy) {
    SpindleCore.Config c = new SpindleCore.Config();
    c.policy = policy;
    return new SpindleCore(c);
  }

  public static void main(String[] args) throws Exception {
    test("differential replay of a recorded simulator stream", SpindleCoreTest::differential);
    test("errors become the right exceptions and leave the state intact", SpindleCoreTest::errors);
    test("8 threads, 1,000,000 calls", SpindleCoreTest::threads);
    test("10,000,000 heartbeats with flat resident memory", SpindleCoreTest::memory);
    test("grants beyond the buffer are drained, not lost", SpindleCoreTest::drain);
    finish();
  }

  /** Every heartbeat of the recorded stream gives, through JNI, the grants the Rust Session gave. */
  static void differential() throws IOException {
    String file = System.getProperty("spindle.events");
    check(file != null, "set -Dspindle.events");
    List<String> lines = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
    int[] out = new int[4 * 256];
    int heartbeats = 0;
    int grants = 0;
    SpindleCore.Config c = new SpindleCore.Config();
    c.policy = System.getProperty("spindle.events.policy", "asm1");
    // The recording planned on the heartbeat: replay the same way.
    c.backgroundPlanning = false;
    try (SpindleCore core = new SpindleCore(c)) {
      for (int i = 0; i < lines.size(); i++) {
        String[] f = lines.get(i).split("\t", -1);
        switch (f[0]) {
          case "add_node":
            core.addNode(f[1], f[2], Long.parseLong(f[3]), Integer.parseInt(f[4]), Double.parseDouble(f[5]));
            break;
          case "remove_node":
            core.removeNode(Integer.parseInt(f[1]));
            break;
          case "update_node":
            core.updateNode(Integer.parseInt(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3]));
            break;
          case "add_app":
            core.addApp(f[1], Double.parseDouble(f[2]), Long.parseLong(f[3]));
            break;
          case "finish_app":
            core.finishApp(Integer.parseInt(f[1]));
            break;
          case "set_app_weight":
            core.setAppWeight(Integer.parseInt(f[1]), Double.parseDouble(f[2]));
            break;
          case "app_progress":
            core.appProgress(Integer.parseInt(f[1]), Float.parseFloat(f[2]), Long.parseLong(f[3]));
            break;
          case "update_ask":
            core.updateAsk(Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3], Integer.parseInt(f[4]),
                Long.parseLong(f[5]), Integer.parseInt(f[6]), f[7].equals("1"));
            break;
          case "input_blocks": {
            String[] tasks = new String[f.length - 3];
            System.arraycopy(f, 3, tasks, 0, tasks.length);
            core.inputBlocks(Integer.parseInt(f[1]), Integer.parseInt(f[2]), tasks);
            break;
          }
          case "container_finished":
            if (f.length > 2) {
              core.containerFinished(Integer.parseInt(f[1]), Integer.parseInt(f[2]));
            } else {
              core.containerFinished(Integer.parseInt(f[1]));
            }
            break;
          case "container_recovered":
            core.containerRecovered(Integer.parseInt(f[1]), Integer.parseInt(f[2]));
            break;
          case "heartbeat": {
            int n = core.heartbeat(Integer.parseInt(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3]),
                Long.parseLong(f[4]), out);
            StringBuilder got = new StringBuilder();
            for (int g = 0; g < n; g++) {
              if (g > 0) {
                got.append(';');
              }
              got.append(out[4 * g]).append(',').append(out[4 * g + 1]).append(',')
                  .append(out[4 * g + 2]).append(',').append(out[4 * g + 3]);
            }
            String want = f.length > 5 ? f[5] : "";
            check(got.toString().equals(want), "line " + (i + 1) + ": JNI gave [" + got + "], Rust gave [" + want + "]");
            heartbeats++;
            grants += n;
            break;
          }
          default:
            throw new AssertionError("line " + (i + 1) + ": unknown event " + f[0]);
        }
      }
    }
    check(heartbeats > 100 && grants > 10, "the stream has heartbeats with grants: " + heartbeats + ", " + grants);
  }

  static void errors() throws Exception {
    try (SpindleCore core = core("greedy-comm")) {
      int node = core.addNode("h1", "/r1", 4096, 4, 1.0);
      int app = core.addApp("application_1_0001", 1.0, 0);
      core.updateAsk(app, 20, "*", 3, 1024, 1, true);
      int[] out = new int[16];

      IllegalArgumentException e = expect(IllegalArgumentException.class,
          () -> core.heartbeat(99, 1024, 1, 0, out));
      check(e.getMessage().equals("node id 99 is not registered"), e.getMessage());
      e = expect(IllegalArgumentException.class, () -> core.updateAsk(app, 20, "h1", -2, 1024, 1, true));
      check(e.getMessage().equals("application \"application_1_0001\", priority 20, resource \"h1\": "
          + "container count must not be negative, got -2"), e.getMessage());
      e = expect(IllegalArgumentException.class, () -> core.addNode("", "/r1", 1024, 1, 1.0));
      check(e.getMessage().equals("node \"\": host name is empty"), e.getMessage());
      e = expect(IllegalArgumentException.class, () -> core.addNode(null, "/r1", 1024, 1, 1.0));
      check(e.getMessage().equals("host is null"), e.getMessage());
      e = expect(IllegalArgumentException.class, () -> core.heartbeat(-1, 1024, 1, 0, out));
      check(e.getMessage().equals("node id must not be negative, got -1"), e.getMessage());
      core.setAppWeight(app, 2.5);
      core.appProgress(app, 0.5f, 1000);
      e = expect(IllegalArgumentException.class, () -> core.setAppWeight(app, Double.NaN));
      check(e.getMessage().equals("application \"application_1_0001\": weight must be a positive"
          + " finite number, got NaN"), e.getMessage());
      e = expect(IllegalArgumentException.class, () -> core.setAppWeight(app, 0));
      check(e.getMessage().equals("application \"application_1_0001\": weight must be a positive"
          + " finite number, got 0"), e.getMessage());
      e = expect(IllegalArgumentException.class, () -> core.appProgress(app, 1.5f, 1000));
      check(e.getMessage().equals("application \"application_1_0001\": progress must be a finite"
          + " number from 0 to 1, got 1.5"), e.getMessage());
      e = expect(IllegalArgumentException.class, () -> core.appProgress(app, Float.NaN, 1000));
      check(e.getMessage().equals("application \"application_1_0001\": progress must be a finite"
          + " number from 0 to 1, got NaN"), e.getMessage());
      e = expect(IllegalArgumentException.class, () -> core.appProgress(app, 0.5f, -1));
      check(e.getMessage().equals("application \"application_1_0001\": progress report time must"
          + " not be negative, got -1 ms"), e.getMessage());
      e = expect(IllegalArgumentException.class, () -> core.appProgress(7, 0.5f, 0));
      check(e.getMessage().equals("application id 7 is not registered"), e.getMessage());
      e = expect(IllegalArgumentException.class, () -> core.setAppWeight(-1, 2));
      check(e.getMessage().equals("application id must not be negative, got -1"), e.getMessage());
      IllegalStateException s = expect(IllegalStateException.class, core::panicForTest);
      check(s.getMessage().equals("internal error in the spindle core: forced panic for a test (node 42)"),
          s.getMessage());
      // The state is intact: the ask is still there and is granted.
      int n = core.heartbeat(node, 1024, 1, 0, out);
      check(n == 1 && out[0] == app && out[1] == 20 && out[2] == 1 && out[3] == SpindleCore.OFF_SWITCH,
          "grant after the errors: " + n);
      core.close();
      s = expect(IllegalStateException.class, () -> core.heartbeat(node, 1024, 1, 0, out));
      check(s.getMessage().equals("the spindle core is closed"), s.getMessage());
      core.close(); // twice is harmless
    }
  }

  /** Concurrent heartbeats and completions: every asked container is granted exactly once. */
  static void threads() throws Exception {
    final int threads = 8;
    final int callsPerThread = 125_000;
    final int asked = 200_000;
    try (SpindleCore core = core("greedy-comm")) {
      int[] nodes = new int[threads * 4];
      for (int i = 0; i < nodes.length; i++) {
        nodes[i] = core.addNode("h" + i, "/r" + (i % 2), 2048, 2, 1.0);
      }
      int app = core.addApp("application_1_0002", 1.0, 0);
      core.updateAsk(app, 20, "*", asked, 1024, 1, true);
      AtomicLong granted = new AtomicLong();
      List<Throwable> errors = new ArrayList<>();
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        final int first = t * 4;
        Thread w = new Thread(() -> {
          int[] out = new int[16];
          try {
            for (int c = 0; c < callsPerThread; c += 2) {
              int node = nodes[first + (c / 2) % 4];
              int n = core.heartbeat(node, 1024, 1, c, out);
              for (int g = 0; g < n; g++) {
                granted.addAndGet(out[4 * g + 2]);
                for (int k = 0; k < out[4 * g + 2]; k++) {
                  core.containerFinished(node);
                }
              }
            }
          } catch (Throwable e) {
            synchronized (errors) {
              errors.add(e);
            }
          }
        });
        workers.add(w);
        w.start();
      }
      for (Thread w : workers) {
        w.join();
      }
      check(errors.isEmpty(), "errors: " + errors);
      check(granted.get() == Math.min(asked, threads * callsPerThread / 2),
          "granted " + granted.get() + " containers");
    }
  }

  static long rssKb() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  static void memory() throws Exception {
    try (SpindleCore core = core("asm1")) {
      for (int i = 0; i < 50; i++) {
        core.addNode("h" + i, "/r" + (i % 5), 8192, 8, 1.0);
      }
      int app = core.addApp("application_1_0003", 1.0, 0);
      for (int i = 0; i < 50; i++) {
        core.updateAsk(app, 20, "h" + i, 30_000, 1024, 1, true);
      }
      core.updateAsk(app, 20, "*", 500_000, 1024, 1, true);
      int[] out = new int[64];
      for (int i = 0; i < 200_000; i++) {
        heartbeatAndFinish(core, i % 50, out);
      }
      System.gc();
      long before = rssKb();
      for (int i = 0; i < 10_000_000; i++) {
        heartbeatAndFinish(core, i % 50, out);
      }
      System.gc();
      long after = rssKb();
      System.out.println("     RSS before " + before + " kB, after " + after + " kB (10,000,000 heartbeats)");
      check(after - before < 32 * 1024, "resident memory grew by " + (after - before) + " kB");
    }
  }

  private static void heartbeatAndFinish(SpindleCore core, int node, int[] out) {
    int n = core.heartbeat(node, 1024, 1, 0, out);
    for (int g = 0; g < n; g++) {
      for (int k = 0; k < out[4 * g + 2]; k++) {
        core.containerFinished(node);
      }
    }
  }

  static void drain() throws Exception {
    SpindleCore.Config c = new SpindleCore.Config();
    c.policy = "greedy-comm";
    // ANY-only asks: the default off-switch limit (1) would end the heartbeat
    // after one grant; this test is about the buffer, not that rule.
    c.maxOffSwitchPerHeartbeat = 100;
    try (SpindleCore core = new SpindleCore(c)) {
      int node = core.addNode("big", "/r1", 1024 * 10, 10, 1.0);
      for (int a = 0; a < 5; a++) {
        int app = core.addApp("application_1_01" + a, 1.0, a);
        core.updateAsk(app, 20, "*", 2, 1024, 1, true);
      }
      int[] small = new int[2 * SpindleCore.GRANT_INTS];
      int n = core.heartbeat(node, 1024 * 10, 10, 0, small);
      check(n == 5, "five grants, one per app: " + n);
      int[] rest = new int[16 * SpindleCore.GRANT_INTS];
      int m = core.drain(rest);
      check(m == 3, "three more drained: " + m);
      int total = small[2] + small[6];
      for (int g = 0; g < m; g++) {
        total += rest[4 * g + 2];
      }
      check(total == 10, "ten containers in all: " + total);
      check(core.drain(rest) == 0, "nothing left");
    }
  }
}
