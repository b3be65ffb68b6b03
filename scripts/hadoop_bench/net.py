"""Where scripts/hadoop-bench's hosts live and how they are connected.

`Loopback`: every host on its own loopback address of this machine (no
cost for a remote read). `Tree`: every host in its own network namespace
on a two-tier tree (a bridge per rack, veth links, `tc` shaping): a
per-host link and an oversubscribed rack uplink, so a remote read costs
what it costs. The tree's namespaces, links and addresses are the bench's
own: made here, removed on exit (also on failure); the root namespace has
no link into them, so the hosts only talk to each other.
"""

import concurrent.futures
import ctypes
import os
import subprocess

CLONE_NEWNET = 0x40000000
# Namespaces of a run: one holding the bridges ("fabric"), the master's, one per host.
PREFIX = "spb-"
FABRIC = PREFIX + "fabric"
MASTER_NS = PREFIX + "master"


class NetError(Exception):
    pass


def run(cmd, check=True):
    p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    if check and p.returncode != 0:
        raise NetError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[:500]}")
    return p


class Loopback:
    """Host i on 127.0.1.i, the master on 127.0.2.1: one machine, no shaping."""
    kind = "loopback"
    master_ip = "127.0.2.1"

    def __init__(self, hosts, rack_of):
        self.n = hosts
        self.rack_of = rack_of

    def host_ip(self, i):
        return f"127.0.1.{i}"

    def wrap(self, cmd, where):
        return cmd

    def setup(self):
        pass

    def shape(self):
        pass

    def teardown(self):
        pass

    def call(self, fn, *args):
        return fn(*args)

    def describe(self):
        return "loopback (no network cost)"


def tbf(dev, mbit, ns):
    """A token bucket on `dev`'s egress: `mbit` Mbit/s. The burst holds at
    least one 64 KiB GSO segment (veths pass them whole)."""
    burst = max(96 * 1024, int(mbit * 1e6 / 8 / 100))  # 10 ms at the rate
    return ["ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", dev, "root", "tbf",
            "rate", f"{mbit:.3f}mbit", "burst", str(burst), "latency", "200ms"]


class Tree:
    """A two-tier tree of network namespaces.

    fabric (no addresses): bridge rK per rack and a core bridge; host i's
    link is a veth pair hNN (on rK) <-> eth0 (in the host's namespace), the
    rack's uplink a veth pair uK (on rK) <-> dK (on core), the master's a
    veth pair m0 (on core) <-> eth0. Addresses 10.213.0.1 (master) and
    10.213.1.i (host i), one /16 that exists only inside these namespaces.
    Shaping (`shape`, after the inputs are written): each direction of a
    host link at `host_mbit`, each direction of a rack uplink at
    (hosts in the rack x host_mbit / oversubscription); the master's link
    is not shaped (it carries RPCs and the job clients).
    """
    kind = "tree"
    master_ip = "10.213.0.1"

    def __init__(self, hosts, rack_of, host_mbit, oversubscription):
        self.n = hosts
        self.rack_of = rack_of  # host index -> rack number (1-based)
        self.host_mbit = host_mbit
        self.oversub = oversubscription
        self.made = []
        self.pool = None
        self.shaped = False

    def host_ip(self, i):
        return f"10.213.1.{i}"

    @staticmethod
    def host_ns(i):
        return f"{PREFIX}h{i:02d}"

    def ns_of(self, where):
        return MASTER_NS if where == "master" else self.host_ns(where)

    def wrap(self, cmd, where):
        return ["ip", "netns", "exec", self.ns_of(where), *cmd]

    def racks(self):
        return sorted(set(self.rack_of.values()))

    def uplink_mbit(self, rack):
        members = sum(1 for r in self.rack_of.values() if r == rack)
        return members * self.host_mbit / self.oversub

    @staticmethod
    def stale():
        """Namespaces a run killed hard left behind (one run at a time: the lock)."""
        p = run(["ip", "netns", "list"], check=False)
        return [line.split()[0] for line in p.stdout.splitlines()
                if line.split() and line.split()[0].startswith(PREFIX)]

    def _ns(self, name):
        run(["ip", "netns", "add", name])
        self.made.append(name)
        run(["ip", "-n", name, "link", "set", "lo", "up"])

    def setup(self):
        if not 1 <= self.n <= 250:
            raise NetError(f"--network tree takes 1..250 hosts, got {self.n}")
        for name in self.stale():
            run(["ip", "netns", "del", name], check=False)
        fab = ["ip", "-n", FABRIC]
        self._ns(FABRIC)
        run(fab + ["link", "add", "core", "type", "bridge"])
        run(fab + ["link", "set", "core", "up"])
        for r in self.racks():
            run(fab + ["link", "add", f"r{r}", "type", "bridge"])
            run(fab + ["link", "set", f"r{r}", "up"])
            run(fab + ["link", "add", f"u{r}", "type", "veth", "peer", "name", f"d{r}"])
            run(fab + ["link", "set", f"u{r}", "master", f"r{r}", "up"])
            run(fab + ["link", "set", f"d{r}", "master", "core", "up"])
        self._ns(MASTER_NS)
        self._attach(MASTER_NS, "m0", "core", self.master_ip)
        for i in range(1, self.n + 1):
            ns = self.host_ns(i)
            self._ns(ns)
            self._attach(ns, f"h{i:02d}", f"r{self.rack_of[i]}", self.host_ip(i))
        self.pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, initializer=_enter_ns, initargs=(MASTER_NS,))

    def _attach(self, ns, fabric_end, bridge, ip):
        fab = ["ip", "-n", FABRIC]
        run(fab + ["link", "add", fabric_end, "type", "veth", "peer", "name", "eth0", "netns", ns])
        run(fab + ["link", "set", fabric_end, "master", bridge, "up"])
        run(["ip", "-n", ns, "addr", "add", f"{ip}/16", "dev", "eth0"])
        run(["ip", "-n", ns, "link", "set", "eth0", "up"])

    def shape(self):
        """Turns the links' limits on (the inputs are written before, at full speed)."""
        for i in range(1, self.n + 1):
            run(tbf("eth0", self.host_mbit, self.host_ns(i)))  # host -> rack
            run(tbf(f"h{i:02d}", self.host_mbit, FABRIC))  # rack -> host
        for r in self.racks():
            up = self.uplink_mbit(r)
            run(tbf(f"u{r}", up, FABRIC))  # rack -> core (u is the rack bridge's port)
            run(tbf(f"d{r}", up, FABRIC))  # core -> rack (d is the core bridge's port)
        self.shaped = True

    def teardown(self):
        if self.pool is not None:
            self.pool.shutdown(wait=False)
            self.pool = None
        # Deleting a namespace deletes its veth ends, and their peers with them.
        for name in reversed(self.made):
            run(["ip", "netns", "del", name], check=False)
        self.made = []

    def call(self, fn, *args):
        """`fn(*args)` on a thread inside the master's namespace (this
        process's HTTP requests to the NameNode, RM and history server)."""
        if self.pool is None:
            raise NetError("the tree network is not set up")
        return self.pool.submit(fn, *args).result()

    def describe(self):
        ups = ", ".join(f"rack {r} uplink {self.uplink_mbit(r):g} Mbit/s" for r in self.racks())
        return (f"tree: {self.host_mbit:g} Mbit/s per host link, {self.oversub:g}:1 oversubscribed "
                f"({ups})")


def _enter_ns(name):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise NetError(f"setns into {name}: errno {ctypes.get_errno()}")
    finally:
        os.close(fd)
