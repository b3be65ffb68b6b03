package org.spindle.core;

import java.io.File;
import java.nio.file.Files;

/**
 * A JVM with the core loaded keeps serving heartbeats while scripts/build-plugin
 * and scripts/install-plugin replace its jar and library (scripts/test runs
 * them beside it). Copying over a mapped library truncates the file the JVM
 * executes: the next call into it dies with SIGBUS. The scripts write a new
 * file and rename it into place, so this JVM keeps its mapped copy.
 *
 * <pre>java -cp spindle-yarn.jar:DIR -Dspindle.library.path=LIB \
 *     org.spindle.core.ServeWhileReplaced READY_FILE STOP_FILE</pre>
 *
 * Serves heartbeats in a loop, touches READY_FILE once serving, and stops
 * when STOP_FILE appears (at most 30 minutes). Then it checks that
 * heartbeats went on the whole time, that a class it had not loaded yet
 * still loads from its jar, and that a new core starts from its library.
 */
public final class ServeWhileReplaced {
  private static final String[] HOSTS = {"h1", "h2", "h3", "h4"};
  private static final long LIMIT_MS = 30 * 60 * 1000L;

  private ServeWhileReplaced() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: ServeWhileReplaced READY_FILE STOP_FILE");
      System.exit(2);
    }
    File ready = new File(args[0]);
    File stop = new File(args[1]);
    SpindleCore.load(System.getProperty("spindle.library.path"));
    long[] served = {0};
    long[] longestGapMs = {0};
    TestKit.test("heartbeats go on while the jar and the library are replaced", () -> {
      try (SpindleCore core = new SpindleCore(new SpindleCore.Config())) {
        int[] nodes = new int[HOSTS.length];
        for (int i = 0; i < HOSTS.length; i++) {
          nodes[i] = core.addNode(HOSTS[i], "/r" + (i % 2), 2048, 4, 1.0);
        }
        int app = core.addApp("application_1_0001_000001", 1.0, 0);
        int[] out = new int[SpindleCore.GRANT_INTS * 64];
        long start = System.currentTimeMillis();
        long last = start;
        long granted = 0;
        boolean readyWritten = false;
        while (!stop.exists()) {
          long now = System.currentTimeMillis();
          TestKit.check(now - start < LIMIT_MS, "no stop file after " + LIMIT_MS / 60000 + " min");
          if (served[0] % 200 == 0) {
            // Absolute counts, as an AM re-sends them: the asks never run dry.
            for (String h : HOSTS) {
              core.updateAsk(app, 20, h, 100, 512, 1, true);
            }
            core.updateAsk(app, 20, "/r0", 200, 512, 1, true);
            core.updateAsk(app, 20, "/r1", 200, 512, 1, true);
            core.updateAsk(app, 20, "*", 400, 512, 1, true);
          }
          int node = nodes[(int) (served[0] % nodes.length)];
          int n = core.heartbeat(node, 2048, 4, now, out);
          for (int g = 0; g < n; g++) {
            int count = out[g * SpindleCore.GRANT_INTS + 2];
            granted += count;
            for (int c = 0; c < count; c++) {
              core.containerFinished(node, app);
            }
          }
          served[0]++;
          longestGapMs[0] = Math.max(longestGapMs[0], now - last);
          last = now;
          if (!readyWritten && served[0] >= 1000) {
            TestKit.check(granted > 0, "the core granted nothing in 1000 heartbeats");
            Files.write(ready.toPath(), new byte[0]);
            readyWritten = true;
          }
          if (served[0] % 8 == 0) {
            Thread.sleep(1); // leave the scripts a core of the machine
          }
        }
        TestKit.check(readyWritten, "stopped before it was serving");
        TestKit.check(longestGapMs[0] < 10_000,
            "a heartbeat waited " + longestGapMs[0] + " ms for the previous one");
      }
    });
    System.out.println("heartbeats served: " + served[0] + ", longest gap " + longestGapMs[0]
        + " ms");
    TestKit.test("a class not loaded yet still loads from the replaced jar", () -> {
      Class<?> c = Class.forName("org.spindle.yarn.SpindleSettings");
      Object s = c.getMethod("read", java.util.function.Function.class)
          .invoke(null, (java.util.function.Function<String, String>) k -> null);
      TestKit.check(s != null, "SpindleSettings.read returned null");
    });
    TestKit.test("a new core starts from the library it loaded", () -> {
      try (SpindleCore core = new SpindleCore(new SpindleCore.Config())) {
        int node = core.addNode("h9", "/r9", 1024, 1, 1.0);
        TestKit.check(node >= 0, "no node id");
      }
    });
    TestKit.finish();
  }
}
