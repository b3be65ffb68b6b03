package org.spindle.yarn;

import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.spindle.core.Core;
import org.spindle.core.SpindleCore;

/**
 * Settings and the core, as both plugin modes start them: the whole
 * scheduler ({@link SpindleScheduler}) and the CapacityScheduler layer
 * ({@code org.spindle.yarn.cs}).
 */
public final class CoreSetup {
  private static final Logger LOG = LoggerFactory.getLogger(CoreSetup.class);

  private CoreSetup() {}

  /** The spindle.* keys of the RM's configuration and spindle-site.xml, validated. */
  public static SpindleSettings settings(Configuration conf) {
    Configuration withSite = new Configuration(conf);
    withSite.addResource(SpindleSettings.SITE_FILE);
    return SpindleSettings.read(withSite::get);
  }

  /** Makes the core from the settings; tests swap it to wrap or break the core. */
  public static volatile Function<SpindleSettings, Core> factory = CoreSetup::open;

  /**
   * The JNI core, or a core that always throws if it cannot load (each
   * mode then falls back: FIFO heartbeats, or the CapacityScheduler's
   * placement with Spindle's locality wait). A bad spindle.* value stops
   * the RM with it.
   */
  public static Core open(SpindleSettings s) {
    try {
      if (!s.libraryPath.isEmpty()) {
        SpindleCore.load(s.libraryPath);
      }
      return new SpindleCore(s.core);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("spindle core settings: " + e.getMessage(), e);
    } catch (LinkageError | RuntimeException e) {
      LOG.error("cannot start the spindle core (" + e + "); Spindle's decisions fall back"
          + " (whole scheduler: FIFO heartbeats; CapacityScheduler mode: its placement with"
          + " Spindle's locality delay). Check " + SpindleSettings.LIBRARY_PATH
          + " / java.library.path and " + SpindleSettings.POLICY, e);
      return new BrokenCore(e.toString());
    }
  }

  /** Stands in for a core that could not start: every call fails. */
  public static class BrokenCore implements Core {
    private final String why;

    public BrokenCore(String why) {
      this.why = why;
    }

    private IllegalStateException fail() {
      return new IllegalStateException("spindle core unavailable: " + why);
    }

    @Override
    public int addNode(String host, String rack, long memoryMb, int vcores, double speed) {
      throw fail();
    }

    @Override
    public void removeNode(int node) {
      throw fail();
    }

    @Override
    public void updateNode(int node, long memoryMb, int vcores) {
      throw fail();
    }

    @Override
    public int addApp(String appId, double weight, long submitMs) {
      throw fail();
    }

    @Override
    public void finishApp(int app) {
      throw fail();
    }

    @Override
    public void updateAsk(int app, int priority, String resource, int count, long memoryMb,
        int vcores, boolean relaxLocality) {
      throw fail();
    }

    @Override
    public void containerFinished(int node) {
      throw fail();
    }

    @Override
    public int heartbeat(int node, long freeMemoryMb, int freeVcores, long nowMs, int[] out) {
      throw fail();
    }

    @Override
    public int drain(int[] out) {
      throw fail();
    }

    @Override
    public void close() {}
  }
}
