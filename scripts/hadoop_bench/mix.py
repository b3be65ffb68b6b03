"""A concurrent job mix for scripts/hadoop-bench (--mix FILE|swim:TRACE):
which jobs, of which size, submitted when, to which queue; the offered
load; the per-scheduler summary; the plot.

A mix file has one job per line (blank lines and # comments skipped):

    submit_s  kind       blocks  [reduces]  [queue]
    0         wordcount  8       2
    12.5      grep       2
    30        terasort   16      2          default

kind: wordcount, grep, sort or terasort (hadoop-mapreduce-examples; sort
reads text with KeyValueTextInputFormat, terasort a TeraGen output).
blocks: input size in HDFS blocks (one map each). reduces: default 1.
queue: the YARN queue the job is submitted to (default "default"); a
scheduler entry with two queues reads it.
"""

import math
import statistics

KINDS = ("wordcount", "grep", "sort", "terasort")
MAX_JOBS = 1000
MAX_BLOCKS = 4096
MAX_SUBMIT_S = 86400.0


class MixError(Exception):
    pass


class MixJob:
    def __init__(self, idx, submit_s, kind, blocks, reduces=1, queue="default", source=""):
        self.idx = idx
        self.submit_s = submit_s
        self.kind = kind
        self.blocks = blocks
        self.reduces = reduces
        self.queue = queue
        self.source = source  # where it came from (file:line or trace job)

    @property
    def name(self):
        return f"j{self.idx:02d}-{self.kind}"

    def as_dict(self):
        return {"job": self.name, "kind": self.kind, "blocks": self.blocks, "reduces": self.reduces,
                "queue": self.queue, "planned_submit_s": round(self.submit_s, 1), "source": self.source}


def parse_mix(path, text):
    """Jobs of a mix file, in submission order. Errors name the file and line."""
    jobs = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue

        def bad(msg):
            return MixError(f"{path}:{n}: {msg} (line: {raw.strip()[:120]!r})")
        f = line.split()
        if not 3 <= len(f) <= 5:
            raise bad(f"expected 'submit_s kind blocks [reduces] [queue]', found {len(f)} fields")
        try:
            submit = float(f[0])
        except ValueError:
            raise bad(f"submit_s {f[0]!r} is not a number")
        if not 0 <= submit <= MAX_SUBMIT_S or math.isnan(submit):
            raise bad(f"submit_s {f[0]} is outside 0..{MAX_SUBMIT_S:g}")
        if f[1] not in KINDS:
            raise bad(f"unknown kind {f[1]!r}; known: {', '.join(KINDS)}")
        blocks = _int(f[2], 1, MAX_BLOCKS, "blocks", bad)
        reduces = _int(f[3], 1, 64, "reduces", bad) if len(f) > 3 else 1
        queue = f[4] if len(f) > 4 else "default"
        if not queue.replace("_", "").replace("-", "").replace(".", "").isalnum():
            raise bad(f"queue {queue!r} is not a queue name")
        jobs.append(MixJob(0, submit, f[1], blocks, reduces, queue, f"{path}:{n}"))
        if len(jobs) > MAX_JOBS:
            raise bad(f"more than {MAX_JOBS} jobs")
    if not jobs:
        raise MixError(f"{path}: no jobs")
    return _numbered(jobs)


def _int(s, lo, hi, what, bad):
    try:
        v = int(s)
    except ValueError:
        raise bad(f"{what} {s!r} is not an integer")
    if not lo <= v <= hi:
        raise bad(f"{what} {v} is outside {lo}..{hi}")
    return v


def _numbered(jobs):
    jobs = sorted(jobs, key=lambda j: j.submit_s)  # stable: file order on ties
    first = jobs[0].submit_s
    for i, j in enumerate(jobs, 1):
        j.idx = i
        j.submit_s -= first
    return jobs


