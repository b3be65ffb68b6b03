package org.spindle.core;

import static org.spindle.core.TestKit.check;
import static org.spindle.core.TestKit.expect;
import static org.spindle.core.TestKit.test;

import java.util.ArrayList;
import java.util.List;

/**
 * Hostile argument values through the real {@link SpindleCore} (issue 14): huge and negative
 * counts, Integer/Long MIN and MAX, NaN and infinities, empty, null and NUL strings, unknown ids
 * and extra finishes. The JVM must survive every call, each call must return a valid answer or
 * throw IllegalArgumentException / IllegalStateException with a message, and the core must
 * still answer a heartbeat afterwards. System property: spindle.library.path (the .so).
 */
public final class HostileCoreTest {
  private static final int[] INTS = {Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE};
  private static final long[] LONGS = {Long.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE, Long.MAX_VALUE};
  private static final double[] DOUBLES = {Double.NaN, Double.NEGATIVE_INFINITY, -1, 0,
      Double.MIN_VALUE, 1, 1e300, Double.POSITIVE_INFINITY};
  private static final float[] FLOATS = {Float.NaN, Float.NEGATIVE_INFINITY, -1, -0.0f, 0,
      Float.MIN_VALUE, 0.5f, 1, Math.nextUp(1f), Float.MAX_VALUE, Float.POSITIVE_INFINITY};
  private static final String NUL = "h\0st";
  private static final String[] STRINGS = {null, "", NUL, "*", "/rack", "x".repeat(1 << 20)};

  /** A core with two nodes and one app asking for work, and how to probe it. */
  static final class Target implements AutoCloseable {
    final SpindleCore core;
    final int node;
    final int app;
    int calls;
    int thrown;

    Target(String policy) {
      SpindleCore.Config c = new SpindleCore.Config();
      c.policy = policy;
      core = new SpindleCore(c);
      node = core.addNode("probe", "/r1", 8192, 8, 1.0);
      core.addNode("other", "/r1", 8192, 8, 1.0);
      app = core.addApp("application_1_0001", 1.0, 0);
      core.updateAsk(app, 20, "probe", 4, 1024, 1, true);
      core.updateAsk(app, 20, "*", 4, 1024, 1, true);
    }

    /** Runs one hostile call: a valid answer or a clear exception, then the core still serves. */
    void call(String what, TestKit.Body body) {
      calls++;
      try {
        body.run();
      } catch (IllegalArgumentException | IllegalStateException e) {
        thrown++;
        check(e.getMessage() != null && !e.getMessage().isEmpty(), what + ": exception with no message");
      } catch (Throwable t) {
        throw new AssertionError(what + ": " + t, t);
      }
      int[] out = new int[64 * SpindleCore.GRANT_INTS];
      int n = core.heartbeat(node, 0, 0, 0, out);
      check(n == 0, what + ": a heartbeat with no room got " + n + " grants");
    }

    @Override
    public void close() {
      core.close();
    }
  }

  public static void main(String[] args) throws Exception {
    test("every argument of every call at its hostile values", HostileCoreTest::everyArgument);
    test("issue 14 item 1: updateAsk(*, Integer.MAX_VALUE) then heartbeats, every policy",
        HostileCoreTest::hugeAsk);
    test("issue 14 item 3: the accepted-before values are refused with their messages",
        HostileCoreTest::messages);
    test("a closed core throws, and closes twice", HostileCoreTest::closed);
    test("hostile limits are refused when the core is created", HostileCoreTest::limits);
    TestKit.finish();
  }

