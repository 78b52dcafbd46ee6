# SPDX-License-Identifier: GPL-2.0
"""The report of make bench: bench.md, bench.csv, bench.png and
bench-live.png; and of make bench-arm64: bench-arm64.md.

What bench/perm_upgrade_bench prints in each guest log (a boot of a
kernel, base, prior or patched, with kvm_amd.npt=N): the parked mode's
"BENCH ..." lines, the live mode's "BENCH-LIVE*" lines and both modes'
"BENCH-MEM" lines (see the program's header for their formats).  bench.md
has a section per npt: the parked table (every scenario and backing, base
vs patched, median over the repetitions, patched/base ratio; with a prior
kernel, a prior column between them and a patched/prior ratio too; the
upgrade's and the narrowing's rows), the plain zap table (the zap
scenario: counts per round and the median zap call, per backing and op,
with a check that every round zapped and refaulted the whole region on
every kernel), the live table (rates, per-call figures, guest read
latency against the quiet baseline) and the memory table (each run's
backing before and after); bench.csv has every parked repetition and every
live phase, every key; bench.png the parked refaults and guest pass time,
bench-live.png the live read latency distributions and refaults per second
over the snapshot.  bench-arm64.md compares, per mode and case,
arm64/perm_upgrade_test's exits of its read passes (every stage-2 fault
is an exit) and their times, base vs patched.
"""

import os
import re
import statistics
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import report
from report import (COLORS, KERNELS, fmt, kernels_of, md_row, pyplot, ratio_names,
                    ratio_text, ratios, table_head, title_kernels, write_csv, write_md)

SCENARIOS = ("mprotect", "uffd-wp", "snapshot")
BACKINGS = ("anon-4k", "thp", "hugetlb", "hugetlb-shared")
LIVE_SCENARIOS = ("snapshot", "mprotect")
PHASES = ("baseline", "scenario")

# (key in the BENCH lines or derived, label, scale, format, aggregate).
# Counts: the median of the repetitions.  Times: the minimum, as under TCG
# on a shared host noise only ever adds time.
METRICS = (
    ("pf_taken", "pf_taken (re-read)", 1, "{:.0f}", "median"),
    ("pf_fixed", "pf_fixed (re-read)", 1, "{:.0f}", "median"),
    ("refaults_per_call", "refaults per upgrade call", 1, "{:.2f}", "median"),
    ("tlb_flush", "remote_tlb_flush", 1, "{:.0f}", "median"),
    ("tlb_flush_req", "remote_tlb_flush_requests", 1, "{:.0f}", "median"),
    ("zapped", "zapped SPTEs", 1, "{:.0f}", "median"),
    ("pass_ns", "guest pass time (ms, min)", 1e-6, "{:.2f}", "min"),
    ("pass_vs_warm", "re-read pass / warm pass time", 1, "{:.2f}", "median"),
    ("upgrade_ns", "upgrade call time (us, min)", 1e-3, "{:.1f}", "min"),
)
# The narrowing that precedes the upgrade (the phase=downgrade line), same
# tuple.
NARROW_METRICS = (
    ("ro_pf", "pf_taken (read after narrowing)", 1, "{:.0f}", "median"),
    ("down_zapped", "zapped SPTEs (narrowing)", 1, "{:.0f}", "median"),
    ("down_tlb_flush_req", "remote_tlb_flush_requests (narrowing)", 1, "{:.0f}", "median"),
    ("down_ns", "narrowing call time (us, min)", 1e-3, "{:.1f}", "min"),
)

# The zap scenario (plain invalidations): its ops, and the rows of its table,
# (key, label, scale, format, ops or None for all).  Counts per round (total
# / rounds, derived by read_log) and times (each repetition's median over
# its rounds): the median of the repetitions.
ZAP_OPS = ("madv_dontneed", "punch_hole", "munmap")
ZAP_COUNTS = ("pf_taken", "pf_fixed", "zapped", "tlb_flush_req")
ZAP_METRICS = (
    ("pf_taken_per_round", "faults per round (pf_taken)", 1, "count", None),
    ("pf_fixed_per_round", "faults fixed per round (pf_fixed)", 1, "count", None),
    ("zapped_per_round", "zapped SPTEs per zap", 1, "count", None),
    ("tlb_flush_req_per_round", "remote_tlb_flush_requests per zap", 1, "count", None),
    ("call_ns_p50", "zap call time, median (us)", 1e-3, "{:.1f}", None),
    ("remap_ns_p50", "mmap(MAP_FIXED) after it, median (us)", 1e-3, "{:.1f}", ("munmap",)),
    ("pass_ns_p50", "guest refault pass time, median (ms)", 1e-6, "{:.2f}", None),
)


Row = Dict[str, str]
Run = Tuple[List[Row], List[Row], Dict[str, str], str]
NO_RUN: Run = ([], [], {}, "?")

# arm64/perm_upgrade_test's cases with exit counts, and what the arm64
# section shows of each: (key, label, scale, format).
ARM64_CASES = ("mprotect/4k", "uffd-wp/4k", "mprotect/thp")
ARM64_METRICS = (
    ("control", "exits, read pass with no change before (control)", 1, "{:.0f}"),
    ("downgrade", "exits, read pass after the narrowing", 1, "{:.0f}"),
    ("upgrade", "exits, read pass after the upgrade", 1, "{:.0f}"),
    ("refaults", "refaults after the upgrade (exits over control)", 1, "{:.0f}"),
    ("written", "exits, write pass after the upgrade", 1, "{:.0f}"),
    ("control_us", "read pass time, control (ms)", 1e-3, "{:.2f}"),
    ("upgrade_us", "read pass time after the upgrade (ms)", 1e-3, "{:.2f}"),
)
ARM64_EXITS = re.compile(r"^# (\S+): exits: populate (\d+), control (\d+), "
                         r"downgrade (\d+), upgrade (\d+)")
ARM64_WRITTEN = re.compile(r"^# (\S+): exits: write after the upgrade (\d+)")
ARM64_TIME = re.compile(r"^# (\S+): read pass time: control (\d+) us, "
                        r"after the upgrade (\d+) us")


