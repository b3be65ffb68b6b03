"""What a MapReduce job did, from its job history file (.jhist) and the
daemons' logs: per map, where it ran, at which locality and how many HDFS
bytes it read; per task, when its container was granted, launched, first
reported progress and finished.
"""

import json
import os
import re
import time

LOCALITIES = ("NODE_LOCAL", "RACK_LOCAL", "OFF_SWITCH")


def parse_jhist(text):
    """The events of an Avro-JSON job history file: job times and, per task
    attempt, its task, type, host, locality, times, status and HDFS bytes read.
    Lines that are not events (the header and the schema) are skipped."""
    job = {"submit_ms": None, "launch_ms": None, "finish_ms": None, "status": None}
    tasks, attempts = {}, {}
    for line in text.splitlines():
        if not line.startswith("{\"type\""):
            continue
        try:
            e = json.loads(line)
        except ValueError:
            continue
        body = next(iter((e.get("event") or {}).values()), None) or {}
        kind = e.get("type")
        if kind == "JOB_SUBMITTED":
            job["submit_ms"] = body.get("submitTime")
        elif kind == "JOB_INITED":
            job["launch_ms"] = body.get("launchTime")
        elif kind in ("JOB_FINISHED", "JOB_FAILED", "JOB_KILLED", "JOB_UNSUCCESSFUL_COMPLETION"):
            job["finish_ms"] = body.get("finishTime")
            job["status"] = "SUCCEEDED" if kind == "JOB_FINISHED" else body.get("jobStatus", kind)
        elif kind == "TASK_STARTED":
            tasks[body.get("taskid")] = {"type": body.get("taskType"),
                                         "splits": [h for h in (_union(body.get("splitLocations")) or "").split(",")
                                                    if h],
                                         "start_ms": body.get("startTime")}
        elif kind in ("MAP_ATTEMPT_STARTED", "REDUCE_ATTEMPT_STARTED"):
            a = attempts.setdefault(body.get("attemptId"), {})
            a.update({"task": body.get("taskid"), "type": body.get("taskType"),
                      "start_ms": body.get("startTime"), "host": _host(body.get("trackerName")),
                      "container": body.get("containerId"), "locality": _union(body.get("locality"))})
        elif kind in ("MAP_ATTEMPT_FINISHED", "REDUCE_ATTEMPT_FINISHED"):
            a = attempts.setdefault(body.get("attemptId"), {})
            a.update({"finish_ms": body.get("finishTime"), "status": "SUCCEEDED",
                      "host": _host(body.get("hostname")) or a.get("host"),
                      "hdfs_bytes_read": _counter(body.get("counters"), "HDFS_BYTES_READ")})
        elif kind in ("MAP_ATTEMPT_FAILED", "MAP_ATTEMPT_KILLED", "REDUCE_ATTEMPT_FAILED",
                      "REDUCE_ATTEMPT_KILLED"):
            a = attempts.setdefault(body.get("attemptId"), {})
            a.update({"finish_ms": body.get("finishTime"), "status": body.get("status", kind)})
    return {"job": job, "tasks": tasks, "attempts": attempts}


def _union(v):
    """An Avro-JSON union value ({"string": "NODE_LOCAL"}) as its plain value."""
    if isinstance(v, dict) and len(v) == 1:
        return next(iter(v.values()))
    return v


def _host(name):
    """A tracker or host name as the AM logs it ("h01.spindle.test", maybe with a port)."""
    if not name:
        return None
    return name.split(":")[0]


def _counter(counters, name):
    for group in (counters or {}).get("groups", []):
        for c in group.get("counts", []):
            if c.get("name") == name:
                return int(c.get("value", 0))
    return 0


def map_locality(h):
    """Maps and HDFS bytes read by the job's successful map attempts, split
    by the attempt's locality (the MR AM's own judgement: a node-local map
    reads its block from its own DataNode, a rack-local one from a replica
    in its rack, an off-switch one across racks)."""
    out = {"maps": 0, "data_local": 0, "rack_local": 0, "off_switch": 0,
           "bytes_local": 0, "bytes_rack": 0, "bytes_off_rack": 0}
    for a in h["attempts"].values():
        if a.get("type") != "MAP" or a.get("status") != "SUCCEEDED":
            continue
        out["maps"] += 1
        b = a.get("hdfs_bytes_read") or 0
        loc = a.get("locality")
        if loc == "NODE_LOCAL":
            out["data_local"] += 1
            out["bytes_local"] += b
        elif loc == "RACK_LOCAL":
            out["rack_local"] += 1
            out["bytes_rack"] += b
        else:
            out["off_switch"] += 1
            out["bytes_off_rack"] += b
    return out


