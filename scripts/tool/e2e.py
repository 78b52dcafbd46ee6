# SPDX-License-Identifier: GPL-2.0
"""The report of make e2e: e2e.md, e2e.csv and e2e.png.

Each log is the console of one outer guest that ran e2e/run: for each
backing (a test of its own), QEMU with -accel kvm runs snapwork (e2e/snapwork.c) and takes a
background snapshot in phases; at each phase boundary ("mark") the log has
KVM's stats as QEMU's "info stats" prints them, the memory state, and at
the end per-segment counts from the kvm_unmap_hva_range and kvm_page_fault
tracepoints and snapwork's own pass lines.  KERNEL is base, prior or
patched.  Writes OUTDIR/e2e.md (per backing and phase, base vs patched,
with a prior column between them and a patched/prior ratio when a log is
labelled prior; the write-protect and resolve phases' faults together, per
page of the nested guest's memory), e2e.csv (every kernel, backing and
phase) and e2e.png (guest faults per second over the snapshot; access time
distribution in the resolve phase).
"""

import os
import re
import statistics
import sys
from typing import Dict, List, Optional, Sequence, Tuple

import bench
import report

KERNELS = report.KERNELS
# The backings in the order of the report; "+write": snapwork writes.
BACKINGS = tuple(b + w for w in ("", "+write")
                 for b in ("anon-4k", "thp", "hugetlb", "hugetlb1g", "memfd"))
# Phases, each named by the mark that ends it, in order.
PHASES = ("check", "protect", "resolve", "after")
MARKS = ("before",) + PHASES
STATS = ("pf_taken", "pf_fixed", "pf_emulate", "pf_spurious", "remote_tlb_flush_requests",
         "remote_tlb_flush", "pages_4k", "pages_2m", "pages_1g")
# snapwork's histogram: bucket i holds accesses of 2^(i+10) to 2^(i+11)-1
# TSC cycles (bucket 0 also everything faster, the last everything slower).
HIST_SHIFT = 10

STAT_RE = re.compile(r"^\s+(\w+) \(([^)]*)\): (\d+)$")