def read_arm64(lines: List[str]) -> Dict[str, Dict[str, float]]:
    """case -> metric -> value, from an arm64 guest log's payload."""
    cases: Dict[str, Dict[str, float]] = {}
    for line in lines:
        line = line.strip()
        m = ARM64_EXITS.match(line)
        if m:
            c = cases.setdefault(m.group(1), {})
            for i, k in enumerate(("populate", "control", "downgrade", "upgrade")):
                c[k] = float(m.group(i + 2))
            c["refaults"] = max(c["upgrade"] - c["control"], 0.0)
            continue
        m = ARM64_WRITTEN.match(line)
        if m:
            cases.setdefault(m.group(1), {})["written"] = float(m.group(2))
            continue
        m = ARM64_TIME.match(line)
        if m:
            c = cases.setdefault(m.group(1), {})
            c["control_us"] = float(m.group(2))
            c["upgrade_us"] = float(m.group(3))
    return cases


def arm64_section(inputs: List[report.Input]) -> List[str]:
    """The arm64 report: arm64/perm_upgrade_test's exits and times."""
    modes: List[str] = []
    got: Dict[str, Dict[str, Dict[str, Dict[str, float]]]] = {}  # mode -> kernel -> case
    qemu = "?"
    for i in inputs:
        if i.mode not in modes:
            modes.append(i.mode)
        got.setdefault(i.mode, {})[i.kernel] = read_arm64(i.log.payload)
        if qemu == "?" and i.log.qemu:
            qemu = report.ktap.qemu_args(i.log)
    md = ["## arm64: stage-2 (arm64/perm_upgrade_test)", ""]
    md.append("`qemu-system-aarch64 %s`, KVM nested at EL2 in the guest, in each mode of "
              "scripts/run-guest.sh (vhe; nvhe and protected: kvm-arm.mode=; a57: "
              "-cpu cortex-a57, a CPU without FWB; mte: -M mte=on).  arm64 KVM has no "
              "fault or page-table stats: every stage-2 fault is a guest exit, so the "
              "counts are the vCPU's `exits` over a read pass of one word per 4 KiB page "
              "(mprotect/4k, uffd-wp/4k: 1024 pages) or per 2 MiB block (mprotect/thp: 32 "
              "blocks), plus the pass's own ucall and the host's timer ticks, which the "
              "control pass (the same read with no protection change before it) measures. "
              "Times are host time of the pass's KVM_RUN, under TCG." % qemu)
    md.append("")
    for mode in modes:
        md.append("### %s" % mode)
        md.append("")
        md += table_head(["case", "metric"], KERNELS)
        for case in ARM64_CASES:
            for key, label, scale, form in ARM64_METRICS:
                vals = {k: got[mode].get(k, {}).get(case, {}).get(key) for k in KERNELS}
                md.append(md_row([case, label] + [fmt(vals[k], scale, form) for k in KERNELS]
                                 + ratios(vals, KERNELS)))
        md.append("")
    return md


def read_log(lines: List[str]) -> Tuple[List[Row], List[Row], Dict[str, str]]:
    """Rows (one per repetition: downgrade and upgrade keys merged; the zap
    scenario's one per op too), skips, info, from a log's payload."""
    rows: Dict[Tuple[str, str, str, str], Row] = {}
    mem: Dict[Tuple[str, str, str, str], Row] = {}
    skips: List[Row] = []
    info: Dict[str, str] = {}
    live = False
    for line in lines:
        line = line.strip()
        if line.startswith("BENCH-INFO "):
            info = report.parse_kv(line.split()[1:])
        elif line.startswith("BENCH-LIVE-INFO "):
            live = True
        elif line.startswith("BENCH-SKIP ") and not live:
            skips.append(report.parse_kv(line.split()[1:]))
        elif line.startswith("BENCH-MEM "):
            kv = report.parse_kv(line.split()[1:])
            if kv.get("mode") == "parked":
                key = (kv["scenario"], kv["backing"], kv["rep"], kv.get("op", ""))
                mem.setdefault(key, {}).update(mem_keys(kv))
        elif line.startswith("BENCH "):
            kv = report.parse_kv(line.split()[1:])
            key = (kv["scenario"], kv["backing"], kv["rep"], kv.get("op", ""))
            rows.setdefault(key, {}).update(kv)
    out = []
    for key, kv in rows.items():
        kv.pop("phase", None)
        kv.update(mem.get(key, {}))
        if "calls" in kv and int(kv["calls"]):
            kv["refaults_per_call"] = "%.4f" % (int(kv["pf_taken"]) / int(kv["calls"]))
        # Time of one re-read pass over that of the warm pass (no faults) just
        # before the downgrade, in the same VM: the refault overhead, less
        # sensitive to how fast TCG runs at the moment than the raw times.
        if int(kv.get("passes", 0)) and int(kv.get("warm_ns", 0)):
            kv["pass_vs_warm"] = "%.4f" % (int(kv["pass_ns"]) / int(kv["passes"]) /
                                           int(kv["warm_ns"]))
        # The zap scenario: its counts per round.
        if int(kv.get("rounds", 0)):
            for k in ZAP_COUNTS:
                if k in kv:
                    kv[k + "_per_round"] = "%.4f" % (int(kv[k]) / int(kv["rounds"]))
        out.append(kv)
    return out, skips, info


MEM_KEYS = ("anon_huge_kb", "private_hugetlb_kb", "shared_hugetlb_kb", "thp_split_pmd",
            "thp_collapse_alloc", "hugepages_total", "hugepages_free", "pages_4k",
            "pages_2m")


def mem_keys(kv: Row) -> Row:
    """A BENCH-MEM line's values as mem_before_KEY / mem_after_KEY."""
    return {"mem_%s_%s" % (kv.get("when", "?"), k): kv[k] for k in MEM_KEYS if k in kv}