def swim_mix(path, text, count, max_blocks):
    """The first `count` jobs of a SWIM trace (job, submit_s, gap_s,
    map_input_bytes, shuffle_bytes, reduce_output_bytes) as a mix, at the
    trace's own submission times. Input sizes keep the trace's heavy tail on
    a log scale: the smallest of these jobs reads 1 block, the largest
    `max_blocks`, and a job k times larger (in log terms) sits k times
    further along (blocks = max_blocks ** (log(b / b_min) / log(b_max / b_min))).
    SWIM's own replay scales bytes linearly by cluster size instead, which
    on a few hosts makes nearly every job one block. The kind follows the
    job's shuffle: none -> grep (map-heavy, a tiny output), shuffle below a
    third of the input -> wordcount (its combiner shrinks the shuffle),
    above -> sort and terasort in turn (shuffle ~ input). Reduces: 1, or 2
    for a job with a shuffle and 8 blocks or more."""
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        f = line.split("\t")
        if len(f) < 6:
            raise MixError(f"{path}:{n}: expected 6 tab-separated fields, found {len(f)}")
        try:
            submit, input_b, shuffle = float(f[1]), float(f[3]), float(f[4])
        except ValueError:
            raise MixError(f"{path}:{n}: submit_s, map_input_bytes and shuffle_bytes must be numbers")
        if not all(math.isfinite(x) and x >= 0 for x in (submit, input_b, shuffle)):
            raise MixError(f"{path}:{n}: a negative or non-finite field")
        if submit > MAX_SUBMIT_S:
            raise MixError(f"{path}:{n}: submit_s {submit:g} is past {MAX_SUBMIT_S:g}")
        rows.append((n, f[0].strip(), submit, max(1.0, input_b), shuffle))
        if len(rows) >= count:
            break
    if not rows:
        raise MixError(f"{path}: no jobs")
    lo, hi = min(r[3] for r in rows), max(r[3] for r in rows)
    jobs, heavy = [], 0
    for n, name, submit, input_b, shuffle in rows:
        pos = math.log(input_b / lo) / math.log(hi / lo) if hi > lo else 0.0
        blocks = max(1, min(max_blocks, math.ceil(max_blocks ** pos - 1e-9)))
        if shuffle <= 0:
            kind = "grep"
        elif shuffle < input_b / 3:
            kind = "wordcount"
        else:
            kind = ("sort", "terasort")[heavy % 2]
            heavy += 1
        reduces = 2 if kind != "grep" and blocks >= 8 else 1
        jobs.append(MixJob(0, submit, kind, blocks, reduces, "default", f"{name} ({path}:{n})"))
    return _numbered(jobs)


# Container seconds one map / reduce of each kind takes on the shaped tree
# at --net-scale 0.05 with 32 MiB blocks, measured on the 2-core machine
# (mean successful attempt, data-local, cluster busy); the offered load is
# an estimate and the measured utilisation is reported beside it.
MAP_S = {"wordcount": 60.0, "grep": 35.0, "sort": 45.0, "terasort": 45.0}
REDUCE_S = 40.0
AM_S = 20.0


def container_s(j):
    return j.blocks * MAP_S[j.kind] + j.reduces * REDUCE_S + AM_S


def offered_load(jobs, containers):
    span = max(j.submit_s for j in jobs) - min(j.submit_s for j in jobs)
    if span <= 0 or containers <= 0:
        return None
    return sum(container_s(j) for j in jobs) / (containers * span)


def scale_to_load(jobs, containers, target):
    """Scales the gaps between submissions so that the offered load
    (estimated container time / (containers x span)) is `target`."""
    if not 0 < target <= 4:
        raise MixError(f"--load must be in (0, 4], got {target}")
    offered = offered_load(jobs, containers)
    if offered is None:
        raise MixError(f"--load needs jobs submitted at different times; all {len(jobs)} are at once")
    factor = offered / target
    for j in jobs:
        j.submit_s *= factor
    return offered, factor


# ------------------------------------------------------------ the summary

def summary(runs, rows):
    """One entry per (scheduler key, label, restarted) in `rows`: mean and
    median job completion time, the slowest job against its own time under
    the CapacityScheduler (key "capacity", no restart), data-local maps,
    HDFS bytes the maps read by locality, failures. A restarted run also
    gets its jobs' extra time over the same scheduler's run without it."""
    cap = {r["job"]: r["seconds"] for r in runs
           if r["key"] == "capacity" and r["succeeded"] and not r["restarted"]}
    out = []
    for key, label, restarted in rows:
        rs = [r for r in runs if r["key"] == key and r["restarted"] == restarted]
        if not rs:
            continue
        ok = [r for r in rs if r["succeeded"]]
        jct = [r["seconds"] for r in ok]
        ratios = [r["seconds"] / cap[r["job"]] for r in ok if cap.get(r["job"])]
        e = {
            "scheduler": label, "key": key, "policy": rs[0]["policy"], "restarted": restarted,
            "jobs": len(rs),
            "mean_jct_s": round(statistics.mean(jct), 1) if jct else None,
            "median_jct_s": round(statistics.median(jct), 1) if jct else None,
            "worst_vs_capacity": round(max(ratios), 2) if ratios else None,
            "data_local": sum(r["data_local"] for r in rs), "maps": sum(r["maps"] for r in rs),
            "bytes_off_rack": sum(r["bytes_off_rack"] for r in rs),
            "bytes_rack": sum(r["bytes_rack"] for r in rs),
            "bytes_local": sum(r["bytes_local"] for r in rs),
            "failed": len(rs) - len(ok),
            "makespan_s": round(max((r["finish_s"] or 0) for r in rs), 1),
        }
        if restarted:
            base = {r["job"]: r["seconds"] for r in runs
                    if r["key"] == key and not r["restarted"] and r["succeeded"]}
            extra = [r["seconds"] - base[r["job"]] for r in ok if r["job"] in base]
            e["extra_s_mean"] = round(statistics.mean(extra), 1) if extra else None
            e["extra_s_max"] = round(max(extra), 1) if extra else None
        out.append(e)
    return out