# ------------------------------------------------------ the RM's grants

CS_GRANT = re.compile(r"assignedContainer application attempt=appattempt_(\d+_\d+)_\d+ .* type=(NODE_LOCAL|RACK_LOCAL|OFF_SWITCH)")


def grant_localities(lines, app_id):
    """The locality of every container the CapacityScheduler (stock or with
    Spindle's allocator) granted to `app_id`, by its "assignedContainer ...
    type=" INFO lines: what the scheduler placed, before the MR AM matches
    containers to maps (its DATA_LOCAL_MAPS counter). The AM's and the
    reducers' containers have no host asks and count as OFF_SWITCH."""
    suffix = app_id[len("application_"):]
    out = {"NODE_LOCAL": 0, "RACK_LOCAL": 0, "OFF_SWITCH": 0}
    for line in lines:
        if suffix not in line:
            continue
        m = CS_GRANT.search(line)
        if m and m.group(1) == suffix:
            out[m.group(2)] += 1
    return out


# ------------------------------------------------------------ the timeline

def _log_ms(line):
    """Milliseconds of a log4j ISO8601 line ("2026-11-27 01:43:02,158 ...")."""
    try:
        t = time.mktime(time.strptime(line[:19], "%Y-%m-%d %H:%M:%S"))
        return int(t * 1000) + int(line[20:23])
    except (ValueError, IndexError):
        return None


RM_STATE = re.compile(r"(container_\d+_\d+_\d+_\d+) Container Transitioned from (\w+) to (\w+)")
RM_ASSIGNED = re.compile(r"Assigned container (container_\S+) of capacity .* on host ([^:\s]+)")
AM_ASSIGNED = re.compile(r"Assigned container (container_\S+) to (attempt_\S+)")
AM_STATE = re.compile(r"(attempt_\S+) TaskAttempt Transitioned from (\w+) to (\w+)")
AM_PROGRESS = re.compile(r"Progress of TaskAttempt (attempt_\S+) is : ([0-9.eE-]+)")


def timeline(work, app_id):
    """Per task attempt of `app_id` (application_..._NNNN): when the AM asked
    for its container (NEW -> UNASSIGNED), when the RM granted one
    (ALLOCATED) and on which host, when the AM got it (ACQUIRED), when the
    task was assigned and launched (ASSIGNED -> RUNNING), its first progress
    report and its end. From the RM log and the AM's syslog under the
    NodeManagers' log directories. Times in ms since the epoch."""
    suffix = app_id[len("application_"):]
    containers = {}
    for name in sorted(os.listdir(os.path.join(work, "logs"))):
        if not name.startswith("resourcemanager"):
            continue
        with open(os.path.join(work, "logs", name), errors="replace") as f:
            for line in f:
                if suffix not in line:
                    continue
                m = RM_STATE.search(line)
                if m:
                    c = containers.setdefault(m.group(1), {})
                    c.setdefault(m.group(3).lower() + "_ms", _log_ms(line))
                    continue
                m = RM_ASSIGNED.search(line)
                if m:
                    containers.setdefault(m.group(1), {})["host"] = m.group(2)
    attempts = {}
    syslog = _am_syslog(work, app_id)
    if syslog:
        with open(syslog, errors="replace") as f:
            for line in f:
                m = AM_ASSIGNED.search(line)
                if m:
                    a = attempts.setdefault(m.group(2), {})
                    a["container"] = m.group(1)
                    a["assigned_ms"] = _log_ms(line)
                    continue
                m = AM_STATE.search(line)
                if m:
                    a = attempts.setdefault(m.group(1), {})
                    key = {"UNASSIGNED": "asked_ms", "RUNNING": "launched_ms",
                           "SUCCEEDED": "done_ms", "SUCCESS_FINISHING_CONTAINER": "done_ms",
                           "FAILED": "done_ms", "KILLED": "done_ms"}.get(m.group(3))
                    if key:
                        a.setdefault(key, _log_ms(line))
                    continue
                m = AM_PROGRESS.search(line)
                if m:
                    attempts.setdefault(m.group(1), {}).setdefault("progress_ms", _log_ms(line))
    rows = []
    for attempt, a in attempts.items():
        c = containers.get(a.get("container"), {})
        rows.append({"attempt": attempt, "type": "m" if "_m_" in attempt else "r",
                     "host": c.get("host"), "container": a.get("container"),
                     "asked_ms": a.get("asked_ms"), "allocated_ms": c.get("allocated_ms"),
                     "acquired_ms": c.get("acquired_ms"), "launched_ms": a.get("launched_ms"),
                     "progress_ms": a.get("progress_ms"), "done_ms": a.get("done_ms")})
    am = [cid for cid in containers if cid.endswith("_000001")]
    am_row = containers.get(am[0]) if am else None
    return {"attempts": sorted(rows, key=lambda r: (r["allocated_ms"] or 0, r["attempt"])),
            "am": am_row, "containers": containers}


