package org.spindle.yarn;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * An application's weight in the core (the Session ranks apps by pending
 * containers over weight), Hadoop-free. Two sources:
 *
 * <ul>
 *   <li>the application tag {@code spindle.job.weight=W} (MapReduce:
 *       {@code -Dmapreduce.job.tags=spindle.job.weight=2}): W, a plain decimal
 *       number from {@link #MIN_TAG_WEIGHT} to {@link #MAX_TAG_WEIGHT};
 *   <li>otherwise the app's YARN priority p (already capped by the RM at
 *       {@code yarn.cluster.max-application-priority}): {@code 1 + max(0, p)},
 *       so priority 0 (the default) weighs 1 and each step up adds 1.
 * </ul>
 *
 * A tag that is not such a number, or several weight tags that disagree, are
 * reported (the caller logs the warning) and the priority weight is used.
 */
public final class AppWeights {
  /** The tag key; YARN lower-cases tags, so it is matched ignoring case. */
  static final String TAG = "spindle.job.weight";
  /** Weights beyond these are typos or abuse (one job a million times another), not intent. */
  static final double MIN_TAG_WEIGHT = 1e-6;
  static final double MAX_TAG_WEIGHT = 1e6;
  /** Plain decimals only: no NaN, Infinity, hex or Java's "2d" suffixes. */
  private static final Pattern NUMBER =
      Pattern.compile("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]{1,3})?");

  /** A weight, whether it came from the tag, and a warning to log (null if none). */
  public static final class Weight {
    public final double value;
    public final boolean fromTag;
    public final String warning;

    Weight(double value, boolean fromTag, String warning) {
      this.value = value;
      this.fromTag = fromTag;
      this.warning = warning;
    }
  }

  private AppWeights() {}

  /** The weight of YARN priority {@code priority}: 1 + max(0, priority). */
  public static double ofPriority(int priority) {
    return 1.0 + Math.max(0, priority);
  }

  /**
   * The weight of application {@code app} (named in warnings) with YARN
   * priority {@code priority} and application tags {@code tags} (may be null).
   */
  public static Weight of(String app, int priority, Collection<String> tags) {
    double fallback = ofPriority(priority);
    List<String> found = new ArrayList<>();
    for (String tag : tags == null ? Collections.<String>emptyList() : tags) {
      if (tag != null && tag.trim().toLowerCase(Locale.ROOT).startsWith(TAG + "=")) {
        found.add(tag.trim());
      }
    }
    if (found.isEmpty()) {
      return new Weight(fallback, false, null);
    }
    Collections.sort(found); // a stable message: YARN keeps tags in a HashSet
    String why = null;
    double w = Double.NaN;
    for (String tag : found) {
      String value = tag.substring(TAG.length() + 1).trim();
      double v = NUMBER.matcher(value).matches() ? Double.parseDouble(value) : Double.NaN;
      if (Double.isNaN(v)) {
        why = "tag \"" + tag + "\": \"" + value + "\" is not a number";
      } else if (!(v >= MIN_TAG_WEIGHT && v <= MAX_TAG_WEIGHT)) {
        why = "tag \"" + tag + "\": weight " + value + " is outside " + MIN_TAG_WEIGHT + " to "
            + MAX_TAG_WEIGHT;
      } else if (!Double.isNaN(w) && w != v) {
        why = "tags " + found + " give different weights";
      } else {
        w = v;
        continue;
      }
      break;
    }
    if (why != null) {
      return new Weight(fallback, false, "application " + app + ": " + why
          + "; using the weight of its priority " + priority + ", " + fallback);
    }
    return new Weight(w, true, null);
  }
}