class LiveRun:
    """One live run (a scenario on a backing, a fresh VM): per phase its
    BENCH-LIVE keys, its histogram [(lo, hi, count)] in TSC cycles and the
    TSC kHz; the samples in time order; the BENCH-MEM keys (mem_*)."""

    def __init__(self) -> None:
        self.phases: Dict[str, Row] = {}
        self.hist: Dict[str, List[Tuple[int, int, int]]] = {}
        self.tsc_khz: Dict[str, int] = {}
        self.samples: List[Row] = []
        self.mem: Row = {}


class LiveLog:
    """The live mode's part of a guest log."""

    def __init__(self) -> None:
        self.info: Dict[str, str] = {}
        self.done = False
        self.runs: Dict[Tuple[str, str], LiveRun] = {}
        self.skips: List[Row] = []


def parse_hist(text: str) -> List[Tuple[int, int, int]]:
    """"LO-HI:COUNT,..." as [(lo, hi, count)], sorted."""
    out = []
    for item in text.split(","):
        if not item:
            continue
        rng, _, count = item.partition(":")
        lo, _, hi = rng.partition("-")
        out.append((int(lo), int(hi), int(count)))
    return sorted(out)


def read_live(lines: List[str]) -> LiveLog:
    log = LiveLog()
    for line in lines:
        line = line.strip()
        if line.startswith("BENCH-LIVE-INFO "):
            log.info = report.parse_kv(line.split()[1:])
            continue
        if line.startswith("BENCH-LIVE-DONE"):
            log.done = True
            continue
        if not log.info:
            continue
        tag = line.split(" ", 1)[0]
        if tag not in ("BENCH-LIVE", "BENCH-LIVE-SAMPLE", "BENCH-LIVE-HIST",
                       "BENCH-MEM", "BENCH-SKIP"):
            continue
        kv = report.parse_kv(line.split()[1:])
        if tag == "BENCH-SKIP":
            log.skips.append(kv)
            continue
        if tag == "BENCH-MEM" and kv.get("mode") != "live":
            continue
        run = log.runs.setdefault((kv["scenario"], kv["backing"]), LiveRun())
        if tag == "BENCH-LIVE":
            run.phases[kv["phase"]] = kv
        elif tag == "BENCH-LIVE-SAMPLE":
            run.samples.append(kv)
        elif tag == "BENCH-LIVE-HIST":
            run.hist[kv["phase"]] = parse_hist(kv.get("hist", ""))
            run.tsc_khz[kv["phase"]] = int(kv["tsc_khz"])
        else:
            run.mem.update(mem_keys(kv))
    for run in log.runs.values():
        run.samples.sort(key=lambda r: float(r["t_ms"]))
    return log


def hist_quantile(hist: List[Tuple[int, int, int]], q: int) -> Optional[int]:
    """As the program computes it: the upper bound (cycles) of the bucket
    that holds the ceil(q / 10000 * n)-th of the n probes."""
    n = sum(c for _, _, c in hist)
    if not n:
        return None
    rank = (q * n + 9999) // 10000
    total = 0
    for _, hi, c in hist:
        total += c
        if total >= rank:
            return hi
    return hist[-1][1]


# Latency percentiles: (key of the BENCH-LIVE line, q in 1/10000, label).
QUANTILES = (("p50_ns", 5000, "p50"), ("p99_ns", 9900, "p99"),
             ("p999_ns", 9990, "p99.9"), ("p9999_ns", 9999, "p99.99"))