  static void everyArgument() {
    try (Target t = new Target("asm1-comm")) {
      SpindleCore c = t.core;
      for (String s : STRINGS) {
        t.call("addNode host " + label(s), () -> c.addNode(s, "/r1", 1024, 1, 1.0));
        t.call("addNode rack " + label(s), () -> c.addNode("n-" + label(s), s, 1024, 1, 1.0));
        t.call("addApp " + label(s), () -> c.addApp(s, 1.0, 0));
        t.call("updateAsk resource " + label(s), () -> c.updateAsk(t.app, 20, s, 1, 1024, 1, true));
        t.call("inputBlocks element " + label(s), () -> c.inputBlocks(t.app, 30, new String[] {s}));
      }
      for (long v : LONGS) {
        t.call("addNode memory " + v, () -> c.addNode("m" + v, "/r1", v, 1, 1.0));
        t.call("updateNode memory " + v, () -> c.updateNode(t.node, v, 8));
        t.call("addApp submit " + v, () -> c.addApp("app-submit" + v, 1.0, v));
        t.call("updateAsk memory " + v, () -> c.updateAsk(t.app, 21, "*", 1, v, 1, true));
        t.call("heartbeat memory " + v, () -> c.heartbeat(t.node, v, 1, 0, new int[16]));
        t.call("heartbeat now " + v, () -> c.heartbeat(t.node, 0, 0, v, new int[16]));
      }
      c.updateNode(t.node, 8192, 8);
      for (int v : INTS) {
        t.call("addNode vcores " + v, () -> c.addNode("v" + v, "/r1", 1024, v, 1.0));
        t.call("removeNode " + v, () -> c.removeNode(v == 0 ? 99 : v));
        t.call("updateNode id " + v, () -> c.updateNode(v, 1024, 1));
        t.call("finishApp " + v, () -> c.finishApp(v == 0 ? 99 : v));
        t.call("updateAsk app " + v, () -> c.updateAsk(v, 20, "*", 1, 1024, 1, true));
        t.call("updateAsk priority " + v, () -> c.updateAsk(t.app, v, "*", 1, 1024, 1, true));
        t.call("updateAsk count " + v, () -> c.updateAsk(t.app, 22, "*", v, 1024, 1, true));
        t.call("updateAsk host count " + v, () -> c.updateAsk(t.app, 22, "probe", v, 1024, 1, true));
        t.call("updateAsk rack count " + v, () -> c.updateAsk(t.app, 22, "/r1", v, 1024, 1, true));
        t.call("updateAsk vcores " + v, () -> c.updateAsk(t.app, 23, "*", 1, 1024, v, true));
        t.call("inputBlocks app " + v, () -> c.inputBlocks(v, 20, new String[] {"probe"}));
        t.call("containerFinished " + v, () -> c.containerFinished(v));
        t.call("containerFinished app " + v, () -> c.containerFinished(t.node, v));
        t.call("heartbeat node " + v, () -> c.heartbeat(v, 1024, 1, 0, new int[16]));
        t.call("heartbeat vcores " + v, () -> c.heartbeat(t.node, 1024, v, 0, new int[16]));
      }
      for (double v : DOUBLES) {
        t.call("addNode speed " + v, () -> c.addNode("s" + v, "/r1", 1024, 1, v));
        t.call("addApp weight " + v, () -> c.addApp("app-weight" + v, v, 0));
        t.call("setAppWeight " + v, () -> c.setAppWeight(t.app, v));
      }
      c.setAppWeight(t.app, 1.0);
      for (float v : FLOATS) {
        t.call("appProgress " + v, () -> c.appProgress(t.app, v, 0));
      }
      for (long v : LONGS) {
        t.call("appProgress now " + v, () -> c.appProgress(t.app, 0.5f, v));
      }
      for (int v : INTS) {
        t.call("setAppWeight app " + v, () -> c.setAppWeight(v, 2.0));
        t.call("appProgress app " + v, () -> c.appProgress(v, 0.5f, 0));
      }
      // The CapacityScheduler mode's calls (node decisions, placed containers, the job order).
      for (int v : INTS) {
        t.call("nodeOffers node " + v, () -> c.nodeOffers(v, 1024, 1, 0, 0, new int[16]));
        t.call("nodeOffers vcores " + v, () -> c.nodeOffers(t.node, 1024, v, 0, 0, new int[16]));
        t.call("nodeOffers running " + v, () -> c.nodeOffers(t.node, 1024, 1, v, 0, new int[16]));
        t.call("bookPlaced node " + v, () -> c.bookPlaced(v, t.app, 20, 0, 0));
        t.call("bookPlaced app " + v, () -> c.bookPlaced(t.node, v, 20, 0, 0));
        t.call("bookPlaced priority " + v, () -> c.bookPlaced(t.node, t.app, v, 0, 0));
        t.call("bookPlaced locality " + v, () -> c.bookPlaced(t.node, t.app, 20, v, 0));
        t.call("placedReleased app " + v, () -> c.placedReleased(v, 0));
      }
      for (long v : LONGS) {
        t.call("nodeOffers memory " + v, () -> c.nodeOffers(t.node, v, 1, 0, 0, new int[16]));
        t.call("nodeOffers now " + v, () -> c.nodeOffers(t.node, 0, 0, 0, v, new int[16]));
        t.call("bookPlaced now " + v, () -> c.bookPlaced(t.node, t.app, 20, 2, v));
        t.call("placedReleased now " + v, () -> c.placedReleased(t.app, v));
      }
      t.call("nodeOffers into null", () -> c.nodeOffers(t.node, 1024, 1, 0, 0, null));
      t.call("nodeOffers into int[0]", () -> c.nodeOffers(t.node, 8192, 8, 0, 0, new int[0]));
      t.call("appRanks into null", () -> c.appRanks(null));
      t.call("appRanks into int[0]", () -> c.appRanks(new int[0]));
      t.call("orderSignature", () -> c.orderSignature());
      c.nodeOffers(t.node, 0, 0, 0, 0, new int[16]); // running back to 0
      t.call("weight and progress of a finished app", () -> {
        int a = c.addApp("finished-weight", 1.0, 0);
        c.finishApp(a);
        c.appProgress(a, 0.5f, 0);
      });
      t.call("heartbeat into null", () -> c.heartbeat(t.node, 1024, 1, 0, null));
      t.call("heartbeat into int[0]", () -> c.heartbeat(t.node, 8192, 8, 0, new int[0]));
      t.call("drain into null", () -> c.drain(null));
      t.call("drain into int[3]", () -> c.drain(new int[3]));
      t.call("inputBlocks null", () -> c.inputBlocks(t.app, 20, null));
      t.call("inputBlocks 1,000,000 tasks of no host",
          () -> c.inputBlocks(t.app, 24, new String[1_000_000]));
      String[] many = new String[100_000];
      java.util.Arrays.fill(many, "probe,other,nowhere, ,,");
      t.call("inputBlocks 100,000 tasks", () -> c.inputBlocks(t.app, 25, many));
      t.call("finishApp twice", () -> {
        int a = c.addApp("twice", 1.0, 0);
        c.finishApp(a);
        c.finishApp(a);
      });
      t.call("extra containerFinished", () -> c.containerFinished(t.node));
      check(t.thrown > 0 && t.thrown < t.calls, t.thrown + " of " + t.calls + " calls threw");
      System.out.println("     " + t.calls + " hostile calls, " + t.thrown + " exceptions, JVM alive");
    }
  }

