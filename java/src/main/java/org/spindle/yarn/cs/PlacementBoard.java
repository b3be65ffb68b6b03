package org.spindle.yarn.cs;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import org.spindle.core.SpindleCore;

/**
 * The core's node decisions, as the CapacityScheduler's scheduling threads
 * read them, and the bounded veto. Hadoop-free.
 *
 * <p>Each node holds an immutable {@link Decision} behind a volatile field:
 * the (app, priority) pairs the plan puts on it, with the containers left
 * of each. A node's heartbeat (the RM's dispatcher thread) replaces it,
 * only when the core's new decision differs, so the steady state allocates
 * nothing; any number of scheduling threads read it without a lock. A
 * precheck is a look in the node's decision; a grant takes one container
 * off its pair.
 *
 * <p>The bounded veto: a node that vetoed an app while it had room, and got
 * no container until its next heartbeat, idled; after {@code maxVetoBeats}
 * such heartbeats in a row, or {@code maxVetoMs} since the first, its vetoes
 * lift (any app may take it) until it gets a container. So a node the plan
 * holds for an app that its queue or user limit keeps from running does not
 * sit idle.
 */
public final class PlacementBoard {
  /** Locality codes of grants, as the core's ({@link SpindleCore#NODE_LOCAL} ...). */
  static final int LOCALITIES = 3;

  /** One node's decision: immutable but for the containers left of each pair. */
  static final class Decision {
    final int[] apps;
    final int[] priorities;
    final int[] localities;
    final AtomicIntegerArray left;

    Decision(int[] quads, int n) {
      apps = new int[n];
      priorities = new int[n];
      localities = new int[n];
      left = new AtomicIntegerArray(n);
      for (int i = 0; i < n; i++) {
        int o = i * SpindleCore.GRANT_INTS;
        apps[i] = quads[o];
        priorities[i] = quads[o + 1];
        left.set(i, quads[o + 2]);
        localities[i] = quads[o + 3];
      }
    }

    /** Index of the pair, -1 if the decision does not name it. */
    int find(int app, int priority) {
      for (int i = 0; i < apps.length; i++) {
        if (apps[i] == app && priorities[i] == priority) {
          return i;
        }
      }
      return -1;
    }

    /** Index of the pair while containers of it are left, -1 otherwise. */
    int holding(int app, int priority) {
      int i = find(app, priority);
      return i >= 0 && left.get(i) > 0 ? i : -1;
    }

    /** Whether it says the same as {@code quads} (with containers left as counts). */
    boolean same(int[] quads, int n) {
      if (n != apps.length) {
        return false;
      }
      for (int i = 0; i < n; i++) {
        int o = i * SpindleCore.GRANT_INTS;
        if (apps[i] != quads[o] || priorities[i] != quads[o + 1]
            || left.get(i) != quads[o + 2] || localities[i] != quads[o + 3]) {
          return false;
        }
      }
      return true;
    }

    /** Takes one container off pair {@code i}; false if none was left. */
    boolean take(int i) {
      while (true) {
        int l = left.get(i);
        if (l <= 0) {
          return false;
        }
        if (left.compareAndSet(i, l, l - 1)) {
          return true;
        }
      }
    }
  }

  static final Decision EMPTY = new Decision(new int[0], 0);

  /** A node's decision and veto state. */
  static final class Node {
    volatile Decision decision = EMPTY;
    /** A veto while the node had room, since its last heartbeat. */
    volatile boolean vetoed;
    /** A container placed on it since its last heartbeat. */
    volatile boolean granted;
    /** Its vetoes are lifted until it gets a container. */
    volatile boolean lifted;
    /** Heartbeats in a row it idled under vetoes (heartbeat thread only). */
    int idleBeats;
    long idleSince;
  }

  private final ConcurrentHashMap<String, Node> nodes = new ConcurrentHashMap<>();
  private final int maxVetoBeats;
  private final long maxVetoMs;

  final LongAdder planPasses = new LongAdder();
  final LongAdder vetoes = new LongAdder();
  /** Apps a leaf's walk passed over: each would only have been vetoed (CsRuntime#skips). */
  final LongAdder skippedApps = new LongAdder();
  final LongAdder lifts = new LongAdder();
  final LongAdder liftedPasses = new LongAdder();
  final LongAdder undecided = new LongAdder();
  final LongAdder[] grants = {new LongAdder(), new LongAdder(), new LongAdder()};
  final LongAdder grantsOnPlan = new LongAdder();
  final LongAdder grantsOffPlan = new LongAdder();
  final LongAdder grantsLocationLess = new LongAdder();

