package org.spindle.yarn;

/** Performs allocations decided by the core or by the FIFO fallback on one heartbeating node. */
public interface GrantSink {
  /**
   * Allocates up to {@code count} containers of {@code app}'s ask at {@code priority}
   * with the given locality ({@code SpindleCore.NODE_LOCAL}, {@code RACK_LOCAL},
   * {@code OFF_SWITCH}) and returns how many were really allocated.
   */
  int grant(Object app, int priority, int count, int locality);
}
