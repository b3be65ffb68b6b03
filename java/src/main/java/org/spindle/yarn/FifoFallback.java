package org.spindle.yarn;

import java.util.ArrayList;
import java.util.List;
import org.spindle.core.SpindleCore;

/**
 * FifoScheduler's per-heartbeat pass, Hadoop-free, for heartbeats the core
 * could not serve: apps in submission order, each app's asks in
 * priority order, node-local then rack-local then off-switch on this node,
 * and no later priority of an app once one gets nothing
 * (FifoScheduler.assignContainers, facts file section 1.4).
 */
public final class FifoFallback {
  /** One ask (scheduler key) of an app as seen on this node, with its pending counts. */
  public static final class Key {
    public final int priority;
    public final long memoryMb;
    public int host;
    public int rack;
    public int any;

    public Key(int priority, long memoryMb, int host, int rack, int any) {
      this.priority = priority;
      this.memoryMb = memoryMb;
      this.host = host;
      this.rack = rack;
      this.any = any;
    }
  }

  /** An app and its keys in scheduler-key order. */
  public static final class App {
    public final Object id;
    public final List<Key> keys = new ArrayList<>();

    public App(Object id) {
      this.id = id;
    }
  }

  private FifoFallback() {}

  /**
   * Runs the FIFO pass over {@code apps} on a node with {@code freeMemoryMb}
   * unallocated; stops once less than {@code minimumMb} is left. Returns the
   * number of containers allocated.
   */
  public static int assign(long freeMemoryMb, long minimumMb, List<App> apps, GrantSink sink) {
    long free = freeMemoryMb;
    int total = 0;
    for (App app : apps) {
      for (Key k : app.keys) {
        if (k.any <= 0) {
          continue;
        }
        int assigned = 0;
        // Node-local needs the host ask and a rack ask (FIFO's rule).
        if (k.host > 0 && k.rack > 0) {
          int n = place(app, k, Math.min(k.host, k.any), free, SpindleCore.NODE_LOCAL, sink);
          k.host -= n;
          k.rack -= n;
          k.any -= n;
          free -= n * k.memoryMb;
          assigned += n;
        }
        if (k.rack > 0 && k.any > 0) {
          int n = place(app, k, Math.min(k.rack, k.any), free, SpindleCore.RACK_LOCAL, sink);
          k.rack -= n;
          k.any -= n;
          free -= n * k.memoryMb;
          assigned += n;
        }
        if (k.any > 0) {
          int n = place(app, k, k.any, free, SpindleCore.OFF_SWITCH, sink);
          k.any -= n;
          free -= n * k.memoryMb;
          assigned += n;
        }
        total += assigned;
        if (assigned == 0) {
          break; // do not assign out of order w.r.t. priorities
        }
      }
      if (free < minimumMb) {
        break;
      }
    }
    return total;
  }

  private static int place(App app, Key k, int wanted, long free, int locality, GrantSink sink) {
    if (k.memoryMb <= 0) {
      return 0;
    }
    int fit = (int) Math.min(Integer.MAX_VALUE, free / k.memoryMb);
    int n = Math.min(wanted, fit);
    return n > 0 ? sink.grant(app.id, k.priority, n, locality) : 0;
  }
}
