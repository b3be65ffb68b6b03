"""Times spindle's ASM1 and OR-Tools' min-cost flow on the same instances.

Run through scripts/bench-asm1, which builds spindle and sets up the venv.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from ortools.graph.python import min_cost_flow


def ortools_solve(inst):
    """Optimal semi-matching as a min-cost flow: source -> task (cap 1),
    task -> replica node (cap 1), node -> sink through unit arcs of cost
    1, 2, ..., deg(node): any convex per-node cost gives the same optimum
    as ASM1. Returns (solve seconds, objective, max tasks per node)."""
    hosts = {n["host"]: i for i, n in enumerate(inst["nodes"])}
    tasks = inst["tasks"]
    t, p = len(tasks), len(hosts)
    src, sink = 0, 1 + t + p
    tails, heads = [], []
    deg = np.zeros(p, dtype=np.int64)
    for i, task in enumerate(tasks):
        for h in task["replicas"]:
            n = hosts[h]
            tails.append(1 + i)
            heads.append(1 + t + n)
            deg[n] += 1
    tails = np.array(tails, dtype=np.int32)
    heads = np.array(heads, dtype=np.int32)
    # Per-node unit arcs to the sink with costs 1..deg.
    node_tails = np.repeat(np.arange(p, dtype=np.int32) + 1 + t, deg)
    node_costs = np.concatenate([np.arange(1, d + 1, dtype=np.int64) for d in deg]) if p else np.zeros(0, np.int64)
    smcf = min_cost_flow.SimpleMinCostFlow()
    all_tails = np.concatenate([np.zeros(t, np.int32), tails, node_tails])
    all_heads = np.concatenate([np.arange(1, t + 1, dtype=np.int32), heads, np.full(len(node_tails), sink, np.int32)])
    caps = np.ones(len(all_tails), dtype=np.int64)
    costs = np.concatenate([np.zeros(t + len(tails), np.int64), node_costs])
    smcf.add_arcs_with_capacity_and_unit_cost(all_tails, all_heads, caps, costs)
    supplies = np.zeros(sink + 1, dtype=np.int64)
    supplies[src], supplies[sink] = t, -t
    smcf.set_nodes_supplies(np.arange(sink + 1), supplies)
    start = time.perf_counter()
    status = smcf.solve()
    secs = time.perf_counter() - start
    if status != smcf.OPTIMAL:
        raise SystemExit(f"OR-Tools did not find an optimum (status {status})")
    # Flow on the node->sink arcs gives each node's load.
    first = t + len(tails)
    flows = smcf.flows(np.arange(first, first + len(node_tails)))
    load = np.bincount(node_tails - (1 + t), weights=flows, minlength=p)
    return secs, smcf.optimal_cost(), int(load.max()) if p else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--spindle", required=True)
    ap.add_argument("--sizes", default="100000x2000,1000000x10000", help="TASKSxNODES,...")
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--racks", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5, help="spindle repetitions (best is reported)")
    args = ap.parse_args()
    print(f"{'instance':>22} | {'spindle asm1 ms':>15} | {'OR-Tools ms':>11} | {'ratio':>7} | objectives")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes.split(","):
            tasks, nodes = (int(x) for x in size.lower().split("x"))
            path = os.path.join(tmp, f"{size}.json")
            subprocess.run([args.spindle, "generate", "--nodes", str(nodes), "--tasks", str(tasks),
                            "--replicas", str(args.replicas), "--racks", str(args.racks),
                            "--seed", str(args.seed), "--output", path], check=True)
            ours = json.loads(subprocess.run([args.spindle, "bench", "-i", path, "--repeat", str(args.repeat)],
                                             check=True, capture_output=True, text=True).stdout)
            with open(path) as f:
                inst = json.load(f)
            secs, cost, max_load = ortools_solve(inst)
            agree = cost == ours["sum_k_cost"] and max_load == ours["max_tasks_per_node"]
            verdict = "agree" if agree else "DIFFER"
            name = f"{tasks}x{nodes}x{args.replicas}"
            print(f"{name:>22} | {ours['best_ms']:>15.2f} | {secs * 1e3:>11.1f} | {secs * 1e3 / ours['best_ms']:>6.1f}x | "
                  f"{verdict} (sum {ours['sum_k_cost']} vs {cost}, max {ours['max_tasks_per_node']} vs {max_load})",
                  flush=True)
            if not agree:
                sys.exit(1)


if __name__ == "__main__":
    main()
