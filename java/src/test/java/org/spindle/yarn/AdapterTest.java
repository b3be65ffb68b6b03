package org.spindle.yarn;

import org.spindle.core.ForwardingCore;
import static org.spindle.core.TestKit.check;
import static org.spindle.core.TestKit.expect;
import static org.spindle.core.TestKit.finish;
import static org.spindle.core.TestKit.test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.spindle.core.Core;
import org.spindle.core.SpindleCore;

/**
 * Tests of the RM adapter's logic that needs no live ResourceManager: the
 * settings, ask translation (real ResourceRequest records), the core bridge
 * with a real JNI core, with a core that panics and with one that throws on
 * every call, and the FIFO fallback. What only a real RM exercises
 * (container bookkeeping, events, metrics) is in the MockRM tests
 * (TestSpindleScheduler and friends) and in scripts/hadoop-bench.
 */
public final class AdapterTest {
  public static void main(String[] args) throws Exception {
    test("settings: defaults and every key", AdapterTest::settings);
    test("settings: bad values name the key", AdapterTest::badSettings);
    test("conf/spindle-site.xml documents every key with a valid value", AdapterTest::siteFile);
    test("ResourceRequests become core asks", AdapterTest::asks);
    test("weights: priority, spindle.job.weight tags, bad tags fall back", AdapterTest::weights);
    test("bridge: weights and progress reach the core; refusals are logged", AdapterTest::weightBridge);
    test("bridge: core grants reach the sink with app, priority, locality", AdapterTest::bridge);
    test("bridge: a panicking core falls back for one heartbeat, then serves", AdapterTest::panic);
    test("bridge: a core that always throws leaves a FIFO cluster", AdapterTest::broken);
    test("bridge: NodeManagers sharing a host name share one core node", AdapterTest::sharedHost);
    test("bridge: a LinkageError from the library falls back, never escapes", AdapterTest::linkage);
    test("bridge: an app whose asks the core refused is FIFO's alone", AdapterTest::refusedAsks);
    test("fifo: node-local, rack-local, off-switch in app order", AdapterTest::fifoOrder);
    test("fifo: no later priority once one gets nothing; memory bounds", AdapterTest::fifoRules);
    finish();
  }

  static void weights() {
    check(AppWeights.ofPriority(0) == 1 && AppWeights.ofPriority(-5) == 1
        && AppWeights.ofPriority(9) == 10, "priority weights");
    AppWeights.Weight w = AppWeights.of("app_1", 3, null);
    check(w.value == 4 && !w.fromTag && w.warning == null, "no tags: priority 3 weighs 4");
    w = AppWeights.of("app_1", 3, Arrays.asList("nightly", "SPINDLE.JOB.WEIGHT= 0.5 "));
    check(w.value == 0.5 && w.fromTag && w.warning == null, "tag 0.5, any case: " + w.value);
    w = AppWeights.of("app_1", 0, Arrays.asList("spindle.job.weight=2", "spindle.job.weight=2.0"));
    check(w.value == 2 && w.fromTag && w.warning == null, "agreeing tags");
    for (String v : new String[] {"1e6", "1E-6", "+7", ".5", "3."}) {
      w = AppWeights.of("app_1", 0, Arrays.asList("spindle.job.weight=" + v));
      check(w.fromTag && w.value == Double.parseDouble(v), v + " accepted: " + w.value);
    }
    String[][] bad = {
      {"x", "\"x\" is not a number"},
      {"", "\"\" is not a number"},
      {"NaN", "\"NaN\" is not a number"},
      {"Infinity", "\"Infinity\" is not a number"},
      {"2d", "\"2d\" is not a number"},
      {"0x10", "\"0x10\" is not a number"},
      {"0", "weight 0 is outside 1.0E-6 to 1000000.0"},
      {"-1", "weight -1 is outside 1.0E-6 to 1000000.0"},
      {"1e999", "weight 1e999 is outside 1.0E-6 to 1000000.0"},
      {"1000001", "weight 1000001 is outside 1.0E-6 to 1000000.0"},
      {"1e-7", "weight 1e-7 is outside 1.0E-6 to 1000000.0"},
    };
    for (String[] b : bad) {
      w = AppWeights.of("application_1_0007", 2, Arrays.asList("spindle.job.weight=" + b[0]));
      String want = "application application_1_0007: tag \"spindle.job.weight=" + b[0] + "\": "
          + b[1] + "; using the weight of its priority 2, 3.0";
      check(w.value == 3 && !w.fromTag && want.equals(w.warning), b[0] + ": " + w.warning);
    }
    w = AppWeights.of("a", 0, Arrays.asList("spindle.job.weight=3", "spindle.job.weight=2"));
    check(w.value == 1 && !w.fromTag && w.warning.equals("application a: tags"
        + " [spindle.job.weight=2, spindle.job.weight=3] give different weights; using the weight"
        + " of its priority 0, 1.0"), w.warning);
  }