def latency_ns(run: LiveRun, phase: str, key: str) -> Optional[float]:
    """A phase's latency figure in ns: the percentiles from its histogram
    (the program's own figure if the histogram is missing), the mean as
    printed."""
    for k, q, _ in QUANTILES:
        if k == key and run.hist.get(phase) and run.tsc_khz.get(phase):
            cyc = hist_quantile(run.hist[phase], q)
            return None if cyc is None else float(cyc * 1000000 // run.tsc_khz[phase])
    v = run.phases.get(phase, {}).get(key)
    return None if v is None else float(v)


def num(row: Row, key: str) -> Optional[float]:
    v = row.get(key)
    return None if v is None or v == "" else float(v)


def per_second(run: LiveRun, key: str) -> Optional[float]:
    sc = run.phases.get("scenario", {})
    v, ms = num(sc, key), num(sc, "ms")
    return None if v is None or not ms else v * 1000 / ms


def per_call(run: LiveRun, key: str) -> Optional[float]:
    sc = run.phases.get("scenario", {})
    v, calls = num(sc, key), num(sc, "calls")
    return None if v is None or not calls else v / calls


def rate_series(run: LiveRun, key: str = "pf_taken") -> List[Tuple[float, float]]:
    """(seconds since the scenario started, KEY per second over the interval
    that ends there) for each sample of the scenario."""
    base_ms = num(run.phases.get("baseline", {}), "ms") or 0.0
    out = []
    prev: Optional[Row] = None
    for s in run.samples:
        if prev is not None and s.get("phase") == "scenario":
            dt = (float(s["t_ms"]) - float(prev["t_ms"])) / 1000
            if dt > 0:
                out.append(((float(s["t_ms"]) - base_ms) / 1000,
                            (float(s[key]) - float(prev[key])) / dt))
        prev = s
    return out


# The live table: (label, value of a run, format, latency?).  Latency rows
# show "scenario (baseline)" and compare the scenario figures.
LiveMetric = Tuple[str, Callable[[LiveRun], Optional[float]], str]
LIVE_METRICS: Tuple[LiveMetric, ...] = (
    ("wall time (s)", lambda r: (num(r.phases.get("scenario", {}), "ms") or 0) / 1000
     if "scenario" in r.phases else None, "{:.2f}"),
    ("calls (resolves / mprotect RW)", lambda r: num(r.phases.get("scenario", {}), "calls"),
     "{:.0f}"),
    ("pf_taken/s", lambda r: per_second(r, "pf_taken"), "{:.0f}"),
    ("pf_fixed/s", lambda r: per_second(r, "pf_fixed"), "{:.0f}"),
    ("remote_tlb_flush/s", lambda r: per_second(r, "tlb_flush"), "{:.1f}"),
    ("remote_tlb_flush_requests/s", lambda r: per_second(r, "tlb_flush_req"), "{:.1f}"),
    ("faults (pf_taken) per call", lambda r: per_call(r, "pf_taken"), "auto"),
    ("faults fixed (pf_fixed) per call", lambda r: per_call(r, "pf_fixed"), "auto"),
    ("flush requests per call", lambda r: per_call(r, "call_flush_req"), "auto"),
    ("zapped SPTEs per call, at least", lambda r: per_call(r, "call_zapped"), "auto"),
    ("zapped SPTEs per call, at most", lambda r: per_call(r, "call_zapped_max"), "auto"),
    ("host time per call (us)", lambda r: None if per_call(r, "call_ns") is None
     else (per_call(r, "call_ns") or 0) / 1000, "{:.1f}"),
    ("CPU time of the calling thread per call (us)", lambda r: None
     if per_call(r, "call_cpu_ns") is None else (per_call(r, "call_cpu_ns") or 0) / 1000,
     "{:.1f}"),
)
# Rows left out where no log has their field (older programs).
OPTIONAL_LIVE = ("CPU time of the calling thread per call (us)",)
LATENCY_METRICS = (("mean_ns", "mean"),) + tuple((k, l) for k, _, l in QUANTILES)


def aggregate(rows: List[Row], key: str, how: str) -> Optional[float]:
    vals = [float(r[key]) for r in rows if key in r]
    if not vals:
        return None
    return min(vals) if how == "min" else statistics.median(vals)


def live_runs(lives: Dict[str, Dict[str, LiveLog]], npt: str, kernel: str,
              sc: str, bk: str) -> Optional[LiveRun]:
    log = lives.get(npt, {}).get(kernel)
    return None if log is None else log.runs.get((sc, bk))


def live_table(lives: Dict[str, Dict[str, LiveLog]], npt: str,
               kernels: Sequence[str] = KERNELS) -> List[str]:
    md = table_head(("scenario", "backing", "metric"), kernels)
    for sc in LIVE_SCENARIOS:
        for bk in BACKINGS:
            r = {k: live_runs(lives, npt, k, sc, bk) for k in kernels}
            if not any(x is not None and "scenario" in x.phases for x in r.values()):
                continue
            for label, fn, form in LIVE_METRICS:
                vals = {k: fn(run) if run else None for k, run in r.items()}
                # A field that no kernel's log has: logs of an older program.
                if label in OPTIONAL_LIVE and all(v is None for v in vals.values()):
                    continue
                md.append(md_row([sc, bk, label] + [fmt(vals[k], 1, form) for k in kernels]
                                 + ratios(vals, kernels)))
            for key, label in LATENCY_METRICS:
                cells, vals = [], {}
                for k in kernels:
                    run = r[k]
                    v = latency_ns(run, "scenario", key) if run else None
                    q = latency_ns(run, "baseline", key) if run else None
                    vals[k] = v
                    cells.append("%s (%s)" % (fmt(v, 1, "{:.0f}"), fmt(q, 1, "{:.0f}")))
                md.append(md_row([sc, bk, "read latency %s, ns: scenario (baseline)" % label]
                                 + cells + ratios(vals, kernels)))
            if sc == "snapshot":
                for key, label in (("by_fault", "units resolved by the fault handler"),):
                    vals = {k: num(run.phases.get("scenario", {}), key) if run else None
                            for k, run in r.items()}
                    md.append(md_row([sc, bk, label]
                                     + [fmt(vals[k], 1, "{:.0f}") for k in kernels]
                                     + ratios(vals, kernels)))
    return md


def zap_sptes(row: Row) -> int:
    """The leaf SPTEs that map a zap row's region: one per 4 KiB page on
    anon-4k, one per 2 MiB on the other backings (the program skips a huge
    backing that KVM does not map with 2 MiB SPTEs)."""
    pages = int(row.get("pages", 0))
    return pages if row.get("backing") == "anon-4k" else pages // 512


def zap_rows(run: Dict[str, Run], kernel: str, bk: str, op: str) -> List[Row]:
    return [r for r in run.get(kernel, NO_RUN)[0]
            if r["scenario"] == "zap" and r["backing"] == bk and r.get("op") == op]


def zap_problems(bk: str, op: str, sel: Dict[str, List[Row]],
                 kernels: Sequence[str]) -> List[str]:
    """What breaks "a plain zap counts the same on every kernel": a kernel
    without results, a round that did not zap, or fault back, each SPTE of
    the region once, per-round counts that differ between the kernels."""
    out = []
    for k in kernels:
        if not sel[k]:
            out.append("%s %s: no %s result" % (bk, op, k))
        for r in sel[k]:
            want = zap_sptes(r)
            for what, lo, hi in (("zapped", "zapped_min", "zapped_max"),
                                 ("faulted", "pf_taken_min", "pf_taken_max")):
                got = (int(r.get(lo, -1)), int(r.get(hi, -1)))
                if got != (want, want):
                    out.append("%s %s, %s kernel, rep %s: a round %s %s times, the region "
                               "has %d SPTEs" % (bk, op, k, r.get("rep"), what,
                                                 "%d..%d" % got if got[0] != got[1] else got[0],
                                                 want))
    if all(sel[k] for k in kernels):
        for key, label, scale, form, _ in ZAP_METRICS:
            if form != "count":
                continue
            vals = {k: aggregate(sel[k], key, "median") for k in kernels}
            if len(set(vals.values())) > 1:
                out.append("%s %s: %s differ: %s" % (bk, op, label, ", ".join(
                    "%s %s" % (k, fmt(vals[k], scale, form)) for k in kernels)))
    return out


def zap_section(run: Dict[str, Run], kernels: Sequence[str] = KERNELS) -> List[str]:
    """The plain zap table of one npt, its skips and its check; nothing
    without zap results."""
    if not any(r["scenario"] == "zap" for k in kernels for r in run.get(k, NO_RUN)[0]):
        return []
    md = ["### Plain zap (no protection change)", ""]
    skipped: Dict[Tuple[str, str, str], List[str]] = {}
    for k in kernels:
        for s in run.get(k, NO_RUN)[1]:
            if s.get("scenario") == "zap":
                skipped.setdefault((s.get("backing", "?"), s.get("op", "any op"),
                                    s.get("reason", "?")), []).append(k)
    for (bk, op, why), ks in skipped.items():
        md.append("skipped %s %s: %s (%s)" % (bk, op, why, ", ".join(ks)))
        md.append("")
    md += table_head(("backing", "op", "metric"), kernels)
    problems: List[str] = []
    for bk in BACKINGS:
        for op in ZAP_OPS:
            sel = {k: zap_rows(run, k, bk, op) for k in kernels}
            if not any(sel.values()):
                continue
            for key, label, scale, form, ops in ZAP_METRICS:
                if ops is not None and op not in ops:
                    continue
                vals = {k: aggregate(sel[k], key, "median") for k in kernels}
                md.append(md_row([bk, op, label] + [fmt(vals[k], scale, form) for k in kernels]
                                 + ratios(vals, kernels)))
            problems += zap_problems(bk, op, sel, kernels)
    md.append("")
    if problems:
        md.append("**Counts that break the check:**")
        md.append("")
        md += ["- %s" % p for p in problems]
    else:
        md.append("Check: on every kernel every round zapped each SPTE of the region and "
                  "faulted it back once (the region's SPTEs: its pages on anon-4k, pages / 512 "
                  "with 2 MiB SPTEs), and the counts per round are equal on %s."
                  % " and ".join(kernels))
    md.append("")
    return md


def mem_cell(mem: Row, keys: Tuple[str, ...], delta: bool = False) -> str:
    """"before -> after" of the sum of KEYS; "+N" (after - before) if delta."""
    vals = []
    for when in ("before", "after"):
        got = [mem.get("mem_%s_%s" % (when, k)) for k in keys]
        if any(v is None or v == "" for v in got):
            return "n/a"
        vals.append(sum(int(v or 0) for v in got))
    if delta:
        return "+%d" % (vals[1] - vals[0])
    return "%d" % vals[0] if vals[0] == vals[1] else "%d → %d" % (vals[0], vals[1])


def memory_table(runs: Dict[str, Run], lives: Dict[str, LiveLog],
                 kernels: Sequence[str] = KERNELS) -> List[str]:
    md = ["| mode | scenario | backing | kernel | AnonHugePages kB | hugetlb mapped kB "
          "| HugePages_Free | thp_split_pmd | thp_collapse_alloc | pages_4k | pages_2m |",
          "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    entries: List[Tuple[str, str, str, str, Row]] = []
    for sc in SCENARIOS:
        for bk in BACKINGS:
            for k in kernels:
                # The first repetition: the others start from the same state.
                rows = [r for r in runs.get(k, NO_RUN)[0]
                        if r["scenario"] == sc and r["backing"] == bk and r["rep"] == "0"]
                if rows:
                    entries.append(("parked", sc, bk, k, rows[0]))
    for sc in LIVE_SCENARIOS:
        for bk in BACKINGS:
            for k in kernels:
                log = lives.get(k)
                run = log.runs.get((sc, bk)) if log else None
                if run and run.mem:
                    entries.append(("live", sc, bk, k, run.mem))
    for mode, sc, bk, k, mem in entries:
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            mode, sc, bk, k, mem_cell(mem, ("anon_huge_kb",)),
            mem_cell(mem, ("private_hugetlb_kb", "shared_hugetlb_kb")),
            mem_cell(mem, ("hugepages_free",)),
            mem_cell(mem, ("thp_split_pmd",), True),
            mem_cell(mem, ("thp_collapse_alloc",), True),
            mem_cell(mem, ("pages_4k",)), mem_cell(mem, ("pages_2m",))))
    return md


