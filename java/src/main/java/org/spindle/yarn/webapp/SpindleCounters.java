package org.spindle.yarn.webapp;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.spindle.yarn.SpindleScheduler;
import org.spindle.yarn.cs.CsRuntime;

/** Spindle's counters for REST (GET /ws/v1/cluster/spindle), in either mode. */
final class SpindleCounters {
  private SpindleCounters() {}

  /** The counters of the Spindle running in {@code rm}; null when none runs. */
  static Map<String, Object> of(ResourceManager rm) {
    if (rm.getResourceScheduler() instanceof SpindleScheduler) {
      SpindleScheduler s = (SpindleScheduler) rm.getResourceScheduler();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("Mode", SpindleScheduler.class.getSimpleName());
      m.put("FallbackHeartbeats", s.getFallbackHeartbeats());
      m.put("CoreErrors", s.getCoreErrors());
      return m;
    }
    return CsRuntime.counters(rm.getRMContext());
  }

  /** A flat JSON object of numbers, booleans and strings. */
  static String json(Map<String, Object> m) {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, Object> e : m.entrySet()) {
      if (b.length() > 1) {
        b.append(',');
      }
      b.append(quote(e.getKey())).append(':');
      Object v = e.getValue();
      b.append(v instanceof Number || v instanceof Boolean ? String.valueOf(v)
          : quote(String.valueOf(v)));
    }
    return b.append('}').toString();
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