  /** Records the weight and progress calls a bridge makes. */
  static final class WeightLog extends ForwardingCore {
    final List<String> calls = new ArrayList<>();

    WeightLog(Core inner) {
      super(inner);
    }

    @Override
    public int addApp(String appId, double weight, long submitMs) {
      calls.add("add " + appId + " " + weight);
      return super.addApp(appId, weight, submitMs);
    }

    @Override
    public void setAppWeight(int app, double weight) {
      calls.add("weight " + app + " " + weight);
      super.setAppWeight(app, weight);
    }

    @Override
    public void appProgress(int app, float progress, long nowMs) {
      calls.add("progress " + app + " " + progress);
      super.appProgress(app, progress, nowMs);
    }
  }

  static void weightBridge() {
    SpindleCore.Config c = new SpindleCore.Config();
    c.policy = "asm1";
    WeightLog log = new WeightLog(new SpindleCore(c));
    try (CoreBridge b = new CoreBridge(log)) {
      b.appAdded("attempt_A", 2.5, 0);
      b.weightChanged("attempt_A", 4);
      b.progress("attempt_A", 0.5f, 10);
      b.progress("attempt_A", 0.5f, 20); // a repeat: not sent
      b.progress("attempt_A", 0.75f, 30);
      b.weightChanged("unknown", 2);
      b.progress("unknown", 0.5f, 10);
      check(log.calls.equals(Arrays.asList("add attempt_A 2.5", "weight 0 4.0", "progress 0 0.5",
          "progress 0 0.75")), log.calls.toString());
      check(b.coreErrors() == 0, "no errors yet");
      // The core refuses bad values: logged and counted, the app stays the core's.
      b.weightChanged("attempt_A", Double.NaN);
      b.progress("attempt_A", 1.5f, 40);
      check(b.coreErrors() == 2, "two refusals counted: " + b.coreErrors());
      check(!b.isFifoApp("attempt_A"), "the app stays the core's");
    }
  }

