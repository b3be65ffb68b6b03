package org.spindle.core;

/**
 * The Session events the RM adapter sends, as an interface so the adapter can
 * be tested with a core that fails on purpose. {@link SpindleCore} is the real one.
 */
public interface Core extends AutoCloseable {
  int addNode(String host, String rack, long memoryMb, int vcores, double speed);

  void removeNode(int node);

  /** A node's total resource changed (an admin update, or the NM re-registered with another). */
  void updateNode(int node, long memoryMb, int vcores);

  int addApp(String appId, double weight, long submitMs);

  void finishApp(int app);

  void updateAsk(int app, int priority, String resource, int count, long memoryMb, int vcores,
      boolean relaxLocality);

  void containerFinished(int node);

  int heartbeat(int node, long freeMemoryMb, int freeVcores, long nowMs, int[] out);

  int drain(int[] out);

  @Override
  void close();
}
