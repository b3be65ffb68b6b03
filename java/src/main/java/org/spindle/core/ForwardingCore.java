package org.spindle.core;

/**
 * A core that forwards every call to another: the base of wrappers that watch,
 * count, time or break some calls (tests, benches) and pass the rest on.
 */
public class ForwardingCore implements Core {
  protected final Core inner;

  public ForwardingCore(Core inner) {
    this.inner = inner;
  }

  @Override
  public int addNode(String host, String rack, long memoryMb, int vcores, double speed) {
    return inner.addNode(host, rack, memoryMb, vcores, speed);
  }

  @Override
  public void removeNode(int node) {
    inner.removeNode(node);
  }

  @Override
  public void updateNode(int node, long memoryMb, int vcores) {
    inner.updateNode(node, memoryMb, vcores);
  }

  @Override
  public int addApp(String appId, double weight, long submitMs) {
    return inner.addApp(appId, weight, submitMs);
  }

  @Override
  public void finishApp(int app) {
    inner.finishApp(app);
  }

  @Override
  public void setAppWeight(int app, double weight) {
    inner.setAppWeight(app, weight);
  }

  @Override
  public void appProgress(int app, float progress, long nowMs) {
    inner.appProgress(app, progress, nowMs);
  }

  @Override
  public void updateAsk(int app, int priority, String resource, int count, long memoryMb,
      int vcores, boolean relaxLocality) {
    inner.updateAsk(app, priority, resource, count, memoryMb, vcores, relaxLocality);
  }

  @Override
  public void containerFinished(int node) {
    inner.containerFinished(node);
  }

  @Override
  public void containerFinished(int node, int app) {
    inner.containerFinished(node, app);
  }

  @Override
  public void containerRecovered(int node, int app) {
    inner.containerRecovered(node, app);
  }

  @Override
  public int heartbeat(int node, long freeMemoryMb, int freeVcores, long nowMs, int[] out) {
    return inner.heartbeat(node, freeMemoryMb, freeVcores, nowMs, out);
  }

  @Override
  public int drain(int[] out) {
    return inner.drain(out);
  }

  @Override
  public void inputBlocks(int app, int priority, String[] tasks) {
    inner.inputBlocks(app, priority, tasks);
  }

  @Override
  public void close() {
    inner.close();
  }

  @Override
  public int nodeOffers(int node, long freeMemoryMb, int freeVcores, int running, long nowMs,
      int[] out) {
    return inner.nodeOffers(node, freeMemoryMb, freeVcores, running, nowMs, out);
  }

  @Override
  public boolean bookPlaced(int node, int app, int priority, int locality, long nowMs) {
    return inner.bookPlaced(node, app, priority, locality, nowMs);
  }

  @Override
  public void placedReleased(int app, long nowMs) {
    inner.placedReleased(app, nowMs);
  }

  @Override
  public long orderSignature() {
    return inner.orderSignature();
  }

  @Override
  public int appRanks(int[] out) {
    return inner.appRanks(out);
  }

  @Override
  public String activities(String app, String host) {
    return inner.activities(app, host);
  }

  @Override
  public long[] reasonCounts() {
    return inner.reasonCounts();
  }
}