  static void settings() {
    SpindleSettings d = SpindleSettings.read(k -> null);
    check(d.core.policy.equals("asm1"), d.core.policy);
    check(d.fallback == SpindleSettings.Fallback.FIFO, "fallback " + d.fallback);
    check(d.core.nodeLocalityDelay == 40 && d.core.rackLocalityAdditionalDelay == -1, "delays");
    Map<String, String> m = new HashMap<>();
    m.put(SpindleSettings.POLICY, " hadoop-default ");
    m.put(SpindleSettings.COST_LOCAL, "20");
    m.put(SpindleSettings.COST_REMOTE, "20");
    m.put(SpindleSettings.COST_REMOTE_GROWTH, "1.5");
    m.put(SpindleSettings.NODE_DELAY, "10");
    m.put(SpindleSettings.RACK_ADDITIONAL_DELAY, "5");
    m.put(SpindleSettings.FALLBACK, "none");
    m.put(SpindleSettings.WEBHDFS_ADDRESS, "http://nn:9870");
    m.put(SpindleSettings.LIBRARY_PATH, "/opt/spindle/libspindle_jni.so");
    m.put(SpindleSettings.SEED, "7");
    m.put(SpindleSettings.PLANNING_INCREMENTAL, "true");
    m.put(SpindleSettings.SPLITS_READ, "false");
    m.put(SpindleSettings.SPLITS_THREADS, "4");
    m.put(SpindleSettings.SPLITS_TIMEOUT, "5000");
    SpindleSettings s = SpindleSettings.read(m::get);
    check(d.splitsRead && d.splitsThreads == 2 && d.splitsTimeoutMs == 30_000, "split defaults");
    check(!s.splitsRead && s.splitsThreads == 4 && s.splitsTimeoutMs == 5000, "split settings");
    check(!d.core.incrementalPlanning && s.core.incrementalPlanning, "incremental planning");
    check(s.core.policy.equals("hadoop-default"), s.core.policy);
    check(s.core.costLocal == 20 && s.core.costRemote == 20 && s.core.remoteGrowth == 1.5, "costs");
    check(s.core.nodeLocalityDelay == 10 && s.core.rackLocalityAdditionalDelay == 5, "delays");
    check(s.fallback == SpindleSettings.Fallback.NONE, "fallback");
    check(s.webhdfsAddress.equals("http://nn:9870"), s.webhdfsAddress);
    check(s.libraryPath.equals("/opt/spindle/libspindle_jni.so"), s.libraryPath);
    check(s.core.seed == 7, "seed");
  }

  static void badSettings() throws Exception {
    String[][] cases = {
      {SpindleSettings.COST_LOCAL, "fast", "spindle.cost.local = \"fast\": not a number"},
      {SpindleSettings.COST_REMOTE, "0", "spindle.cost.remote = 0.0: must be greater than 0"},
      {SpindleSettings.COST_REMOTE_GROWTH, "-1", "spindle.cost.remote-growth = -1.0: must not be negative"},
      {SpindleSettings.NODE_DELAY, "-2", "spindle.locality.node-delay = -2: must be at least -1"},
      {SpindleSettings.NODE_DELAY, "4.5", "spindle.locality.node-delay = \"4.5\": not an integer"},
      {SpindleSettings.FALLBACK, "retry", "spindle.fallback = \"retry\": expected \"fifo\" or \"none\""},
      {SpindleSettings.PLANNING_INCREMENTAL, "yes",
          "spindle.planning.incremental = \"yes\": expected true or false"},
      {SpindleSettings.PLANNING_BACKGROUND, "1",
          "spindle.planning.background = \"1\": expected true or false"},
      {SpindleSettings.SPLITS_READ, "on", "spindle.splits.read = \"on\": expected true or false"},
      {SpindleSettings.SPLITS_THREADS, "0", "spindle.splits.threads = 0: must be at least 1"},
      {SpindleSettings.SPLITS_THREADS, "17",
          "spindle.splits.threads = 17: at most 16 (each holds a NameNode connection per read)"},
      {SpindleSettings.SPLITS_TIMEOUT, "50", "spindle.splits.timeout-ms = 50: must be at least 100"},
      {SpindleSettings.WEBHDFS_ADDRESS, "nn:9870", "spindle.webhdfs.address = \"nn:9870\": expected an"
          + " http:// or https:// NameNode address, e.g. http://nn:9870"},
    };
    for (String[] c : cases) {
      IllegalArgumentException e = expect(IllegalArgumentException.class,
          () -> SpindleSettings.read(k -> k.equals(c[0]) ? c[1] : null));
      check(e.getMessage().equals(c[2]), e.getMessage());
    }
  }

