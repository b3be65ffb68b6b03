package org.spindle.bench.rm;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.io.BufferedReader;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The JVM's own pauses, reported apart from the scheduler's time: GC pauses
 * (from the collectors' notifications) and every safepoint (from the
 * {@code -Xlog:safepoint:file=F:uptime} log the child JVM writes), both in
 * JVM uptime, so heartbeats that overlapped a pause can be told apart.
 */
final class Pauses {
  /** A pause [startMs, endMs) in JVM uptime. */
  static final class Pause {
    final double startMs;
    final double endMs;
    final String cause;

    Pause(double startMs, double endMs, String cause) {
      this.startMs = startMs;
      this.endMs = endMs;
      this.cause = cause;
    }

    double ms() {
      return endMs - startMs;
    }
  }

  private final List<Pause> gc = new ArrayList<>();

  /** Starts listening to the collectors. */
  void listen() {
    for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (!(bean instanceof NotificationEmitter)) {
        continue;
      }
      ((NotificationEmitter) bean).addNotificationListener((n, handback) -> {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
          return;
        }
        GarbageCollectionNotificationInfo info =
            GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        // G1's concurrent cycle is reported too; it does not stop the application.
        if (info.getGcName().contains("Concurrent")) {
          return;
        }
        long start = info.getGcInfo().getStartTime();
        long end = info.getGcInfo().getEndTime();
        synchronized (gc) {
          gc.add(new Pause(start, Math.max(end, start), info.getGcAction() + " ("
              + info.getGcCause() + ")"));
        }
      }, null, null);
    }
  }

  /** GC pauses that ended in [fromMs, toMs) of uptime. */
  List<Pause> gcPauses(double fromMs, double toMs) {
    List<Pause> out = new ArrayList<>();
    synchronized (gc) {
      for (Pause p : gc) {
        if (p.endMs >= fromMs && p.endMs < toMs) {
          out.add(p);
        }
      }
    }
    return out;
  }

  private static final Pattern SAFEPOINT = Pattern.compile(
      "^\\[([0-9.]+)s\\].*Safepoint \"([^\"]*)\".*Total: ([0-9]+) ns");

  /** Safepoints logged in [fromMs, toMs) of uptime; empty if the log is missing. */
  static List<Pause> safepoints(Path log, double fromMs, double toMs) {
    List<Pause> out = new ArrayList<>();
    if (log == null || !Files.exists(log)) {
      return out;
    }
    try (BufferedReader r = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
      String line;
      while ((line = r.readLine()) != null) {
        Matcher m = SAFEPOINT.matcher(line);
        if (!m.find()) {
          continue;
        }
        double end = Double.parseDouble(m.group(1)) * 1000.0;
        double total = Long.parseLong(m.group(3)) / 1e6;
        if (end >= fromMs && end < toMs) {
          out.add(new Pause(end - total, end, m.group(2)));
        }
      }
    } catch (IOException | NumberFormatException e) {
      System.err.println("rm-bench: cannot read the safepoint log " + log + ": " + e);
    }
    return out;
  }

  static double totalMs(List<Pause> ps) {
    double t = 0;
    for (Pause p : ps) {
      t += p.ms();
    }
    return t;
  }

  static double maxMs(List<Pause> ps) {
    double t = 0;
    for (Pause p : ps) {
      t = Math.max(t, p.ms());
    }
    return t;
  }
}