def live_csv_rows(lives: Dict[str, Dict[str, LiveLog]],
                  kernels: Sequence[str] = KERNELS) -> List[Row]:
    """One row per live run and phase: its BENCH-LIVE keys, the percentiles
    from its histogram, the memory keys on the scenario row."""
    out = []
    for npt in sorted(lives, reverse=True):
        for kernel in kernels:
            log = lives[npt].get(kernel)
            if log is None:
                continue
            for (sc, bk), run in log.runs.items():
                for phase in PHASES:
                    if phase not in run.phases:
                        continue
                    r = dict(run.phases[phase], kernel=kernel, npt=npt, mode="live",
                              kernel_release=log.info.get("kernel", ""))
                    for key, _, _ in QUANTILES:
                        v = latency_ns(run, phase, key)
                        if v is not None:
                            r["hist_" + key] = "%d" % v
                    if phase == "scenario":
                        r.update(run.mem)
                    out.append(r)
    return out


def write_arm64(inputs: List[report.Input], header: Dict[str, str], outdir: str) -> List[str]:
    """bench-arm64.md."""
    md = ["# arm64/perm_upgrade_test: %s" % title_kernels(kernels_of(i.kernel for i in inputs)),
          "", "Generated by `make bench-arm64`.", ""]
    md += report.header_lines(header) + [""] + arm64_section(inputs)
    path = os.path.join(outdir, "bench-arm64.md")
    write_md(path, md)
    return [path]


def config_text(header: Dict[str, str]) -> str:
    """What the kernels' config means for the times."""
    if header.get("config", "").split(":")[0] == "timing":
        return ("Both guest kernels are built with `guest/timing.config` (KVM_PROVE_MMU off): "
                "the times compare the series against v7.2.8 in one config, without the "
                "series' debug check.")
    return ("Both guest kernels are built with KVM_PROVE_MMU (`guest/guest.config`): on the "
            "patched kernel every invalidation then ends with the series' check of the SPTEs "
            "left in its range, which a kernel without KVM_PROVE_MMU does not run, so a time "
            "ratio above 1 may be that check.")


