package org.spindle.bench.rm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;

/**
 * A MapReduce-like AM: {@code maps} map tasks, each reading a block whose 3
 * replicas HDFS placed on a random node and on two nodes of one other rack.
 * It asks as RMContainerRequestor does (each host, each rack and ANY at
 * priority 20, absolute counts), matches each container it gets to a map
 * node-local, then rack-local, then anywhere (releasing a container no map
 * needs), and after each assignment lowers the counts of that map's hosts,
 * racks and ANY, sent as the changed asks of its next allocate.
 */
final class BenchApp {
  static final int PRIORITY = 20;
  static final Priority PRI = Priority.newInstance(PRIORITY);

  /** A map running in a container. */
  static final class Task {
    final BenchApp app;
    final ContainerId id;
    final BenchNode node;
    final long finishBeat;

    Task(BenchApp app, ContainerId id, BenchNode node, long finishBeat) {
      this.app = app;
      this.id = id;
      this.node = node;
      this.finishBeat = finishBeat;
    }
  }

  final ApplicationId appId;
  final ApplicationAttemptId attemptId;
  final BenchRMApp rmApp;
  private final int nodesPerRack;
  private final Resource capability;
  /** The 3 replica holders of each map. */
  private final int[][] replicas;
  private final boolean[] assigned;
  private int unassigned;
  private int anyCursor;
  /** Distinct hosts and racks the maps name, their pending-map lists and ask counts. */
  private final int[] hosts;
  private final int[] racks;
  private final int[][] hostMaps;
  private final int[][] rackMaps;
  private final int[] hostCursor;
  private final int[] rackCursor;
  private final int[] hostAsk;
  private final int[] rackAsk;
  private final boolean[] hostDirty;
  private final boolean[] rackDirty;
  private final List<Integer> dirtyHosts = new ArrayList<>();
  private final List<Integer> dirtyRacks = new ArrayList<>();
  private boolean anyDirty;
  /** Live containers of this app (pulled, not finished). */
  final Set<Task> tasks = new HashSet<>();

  long containers;
  long dataLocal;
  long rackLocal;
  long released;

  BenchApp(BenchRMApp rmApp, int maps, int nodes, int nodesPerRack, Resource capability,
      Random rnd) {
    this.rmApp = rmApp;
    this.appId = rmApp.getApplicationId();
    this.attemptId = ApplicationAttemptId.newInstance(appId, 1);
    this.nodesPerRack = nodesPerRack;
    this.capability = capability;
    int rackCount = (nodes + nodesPerRack - 1) / nodesPerRack;
    replicas = new int[maps][];
    Map<Integer, List<Integer>> byHost = new HashMap<>();
    Map<Integer, List<Integer>> byRack = new HashMap<>();
    for (int m = 0; m < maps; m++) {
      int first = rnd.nextInt(nodes);
      int[] r;
      if (rackCount < 2) {
        r = new int[] {first, distinct(rnd, nodes, first, -1), -1};
        r[2] = distinct(rnd, nodes, r[0], r[1]);
      } else {
        // The 2nd and 3rd replica on two nodes of one other rack (HDFS's default placement).
        int rack;
        do {
          rack = rnd.nextInt(rackCount);
        } while (rack == first / nodesPerRack);
        int base = rack * nodesPerRack;
        int size = Math.min(nodesPerRack, nodes - base);
        int second = base + rnd.nextInt(size);
        int third = size < 2 ? second : base + (second - base + 1 + rnd.nextInt(size - 1)) % size;
        r = new int[] {first, second, third};
      }
      replicas[m] = r;
      Set<Integer> seenRacks = new HashSet<>();
      Set<Integer> seenHosts = new HashSet<>();
      for (int h : r) {
        if (h < 0) {
          continue;
        }
        if (seenHosts.add(h)) {
          byHost.computeIfAbsent(h, k -> new ArrayList<>()).add(m);
        }
        if (seenRacks.add(h / nodesPerRack)) {
          byRack.computeIfAbsent(h / nodesPerRack, k -> new ArrayList<>()).add(m);
        }
      }
    }
    assigned = new boolean[maps];
    unassigned = maps;
    hosts = byHost.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
    racks = byRack.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
    hostMaps = new int[hosts.length][];
    hostAsk = new int[hosts.length];
    hostCursor = new int[hosts.length];
    hostDirty = new boolean[hosts.length];
    for (int i = 0; i < hosts.length; i++) {
      hostMaps[i] = byHost.get(hosts[i]).stream().mapToInt(Integer::intValue).toArray();
      hostAsk[i] = hostMaps[i].length;
    }
    rackMaps = new int[racks.length][];
    rackAsk = new int[racks.length];
    rackCursor = new int[racks.length];
    rackDirty = new boolean[racks.length];
    for (int i = 0; i < racks.length; i++) {
      rackMaps[i] = byRack.get(racks[i]).stream().mapToInt(Integer::intValue).toArray();
      rackAsk[i] = rackMaps[i].length;
    }
  }