  static void hugeAsk() {
    for (String policy : new String[] {"asm1", "asm1-comm", "hadoop-default", "bar", "greedy"}) {
      for (int count : new int[] {Integer.MAX_VALUE, 100_000_000}) {
        try (Target t = new Target(policy)) {
          SpindleCore c = t.core;
          c.updateAsk(t.app, 5, "*", count, 1024, 1, true);
          c.updateAsk(t.app, 5, "/r1", count, 1024, 1, true);
          int[] out = new int[64 * SpindleCore.GRANT_INTS];
          long granted = 0;
          for (int i = 0; i < 1000; i++) {
            int n = c.heartbeat(i % 2, 8192, 8, i, out);
            for (int g = 0; g < Math.min(n, 64); g++) {
              granted += out[4 * g + 2];
              for (int k = 0; k < out[4 * g + 2]; k++) {
                c.containerFinished(i % 2);
              }
            }
          }
          check(granted > 0, policy + ", count " + count + ": nothing granted");
        }
      }
    }
  }

  static void messages() throws Exception {
    try (Target t = new Target("asm1")) {
      SpindleCore c = t.core;
      List<String> got = new ArrayList<>();
      got.add(expect(IllegalArgumentException.class, () -> c.addNode("h1", "", 1024, 1, 1.0)).getMessage());
      got.add(expect(IllegalArgumentException.class, () -> c.addNode(NUL, "/r1", 1024, 1, 1.0)).getMessage());
      got.add(expect(IllegalArgumentException.class, () -> c.addApp("", 1.0, 0)).getMessage());
      got.add(expect(IllegalArgumentException.class, () -> c.addApp("a", 1.0, -1)).getMessage());
      got.add(expect(IllegalArgumentException.class,
          () -> c.updateAsk(t.app, 20, "", 1, 1024, 1, true)).getMessage());
      got.add(expect(IllegalArgumentException.class,
          () -> c.updateAsk(t.app, 20, "probe", Integer.MAX_VALUE, 1024, 1, true)).getMessage());
      got.add(expect(IllegalArgumentException.class, () -> c.containerFinished(t.node)).getMessage());
      got.add(expect(IllegalArgumentException.class,
          () -> c.setAppWeight(t.app, Double.POSITIVE_INFINITY)).getMessage());
      got.add(expect(IllegalArgumentException.class,
          () -> c.appProgress(t.app, -0.5f, 0)).getMessage());
      got.add(expect(IllegalArgumentException.class,
          () -> c.bookPlaced(t.node, t.app, 20, 7, 0)).getMessage());
      got.add(expect(IllegalArgumentException.class,
          () -> c.nodeOffers(t.node, 1024, 1, -1, 0, new int[16])).getMessage());
      got.add(expect(IllegalArgumentException.class,
          () -> c.nodeOffers(t.node, 1024, 1, 0, 0, null)).getMessage());
      got.add(expect(IllegalArgumentException.class,
          () -> c.bookPlaced(99, t.app, 20, 0, 0)).getMessage());
      String[] want = {
        "node \"h1\": rack name is empty",
        "node \"h\\0st\": host name contains the control character U+0000",
        "application \"\": application id is empty",
        "application \"a\": submit time must not be negative, got -1 ms",
        "application \"application_1_0001\", priority 20, resource \"\": resource name is empty",
        "application \"application_1_0001\", priority 20, resource \"probe\": container count 2147483647 is above the limit max-host-ask (1000000) for one host",
        "node \"probe\": a container finished, but no container granted on this node is running",
        "application \"application_1_0001\": weight must be a positive finite number, got inf",
        "application \"application_1_0001\": progress must be a finite number from 0 to 1, got -0.5",
        "locality must be 0 (node), 1 (rack) or 2 (off-switch), got 7",
        "running container count must not be negative, got -1",
        "offer buffer is null",
        "node id 99 is not registered",
      };
      for (int i = 0; i < want.length; i++) {
        check(want[i].equals(got.get(i)), "message " + i + ": got <" + got.get(i) + ">, want <" + want[i] + ">");
      }
    }
  }

