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

  /**
   * The weight of {@code app} changed (its YARN priority was updated): it orders the app from
   * the next plan on. A core that does not weigh jobs ignores it.
   */
  default void setAppWeight(int app, double weight) {}

  /**
   * The AM of {@code app} reported {@code progress} (0 to 1) at {@code nowMs}; kept for job
   * order planners. A core that does not use progress ignores it.
   */
  default void appProgress(int app, float progress, long nowMs) {}

  void updateAsk(int app, int priority, String resource, int count, long memoryMb, int vcores,
      boolean relaxLocality);

  void containerFinished(int node);

  /**
   * A container of {@code app} on {@code node} finished: as {@link #containerFinished(int)},
   * and the app's usage (the FairScheduler policies' order) drops.
   */
  default void containerFinished(int node, int app) {
    containerFinished(node);
  }

  /**
   * A container of {@code app} runs on {@code node} that this core did not grant: an RM that
   * restarted with work-preserving recovery learns it from the NodeManager. It counts as a
   * granted one until {@link #containerFinished(int, int)}. A core that keeps no counts ignores it.
   */
  default void containerRecovered(int node, int app) {}

  int heartbeat(int node, long freeMemoryMb, int freeVcores, long nowMs, int[] out);

  /**
   * A node's decision for a host that places containers itself (the
   * CapacityScheduler mode), booking nothing: writes its offers into
   * {@code out} ({@link SpindleCore#GRANT_INTS} ints each: app, priority,
   * count, locality) and returns how many there are (those beyond
   * {@code out.length / 4} are not written). {@code running} is the host's
   * count of containers on the node.
   */
  default int nodeOffers(int node, long freeMemoryMb, int freeVcores, int running, long nowMs,
      int[] out) {
    throw new UnsupportedOperationException("this core makes no node decisions");
  }

  /**
   * A container the host placed on {@code node} for {@code app} at
   * {@code priority} and {@code locality}: booked as a heartbeat's grant.
   * False when the core holds no asks of the app at that priority.
   */
  default boolean bookPlaced(int node, int app, int priority, int locality, long nowMs) {
    throw new UnsupportedOperationException("this core books no placed containers");
  }

  /** A container the host placed for {@code app} ended. */
  default void placedReleased(int app, long nowMs) {}

  /** Changes whenever the job order ({@link #appRanks}) does. */
  default long orderSignature() {
    return 0;
  }

  /**
   * The job order: the rank of each app id into {@code out} (-1 for
   * finished ones), as many as fit; returns how many apps there are.
   */
  default int appRanks(int[] out) {
    return 0;
  }

  int drain(int[] out);

  /**
   * The exact input of {@code app} at {@code priority}: {@code tasks[i]} lists task i's replica
   * hosts, comma separated (hosts the core does not know are dropped). Replaces what the asks'
   * host names told of those tasks.
   */
  default void inputBlocks(int app, int priority, String[] tasks) {
    throw new UnsupportedOperationException("this core takes no exact input");
  }

  /**
   * Why idle heartbeats granted nothing, as JSON: the entries about application {@code app} on
   * host {@code host}, each when not null. An unknown app or host throws
   * IllegalArgumentException naming it.
   */
  default String activities(String app, String host) {
    throw new UnsupportedOperationException("this core records no activities");
  }

  /** Idle heartbeats and passed-over apps counted by reason, in {@link SpindleCore#REASONS} order. */
  default long[] reasonCounts() {
    return new long[0];
  }

  @Override
  void close();
}
