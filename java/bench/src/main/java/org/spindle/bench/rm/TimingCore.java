package org.spindle.bench.rm;

import org.spindle.core.Core;
import org.spindle.core.ForwardingCore;
import org.spindle.core.SpindleCore;

/**
 * The plugin's core with every call timed while a heartbeat is being
 * handled on the bench thread ({@link #inHeartbeat}): the share of the
 * heartbeat spent in the core (JNI and Rust) against the adapter and the
 * RM's own work. Installed through CoreSetup.factory, so the plugin runs
 * unchanged.
 */
final class TimingCore extends ForwardingCore {
  /** Set by the bench around each timed handle(NodeUpdateSchedulerEvent). */
  static volatile boolean inHeartbeat;
  /** Nanoseconds spent in core calls during heartbeats, and how many calls. */
  static long heartbeatCoreNanos;
  static long heartbeatCoreCalls;
  /** The last core made (one scheduler per JVM). */
  static volatile TimingCore current;

  TimingCore(Core core) {
    super(core);
    current = this;
  }

  /** The background planner's statistics, when the core is the JNI one. */
  double[] planStats() {
    return inner instanceof SpindleCore ? ((SpindleCore) inner).planStats() : new double[0];
  }

  private static long start() {
    return inHeartbeat ? System.nanoTime() : 0;
  }

  private static void stop(long t0) {
    if (t0 != 0) {
      heartbeatCoreNanos += System.nanoTime() - t0;
      heartbeatCoreCalls++;
    }
  }

  @Override
  public int addNode(String host, String rack, long memoryMb, int vcores, double speed) {
    long t = start();
    try {
      return inner.addNode(host, rack, memoryMb, vcores, speed);
    } finally {
      stop(t);
    }
  }

  @Override
  public void removeNode(int node) {
    long t = start();
    try {
      inner.removeNode(node);
    } finally {
      stop(t);
    }
  }

  @Override
  public void updateNode(int node, long memoryMb, int vcores) {
    long t = start();
    try {
      inner.updateNode(node, memoryMb, vcores);
    } finally {
      stop(t);
    }
  }

  @Override
  public int addApp(String appId, double weight, long submitMs) {
    long t = start();
    try {
      return inner.addApp(appId, weight, submitMs);
    } finally {
      stop(t);
    }
  }

  @Override
  public void finishApp(int app) {
    long t = start();
    try {
      inner.finishApp(app);
    } finally {
      stop(t);
    }
  }

  @Override
  public void setAppWeight(int app, double weight) {
    long t = start();
    try {
      inner.setAppWeight(app, weight);
    } finally {
      stop(t);
    }
  }

  @Override
  public void appProgress(int app, float progress, long nowMs) {
    long t = start();
    try {
      inner.appProgress(app, progress, nowMs);
    } finally {
      stop(t);
    }
  }

  @Override
  public void updateAsk(int app, int priority, String resource, int count, long memoryMb,
      int vcores, boolean relaxLocality) {
    long t = start();
    try {
      inner.updateAsk(app, priority, resource, count, memoryMb, vcores, relaxLocality);
    } finally {
      stop(t);
    }
  }

  @Override
  public void containerFinished(int node) {
    long t = start();
    try {
      inner.containerFinished(node);
    } finally {
      stop(t);
    }
  }

  @Override
  public void containerFinished(int node, int app) {
    long t = start();
    try {
      inner.containerFinished(node, app);
    } finally {
      stop(t);
    }
  }

  @Override
  public int heartbeat(int node, long freeMemoryMb, int freeVcores, long nowMs, int[] out) {
    long t = start();
    try {
      return inner.heartbeat(node, freeMemoryMb, freeVcores, nowMs, out);
    } finally {
      stop(t);
    }
  }

  @Override
  public int nodeOffers(int node, long freeMemoryMb, int freeVcores, int running, long nowMs,
      int[] out) {
    long t = start();
    try {
      return inner.nodeOffers(node, freeMemoryMb, freeVcores, running, nowMs, out);
    } finally {
      stop(t);
    }
  }

  @Override
  public boolean bookPlaced(int node, int app, int priority, int locality, long nowMs) {
    long t = start();
    try {
      return inner.bookPlaced(node, app, priority, locality, nowMs);
    } finally {
      stop(t);
    }
  }

  @Override
  public void placedReleased(int app, long nowMs) {
    long t = start();
    try {
      inner.placedReleased(app, nowMs);
    } finally {
      stop(t);
    }
  }

  @Override
  public long orderSignature() {
    long t = start();
    try {
      return inner.orderSignature();
    } finally {
      stop(t);
    }
  }

  @Override
  public int appRanks(int[] out) {
    long t = start();
    try {
      return inner.appRanks(out);
    } finally {
      stop(t);
    }
  }

  @Override
  public int drain(int[] out) {
    long t = start();
    try {
      return inner.drain(out);
    } finally {
      stop(t);
    }
  }
}