class Backing:
    """One backing's run in one log."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.begin: Dict[str, str] = {}
        self.ok = False
        self.marks: Dict[str, Dict[str, float]] = {}     # uptime, passes
        self.mem: Dict[str, Dict[str, int]] = {}
        self.stats: Dict[str, Dict[str, int]] = {}
        self.steps: Dict[str, float] = {}
        self.migrate: Dict[str, str] = {}
        self.trace: Dict[str, Dict[str, int]] = {}
        self.bins: List[Tuple[float, int, int]] = []     # t, faults, invals
        self.passes: List[Dict[str, object]] = []        # snapwork pass lines
        self.region_pages = 0
        self.errors: List[str] = []
        # The snapshot against the memory saved when it started
        # (E2E-VERIFY: bytes, mismatched_pages, capped, first).
        self.verify: Dict[str, str] = {}
        self.verify_diffs: List[str] = []
        # Userfaults and KVM faults over the snapshot (E2E-UFFD), per
        # segment: protect, resolve, snapshot (both).
        self.uffd: Dict[str, Dict[str, int]] = {}
        # QEMU's UFFDIO_WRITEPROTECT calls, host side (E2E-UFFDIO).
        self.uffdio: Dict[str, int] = {}
        # Nested boots that hung before snapwork and were started again.
        self.boot_retries = 0


class Log:
    def __init__(self, path: str) -> None:
        self.path = path
        self.info: Dict[str, str] = {}
        self.backings: Dict[str, Backing] = {}
        self.done = False
        self.errors: List[str] = []

    @property
    def tsc_mhz(self) -> Optional[float]:
        v = self.info.get("tsc_mhz") or self.info.get("tsc_detected_mhz")
        return float(v) if v else None


def parse(lines: List[str], path: str = "?") -> Log:
    log = Log(path)
    cur: Optional[Backing] = None

    def backing(kv: Dict[str, str]) -> Backing:
        name = kv["backing"]
        if name not in log.backings:
            log.backings[name] = Backing(name)
        return log.backings[name]

    for line in lines:
        line = line.rstrip("\r\n")
        if line.startswith("E2E-INFO "):
            log.info = report.parse_kv(line.split()[1:])
        elif line.startswith("E2E-BEGIN "):
            kv = report.parse_kv(line.split()[1:])
            cur = backing(kv)
            cur.begin = kv
        elif line.startswith("E2E-MARK "):
            kv = report.parse_kv(line.split()[1:])
            backing(kv).marks[kv["mark"]] = {"uptime": float(kv["uptime"]),
                                             "passes": int(kv["passes"])}
        elif line.startswith("E2E-MEM "):
            kv = report.parse_kv(line.split()[1:])
            b = backing(kv)
            mark = kv.pop("mark")
            b.mem[mark] = {k: int(v) for k, v in kv.items() if k != "backing"}
        elif line.startswith("E2E-STEP "):
            kv = report.parse_kv(line.split()[1:])
            backing(kv).steps[kv["step"]] = float(kv["uptime"])
        elif line.startswith("E2E-MON mark=") and cur is not None:
            head, _, rest = line.partition(": ")
            mark = head[len("E2E-MON mark="):]
            m = STAT_RE.match(rest)
            if m and mark in MARKS:
                cur.stats.setdefault(mark, {})[m.group(1)] = int(m.group(3))
            elif mark == "info" and ": " in rest:
                k, _, v = rest.partition(": ")
                cur.migrate[k.strip()] = v.strip()
        elif line.startswith("E2E-TRACE "):
            kv = report.parse_kv(line.split()[1:])
            backing(kv).trace[kv["seg"]] = {k: int(v) for k, v in kv.items()
                                            if k not in ("backing", "seg")}
        elif line.startswith("E2E-BIN "):
            kv = report.parse_kv(line.split()[1:])
            backing(kv).bins.append((float(kv["t"]), int(kv["faults"]), int(kv["invals"])))
        elif line.startswith("E2E-L2 ") and " SNAPWORK " in line:
            head, _, rest = line.partition(": ")
            b = backing(report.parse_kv(head.split()[1:]))
            kv = report.parse_kv(rest.split()[1:])
            if "pages" in kv:
                b.region_pages = int(kv["pages"], 16)
            elif "pass" in kv and "hist" in kv:
                try:
                    rec: Dict[str, object] = {
                        "pass": int(kv["pass"], 16), "tsc": int(kv["tsc"], 16),
                        "slow": int(kv["slow"], 16), "max": int(kv["max"], 16),
                        "hist": [int(h, 16) for h in kv["hist"].split(",")]}
                    if "probe" in kv:
                        rec["probe"] = {int(i, 16): int(n, 16) for i, _, n in
                                        (e.partition(":") for e in kv["probe"].split(",")
                                         if e != "-")}
                    b.passes.append(rec)
                except ValueError:
                    pass    # a line cut short by the end of the run
        elif line.startswith("E2E-UFFD "):
            kv = report.parse_kv(line.split()[1:])
            backing(kv).uffd[kv.get("seg", "snapshot")] = {
                k: int(v) for k, v in kv.items() if k not in ("backing", "seg")}
        elif line.startswith("E2E-BOOT-RETRY "):
            backing(report.parse_kv(line.split()[1:])).boot_retries += 1
        elif line.startswith("E2E-UFFDIO "):
            kv = report.parse_kv(line.split()[1:])
            backing(kv).uffdio = {k: int(v) for k, v in kv.items() if k != "backing"}
        elif line.startswith("E2E-VERIFY "):
            kv = report.parse_kv(line.split()[1:])
            backing(kv).verify = kv
        elif line.startswith("E2E-VERIFY-DIFF "):
            kv = report.parse_kv(line.split()[1:2])
            backing(kv).verify_diffs.append(line.partition(" ")[2])
        elif line.startswith("E2E-END "):
            kv = report.parse_kv(line.split()[1:])
            backing(kv).ok = kv.get("ok") == "1"
        elif line.startswith("E2E-ERROR "):
            kv = report.parse_kv(line.split()[1:2])
            msg = line.partition(": ")[2] or line
            if "backing" in kv:
                # "E2E-ERROR backing=B: ...": B without the colon.
                kv["backing"] = kv["backing"].rstrip(":")
                backing(kv).errors.append(msg)
            else:
                log.errors.append(msg)
        elif line.startswith("E2E-DONE"):
            log.done = True
    return log


def phase_passes(b: Backing, phase: str) -> List[Dict[str, object]]:
    """snapwork's passes that ran wholly inside a phase: those that started
    after the previous mark and ended before this one.  "before": the read
    passes before the first mark."""
    if phase not in b.marks:
        return []
    hi = int(b.marks[phase]["passes"])
    if phase == "before":
        lo = 1          # pass 0 writes the region
    else:
        prev = MARKS[MARKS.index(phase) - 1]
        if prev not in b.marks:
            return []
        lo = int(b.marks[prev]["passes"]) + 1
    return [p for p in b.passes if lo <= int(p["pass"]) < hi]  # type: ignore


def percentile(hist: List[int], q: float) -> Optional[int]:
    """The upper bound, in TSC cycles, of the bucket holding the q-quantile."""
    total = sum(hist)
    if not total:
        return None
    need = q * total
    acc = 0
    for i, n in enumerate(hist):
        acc += n
        if acc >= need:
            return 1 << (i + HIST_SHIFT + 1)
    return 1 << (len(hist) + HIST_SHIFT)


def retried(s0: Dict[str, int], s1: Dict[str, int]) -> Optional[int]:
    """The faults between stats S0 and S1 that KVM sent back to the guest
    to be taken again.  x86 counts a fault's outcome when it fixed,
    emulated or found nothing to do (kvm_mmu_page_fault()); the rest of
    pf_taken is RET_PF_RETRY (e.g. an invalidation ended while the fault
    was in flight).  None without those stats."""
    keys = ("pf_taken", "pf_fixed", "pf_emulate", "pf_spurious")
    if not all(k in s0 and k in s1 for k in keys):
        return None
    d = {k: s1[k] - s0[k] for k in keys}
    return d["pf_taken"] - d["pf_fixed"] - d["pf_emulate"] - d["pf_spurious"]


def status_lines(per: Dict[str, "Log"], kernels: Sequence[str]) -> List[str]:
    """The report's lines for one npt's runs that did not finish and for
    every error a backing reported, each followed by a blank line."""
    md: List[str] = []
    for kernel in kernels:
        lg = per.get(kernel)
        if lg is None or not lg.done:
            md.append("**%s kernel: the run did not finish** (log: `%s`)"
                      % (kernel, lg.path if lg else "?"))
            md.append("")
        for bk, b in (lg.backings.items() if lg else []):
            for e in b.errors:
                md.append("%s kernel, %s: error: %s" % (kernel, bk, e))
                md.append("")
    return md


def phase_row(log: Log, b: Backing, phase: str) -> Dict[str, object]:
    """Every figure of one phase of one backing."""
    prev = MARKS[MARKS.index(phase) - 1]
    s0, s1 = b.stats.get(prev, {}), b.stats.get(phase, {})
    row: Dict[str, object] = {}
    for k in STATS:
        if k in s0 and k in s1:
            if k.startswith("pages_"):
                row[k] = s1[k]
            else:
                row[k] = s1[k] - s0[k]
    r = retried(s0, s1)
    if r is not None:
        row["pf_retried"] = r
    pages = b.region_pages
    if pages and "pf_taken" in row:
        row["pf_per_page"] = float(row["pf_taken"]) / pages  # type: ignore
    if pages and "remote_tlb_flush_requests" in row:
        row["flush_req_per_page"] = float(row["remote_tlb_flush_requests"]) / pages  # type: ignore
    tr = b.trace.get(phase, {})
    for k in ("faults", "full", "small", "faults_after_full", "small_before_full"):
        if k in tr:
            row["trace_" + k] = tr[k]
    if prev in b.marks and phase in b.marks:
        row["wall_s"] = b.marks[phase]["uptime"] - b.marks[prev]["uptime"]
    mhz = log.tsc_mhz
    for name, sel in (("", phase_passes(b, phase)), ("before_", phase_passes(b, "before"))):
        if not sel:
            continue
        tscs = [int(p["tsc"]) for p in sel]  # type: ignore
        row[name + "pass_tsc_median"] = statistics.median(tscs)
        row[name + "pass_tsc_max"] = max(tscs)
        if mhz:
            row[name + "pass_ms_median"] = statistics.median(tscs) / mhz / 1000
            row[name + "pass_ms_max"] = max(tscs) / mhz / 1000
        hist = [sum(int(p["hist"][i]) for p in sel)  # type: ignore
                for i in range(len(sel[0]["hist"]))]  # type: ignore
        row[name + "passes"] = len(sel)
        for q, label in ((0.5, "p50"), (0.99, "p99"), (0.999, "p999")):
            v = percentile(hist, q)
            if v is not None and mhz:
                row["%s%s_us" % (name, label)] = v / mhz
        row[name + "hist"] = hist
    if "pass_tsc_max" in row and "before_pass_tsc_median" in row:
        row["pass_vs_before"] = (float(row["pass_tsc_max"]) /  # type: ignore
                                 float(row["before_pass_tsc_median"]))  # type: ignore
    return row


# (key, label, format) of the per-phase table.
METRICS = (
    ("pf_taken", "guest page faults (pf_taken)", "{:.0f}"),
    ("pf_retried", "of them retried (pf_taken - pf_fixed - pf_emulate - pf_spurious)", "{:.0f}"),
    ("pf_per_page", "pf_taken per guest page read", "{:.2f}"),
    ("trace_faults_after_full", "faults after the phase's first whole-memory invalidation (trace)", "{:.0f}"),
    ("trace_faults_before_final", "faults before QEMU's final whole-memory resolve (trace)", "{:.0f}"),
    ("trace_faults_after_final", "faults after QEMU's final whole-memory resolve, resolve and after phases (trace)", "{:.0f}"),
    ("remote_tlb_flush_requests", "remote_tlb_flush_requests", "{:.0f}"),
    ("remote_tlb_flush", "remote_tlb_flush", "{:.0f}"),
    ("trace_full", "whole-memory invalidations (trace)", "{:.0f}"),
    ("trace_small", "smaller invalidations (trace)", "{:.0f}"),
    ("pages_4k", "pages_4k at the end", "{:.0f}"),
    ("pages_2m", "pages_2m at the end", "{:.0f}"),
    ("pages_1g", "pages_1g at the end", "{:.0f}"),
    ("pass_ms_max", "slowest guest pass (ms)", "{:.1f}"),
    ("pass_vs_before", "slowest guest pass / median pass before the snapshot", "{:.2f}"),
    ("p99_us", "guest access time p99 (us, log2 bucket bound)", "{:.1f}"),
    ("p999_us", "guest access time p99.9 (us, log2 bucket bound)", "{:.1f}"),
    ("wall_s", "phase wall time (s, outer guest uptime)", "{:.2f}"),
)

PHASE_TEXT = {
    "check": "`migrate_set_capability background-snapshot on`: QEMU registers all guest "
             "memory with a userfaultfd in write-protect mode and unregisters it",
    "protect": "`migrate`: QEMU write-protects all guest memory (UFFDIO_WRITEPROTECT); "
               "then max-bandwidth 4K, 4M on hugetlb and for a writing guest, none on 1 GiB "
               "pages (QEMU lifts the "
               "limit when the snapshot starts, so e2e/run sets it again once memory is "
               "write-protected): QEMU saves what the guest writes, and little or some more",
    "resolve": "`max-bandwidth` raised: QEMU saves and resolves (un-write-protects) page by "
               "page, then, at the end, resolves and unregisters all guest memory at once",
    "after": "passes after the snapshot completed",
}


def snapshot_figures(log: Log, b: Backing) -> Dict[str, object]:
    out: Dict[str, object] = {}
    m = re.match(r"(\d+) ms", b.migrate.get("total time", ""))
    if m:
        out["total_ms"] = int(m.group(1))
    if "unthrottle" in b.steps and "completed" in b.steps:
        out["resolve_s"] = "%.2f" % (b.steps["completed"] - b.steps["unthrottle"])
    for k in ("transferred ram", "normal", "duplicate"):
        if k in b.migrate:
            out[k] = b.migrate[k]
    return out


def fmt(v: object, form: str) -> str:
    if v is None:
        return "n/a"
    return form.format(v)


def numbers(vals: Dict[str, object]) -> Dict[str, Optional[float]]:
    """The numeric values of VALS (None for any other), for bench.ratios."""
    return {k: float(v) if isinstance(v, (int, float)) else None for k, v in vals.items()}


def guest_pages(b: Backing) -> Optional[int]:
    """The nested guest's memory in 4 KiB pages (E2E-BEGIN's mem_mb, the
    run's KPU_MEM_MB)."""
    mb = b.begin.get("mem_mb", "")
    return int(mb) * 256 if mb.isdigit() else None