  static void siteFile() throws Exception {
    java.io.File f = new java.io.File(System.getProperty("spindle.site", "conf/spindle-site.xml"));
    org.w3c.dom.Document doc =
        javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(f);
    org.w3c.dom.NodeList props = doc.getElementsByTagName("property");
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < props.getLength(); i++) {
      org.w3c.dom.Element p = (org.w3c.dom.Element) props.item(i);
      String name = p.getElementsByTagName("name").item(0).getTextContent().trim();
      String description = p.getElementsByTagName("description").item(0).getTextContent().trim();
      check(!description.isEmpty(), name + " has no description");
      values.put(name, p.getElementsByTagName("value").item(0).getTextContent());
    }
    for (String key : SpindleSettings.KEYS) {
      check(values.containsKey(key), f + " does not document " + key);
    }
    // Keys only the spindle CLI reads (rust/hadoop), documented in the same file.
    values.keySet().removeAll(Arrays.asList(
        "spindle.webhdfs.connect-timeout", "spindle.webhdfs.read-timeout"));
    check(values.size() == SpindleSettings.KEYS.length, "unknown keys in " + f + ": " + values.keySet());
    SpindleSettings s = SpindleSettings.read(values::get); // the example values are valid
    check(s.core.policy.equals("asm1"), "example policy " + s.core.policy);
  }

  static ResourceRequest request(int priority, String name, int count, long mb, boolean relax) {
    return ResourceRequest.newInstance(Priority.newInstance(priority), name,
        Resource.newInstance(mb, 1), count, relax);
  }

  /** The MR AM's asks for 2 maps on h1/h2 (rack /r1) and 1 reducer (facts file section 3). */
  static List<ResourceRequest> mrAsks() {
    return Arrays.asList(request(20, "h1", 1, 1024, true), request(20, "h2", 1, 1024, true),
        request(20, "/r1", 2, 1024, true), request(20, ResourceRequest.ANY, 2, 1024, true),
        request(10, ResourceRequest.ANY, 1, 2048, true));
  }

  static void asks() {
    List<CoreBridge.Ask> asks = SpindleScheduler.toAsks(mrAsks());
    check(asks.size() == 5, "size " + asks.size());
    CoreBridge.Ask a = asks.get(2);
    check(a.priority == 20 && a.resource.equals("/r1") && a.count == 2 && a.memoryMb == 1024
        && a.vcores == 1 && a.relaxLocality, "rack ask");
    CoreBridge.Ask r = asks.get(4);
    check(r.priority == 10 && r.resource.equals("*") && r.memoryMb == 2048, "reducer ask");
  }

  /** Records what the bridge hands over. */
  static final class Recorder implements GrantSink {
    final List<String> grants = new ArrayList<>();

    @Override
    public int grant(Object app, int priority, int count, int locality) {
      grants.add(app + "/" + priority + "/" + count + "/" + locality);
      return count;
    }
  }

  static SpindleCore realCore(String policy) {
    SpindleCore.Config c = new SpindleCore.Config();
    c.policy = policy;
    return new SpindleCore(c);
  }

  static void bridge() {
    try (CoreBridge b = new CoreBridge(realCore("greedy-comm"))) {
      b.nodeAdded("h1", "/r1", 4096, 4);
      b.nodeAdded("h2", "/r1", 4096, 4);
      b.appAdded("attempt_A", 0);
      b.asks("attempt_A", SpindleScheduler.toAsks(mrAsks()));
      Recorder rec = new Recorder();
      check(b.heartbeat("h1", 1024, 1, 1000, rec), "served");
      // 1024 MB free: the reducer (2048 MB) does not fit; h1's own map does.
      check(rec.grants.equals(Arrays.asList("attempt_A/20/1/0")), "grants " + rec.grants);
      Recorder rec2 = new Recorder();
      check(b.heartbeat("h2", 4096, 4, 2000, rec2), "served");
      // greedy-comm's rule (Beaumont et al., GREEDY-COMM, as in spindle plan): a task local
      // to h2 first, then any other (the reducer).
      check(rec2.grants.equals(Arrays.asList("attempt_A/20/1/0", "attempt_A/10/1/2")),
          "grants " + rec2.grants);
      check(b.fallbackHeartbeats() == 0 && b.coreErrors() == 0, "no fallback expected");
      check(!b.heartbeat("h9", 4096, 4, 3000, new Recorder()), "unknown node must fall back");
      check(b.fallbackHeartbeats() == 1, "fallback counted");
    }
  }

  /** Delegates to a real core; panics inside the core on chosen heartbeats. */
  static final class Panicky extends ForwardingCore {
    final SpindleCore real;
    int panicOnHeartbeat;
    int heartbeats;

    Panicky(SpindleCore inner, int panicOnHeartbeat) {
      super(inner);
      this.real = inner;
      this.panicOnHeartbeat = panicOnHeartbeat;
    }

    @Override
    public int heartbeat(int n, long m, int v, long t, int[] out) {
      if (++heartbeats == panicOnHeartbeat) {
        real.panicForTest(); // a real panic in the Rust core, caught at the JNI boundary
      }
      return inner.heartbeat(n, m, v, t, out);
    }
  }

  static void panic() {
    try (CoreBridge b = new CoreBridge(new Panicky(realCore("greedy-comm"), 1))) {
      b.nodeAdded("h1", "/r1", 4096, 4);
      b.appAdded("attempt_A", 0);
      b.asks("attempt_A", Arrays.asList(new CoreBridge.Ask(20, "*", 2, 1024, 1, true)));
      check(!b.heartbeat("h1", 4096, 4, 0, new Recorder()), "the panicking heartbeat falls back");
      check(b.coreErrors() == 1 && b.fallbackHeartbeats() == 1, "counted");
      Recorder rec = new Recorder();
      check(b.heartbeat("h1", 4096, 4, 1000, rec), "the next heartbeat is served by the core");
      // One of the two ANY-only containers: a heartbeat ends after one
      // off-switch grant (the CapacityScheduler's default rule).
      check(rec.grants.equals(Arrays.asList("attempt_A/20/1/2")), "grants " + rec.grants);
    }
  }

  static void broken() {
    Core broken = new CoreSetup.BrokenCore("test");
    try (CoreBridge b = new CoreBridge(broken)) {
      b.nodeAdded("h1", "/r1", 4096, 4);
      b.appAdded("attempt_A", 0);
      b.asks("attempt_A", Arrays.asList(new CoreBridge.Ask(20, "*", 2, 1024, 1, true)));
      check(b.isFifoApp("attempt_A"), "an app the core could not take is FIFO's");
      for (int i = 0; i < 5; i++) {
        check(!b.heartbeat("h1", 4096, 4, i, new Recorder()), "every heartbeat falls back");
      }
      check(b.fallbackHeartbeats() == 5, "fallbacks " + b.fallbackHeartbeats());
      check(b.coreErrors() == 2, "errors " + b.coreErrors());
      // What the scheduler then does on each of those heartbeats:
      FifoFallback.App app = new FifoFallback.App("attempt_A");
      app.keys.add(new FifoFallback.Key(20, 1024, 0, 0, 2));
      Recorder rec = new Recorder();
      check(FifoFallback.assign(4096, 1024, Arrays.asList(app), rec) == 2, "fifo allocates");
      check(rec.grants.equals(Arrays.asList("attempt_A/20/2/2")), "grants " + rec.grants);
    }
  }

  static void sharedHost() {
    try (CoreBridge b = new CoreBridge(realCore("greedy-comm"))) {
      b.appAdded("attempt_A", 0);
      b.asks("attempt_A", Arrays.asList(new CoreBridge.Ask(20, "*", 9, 1024, 1, true)));
      // A restarted NodeManager registers before its old NodeId expires.
      b.nodeAdded("h1", "/r1", 4096, 4);
      b.nodeAdded("h1", "/r1", 4096, 4);
      check(b.coreErrors() == 0, "a second NM on a host is not a core error");
      b.nodeRemoved("h1"); // the old NodeId expires
      Recorder rec = new Recorder();
      check(b.heartbeat("h1", 1024, 1, 0, rec), "the live NM is still served by the core");
      check(rec.grants.equals(Arrays.asList("attempt_A/20/1/2")), "grants " + rec.grants);
      b.nodeRemoved("h1");
      check(!b.heartbeat("h1", 1024, 1, 0, new Recorder()), "gone once the last NM leaves");
      check(b.coreErrors() == 0, "errors " + b.coreErrors());
    }
  }

  static void linkage() {
    Core stale = new CoreSetup.BrokenCore("unused") {
      @Override
      public int addNode(String host, String rack, long memoryMb, int vcores, double speed) {
        return 0;
      }

      @Override
      public int heartbeat(int node, long freeMemoryMb, int freeVcores, long nowMs, int[] out) {
        throw new UnsatisfiedLinkError("nativeHeartbeat");
      }
    };
    try (CoreBridge b = new CoreBridge(stale)) {
      b.nodeAdded("h1", "/r1", 4096, 4);
      check(!b.heartbeat("h1", 4096, 4, 0, new Recorder()), "falls back");
      check(b.coreErrors() == 1 && b.fallbackHeartbeats() == 1, "counted");
    }
  }

  static void refusedAsks() {
    try (CoreBridge b = new CoreBridge(realCore("greedy-comm"))) {
      b.nodeAdded("h1", "/r1", 4096, 4);
      b.appAdded("attempt_A", 0);
      b.asks("attempt_A", Arrays.asList(new CoreBridge.Ask(20, "*", 2, 1024, 1, true)));
      b.asks("attempt_A", Arrays.asList(new CoreBridge.Ask(20, "h1", -1, 1024, 1, true)));
      check(b.isFifoApp("attempt_A") && b.coreErrors() == 1, "refused");
      Recorder rec = new Recorder();
      check(b.heartbeat("h1", 4096, 4, 0, rec), "the core still serves the node");
      check(rec.grants.isEmpty(), "the core no longer grants to the app: " + rec.grants);
    }
  }

  static void fifoOrder() {
    FifoFallback.App a = new FifoFallback.App("A");
    a.keys.add(new FifoFallback.Key(20, 1024, 1, 2, 3)); // 1 on this host, 2 on its rack, 3 in all
    FifoFallback.App b = new FifoFallback.App("B");
    b.keys.add(new FifoFallback.Key(20, 1024, 0, 0, 4));
    Recorder rec = new Recorder();
    int n = FifoFallback.assign(8192, 1024, Arrays.asList(a, b), rec);
    check(n == 7, "assigned " + n);
    check(rec.grants.equals(Arrays.asList("A/20/1/0", "A/20/1/1", "A/20/1/2", "B/20/4/2")),
        "grants " + rec.grants);
    check(a.keys.get(0).any == 0 && a.keys.get(0).rack == 0 && a.keys.get(0).host == 0, "A drained");
  }

  static void fifoRules() {
    // Node-local needs a rack ask too (FifoScheduler's rule): here it has none, so the
    // host ask is not used and the container goes off-switch.
    FifoFallback.App a = new FifoFallback.App("A");
    a.keys.add(new FifoFallback.Key(10, 2048, 0, 0, 1));
    a.keys.add(new FifoFallback.Key(20, 1024, 1, 0, 5));
    Recorder rec = new Recorder();
    int n = FifoFallback.assign(4096, 1024, Arrays.asList(a), rec);
    // 2048 for the reducer, then 2 maps fill the node.
    check(n == 3, "assigned " + n);
    check(rec.grants.equals(Arrays.asList("A/10/1/2", "A/20/2/2")), "grants " + rec.grants);
    // A key that gets nothing (too big for the node) stops the app's later keys.
    FifoFallback.App big = new FifoFallback.App("B");
    big.keys.add(new FifoFallback.Key(10, 16384, 0, 0, 1));
    big.keys.add(new FifoFallback.Key(20, 1024, 0, 0, 1));
    FifoFallback.App next = new FifoFallback.App("C");
    next.keys.add(new FifoFallback.Key(20, 1024, 0, 0, 1));
    Recorder rec2 = new Recorder();
    FifoFallback.assign(4096, 1024, Arrays.asList(big, next), rec2);
    check(rec2.grants.equals(Arrays.asList("C/20/1/2")), "grants " + rec2.grants);
    // A sink that allocates less than asked (the AM lowered its asks) is believed.
    FifoFallback.App d = new FifoFallback.App("D");
    d.keys.add(new FifoFallback.Key(20, 1024, 0, 0, 3));
    int got = FifoFallback.assign(8192, 1024, Arrays.asList(d), (app, p, c, l) -> 1);
    check(got == 1 && d.keys.get(0).any == 2, "partial " + got);
  }
}