  /**
   * @param maxVetoBeats heartbeats a node may idle under vetoes before they lift (at least 1)
   * @param maxVetoMs time from its first such heartbeat after which they lift; negative: none
   */
  PlacementBoard(int maxVetoBeats, long maxVetoMs) {
    this.maxVetoBeats = Math.max(1, maxVetoBeats);
    this.maxVetoMs = maxVetoMs;
  }

  void nodeAdded(String name) {
    nodes.putIfAbsent(name, new Node());
  }

  void nodeRemoved(String name) {
    nodes.remove(name);
  }

  int nodeCount() {
    return nodes.size();
  }

  /**
   * A heartbeat of node {@code name} at {@code nowMs}, {@code room} if it
   * can take a container: the veto bookkeeping since the last one, then
   * the core's decision ({@code n} offers in {@code quads}; n < 0: the core
   * could not decide, and the node keeps an empty one).
   */
  void heartbeat(String name, boolean room, long nowMs, int[] quads, int n) {
    Node s = nodes.computeIfAbsent(name, k -> new Node());
    if (s.granted) {
      s.granted = false;
      s.vetoed = false;
      s.idleBeats = 0;
      s.lifted = false;
    } else if (s.vetoed && room) {
      s.vetoed = false;
      if (s.idleBeats++ == 0) {
        s.idleSince = nowMs;
      }
      if (!s.lifted && (s.idleBeats >= maxVetoBeats
          || (maxVetoMs >= 0 && nowMs - s.idleSince >= maxVetoMs))) {
        s.lifted = true;
        lifts.increment();
      }
    } else if (!room) {
      s.vetoed = false;
      s.idleBeats = 0;
    }
    int count = Math.max(0, Math.min(n, quads.length / SpindleCore.GRANT_INTS));
    if (!s.decision.same(quads, count)) {
      s.decision = count == 0 ? EMPTY : new Decision(quads, count);
    }
  }

  /**
   * Whether the plan lets the pair take {@code node} now (a look in its
   * decision, no lock, no core call): 1 yes, 0 no (a veto; while the node
   * has {@code room} it counts toward lifting its vetoes), -1 the board
   * has no decision for the node.
   */
  int allows(String node, int app, int priority, boolean room) {
    Node s = nodes.get(node);
    if (s == null) {
      undecided.increment();
      return -1;
    }
    if (s.decision.holding(app, priority) >= 0) {
      planPasses.increment();
      return 1;
    }
    if (s.lifted) {
      liftedPasses.increment();
      return 1;
    }
    if (room) {
      s.vetoed = true;
    }
    vetoes.increment();
    return 0;
  }

  /**
   * A container placed on {@code node} for the pair at {@code locality}
   * ({@code located}: its key had host or rack asks, so the plan places
   * it): taken off the node's decision. Returns whether the decision held
   * it (a grant on the plan).
   */
  boolean granted(String node, int app, int priority, int locality, boolean located) {
    if (locality >= 0 && locality < LOCALITIES) {
      grants[locality].increment();
    }
    Node s = nodes.get(node);
    boolean onPlan = false;
    if (s != null) {
      s.granted = true;
      Decision d = s.decision;
      int i = d.find(app, priority);
      onPlan = i >= 0 && d.take(i);
    }
    (onPlan ? grantsOnPlan : located ? grantsOffPlan : grantsLocationLess).increment();
    return onPlan;
  }

  /**
   * Where the pair stands in {@code node}'s decision: its index (the serve
   * order) while containers are left, -1 otherwise.
   */
  int planned(String node, int app, int priority) {
    Node s = nodes.get(node);
    if (s == null) {
      return -1;
    }
    return s.decision.holding(app, priority);
  }

  /**
   * The node's state while its decision vetoes (it has one, and its vetoes
   * are not lifted); null when every app may pass or Spindle's locality
   * delay decides (no decision).
   */
  Node vetoing(String node) {
    Node s = nodes.get(node);
    return s == null || s.lifted ? null : s;
  }

  /**
   * Whether {@link #allows} would certainly veto the pair on {@code s}
   * (from {@link #vetoing}) and its veto would change no veto state, so a
   * walk may pass over it: the plan decides the key ({@code app >= 0},
   * {@code located}), {@code s}'s decision holds no container of the pair,
   * and {@code s} is marked vetoed already or the key's container does not
   * fit ({@code room} false). Counts and marks nothing.
   */
  static boolean quietVeto(Node s, int app, int priority, boolean located, boolean room) {
    if (app < 0 || !located) {
      return false;
    }
    return s.decision.holding(app, priority) < 0 && (s.vetoed || !room);
  }

  Node nodeForTest(String name) {
    return nodes.get(name);
  }

  /** Whether {@code node}'s vetoes are lifted. */
  boolean lifted(String node) {
    Node s = nodes.get(node);
    return s != null && s.lifted;
  }
}