  private static int distinct(Random rnd, int nodes, int a, int b) {
    if (nodes <= 2) {
      return a;
    }
    int n;
    do {
      n = rnd.nextInt(nodes);
    } while (n == a || n == b);
    return n;
  }

  int distinctHosts() {
    return hosts.length;
  }

  int unassigned() {
    return unassigned;
  }

  private ResourceRequest ask(String resource, int count) {
    return ResourceRequest.newInstance(PRI, resource, capability, count);
  }

  /** The first allocate's asks: every host, every rack, ANY. */
  List<ResourceRequest> initialAsks(String[] hostNames, String[] rackNames) {
    List<ResourceRequest> asks = new ArrayList<>(hosts.length + racks.length + 1);
    for (int i = 0; i < hosts.length; i++) {
      asks.add(ask(hostNames[hosts[i]], hostAsk[i]));
    }
    for (int i = 0; i < racks.length; i++) {
      asks.add(ask(rackNames[racks[i]], rackAsk[i]));
    }
    asks.add(ask(ResourceRequest.ANY, unassigned));
    anyDirty = false;
    return asks;
  }

  /** The asks changed since the last call (absolute counts, as the MR AM sends them). */
  List<ResourceRequest> changedAsks(String[] hostNames, String[] rackNames) {
    if (!anyDirty) {
      return null;
    }
    List<ResourceRequest> asks = new ArrayList<>(dirtyHosts.size() + dirtyRacks.size() + 1);
    for (int i : dirtyHosts) {
      asks.add(ask(hostNames[hosts[i]], hostAsk[i]));
      hostDirty[i] = false;
    }
    for (int i : dirtyRacks) {
      asks.add(ask(rackNames[racks[i]], rackAsk[i]));
      rackDirty[i] = false;
    }
    asks.add(ask(ResourceRequest.ANY, unassigned));
    dirtyHosts.clear();
    dirtyRacks.clear();
    anyDirty = false;
    return asks;
  }

  /**
   * A container the AM pulled on {@code node}: a map for it (node-local,
   * rack-local, then any), or null when no map needs it (the AM releases it).
   */
  Task assign(Container c, BenchNode node, long finishBeat) {
    int m = -1;
    // Slots by binary search in the sorted arrays: a boxed map per app and
    // host cost the bench's JVM about 1 GB of heap at 50,000 nodes.
    int hs = Arrays.binarySearch(hosts, node.index);
    if (hs >= 0) {
      m = next(hostMaps[hs], hostCursor, hs);
    }
    boolean local = m >= 0;
    boolean rack = false;
    if (m < 0) {
      int rs = Arrays.binarySearch(racks, node.index / nodesPerRack);
      if (rs >= 0) {
        m = next(rackMaps[rs], rackCursor, rs);
        rack = m >= 0;
      }
    }
    if (m < 0) {
      while (anyCursor < assigned.length && assigned[anyCursor]) {
        anyCursor++;
      }
      m = anyCursor < assigned.length ? anyCursor : -1;
    }
    if (m < 0) {
      released++;
      return null;
    }
    assigned[m] = true;
    unassigned--;
    containers++;
    if (local) {
      dataLocal++;
    } else if (rack) {
      rackLocal++;
    }
    // Each distinct host and rack of the map once, as the asks were counted.
    int[] r = replicas[m];
    for (int k = 0; k < r.length; k++) {
      int h = r[k];
      if (h < 0) {
        continue;
      }
      boolean hostSeen = false;
      boolean rackSeen = false;
      for (int j = 0; j < k; j++) {
        hostSeen |= r[j] == h;
        rackSeen |= r[j] >= 0 && r[j] / nodesPerRack == h / nodesPerRack;
      }
      if (!hostSeen) {
        int s = Arrays.binarySearch(hosts, h);
        hostAsk[s]--;
        if (!hostDirty[s]) {
          hostDirty[s] = true;
          dirtyHosts.add(s);
        }
      }
      if (!rackSeen) {
        int rs = Arrays.binarySearch(racks, h / nodesPerRack);
        rackAsk[rs]--;
        if (!rackDirty[rs]) {
          rackDirty[rs] = true;
          dirtyRacks.add(rs);
        }
      }
    }
    anyDirty = true;
    Task t = new Task(this, c.getId(), node, finishBeat);
    tasks.add(t);
    return t;
  }

  /** The first unassigned map of {@code list}, moving its cursor past assigned ones. */
  private int next(int[] list, int[] cursors, int slot) {
    int i = cursors[slot];
    while (i < list.length && assigned[list[i]]) {
      i++;
    }
    cursors[slot] = i;
    return i < list.length ? list[i] : -1;
  }

  @Override
  public String toString() {
    return appId + " (" + replicas.length + " maps, " + hosts.length + " hosts, "
        + Arrays.toString(new long[] {containers, dataLocal, rackLocal}) + ")";
  }
}
