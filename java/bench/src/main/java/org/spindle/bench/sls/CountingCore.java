package org.spindle.bench.sls;

import java.util.concurrent.atomic.AtomicLong;
import org.spindle.core.Core;
import org.spindle.core.ForwardingCore;
import org.spindle.core.SpindleCore;

/**
 * The plugin's core, with the asks it hears and the grants it makes counted
 * (by locality, from the grants themselves): evidence that Spindle's core,
 * not the plugin's FIFO fallback, placed SLS's containers. Installed through
 * CoreSetup.factory, so the plugin runs unchanged.
 */
final class CountingCore extends ForwardingCore {
  static final AtomicLong ASK_UPDATES = new AtomicLong();
  static final AtomicLong HEARTBEATS = new AtomicLong();
  /** Containers granted, by SpindleCore.NODE_LOCAL, RACK_LOCAL, OFF_SWITCH. */
  static final AtomicLong[] GRANTED = {new AtomicLong(), new AtomicLong(), new AtomicLong()};

  CountingCore(Core core) {
    super(core);
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
    return count(inner.heartbeat(node, freeMemoryMb, freeVcores, nowMs, out), out);
  }

  @Override
  public int drain(int[] out) {
    return count(inner.drain(out), out);
  }

  @Override
  public void updateAsk(int app, int priority, String resource, int count, long memoryMb,
      int vcores, boolean relaxLocality) {
    ASK_UPDATES.incrementAndGet();
    inner.updateAsk(app, priority, resource, count, memoryMb, vcores, relaxLocality);
  }
}
