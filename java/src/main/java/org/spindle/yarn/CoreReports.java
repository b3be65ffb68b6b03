package org.spindle.yarn;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core's background work (split files) reports into the RM log, on a
 * thread of its own; counted for the JMX beans of both modes.
 */
public final class CoreReports {
  private static final Logger LOG = LoggerFactory.getLogger(CoreReports.class);
  private final CoreBridge bridge;
  private final AtomicLong exactInputs = new AtomicLong();
  private final AtomicLong splitFailures = new AtomicLong();
  private volatile boolean stopping;
  private Thread thread;

  public CoreReports(CoreBridge bridge) {
    this.bridge = bridge;
  }

  public synchronized void start() {
    thread = new Thread(() -> {
      while (!stopping) {
        String line = bridge.pollReport(500);
        if (line == null) {
          continue;
        }
        if (line.startsWith("WARN ")) {
          splitFailures.incrementAndGet();
          LOG.warn(line.substring(5));
        } else {
          exactInputs.incrementAndGet();
          LOG.info(line.startsWith("INFO ") ? line.substring(5) : line);
        }
      }
    }, "spindle-core-reports");
    thread.setDaemon(true);
    thread.start();
  }

  /** Stops the thread (waits for its last poll, at most 5 s). */
  public void stop() throws InterruptedException {
    stopping = true;
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null) {
      t.join(5000);
    }
  }

  /** Apps whose exact input the core read. */
  public long exactInputs() {
    return exactInputs.get();
  }

  /** Split files the core could not read or use. */
  public long splitFailures() {
    return splitFailures.get();
  }
}