def _am_syslog(work, app_id):
    """The AM's syslog: its first container's log under some NodeManager's log dirs."""
    suffix = app_id[len("application_"):]
    for root, _, files in os.walk(work):
        if "syslog" in files and root.endswith(f"container_{suffix}_01_000001"):
            return os.path.join(root, "syslog")
    return None


def idle_while_waiting(t, containers):
    """Container-seconds of the cluster (`containers` slots) left free while
    some map of the job had been asked for and not yet granted (the RM's
    view: a container counts from ALLOCATED to COMPLETED)."""
    maps = [r for r in t["attempts"] if r["type"] == "m" and r["asked_ms"] and r["allocated_ms"]]
    if not maps:
        return None
    events = []
    for c in t["containers"].values():
        if c.get("allocated_ms") is not None:
            events.append((c["allocated_ms"], 1))
            if c.get("completed_ms") is not None:
                events.append((c["completed_ms"], -1))
    waits = [(r["asked_ms"], 1) for r in maps] + [(r["allocated_ms"], -1) for r in maps]
    points = sorted({p for p, _ in events + waits})
    idle, busy, waiting = 0.0, 0, 0
    ev, wv = sorted(events), sorted(waits)
    i = k = 0
    for a, b in zip(points, points[1:]):
        while i < len(ev) and ev[i][0] <= a:
            busy += ev[i][1]
            i += 1
        while k < len(wv) and wv[k][0] <= a:
            waiting += wv[k][1]
            k += 1
        if waiting > 0:
            idle += max(0, containers - busy) * (b - a) / 1000.0
    return idle


def timeline_text(label, t, t0=None, containers=None):
    """The timeline as a fixed-width table, seconds from the AM container's grant."""
    rows = t["attempts"]
    am = t.get("am") or {}
    base = t0 or am.get("allocated_ms") or min((r["allocated_ms"] for r in rows if r["allocated_ms"]),
                                               default=0)

    def s(v):
        return "-" if v is None else f"{(v - base) / 1000.0:7.1f}"
    maps = [r for r in rows if r["type"] == "m"]
    reds = [r for r in rows if r["type"] == "r"]
    idle = idle_while_waiting(t, containers) if containers else None
    grants = sorted(r["allocated_ms"] for r in maps if r["allocated_ms"])
    lines = [f"{label}: seconds from the AM container's grant; AM container: granted "
             f"{s(am.get('allocated_ms'))}, running {s(am.get('running_ms'))}",
             f"  maps asked {s(min((r['asked_ms'] for r in maps if r['asked_ms']), default=None))}, "
             f"first granted {s(grants[0] if grants else None)}, last granted "
             f"{s(grants[-1] if grants else None)}, last done "
             f"{s(max((r['done_ms'] for r in maps if r['done_ms']), default=None))}; reducers granted "
             + ", ".join(f"{s(r['allocated_ms']).strip()} on {(r['host'] or '-').split('.')[0]}" for r in reds)
             + (f"; container-seconds free while maps waited: {idle:.1f}" if idle is not None else ""),
             "attempt                    host  asked  granted  acquired  launched  1st-progress  done"]
    for r in rows:
        lines.append(f"{r['attempt'][-16:]:>24} {(r['host'] or '-').split('.')[0]:>5} {s(r['asked_ms'])}"
                     f" {s(r['allocated_ms'])}  {s(r['acquired_ms'])}   {s(r['launched_ms'])}"
                     f"       {s(r['progress_ms'])} {s(r['done_ms'])}")
    return "\n".join(lines)