def write(inputs: List[report.Input], header: Dict[str, str], outdir: str) -> List[str]:
    """bench.md, bench.csv, bench.png and bench-live.png."""
    kernels = kernels_of(i.kernel for i in inputs)
    runs: Dict[str, Dict[str, Run]] = {}    # npt -> kernel -> (rows, skips, info, log)
    lives: Dict[str, Dict[str, LiveLog]] = {}   # npt -> kernel -> live part
    for i in inputs:
        runs.setdefault(i.mode, {})[i.kernel] = read_log(i.log.payload) + (i.log.path,)
        lives.setdefault(i.mode, {})[i.kernel] = read_live(i.log.payload)

    os.makedirs(outdir, exist_ok=True)

    # CSV: every parked repetition and every live phase, every key.
    keys = ["kernel", "npt", "kernel_release", "mode"]
    allrows: List[Row] = []
    for npt in sorted(runs, reverse=True):
        for kernel in kernels:
            rows, _, info, _ = runs[npt].get(kernel, NO_RUN)
            for r in rows:
                r = dict(r, kernel=kernel, npt=npt, mode="parked",
                         kernel_release=info.get("kernel", ""))
                allrows.append(r)
    allrows += live_csv_rows(lives, kernels)
    for r in allrows:
        keys += [k for k in r if k not in keys]
    write_csv(os.path.join(outdir, "bench.csv"), keys, allrows)

    md: List[str] = []
    md.append("# perm_upgrade_bench: %s" % title_kernels(kernels))
    md.append("")
    md.append("Generated by `make bench` (`bench/perm_upgrade_bench.c`).")
    md.append("")
    md.append("**Every figure here is taken under TCG: KVM runs nested in a QEMU/TCG "
              "guest, so times, rates and latencies are those of an emulated machine "
              "(an IPI to a CPU running a nested guest costs about a millisecond). Only "
              "the counts (faults, zaps, flush requests per call) and the %s "
              "ratios of counts carry over to real hardware.**"
              % " and ".join(ratio_names(kernels)))
    md.append("")
    rel: Dict[str, str] = {}
    for npt in runs:
        for kernel in kernels:
            info = runs[npt].get(kernel, NO_RUN)[2] or \
                lives[npt].get(kernel, LiveLog()).info
            if info.get("kernel"):
                rel[kernel] = info["kernel"]
    live_info: Dict[str, str] = {}
    for npt in lives:
        for kernel in kernels:
            if kernel in lives[npt] and lives[npt][kernel].info:
                live_info = lives[npt][kernel].info
    md.append("| | |")
    md.append("| --- | --- |")
    md.append("| date | %s |" % header.get("date", "?"))
    md.append("| base kernel | %s |" % rel.get("base", "?"))
    if "prior" in kernels:
        md.append(report.PRIOR_ROW % (rel.get("prior", "?"), header.get("prior_kernel", "?")))
    md.append("| patched kernel | %s (uname: base version + g<commit of the series' head>) |"
              % rel.get("patched", "?"))
    md.append("| tree now | %s |" % report.tree_cell(header))
    md.append("| QEMU | %s: `qemu-system-x86_64 %s`, KVM nested in the guest, `kvm_amd.npt=0/1` |"
              % (header.get("qemu", "?"), header.get("qemu_args", "?")))
    md.append("| host | %s |" % header.get("host_cpu", "?"))
    md.append("| benchmark | `perm_upgrade_bench %s` (region MiB, repetitions, snapshot batches, zap rounds); counts: median of the repetitions, times: minimum (plain zap: median) (all in bench.csv) |"
              % (header.get("args") or report.test_args(header, "parked")))
    if header.get("live_args") or "test:live" in header or live_info:
        md.append("| live mode | `perm_upgrade_bench %s`: %s vCPUs running, %s ms quiet baseline "
                  "and %s ms scenarios, samples every %s ms, mprotect phases of %s ms, a probe "
                  "every %s accesses, snapshot writes to 1 page in %s; khugepaged scans every %s ms |"
                  % (header.get("live_args") or report.test_args(header, "live"), live_info.get("vcpus", "?"),
                     live_info.get("ms", "?"), live_info.get("ms", "?"),
                     live_info.get("interval_ms", "?"), live_info.get("mprotect_ms", "?"),
                     live_info.get("probe_every", "?"), live_info.get("write_every", "?"),
                     live_info.get("khugepaged_sleep_ms", "?")))
    md.append("")
    md.append("Scenarios: **mprotect**: guest writes the region, `mprotect(R)`, guest reads "
              "(read-only SPTEs), `mprotect(RW)` (the upgrade, timed), guest re-reads (timed). "
              "**uffd-wp**: the same with `UFFDIO_WRITEPROTECT` of the region and one resolve "
              "(mode 0) of all of it. **snapshot**: write-protect the region, guest reads, then "
              "resolve it one host page at a time (4 KiB on anon-4k and THP, as QEMU's background "
              "snapshot does; 2 MiB on hugetlb), with a guest pass over the whole region after "
              "each batch; counts are totals over all resolves and passes. zapped SPTEs: drop of "
              "the `pages_4k` + `pages_2m` VM stats across the upgrade call(s); the flush counts "
              "are taken across the upgrade call(s) too; pf_taken/pf_fixed across the guest "
              "re-read pass(es). `remote_tlb_flush` only counts flushes that kicked a running "
              "vCPU (there is none while the host makes the call), `remote_tlb_flush_requests` "
              "counts every flush KVM asked for. Guest pass time: host time of KVM_RUN for the "
              "re-read pass(es), summed; re-read pass / warm pass: one re-read pass over the pass "
              "without faults that precedes the downgrade in the same VM (1.00 = no refault "
              "cost). The (narrowing) rows: the `mprotect(R)` or `UFFDIO_WRITEPROTECT` of the "
              "whole region that comes before the upgrade (one call, in every scenario), "
              "measured the same way: zapped SPTEs and remote_tlb_flush_requests across that "
              "call, pf_taken across the guest's read pass right after it. An SPTE that KVM "
              "write-protects in place stays in `pages_4k` + `pages_2m`, so a narrowing in "
              "place shows 0 zapped SPTEs however many SPTEs it write-protected. %s"
              % ratio_text(kernels))
    md.append("")
    md.append("Plain zap: no protection change, the invalidations that the series must leave "
              "as they cost on the base kernel. Per backing and op, each repetition a fresh VM "
              "whose region the guest has written, then rounds of: the host zaps the whole "
              "region in one call (**madv_dontneed**: `madvise(MADV_DONTNEED)`, how QEMU discards "
              "private RAM; **punch_hole**: `fallocate(PUNCH_HOLE)` of the shared hugetlb "
              "memfd, how QEMU discards fd-backed RAM; **munmap**: `munmap()`, then "
              "`mmap(MAP_FIXED)` of the same backing at the same address, so the memslot keeps "
              "its hva), then the guest writes the whole region, faulting it back in with new "
              "pages. Zapped SPTEs and flush requests across the zap call, faults across the "
              "guest's pass after it; counts per round: the median over the repetitions of "
              "each one's total / rounds; times: the median over the repetitions of each one's "
              "median over its rounds (zap call: the madvise, fallocate or munmap alone). Every "
              "round should zap each SPTE of the region and fault it back once on every kernel; "
              "the check under each table says whether it did. Under TCG only the counts and "
              "the patched/base ratio carry over, not the times themselves: every instruction "
              "of the guest kernel is emulated, so the ratio says whether the patched kernel "
              "does more work per zap, not what a zap costs on hardware. The munmap rows' "
              "`mmap(MAP_FIXED)` does no KVM work (nothing is mapped in the new range yet): its "
              "ratio shows how far the run's noise alone moves a ratio. %s" % config_text(header))
    md.append("")
    md.append("Live mode: a fresh VM per scenario and backing, its vCPUs sweeping the region "
              "without a stop (the snapshot scenario's guest writes one page in N, always the "
              "same ones, and reads the others; the mprotect scenario's guest only reads, since "
              "a write under `PROT_READ` would fail KVM_RUN), first for a quiet baseline, then "
              "while the host runs the scenario. **snapshot**: QEMU's background snapshot: "
              "`UFFDIO_WRITEPROTECT` of the region, then a save thread copies and unprotects it "
              "4 KiB at a time (2 MiB on hugetlb), paced over the scenario's length, while a "
              "handler thread saves and unprotects at once each unit the guest writes to (the "
              "write waits in `handle_userfault()` until then). **mprotect**: `mprotect(R)` and "
              "`mprotect(RW)` in turn. Rates are over the scenario's wall time; "
              "`remote_tlb_flush` now counts the flushes that had to kick a running vCPU. "
              "Calls: the resolves (snapshot) or the `mprotect(RW)` calls; per call: "
              "pf_taken / pf_fixed of the whole scenario over the calls (so on the snapshot "
              "they include the refault of every page after the initial write-protect, which "
              "zaps on both kernels: about 1 per 4 KiB resolve plus what the resolves zapped), "
              "flush requests and zapped SPTEs read right around each call. The vCPUs keep "
              "faulting pages in while a call runs, which hides zaps from the drop of "
              "`pages_4k` + `pages_2m`: the zapped SPTEs are given as bounds, at least the drop, "
              "at most the drop plus the faults fixed in the call's window (with the TDP MMU a "
              "fixed fault adds at most one leaf SPTE; with shadow paging the upper bound is "
              "approximate); flush requests per call are exact as far as vCPU faults request "
              "none. Host time per call: the call's wall time in the guest; CPU time of the "
              "calling thread (where the program printed it): its CLOCK_THREAD_CPUTIME_ID, "
              "read just outside each call, as the outer guest counts it: without the time "
              "the thread waited in the guest's run queue while vCPU threads ran, with the "
              "time that TCG's one thread spent on the outer guest's other vCPU. Read "
              "latency: each vCPU times one read of a pseudo-random page of the "
              "region every few accesses with RDTSC (log-linear histogram in guest memory, "
              "converted with KVM_GET_TSC_KHZ); a percentile is the upper bound of the "
              "histogram bucket it falls in; the quiet baseline of the same VM is in "
              "parentheses. Few reads fault (the sweeping vCPUs refault a zapped page within "
              "milliseconds), so the refault cost shows in the mean and the far tail first.")
    md.append("")
    md.append("Memory: the backing's state before the measurement (region populated) and "
              "after it, `before → after` (one number if unchanged), first repetition for the "
              "parked mode: the process's AnonHugePages and Private_Hugetlb + Shared_Hugetlb "
              "(`/proc/self/smaps_rollup`), HugePages_Free (`/proc/meminfo`), the rise of "
              "`thp_split_pmd` and `thp_collapse_alloc` (`/proc/vmstat`), the VM's `pages_4k` "
              "and `pages_2m` (including a few SPTEs of the program's own memslot).")
    md.append("")

    for npt in sorted(runs, reverse=True):
        paging = "TDP (nested paging)" if npt == "1" else "shadow paging"
        md.append("## kvm_amd.npt=%s: %s" % (npt, paging))
        md.append("")
        md.append("### Parked vCPU")
        md.append("")
        for kernel in kernels:
            rows, skips, info, path = runs[npt].get(kernel, NO_RUN)
            if not rows:
                md.append("**%s kernel: no results** (log: `%s`)" % (kernel, path))
                md.append("")
            for s in skips:
                if s.get("scenario") == "zap":
                    continue    # in the zap section
                md.append("%s kernel: skipped %s/%s: %s" % (kernel, s.get("scenario"),
                                                            s.get("backing"), s.get("reason")))
                md.append("")
        md += table_head(("scenario", "backing", "metric"), kernels)
        for sc in SCENARIOS:
            for bk in BACKINGS:
                sel = {k: [r for r in runs[npt].get(k, NO_RUN)[0]
                           if r["scenario"] == sc and r["backing"] == bk]
                       for k in kernels}
                if not any(sel.values()):
                    continue
                for key, label, scale, form, how in NARROW_METRICS + METRICS:
                    if key == "refaults_per_call" and sc != "snapshot":
                        continue
                    vals = {k: aggregate(sel[k], key, how) for k in kernels}
                    md.append(md_row([sc, bk, label]
                                     + [fmt(vals[k], scale, form) for k in kernels]
                                     + ratios(vals, kernels)))
        md.append("")
        md += zap_section(runs[npt], kernels)
        md.append("### Live vCPUs")
        md.append("")
        for kernel in kernels:
            log = lives[npt].get(kernel)
            path = runs[npt].get(kernel, NO_RUN)[3]
            if log is None or not log.runs:
                md.append("**%s kernel: no live results** (log: `%s`)" % (kernel, path))
                md.append("")
                continue
            if not log.done:
                md.append("**%s kernel: the live mode did not finish** (log: `%s`)"
                          % (kernel, path))
                md.append("")
            for s in log.skips:
                md.append("%s kernel: skipped live %s/%s: %s" % (
                    kernel, s.get("scenario"), s.get("backing"), s.get("reason")))
                md.append("")
        md += live_table(lives, npt, kernels)
        md.append("")
        md.append("### Memory")
        md.append("")
        md += memory_table(runs[npt], lives[npt], kernels)
        md.append("")

    md.append("![refaults and guest pass time](bench.png)")
    md.append("")
    md.append("![live mode: read latency and refaults over the snapshot](bench-live.png)")
    md.append("")
    out = [os.path.join(outdir, n) for n in ("bench.md", "bench.csv", "bench.png",
                                              "bench-live.png")]
    write_md(out[0], md)
    drawn = [plot(runs, out[2], kernels), plot_live(lives, out[3], kernels)]
    # The plots only where matplotlib drew them.
    return out[:2] + [p for p, ok in zip(out[2:], drawn) if ok]