  static void closed() throws Exception {
    Target t = new Target("asm1");
    t.close();
    t.close();
    IllegalStateException e = expect(IllegalStateException.class,
        () -> t.core.heartbeat(t.node, 1024, 1, 0, new int[16]));
    check(e.getMessage().contains("closed"), e.getMessage());
  }

  static void limits() throws Exception {
    for (int ask : new int[] {Integer.MIN_VALUE, -1, 0}) {
      SpindleCore.Config c = new SpindleCore.Config();
      c.maxHostAsk = ask;
      IllegalArgumentException e = expect(IllegalArgumentException.class, () -> new SpindleCore(c));
      check(e.getMessage().equals("max-host-ask must be at least 1, got " + ask), e.getMessage());
    }
    SpindleCore.Config order = new SpindleCore.Config();
    order.jobOrder = "shortest";
    IllegalArgumentException bad = expect(IllegalArgumentException.class, () -> new SpindleCore(order));
    check(bad.getMessage().startsWith("spindle.job.order must be one of")
        && bad.getMessage().contains("\"shortest\""), bad.getMessage());
    for (String ok : new String[] {"fifo", "weighted-remaining", "spc"}) {
      order.jobOrder = ok;
      new SpindleCore(order).close();
    }
    SpindleCore.Config c = new SpindleCore.Config();
    c.maxPlannedTasks = Long.MIN_VALUE;
    IllegalArgumentException e = expect(IllegalArgumentException.class, () -> new SpindleCore(c));
    check(e.getMessage().startsWith("max-planned-tasks must not be negative"), e.getMessage());
    // Small limits hold: a host ask of 11 is refused at max-host-ask 10.
    SpindleCore.Config small = new SpindleCore.Config();
    small.maxHostAsk = 10;
    small.maxPlannedTasks = 0;
    try (SpindleCore core = new SpindleCore(small)) {
      core.addNode("h1", "/r1", 4096, 4, 1.0);
      int app = core.addApp("a", 1.0, 0);
      core.updateAsk(app, 20, "h1", 10, 1024, 1, true);
      e = expect(IllegalArgumentException.class, () -> core.updateAsk(app, 20, "h1", 11, 1024, 1, true));
      check(e.getMessage().contains("max-host-ask (10)"), e.getMessage());
      core.updateAsk(app, 20, "*", Integer.MAX_VALUE, 1024, 1, true);
      check(core.heartbeat(0, 4096, 4, 0, new int[64]) > 0, "nothing planned, the fallback serves");
    }
  }

  private static String label(String s) {
    if (s == null) {
      return "null";
    }
    return s.length() > 20 ? s.length() + " chars" : "\"" + s.replace("\0", "\\0") + "\"";
  }
}