# The snapshot from the write-protect to QEMU's final resolve: the protect
# and resolve phases together.
SNAPSHOT_PHASES = ("protect", "resolve")


def snapshot_faults(rows: Dict[Tuple[str, str, str, str], Dict[str, object]], npt: str,
                    kernel: str, b: Optional[Backing]) -> Dict[str, object]:
    """pf_taken over SNAPSHOT_PHASES, and that per page of guest memory."""
    if b is None:
        return {}
    pf = [rows.get((npt, kernel, b.name, ph), {}).get("pf_taken") for ph in SNAPSHOT_PHASES]
    counts = [v for v in pf if isinstance(v, int)]
    if len(counts) != len(pf):
        return {}
    total = sum(counts)
    out: Dict[str, object] = {"pf_taken": total}
    pages = guest_pages(b)
    if pages:
        out["pf_per_guest_page"] = total / pages
    return out


def backing_order(names: Sequence[str]) -> List[str]:
    """NAMES in the order of BACKINGS, any others after them."""
    return ([b for b in BACKINGS if b in names] +
            sorted(b for b in set(names) if b not in BACKINGS))


def verify_cell(b: Optional[Backing]) -> str:
    """The integrity check of one backing's snapshot, for the report."""
    if b is None:
        return "n/a"
    v = b.verify
    if not v:
        return "not checked" if not b.errors else "no result (error)"
    n = v.get("mismatched_pages", "?")
    low = ">=" if v.get("capped") == "1" else ""
    cell = "%s%s of %s pages differ" % (low, n, int(v.get("bytes", "0")) // 4096)
    if n != "0":
        cell += ", %s%s of them in a guest-written stamp (first: %s)" % (
            low, v.get("stamp_pages", "?"), v.get("first", "?").replace(",", ", "))
    return cell


def read_inputs(inputs: List[report.Input]) -> Dict[str, Dict[str, Log]]:
    """npt -> kernel -> the log's e2e/run lines, parsed."""
    logs: Dict[str, Dict[str, Log]] = {}
    for i in inputs:
        logs.setdefault(i.mode, {})[i.kernel] = parse(i.log.payload, i.log.path)
    return logs


def write(inputs: List[report.Input], header: Dict[str, str], outdir: str) -> List[str]:
    """e2e.md, e2e.csv and e2e.png."""
    kernels = report.kernels_of(i.kernel for i in inputs)
    logs = read_inputs(inputs)

    rows: Dict[Tuple[str, str, str, str], Dict[str, object]] = {}
    for npt, per in logs.items():
        for kernel, log in per.items():
            for bk, b in log.backings.items():
                for ph in PHASES:
                    rows[(npt, kernel, bk, ph)] = phase_row(log, b, ph)

    # The trace splits the resolve phase: faults before QEMU's final
    # whole-memory resolve (those of the page-by-page resolves), and after
    # it, until the end of the after phase (the refault after the snapshot).
    for (npt, kernel, bk, ph), r in rows.items():
        if ph != "resolve" or "trace_faults" not in r:
            continue
        r["trace_faults_before_final"] = (int(r["trace_faults"]) -  # type: ignore
                                          int(r["trace_faults_after_full"]))  # type: ignore
        after = rows.get((npt, kernel, bk, "after"), {})
        if "trace_faults" in after:
            after["trace_faults_after_final"] = (int(r["trace_faults_after_full"]) +  # type: ignore
                                                 int(after["trace_faults"]))  # type: ignore

    keys = ["npt", "kernel", "backing", "phase"]
    out_rows: List[Dict[str, object]] = []
    for (npt, kernel, bk, ph), r in sorted(rows.items()):
        flat = {k: v for k, v in r.items() if not k.endswith("hist")}
        keys += [k for k in flat if k not in keys]
        out_rows.append(dict(flat, npt=npt, kernel=kernel, backing=bk, phase=ph))
    report.write_csv(os.path.join(outdir, "e2e.csv"), keys, out_rows)

    md: List[str] = []
    md.append("# QEMU background snapshot, end to end: %s" % report.title_kernels(kernels))
    md.append("")
    md.append("Generated by `make e2e` (`e2e/run`, `e2e/snapwork.c`).")
    md.append("")
    rel = {k: lg.info.get("kernel", "?") for per in logs.values() for k, lg in per.items()}
    md.append("| | |")
    md.append("| --- | --- |")
    md.append("| date | %s |" % header.get("date", "?"))
    md.append("| base kernel | %s |" % rel.get("base", "?"))
    if "prior" in kernels:
        md.append(report.PRIOR_ROW % (rel.get("prior", "?"), header.get("prior_kernel", "?")))
    md.append("| patched kernel | %s |" % rel.get("patched", "?"))
    md.append("| tree now | %s |" % report.tree_cell(header))
    md.append("| outer guest | %s: `qemu-system-x86_64 %s` (TCG), L1 kernel = the kernel under test, KVM nested |"
              % (header.get("qemu", "?"), header.get("qemu_args", "?")))
    md.append("| nested QEMU | the same QEMU binary inside the outer guest: `-accel kvm -M pc -cpu host -smp 1`, "
              "monitor on stdio (HMP), `migrate exec:cat>FILE`, the file checked against the memory "
              "saved when the snapshot started |")
    md.append("| nested guest | `snapwork`: multiboot, paging off, reads one word per 4 KiB page "
              "from 16 MiB to the top of its memory, in a loop; \"+write\" backings: also "
              "writes a stamp into every page in turn (`write spread`) |")
    md.append("| host | %s |" % header.get("host_cpu", "?"))
    md.append("| run | %s |" % report.run_cell(header))
    md.append("")
    md.append("All figures are taken under TCG: the outer guest is emulated, KVM runs nested in it. "
              "Only counts and ratios carry over to real hardware; times do not. Counts are "
              "KVM's own stats as QEMU's `info stats` reads them, deltas over each phase; the "
              "trace rows come from the kvm_unmap_hva_range and kvm_page_fault tracepoints in "
              "the outer guest. A \"whole-memory invalidation\" covers all of the nested "
              "guest's memory; smaller ones include ranges of QEMU's own memory that KVM "
              "has no memslot for. Access times are snapwork's own rdtsc deltas, in "
              "log2 buckets (a bucket's upper bound is shown). %s"
              % report.ratio_text(kernels))
    md.append("")
    md.append("Phases (each ends at a mark where the stats are read; the guest reads its memory "
              "throughout):")
    md.append("")
    for ph in PHASES:
        md.append("- **%s**: %s." % (ph, PHASE_TEXT[ph]))
    md.append("- **protect+resolve**: the two phases together, from the mark just before "
              "`migrate` to the mark just after QEMU reported `completed`. Its per-page row "
              "divides by every page of the nested guest's memory (`KPU_MEM_MB` x 256); "
              "the phases' \"per guest page read\" rows divide by the pages snapwork reads "
              "(from 16 MiB up, as in the heading).")
    md.append("")

    for npt in sorted(logs, reverse=True):
        per = logs[npt]
        md.append("## kvm_amd.npt=%s" % npt)
        md.append("")
        md += status_lines(per, kernels)
        names = [bk for lg in per.values() for bk in lg.backings]
        md.append("### The snapshots, page by page")
        md.append("")
        md.append("Each snapshot against the nested guest's memory saved (`pmemsave`) while it "
                  "was stopped just before `migrate`: the snapshot file loaded into a fresh "
                  "QEMU (`-incoming`) and its memory saved the same way, compared byte by byte. "
                  "\"+write\": snapwork writes a new stamp into every page in turn while the "
                  "snapshot runs (`write spread`).")
        md.append("")
        md.append(report.md_row(["backing"] + list(kernels)))
        md.append(report.md_row(["---"] + ["---"] * len(kernels)))
        for bk in backing_order(names):
            md.append(report.md_row([bk] + [verify_cell(per[k].backings.get(bk) if k in per else None)
                                              for k in kernels]))
        md.append("")
        for kernel in kernels:
            for bk, b in (per[kernel].backings.items() if kernel in per else []):
                for d in b.verify_diffs:
                    md.append("- %s kernel: `%s`" % (kernel, d))
        if md[-1] != "":
            md.append("")
        for bk in backing_order(names):
            bs = {k: per[k].backings.get(bk) for k in kernels if k in per}
            if not any(bs.values()):
                continue
            anyb = next(x for x in bs.values() if x)
            md.append("### %s (%s MiB, %d pages read by the guest, thp=%s)"
                      % (bk, anyb.begin.get("mem_mb", "?"), anyb.region_pages,
                         re.sub(r".*\[(\w+)\].*", r"\1", " ".join(
                             v for k, v in anyb.begin.items() if k == "thp"))))
            md.append("")
            md += report.table_head(("phase", "metric"), kernels)
            for ph in PHASES:
                for key, label, form in METRICS:
                    vals = {k: rows.get((npt, k, bk, ph), {}).get(key) for k in kernels}
                    if all(v is None for v in vals.values()):
                        continue
                    md.append(report.md_row([ph, label] + [fmt(vals[k], form) for k in kernels]
                                               + report.ratios(numbers(vals), kernels)))
                if ph == SNAPSHOT_PHASES[-1]:
                    snap = {k: snapshot_faults(rows, npt, k, bs.get(k)) for k in kernels}
                    pages = guest_pages(anyb)
                    for key, label, form in (
                            ("pf_taken", "guest page faults (pf_taken)", "{:.0f}"),
                            ("pf_per_guest_page", "pf_taken per page of guest memory (%s pages)"
                             % (pages or "?"), "{:.2f}")):
                        vals = {k: snap[k].get(key) for k in kernels}
                        if all(v is None for v in vals.values()):
                            continue
                        md.append(report.md_row(
                            ["+".join(SNAPSHOT_PHASES), label]
                            + [fmt(vals[k], form) for k in kernels]
                            + report.ratios(numbers(vals), kernels)))
            md.append("")
            md.append(report.md_row(["snapshot and memory"] + list(kernels)))
            md.append(report.md_row(["---"] + ["---:"] * len(kernels)))
            snaps = {k: snapshot_figures(per[k], b) for k, b in bs.items() if b}
            for key, label in (("total_ms", "QEMU's total time (ms, throttled part included)"),
                               ("resolve_s", "unthrottled until completed (s)"),
                               ("normal", "pages saved"),
                               ("duplicate", "zero pages saved")):
                md.append(report.md_row([label] + [str(snaps.get(k, {}).get(key, "n/a"))
                                                      for k in kernels]))
            for seg in SNAPSHOT_PHASES + ("snapshot",):
                for key, label in (
                        ("faults_uffd_pages", "KVM faults at pages written before QEMU saved them"),
                        ("faults_other", "KVM faults at other pages from 16 MiB up"),
                        ("faults_low", "KVM faults below 16 MiB")):
                    cells = [str(b.uffd[seg][key]) if b and key in b.uffd.get(seg, {}) else "n/a"
                             for b in (bs.get(kn) for kn in kernels)]
                    if any(c != "n/a" for c in cells):
                        md.append(report.md_row(["%s (%s, trace)" % (label, seg)] + cells))
            cells = [str(b.uffd["snapshot"]["pages"]) if b and "snapshot" in b.uffd else "n/a"
                     for b in (bs.get(kn) for kn in kernels)]
            if any(c != "n/a" for c in cells):
                md.append(report.md_row(["pages written before QEMU saved them "
                                            "(userfaults, distinct pages)"] + cells))
            for kind in ("protect", "resolve"):
                for key, label in (("_calls", "UFFDIO_WRITEPROTECT %s calls"),
                                   ("_us", "their time in the outer guest (us, summed)"),
                                   ("_max_us", "the longest (us)")):
                    cells = [str(b.uffdio[kind + key]) if b and kind + key in b.uffdio else "n/a"
                             for b in (bs.get(kn) for kn in kernels)]
                    if any(c != "n/a" for c in cells):
                        md.append(report.md_row([label.replace("%s", kind)] + cells))
            md.append(report.md_row(["nested boots started again (hung before snapwork)"] +
                                       [str(b.boot_retries) if b else "n/a"
                                        for b in (bs.get(kn) for kn in kernels)]))
            before_ms = {k: rows.get((npt, k, bk, "check"), {}).get("before_pass_ms_median")
                         for k in kernels}
            md.append(report.md_row(["guest pass time before the snapshot (ms, median)"]
                                       + [fmt(before_ms.get(k), "{:.1f}") for k in kernels]))
            for mk in ("before", "after"):
                for k in ("AnonHugePages", "thp_split_pmd", "thp_collapse_alloc",
                          "HugePages_Free"):
                    cells = [str(b.mem.get(mk, {}).get(k, "n/a")) if b else "n/a"
                             for b in (bs.get(kn) for kn in kernels)]
                    # khugepaged's collapses: only e2e/run since 2026-12-06 says.
                    if k == "thp_collapse_alloc" and all(c == "n/a" for c in cells):
                        continue
                    md.append(report.md_row(["%s %s" % (k, mk)] + cells))
                for k in ("pages_4k", "pages_2m", "pages_1g"):
                    cells = [str(b.stats.get(mk, {}).get(k, "n/a")) if b else "n/a"
                             for b in (bs.get(kn) for kn in kernels)]
                    md.append(report.md_row(["%s %s" % (k, mk)] + cells))
            md.append("")
    md.append("![faults per second over the snapshot; access times in the resolve phase](e2e.png)")
    md.append("")
    out = [os.path.join(outdir, n) for n in ("e2e.md", "e2e.csv", "e2e.png")]
    report.write_md(out[0], md)
    # The plot only where matplotlib drew it.
    return out[:2] + ([out[2]] if plot(logs, rows, out[2], kernels) else [])


def plot(logs: Dict[str, Dict[str, Log]], rows: Dict[Tuple[str, str, str, str], Dict[str, object]],
         path: str, kernels: Sequence[str] = KERNELS) -> bool:
    plt = report.pyplot(path)
    if plt is None:
        return False
    npt = sorted(logs, reverse=True)[0]
    per = logs[npt]
    bks = [bk for bk in backing_order([b for lg in per.values() for b in lg.backings])
           if "+" not in bk]
    if not bks:
        return False
    fig, axes = plt.subplots(2, len(bks), figsize=(5.5 * len(bks), 8), squeeze=False)
    for j, bk in enumerate(bks):
        ax = axes[0][j]
        for kernel in kernels:
            b = per[kernel].backings.get(bk) if kernel in per else None
            if not b or not b.bins:
                continue
            ax.plot([t for t, _, _ in b.bins], [f * 4 for _, f, _ in b.bins],
                    label=kernel, color=report.COLORS[kernel], lw=1)
            t0 = b.marks.get("before", {}).get("uptime")
            for mk in PHASES:
                if t0 is not None and mk in b.marks:
                    ax.axvline(b.marks[mk]["uptime"] - t0, color=report.COLORS[kernel],
                               ls=":", lw=0.8)
        ax.set_title("%s: guest page faults per second (trace)" % bk, fontsize=10)
        ax.set_xlabel("s since the first mark (dotted: phase ends)", fontsize=8)
        ax.set_yscale("symlog")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        ax = axes[1][j]
        for kernel in kernels:
            hist: List[int] = []
            for ph in ("resolve",):
                h = rows.get((npt, kernel, bk, ph), {}).get("hist")
                if isinstance(h, list):
                    hist = [a + b for a, b in zip(hist, h)] if hist else list(h)
            if not hist:
                continue
            total = float(sum(hist)) or 1.0
            xs = [1 << (i + HIST_SHIFT + 1) for i in range(len(hist))]
            ax.step(xs, [n / total for n in hist], where="post", label=kernel,
                    color=report.COLORS[kernel])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title("%s: guest access times while QEMU resolves" % bk, fontsize=10)
        ax.set_xlabel("TSC cycles (log2 bucket bound)", fontsize=8)
        ax.set_ylabel("fraction of accesses", fontsize=8)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