def plot(runs: Dict[str, Dict[str, Run]], path: str,
         kernels: Sequence[str] = KERNELS) -> bool:
    plt = pyplot(path)
    if plt is None:
        return False
    npts = sorted(runs, reverse=True)
    fig, axes = plt.subplots(len(npts), 2, figsize=(14, 4.5 * len(npts)), squeeze=False)
    for i, npt in enumerate(npts):
        labels = ["%s\n%s" % (sc, bk) for sc in SCENARIOS for bk in BACKINGS]
        for j, (key, title, scale) in enumerate((
                ("pf_taken", "guest re-read page faults (pf_taken)", 1),
                ("pass_ns", "guest re-read pass time (ms, min of reps)", 1e-6))):
            ax = axes[i][j]
            width = 0.8 / len(kernels)
            for n, kernel in enumerate(kernels):
                vals: List[float] = []
                for sc in SCENARIOS:
                    for bk in BACKINGS:
                        rows = [r for r in runs[npt].get(kernel, NO_RUN)[0]
                                if r["scenario"] == sc and r["backing"] == bk]
                        v = aggregate(rows, key, "median" if key == "pf_taken" else "min")
                        vals.append(0 if v is None else v * scale)
                xs = [x + (n - (len(kernels) - 1) / 2) * width for x in range(len(labels))]
                ax.bar(xs, vals, width, label=kernel, color=COLORS[kernel])
            ax.set_xticks(range(len(labels)))
            ax.set_xticklabels(labels, fontsize=7)
            ax.set_yscale("symlog" if key == "pf_taken" else "log")
            ax.set_title("npt=%s (%s): %s" % (npt, "TDP" if npt == "1" else "shadow", title),
                         fontsize=10)
            ax.legend(fontsize=8)
            ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True