# ------------------------------------------------------------------- plot

COLOURS = ["#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#66418c", "#00798c"]


def plot_svg(path, runs, entries, title):
    """Job completion times per scheduler: each job's time (jobs in
    submission order) on the left, their distribution (CDF) on the right."""
    w, m = 1000, 60
    top = 40 + 16 * len(entries)  # the legend, one line per scheduler, above the panels
    h = top + 300 + m
    pw = (w - 3 * m) / 2
    ph = 300
    jobs = sorted({r["job"] for r in runs})
    ymax = max([r["seconds"] for r in runs if r["succeeded"]] + [1.0])
    ytop = _nice(ymax)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{_esc(title)}</text>']

    def axes(x0, xlabel, xticks):
        out.append(f'<line x1="{x0}" y1="{top + ph}" x2="{x0 + pw}" y2="{top + ph}" stroke="black"/>')
        out.append(f'<line x1="{x0}" y1="{top}" x2="{x0}" y2="{top + ph}" stroke="black"/>')
        out.append(f'<text x="{x0 + pw / 2}" y="{h - 15}" text-anchor="middle">{_esc(xlabel)}</text>')
        for xv, label in xticks:
            out.append(f'<text x="{xv:.1f}" y="{top + ph + 15}" text-anchor="middle" font-size="10">'
                       f'{_esc(label)}</text>')

    # Left: JCT per job.
    x0 = m
    axes(x0, "job (submission order)", [(x0 + (i + 0.5) * pw / len(jobs), j.split("-")[0])
                                         for i, j in enumerate(jobs)][::max(1, len(jobs) // 12)])
    for k in range(0, 6):
        yv = ytop * k / 5
        y = top + ph - ph * k / 5
        out.append(f'<line x1="{x0 - 4}" y1="{y:.1f}" x2="{x0 + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="10">{yv:g}</text>')
    out.append(f'<text x="15" y="{top + ph / 2}" transform="rotate(-90 15 {top + ph / 2})" '
               f'text-anchor="middle">job completion time (s)</text>')
    for si, e in enumerate(entries):
        c = COLOURS[si % len(COLOURS)]
        for r in runs:
            if r["key"] != e["key"] or not r["succeeded"]:
                continue
            i = jobs.index(r["job"])
            x = x0 + (i + 0.2 + 0.6 * si / max(1, len(entries) - 1)) * pw / len(jobs)
            y = top + ph - ph * r["seconds"] / ytop
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{c}"><title>'
                       f'{_esc(e["scheduler"])} {_esc(r["job"])}: {r["seconds"]} s</title></circle>')
    # Right: CDF of JCT.
    x1 = 2 * m + pw
    axes(x1, "job completion time (s)", [(x1 + pw * k / 5, f"{ytop * k / 5:g}") for k in range(6)])
    for k in range(0, 6):
        y = top + ph - ph * k / 5
        out.append(f'<line x1="{x1 - 4}" y1="{y:.1f}" x2="{x1 + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x1 - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="10">{k / 5:g}</text>')
    for si, e in enumerate(entries):
        c = COLOURS[si % len(COLOURS)]
        xs = sorted(r["seconds"] for r in runs if r["key"] == e["key"] and r["succeeded"])
        if not xs:
            continue
        pts = [(x1, top + ph)]
        for i, v in enumerate(xs):
            x = x1 + pw * v / ytop
            pts.append((x, top + ph - ph * i / len(xs)))
            pts.append((x, top + ph - ph * (i + 1) / len(xs)))
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="'
                   + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
        label = (f'{e["scheduler"]} {e["policy"]}'.strip() + f': mean {e["mean_jct_s"]} s, '
                 f'median {e["median_jct_s"]} s')
        ly = 44 + 16 * si
        out.append(f'<rect x="{m}" y="{ly - 9}" width="10" height="10" fill="{c}"/>')
        out.append(f'<text x="{m + 15}" y="{ly}">{_esc(label)}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def _nice(v):
    """A round axis top at or above v."""
    p = 10 ** math.floor(math.log10(v))
    for s in (1, 2, 2.5, 5, 10):
        if s * p >= v:
            return s * p
    return 10 * p


def _esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
