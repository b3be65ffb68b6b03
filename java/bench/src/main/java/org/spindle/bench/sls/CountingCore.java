package org.spindle.bench.sls;

import java.util.concurrent.atomic.AtomicLong;
import org.spindle.core.Core;
import org.spindle.core.SpindleCore;

/**
 * The plugin's core, with the asks it hears and the grants it makes counted
 * (by locality, from the grants themselves): evidence that Spindle's core,
 * not the plugin's FIFO fallback, placed SLS's containers. Installed through
 * CoreSetup.factory, so the plugin runs unchanged.
 */
final class CountingCore implements Core {
  static final AtomicLong ASK_UPDATES = new AtomicLong();
  static final AtomicLong HEARTBEATS = new AtomicLong();
  /** Containers granted, by SpindleCore.NODE_LOCAL, RACK_LOCAL, OFF_SWITCH. */
  static final AtomicLong[] GRANTED = {new AtomicLong(), new AtomicLong(), new AtomicLong()};

  private final Core core;

  CountingCore(Core core) {
    this.core = core;
  }

  private static int count(int n, int[] out) {
    int have = Math.min(n, out.length / SpindleCore.GRANT_INTS);
    for (int g = 0; g < have; g++) {
      int locality = out[g * SpindleCore.GRANT_INTS + 3];
      if (locality >= 0 && locality < GRANTED.length) {
        GRANTED[locality].addAndGet(out[g * SpindleCore.GRANT_INTS + 2]);
      }
    }
    return n;
  }

  @Override
  public int heartbeat(int node, long freeMemoryMb, int freeVcores, long nowMs, int[] out) {
    HEARTBEATS.incrementAndGet();
    return count(core.heartbeat(node, freeMemoryMb, freeVcores, nowMs, out), out);
  }

  @Override
  public int drain(int[] out) {
    return count(core.drain(out), out);
  }

  @Override
  public void updateAsk(int app, int priority, String resource, int count, long memoryMb,
      int vcores, boolean relaxLocality) {
    ASK_UPDATES.incrementAndGet();
    core.updateAsk(app, priority, resource, count, memoryMb, vcores, relaxLocality);
  }

  @Override
  public int addNode(String host, String rack, long memoryMb, int vcores, double speed) {
    return core.addNode(host, rack, memoryMb, vcores, speed);
  }

  @Override
  public void removeNode(int node) {
    core.removeNode(node);
  }

  @Override
  public void updateNode(int node, long memoryMb, int vcores) {
    core.updateNode(node, memoryMb, vcores);
  }

  @Override
  public int addApp(String appId, double weight, long submitMs) {
    return core.addApp(appId, weight, submitMs);
  }

  @Override
  public void finishApp(int app) {
    core.finishApp(app);
  }

  @Override
  public void setAppWeight(int app, double weight) {
    core.setAppWeight(app, weight);
  }

  @Override
  public void appProgress(int app, float progress, long nowMs) {
    core.appProgress(app, progress, nowMs);
  }

  @Override
  public void containerFinished(int node) {
    core.containerFinished(node);
  }

  @Override
  public void containerFinished(int node, int app) {
    core.containerFinished(node, app);
  }

  @Override
  public void containerRecovered(int node, int app) {
    core.containerRecovered(node, app);
  }

  @Override
  public int nodeOffers(int node, long freeMemoryMb, int freeVcores, int running, long nowMs,
      int[] out) {
    return core.nodeOffers(node, freeMemoryMb, freeVcores, running, nowMs, out);
  }

  @Override
  public boolean bookPlaced(int node, int app, int priority, int locality, long nowMs) {
    return core.bookPlaced(node, app, priority, locality, nowMs);
  }

  @Override
  public void placedReleased(int app, long nowMs) {
    core.placedReleased(app, nowMs);
  }

  @Override
  public long orderSignature() {
    return core.orderSignature();
  }

  @Override
  public int appRanks(int[] out) {
    return core.appRanks(out);
  }

  @Override
  public void inputBlocks(int app, int priority, String[] tasks) {
    core.inputBlocks(app, priority, tasks);
  }

  @Override
  public String activities(String app, String host) {
    return core.activities(app, host);
  }

  @Override
  public long[] reasonCounts() {
    return core.reasonCounts();
  }

  @Override
  public void close() {
    core.close();
  }
}