def plot_live(lives: Dict[str, Dict[str, LiveLog]], path: str,
              kernels: Sequence[str] = KERNELS) -> bool:
    """Per npt: the read latency distribution (fraction of reads at least
    that slow) of each scenario and backing, base vs patched, baselines
    dotted; and the faults per second over the snapshot (pf_fixed: faults
    that mapped a page, pf_taken: all of them, retries included), per
    kernel."""
    if not any(log.runs for by_kernel in lives.values() for log in by_kernel.values()):
        return False
    plt = pyplot(path)
    if plt is None:
        return False
    npts = sorted(lives, reverse=True)
    nrows = 3 * len(npts)
    fig, axes = plt.subplots(nrows, len(BACKINGS), figsize=(5 * len(BACKINGS), 3.6 * nrows),
                             squeeze=False)
    for i, npt in enumerate(npts):
        mode = "TDP" if npt == "1" else "shadow"
        for j, bk in enumerate(BACKINGS):
            for row, sc in enumerate(LIVE_SCENARIOS):
                ax = axes[3 * i + row][j]
                for kernel in kernels:
                    run = live_runs(lives, npt, kernel, sc, bk)
                    if run is None:
                        continue
                    for phase, style in (("scenario", "-"), ("baseline", ":")):
                        hist, khz = run.hist.get(phase), run.tsc_khz.get(phase)
                        if not hist or not khz:
                            continue
                        n = sum(c for _, _, c in hist)
                        xs, ys, left = [], [], n
                        for lo, _, c in hist:
                            xs.append(lo * 1e6 / khz)
                            ys.append(left / n)
                            left -= c
                        ax.step(xs, ys, where="post", linestyle=style, color=COLORS[kernel],
                                label="%s %s" % (kernel, phase))
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_xlabel("read latency (ns, TCG)", fontsize=8)
                ax.set_ylabel("fraction of reads at least that slow", fontsize=8)
                ax.set_title("npt=%s (%s) %s %s: read latency" % (npt, mode, sc, bk),
                             fontsize=9)
                ax.legend(fontsize=7)
                ax.grid(alpha=0.3)
            ax = axes[3 * i + 2][j]
            for kernel in kernels:
                run = live_runs(lives, npt, kernel, "snapshot", bk)
                if run is None:
                    continue
                for key, style in (("pf_fixed", "-"), ("pf_taken", ":")):
                    series = rate_series(run, key)
                    if series:
                        ax.plot([t for t, _ in series], [v for _, v in series], style,
                                marker=".", color=COLORS[kernel], label="%s %s" % (kernel, key))
            ax.set_xlabel("seconds since the snapshot started", fontsize=8)
            ax.set_ylabel("faults per second", fontsize=8)
            ax.set_title("npt=%s (%s) snapshot %s: refaults per second" % (npt, mode, bk),
                         fontsize=9)
            ax.legend(fontsize=7)
            ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    return True
