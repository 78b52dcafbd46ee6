# SPDX-License-Identifier: GPL-2.0
"""The report of scripts/e2e.sh: rfctool.py e2e HEADER OUTDIR KERNEL:NPT=LOG...

A KERNEL:NPT given twice: the second log is a rerun of some backings,
which replace the first log's (the report says which, and why the first
failed).

Each log is the console of one outer guest that ran e2e/run: for each
backing, QEMU with -accel kvm runs snapwork (e2e/snapwork.c) and takes a
background snapshot in phases; at each phase boundary ("mark") the log has
KVM's stats as QEMU's "info stats" prints them, the memory state, and at
the end per-segment counts from the kvm_unmap_hva_range and kvm_page_fault
tracepoints and snapwork's own pass lines.  KERNEL is base, prior or
patched.  Writes OUTDIR/e2e.md (per backing and phase, base vs patched,
with a prior column between them and a patched/prior ratio when a log is
labelled prior; the write-protect and resolve phases' faults together, per
page of the nested guest's memory), e2e.csv (every kernel, backing and
phase) and e2e.png (guest faults per second over the snapshot; access time
distribution in the resolve phase).  Prints e2e.md.
"""

import os
import re
import statistics
import sys
from typing import Dict, List, Optional, Sequence, Tuple

import rfc_bench
import rfc_guestlog
import rfc_splat

KERNELS = rfc_bench.KERNELS
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
        # Backings of a rerun merged in (main's KERNEL:NPT given twice).
        self.merged = False
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
            log.info = rfc_guestlog.parse_kv(line.split()[1:])
        elif line.startswith("E2E-BEGIN "):
            kv = rfc_guestlog.parse_kv(line.split()[1:])
            cur = backing(kv)
            cur.begin = kv
        elif line.startswith("E2E-MARK "):
            kv = rfc_guestlog.parse_kv(line.split()[1:])
            backing(kv).marks[kv["mark"]] = {"uptime": float(kv["uptime"]),
                                             "passes": int(kv["passes"])}
        elif line.startswith("E2E-MEM "):
            kv = rfc_guestlog.parse_kv(line.split()[1:])
            b = backing(kv)
            mark = kv.pop("mark")
            b.mem[mark] = {k: int(v) for k, v in kv.items() if k != "backing"}
        elif line.startswith("E2E-STEP "):
            kv = rfc_guestlog.parse_kv(line.split()[1:])
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
            kv = rfc_guestlog.parse_kv(line.split()[1:])
            backing(kv).trace[kv["seg"]] = {k: int(v) for k, v in kv.items()
                                            if k not in ("backing", "seg")}
        elif line.startswith("E2E-BIN "):
            kv = rfc_guestlog.parse_kv(line.split()[1:])
            backing(kv).bins.append((float(kv["t"]), int(kv["faults"]), int(kv["invals"])))
        elif line.startswith("E2E-L2 ") and " SNAPWORK " in line:
            head, _, rest = line.partition(": ")
            b = backing(rfc_guestlog.parse_kv(head.split()[1:]))
            kv = rfc_guestlog.parse_kv(rest.split()[1:])
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
            kv = rfc_guestlog.parse_kv(line.split()[1:])
            backing(kv).uffd[kv.get("seg", "snapshot")] = {
                k: int(v) for k, v in kv.items() if k not in ("backing", "seg")}
        elif line.startswith("E2E-BOOT-RETRY "):
            backing(rfc_guestlog.parse_kv(line.split()[1:])).boot_retries += 1
        elif line.startswith("E2E-UFFDIO "):
            kv = rfc_guestlog.parse_kv(line.split()[1:])
            backing(kv).uffdio = {k: int(v) for k, v in kv.items() if k != "backing"}
        elif line.startswith("E2E-VERIFY "):
            kv = rfc_guestlog.parse_kv(line.split()[1:])
            backing(kv).verify = kv
        elif line.startswith("E2E-VERIFY-DIFF "):
            kv = rfc_guestlog.parse_kv(line.split()[1:2])
            backing(kv).verify_diffs.append(line.partition(" ")[2])
        elif line.startswith("E2E-END "):
            kv = rfc_guestlog.parse_kv(line.split()[1:])
            backing(kv).ok = kv.get("ok") == "1"
        elif line.startswith("E2E-ERROR "):
            kv = rfc_guestlog.parse_kv(line.split()[1:2])
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


def read(path: str) -> Log:
    try:
        lines = rfc_splat.read_lines(path)
    except OSError:
        return Log(path)
    return parse(lines, path)


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
    """The numeric values of VALS (None for any other), for rfc_bench.ratios."""
    return {k: float(v) if isinstance(v, (int, float)) else None for k, v in vals.items()}


def guest_pages(b: Backing) -> Optional[int]:
    """The nested guest's memory in 4 KiB pages (E2E-BEGIN's mem_mb, the
    run's RFC_E2E_MEM_MB)."""
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


def merge_rerun(first: Log, rerun: Log, what: str) -> List[str]:
    """A second log of the same kernel and npt: each backing that it ran
    replaces the first log's; the lines that say so, for the report."""
    out = []
    for bk, b in rerun.backings.items():
        old = first.backings.get(bk)
        if old and (old.verify.get("mismatched_pages", "0") != "0" or any(
                w in e for e in old.errors
                for w in ("SNAPWORK BAD", "differs", "nested guest failed"))):
            raise ValueError("%s, %s: the first run failed its check (%s); a rerun may "
                             "not replace it" % (what, bk, "; ".join(old.errors) or "verify"))
        was = ""
        if old:
            last = max(old.steps.items(), key=lambda kv: kv[1])[0] if old.steps else "none"
            was = "; the first run's last step: %s%s" % (
                last, (", errors: " + "; ".join(old.errors)) if old.errors else "")
        out.append("%s, %s: from a rerun (`%s`)%s" % (what, bk, rerun.path, was))
        first.backings[bk] = b
    if not first.done:
        out.append("%s: the first run did not finish (`%s`)" % (what, first.path))
    first.merged = True
    first.done = first.done or rerun.done
    return out


def main(argv: List[str]) -> int:
    if len(argv) < 3:
        sys.exit(__doc__)
    outdir = argv[1]
    header, specs = rfc_guestlog.report_inputs(argv[0], argv[2:])
    kernels = rfc_bench.kernels_of(k for k, _, _ in specs)
    logs: Dict[str, Dict[str, Log]] = {}
    reruns: List[str] = []
    for kernel, npt, path in specs:
        got = read(path)
        first = logs.setdefault(npt, {}).get(kernel)
        if first is None:
            logs[npt][kernel] = got
        else:
            reruns += merge_rerun(first, got, "%s kernel, npt=%s" % (kernel, npt))
    # A merged log is whole when every backing of the run is there and
    # ended ok (the first log may have died before one).
    wanted = re.sub(r".*backings=", "", header.get("args", "")).split()
    for per in logs.values():
        for merged in per.values():
            if merged.merged:
                merged.done = merged.done and all(
                    bk in merged.backings and merged.backings[bk].ok for bk in wanted)
    os.makedirs(outdir, exist_ok=True)

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
    rfc_bench.write_csv(os.path.join(outdir, "e2e.csv"), keys, out_rows)

    md: List[str] = []
    md.append("# QEMU background snapshot, end to end: %s" % rfc_bench.title_kernels(kernels))
    md.append("")
    md.append("Generated by `scripts/e2e.sh` (`e2e/run`, `e2e/snapwork.c`).")
    md.append("")
    rel = {k: lg.info.get("kernel", "?") for per in logs.values() for k, lg in per.items()}
    md.append("| | |")
    md.append("| --- | --- |")
    md.append("| date | %s |" % header.get("date", "?"))
    md.append("| base kernel | %s |" % rel.get("base", "?"))
    if "prior" in kernels:
        md.append(rfc_bench.PRIOR_ROW % (rel.get("prior", "?"), header.get("prior_kernel", "?")))
    md.append("| patched kernel | %s |" % rel.get("patched", "?"))
    md.append("| tree now | %s (base %s), harness %s; guest kernels %s |"
              % (header.get("tree_head", "?"), header.get("base_tag", "?"),
                 header.get("harness", "?"), header.get("kernels", "?")))
    md.append("| outer guest | %s: `qemu-system-x86_64 %s` (TCG), L1 kernel = the kernel under test, KVM nested |"
              % (header.get("qemu", "?"), header.get("qemu_args", "?")))
    md.append("| nested QEMU | the same QEMU binary inside the outer guest: `-accel kvm -M pc -cpu host -smp 1`, "
              "monitor on stdio (HMP), `migrate exec:cat>FILE`, the file checked against the memory "
              "saved when the snapshot started |")
    md.append("| nested guest | `snapwork`: multiboot, paging off, reads one word per 4 KiB page "
              "from 16 MiB to the top of its memory, in a loop; \"+write\" backings: also "
              "writes a stamp into every page in turn (`write spread`) |")
    md.append("| host | %s |" % header.get("host_cpu", "?"))
    md.append("| run | %s |" % header.get("args", "?"))
    for rerun in reruns:
        md.append("| rerun | %s |" % rerun)
    md.append("")
    md.append("All figures are taken under TCG: the outer guest is emulated, KVM runs nested in it. "
              "Only counts and ratios carry over to real hardware; times do not. Counts are "
              "KVM's own stats as QEMU's `info stats` reads them, deltas over each phase; the "
              "trace rows come from the kvm_unmap_hva_range and kvm_page_fault tracepoints in "
              "the outer guest. A \"whole-memory invalidation\" covers all of the nested "
              "guest's memory; smaller ones include ranges of QEMU's own memory that KVM "
              "has no memslot for. Access times are snapwork's own rdtsc deltas, in "
              "log2 buckets (a bucket's upper bound is shown). %s"
              % rfc_bench.ratio_text(kernels))
    md.append("")
    md.append("Phases (each ends at a mark where the stats are read; the guest reads its memory "
              "throughout):")
    md.append("")
    for ph in PHASES:
        md.append("- **%s**: %s." % (ph, PHASE_TEXT[ph]))
    md.append("- **protect+resolve**: the two phases together, from the mark just before "
              "`migrate` to the mark just after QEMU reported `completed`. Its per-page row "
              "divides by every page of the nested guest's memory (`RFC_E2E_MEM_MB` x 256); "
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
        md.append(rfc_bench.md_row(["backing"] + list(kernels)))
        md.append(rfc_bench.md_row(["---"] + ["---"] * len(kernels)))
        for bk in backing_order(names):
            md.append(rfc_bench.md_row([bk] + [verify_cell(per[k].backings.get(bk) if k in per else None)
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
            md += rfc_bench.table_head(("phase", "metric"), kernels)
            for ph in PHASES:
                for key, label, form in METRICS:
                    vals = {k: rows.get((npt, k, bk, ph), {}).get(key) for k in kernels}
                    if all(v is None for v in vals.values()):
                        continue
                    md.append(rfc_bench.md_row([ph, label] + [fmt(vals[k], form) for k in kernels]
                                               + rfc_bench.ratios(numbers(vals), kernels)))
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
                        md.append(rfc_bench.md_row(
                            ["+".join(SNAPSHOT_PHASES), label]
                            + [fmt(vals[k], form) for k in kernels]
                            + rfc_bench.ratios(numbers(vals), kernels)))
            md.append("")
            md.append(rfc_bench.md_row(["snapshot and memory"] + list(kernels)))
            md.append(rfc_bench.md_row(["---"] + ["---:"] * len(kernels)))
            snaps = {k: snapshot_figures(per[k], b) for k, b in bs.items() if b}
            for key, label in (("total_ms", "QEMU's total time (ms, throttled part included)"),
                               ("resolve_s", "unthrottled until completed (s)"),
                               ("normal", "pages saved"),
                               ("duplicate", "zero pages saved")):
                md.append(rfc_bench.md_row([label] + [str(snaps.get(k, {}).get(key, "n/a"))
                                                      for k in kernels]))
            for seg in SNAPSHOT_PHASES + ("snapshot",):
                for key, label in (
                        ("faults_uffd_pages", "KVM faults at pages written before QEMU saved them"),
                        ("faults_other", "KVM faults at other pages from 16 MiB up"),
                        ("faults_low", "KVM faults below 16 MiB")):
                    cells = [str(b.uffd[seg][key]) if b and key in b.uffd.get(seg, {}) else "n/a"
                             for b in (bs.get(kn) for kn in kernels)]
                    if any(c != "n/a" for c in cells):
                        md.append(rfc_bench.md_row(["%s (%s, trace)" % (label, seg)] + cells))
            cells = [str(b.uffd["snapshot"]["pages"]) if b and "snapshot" in b.uffd else "n/a"
                     for b in (bs.get(kn) for kn in kernels)]
            if any(c != "n/a" for c in cells):
                md.append(rfc_bench.md_row(["pages written before QEMU saved them "
                                            "(userfaults, distinct pages)"] + cells))
            for kind in ("protect", "resolve"):
                for key, label in (("_calls", "UFFDIO_WRITEPROTECT %s calls"),
                                   ("_us", "their time in the outer guest (us, summed)"),
                                   ("_max_us", "the longest (us)")):
                    cells = [str(b.uffdio[kind + key]) if b and kind + key in b.uffdio else "n/a"
                             for b in (bs.get(kn) for kn in kernels)]
                    if any(c != "n/a" for c in cells):
                        md.append(rfc_bench.md_row([label.replace("%s", kind)] + cells))
            md.append(rfc_bench.md_row(["nested boots started again (hung before snapwork)"] +
                                       [str(b.boot_retries) if b else "n/a"
                                        for b in (bs.get(kn) for kn in kernels)]))
            before_ms = {k: rows.get((npt, k, bk, "check"), {}).get("before_pass_ms_median")
                         for k in kernels}
            md.append(rfc_bench.md_row(["guest pass time before the snapshot (ms, median)"]
                                       + [fmt(before_ms.get(k), "{:.1f}") for k in kernels]))
            for mk in ("before", "after"):
                for k in ("AnonHugePages", "thp_split_pmd", "HugePages_Free"):
                    cells = [str(b.mem.get(mk, {}).get(k, "n/a")) if b else "n/a"
                             for b in (bs.get(kn) for kn in kernels)]
                    md.append(rfc_bench.md_row(["%s %s" % (k, mk)] + cells))
                for k in ("pages_4k", "pages_2m", "pages_1g"):
                    cells = [str(b.stats.get(mk, {}).get(k, "n/a")) if b else "n/a"
                             for b in (bs.get(kn) for kn in kernels)]
                    md.append(rfc_bench.md_row(["%s %s" % (k, mk)] + cells))
            md.append("")
    md.append("![faults per second over the snapshot; access times in the resolve phase](e2e.png)")
    md.append("")
    rfc_bench.write_md(os.path.join(outdir, "e2e.md"), md)
    plot(logs, rows, os.path.join(outdir, "e2e.png"), kernels)
    bad = [lg.path for per in logs.values() for lg in per.values() if not lg.done]
    return 1 if bad else 0


def plot(logs: Dict[str, Dict[str, Log]], rows: Dict[Tuple[str, str, str, str], Dict[str, object]],
         path: str, kernels: Sequence[str] = KERNELS) -> None:
    plt = rfc_bench.pyplot(path)
    if plt is None:
        return
    npt = sorted(logs, reverse=True)[0]
    per = logs[npt]
    bks = [bk for bk in backing_order([b for lg in per.values() for b in lg.backings])
           if "+" not in bk]
    if not bks:
        return
    fig, axes = plt.subplots(2, len(bks), figsize=(5.5 * len(bks), 8), squeeze=False)
    for j, bk in enumerate(bks):
        ax = axes[0][j]
        for kernel in kernels:
            b = per[kernel].backings.get(bk) if kernel in per else None
            if not b or not b.bins:
                continue
            ax.plot([t for t, _, _ in b.bins], [f * 4 for _, f, _ in b.bins],
                    label=kernel, color=rfc_bench.COLORS[kernel], lw=1)
            t0 = b.marks.get("before", {}).get("uptime")
            for mk in PHASES:
                if t0 is not None and mk in b.marks:
                    ax.axvline(b.marks[mk]["uptime"] - t0, color=rfc_bench.COLORS[kernel],
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
                    color=rfc_bench.COLORS[kernel])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title("%s: guest access times while QEMU resolves" % bk, fontsize=10)
        ax.set_xlabel("TSC cycles (log2 bucket bound)", fontsize=8)
        ax.set_ylabel("fraction of accesses", fontsize=8)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


# The soak (e2e.sh soak): rfctool.py e2e-soak HEADER OUT.md KERNEL:RUN=LOG...
# with RUN = rROUND-nptN-TCG.

# What e2e/run says when snapwork reported a bad word or an exception,
# restarted, or its QEMU exited.
NESTED_FAILED = "the nested guest failed:"
# ... and when it stopped printing passes (E2E-STALL lines follow).
NESTED_STALLED = "the nested guest made no pass for"


def monitor_state(lines: List[str], prefix: str) -> List[str]:
    """What e2e/run's l2_state printed under prefix: the nested guest's run
    state, where its vCPU is, what QEMU said of a KVM error, its last
    console line."""
    state = [ln.rstrip() for ln in lines if ln.startswith(prefix)]
    out: List[str] = []
    for pattern, most in ((r"VM status", 1), (r"[ER]IP=", 1), (r" qemu: ", 6),
                          (r" l2: ", -1)):
        found = [ln for ln in state if re.search(pattern, ln)]
        out += found[most:] if most < 0 else found[:most]
    return out


def soak_verdict(lines: List[str]) -> Tuple[str, List[str]]:
    """ok, hang, splat, nested, stall, error or no-result, and the evidence
    lines."""
    guest = rfc_guestlog.parse(lines)
    log = parse(lines)
    watchdog = [ln.rstrip() for ln in lines if ln.startswith("GUEST-WATCHDOG:")]
    errors = log.errors + [e for b in log.backings.values() for e in b.errors]
    evidence: List[str] = []
    if watchdog:
        evidence += [w for w in watchdog if "sample 0" in w or "jiffies" in w
                     or "no console output" in w]
    if guest.splats:
        evidence += [s.line for s in guest.splats[:3]]
        # The first report's RIP and call trace, as far as the console has
        # them (a dozen lines).
        first = guest.splats[0].lineno
        evidence += [ln.strip() for ln in lines[first:first + 40]
                     if re.search(r"\bRIP: |\] +[\w.]+\+0x[0-9a-f]+/0x", ln)][:12]
    evidence += errors[:3]
    if watchdog:
        return "hang", evidence
    if guest.splats:
        return "splat", evidence
    if any(NESTED_FAILED in e for e in errors):
        evidence += [ln.rstrip() for ln in lines if ln.startswith("E2E-QMP ")
                     and '"SHUTDOWN"' in ln and '"guest": true' in ln][:1]
        evidence += monitor_state(lines, "E2E-STATE ")
        return "nested", evidence
    if any(NESTED_STALLED in e for e in errors):
        evidence += monitor_state(lines, "E2E-STALL ")
        return "stall", evidence
    if errors or (lines and not log.done):
        return "error", evidence
    if guest.verdict != rfc_guestlog.Verdict.PASS:
        return "no-result", evidence
    return "ok", evidence


def nested_mode(lines: List[str]) -> str:
    """snapwork's mode (E2E-BEGIN's l2=, flat in logs from before it had
    one), the backings that began, and "write" in its write mode; "?" when
    no backing began."""
    mode, backings, write = "?", [], False
    for line in lines:
        if line.startswith("E2E-BEGIN "):
            kv = rfc_guestlog.parse_kv(line.split()[1:])
            if mode == "?":
                mode = kv.get("l2", "flat")
            if kv.get("backing") and kv["backing"] not in backings:
                backings.append(kv["backing"])
            write = write or kv.get("write") == "1"
    return " ".join([mode] + backings + (["write"] if write else []))


def soak_header(title: str, generated: str, tcg: str, header: Dict[str, str]) -> List[str]:
    """The top of a soak report: its title, where it comes from, and the
    table of the run (date, tree, outer guest, run arguments)."""
    return [title, "", generated, "",
            "| | |", "| --- | --- |",
            "| date | %s |" % header.get("date", "?"),
            "| tree now | %s (base %s), harness %s; guest kernels %s |" % (
                header.get("tree_head", "?"), header.get("base_tag", "?"),
                header.get("harness", "?"), header.get("kernels", "?")),
            "| outer guest | `qemu-system-x86_64 %s` (%s), nokaslr |"
            % (header.get("qemu_args", "?"), tcg),
            "| run | %s |" % header.get("args", "?"), ""]


def soak_main(argv: List[str]) -> int:
    if len(argv) < 2:
        sys.exit("usage: rfctool.py e2e-soak HEADER OUT.md KERNEL:RUN=LOG...")
    header, specs = rfc_guestlog.report_inputs(argv[0], argv[2:])
    runs = []
    counts: Dict[Tuple[str, str, str, str], Dict[str, int]] = {}
    for kernel, run, path in specs:
        m = re.match(r"r(\d+)-npt([01])-(\w+)$", run)
        if not m:
            raise ValueError("expected RUN = rROUND-nptN-TCG, not %r" % run)
        try:
            lines = rfc_splat.read_lines(path)
        except OSError:
            lines = []
        verdict, evidence = soak_verdict(lines)
        l2 = nested_mode(lines)
        runs.append((int(m.group(1)), kernel, l2, m.group(2), m.group(3), verdict, evidence,
                     path))
        c = counts.setdefault((kernel, l2, m.group(2), m.group(3)), {})
        c[verdict] = c.get(verdict, 0) + 1
    md = soak_header("# QEMU background snapshot soak: base vs patched",
                     "Generated by `scripts/e2e.sh soak` (`e2e/run` in the soak kernels, "
                     "guest/soak.config).", "TCG; thread= as in the table", header) + [
          "A run is **ok** when every phase of the snapshot finished and the console has no "
          "kernel splat; **hang**: the guest printed nothing for the silence limit and the "
          "runner's watchdog collected evidence through the outer QEMU's monitor and killed "
          "it; **splat**: a WARN, BUG, Oops, lockup or other report in the console; "
          "**nested**: the nested guest failed (snapwork read a word that is not its own "
          "address or a write that did not stick, took a CPU exception, was reset or shut "
          "down, or its QEMU exited; its state as the monitor saw it follows); **stall**: the "
          "nested guest printed no pass for 2 minutes (the monitor's view of it follows); "
          "**error**: the e2e script reported an error or did not finish.", "",
          "| kernel | nested guest, backing | npt | TCG | runs | ok | hang | splat | nested | stall "
          "| error | no-result |",
          "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for (kernel, l2, npt, tcg), c in sorted(counts.items()):
        md.append("| %s | %s | %s | %s | %d | %d | %d | %d | %d | %d | %d | %d |" % (
            kernel, l2, npt, tcg, sum(c.values()), c.get("ok", 0), c.get("hang", 0),
            c.get("splat", 0), c.get("nested", 0), c.get("stall", 0), c.get("error", 0),
            c.get("no-result", 0)))
    md += ["", "| round | kernel | nested guest, backing | npt | TCG | verdict | evidence |",
           "| ---: | --- | --- | --- | --- | --- | --- |"]
    for rnd, kernel, l2, npt, tcg, verdict, evidence, path in sorted(runs):
        ev = "<br>".join(e.replace("|", "\\|") for e in evidence) or ""
        md.append("| %d | %s | %s | %s | %s | %s | %s |" % (
            rnd, kernel, l2, npt, tcg, verdict, ev))
    md.append("")
    rfc_bench.write_md(argv[1], md)
    return 0


class Boot:
    """One nested boot of the boot soak (e2e/run's boot_soak)."""

    def __init__(self, kv: Dict[str, str], evidence: List[str]) -> None:
        self.boot = int(kv.get("boot", "0"))
        self.ok = kv.get("ok") == "1"
        self.seconds = kv.get("seconds", "?")
        self.kinds: Dict[str, int] = {}
        for item in filter(None, kv.get("kinds", "").split(",")):
            kind, _, n = item.rpartition(":")
            self.kinds[kind] = self.kinds.get(kind, 0) + int(n)
        self.evidence = evidence
        # Unmaps over the guest RAM, and those of them that the series
        # marks (None in logs from before e2e/run counted them).
        self.ram_unmaps = int(kv["ram_unmaps"]) if "ram_unmaps" in kv else None
        self.ram_marked = int(kv["ram_marked"]) if "ram_marked" in kv else None


def boots(lines: List[str]) -> List[Boot]:
    """The nested boots of a boot soak log, in order, each with the
    evidence e2e/run printed before its E2E-BOOT line: the errors, the
    monitor's view of it (both samples), its QMP events, and how many
    unmaps its boot had and the last of them."""
    out: List[Boot] = []
    pending: List[str] = []
    for line in lines:
        line = line.rstrip()
        if line.startswith("E2E-BOOT "):
            kv = rfc_guestlog.parse_kv(line.split()[1:])
            ev = [ln for ln in pending if ln.startswith("E2E-ERROR ")]
            if "ram_marked" in kv:
                ev.append("unmaps over the guest RAM (%s): %s, marked: %s" % (
                    kv.get("ram", "?"), kv.get("ram_unmaps", "?"), kv["ram_marked"]))
            for prefix in ("E2E-STALL ", "E2E-STATE ", "E2E-STATE2 "):
                ev += monitor_state(pending, prefix)
            out.append(Boot(kv, ev))
            pending = []
        elif line.startswith(("E2E-QMP ", "E2E-BOOT-UNMAP ")) and out and not out[-1].ok:
            # What e2e/run prints after the E2E-BOOT line of a failed boot.
            if line.startswith("E2E-QMP ") and '"guest": true' in line:
                out[-1].evidence.append(line)
            elif line.startswith("E2E-BOOT-UNMAP "):
                n = sum(1 for e in out[-1].evidence if e.startswith("E2E-BOOT-UNMAP "))
                if n < 3:
                    out[-1].evidence.append(line)
        else:
            pending.append(line)
    return out


def boot_soak_main(argv: List[str]) -> int:
    if len(argv) < 2:
        sys.exit("usage: rfctool.py e2e-boot-soak HEADER OUT.md KERNEL:RUN=LOG...")
    header, specs = rfc_guestlog.report_inputs(argv[0], argv[2:])
    counts: Dict[Tuple[str, str], Dict[str, int]] = {}
    kinds: Dict[Tuple[str, str], Dict[str, int]] = {}
    failures = []
    for kernel, run, path in specs:
        m = re.match(r"r(\d+)-npt([01])-(\w+)$", run)
        if not m:
            raise ValueError("expected RUN = rROUND-nptN-TCG, not %r" % run)
        try:
            lines = rfc_splat.read_lines(path)
        except OSError:
            lines = []
        verdict, evidence = soak_verdict(lines)
        key = (kernel, m.group(2))
        c = counts.setdefault(key, {"runs": 0, "clean": 0, "boots": 0, "ok": 0, "failed": 0,
                                    "ram_boots": 0, "ram_marked": 0, "failed_marked": 0})
        k = kinds.setdefault(key, {})
        c["runs"] += 1
        # A nested boot that failed makes e2e/run print an E2E-ERROR, so
        # soak_verdict() says stall, nested or error for the run; the outer
        # run is clean when nothing else went wrong.
        outer_clean = verdict in ("ok", "stall", "nested", "error") and any(
            ln.startswith("E2E-DONE") for ln in lines)
        c["clean"] += outer_clean
        found = boots(lines)
        for b in found:
            c["boots"] += 1
            c["ok" if b.ok else "failed"] += 1
            if b.ram_marked is not None:
                c["ram_boots"] += 1
                c["ram_marked"] += b.ram_marked
                if not b.ok and b.ram_marked:
                    c["failed_marked"] += 1
            for kind, n in b.kinds.items():
                k[kind] = k.get(kind, 0) + n
            if not b.ok:
                failures.append((kernel, m.group(2), int(m.group(1)), b.boot, b.seconds,
                                 b.evidence))
        if not outer_clean:
            failures.append((kernel, m.group(2), int(m.group(1)), 0, "-",
                             ["outer run: " + verdict] + evidence))
    md = soak_header("# Nested boot soak: base vs patched",
                     "Generated by `scripts/e2e.sh boot-soak` (`e2e/run`'s boot soak in the "
                     "soak kernels, guest/soak.config).", "TCG", header) + [
          "Each outer run boots snapwork in a nested QEMU again and again; a nested boot is "
          "**ok** when snapwork printed its first passes, and **failed** when it printed "
          "none for a minute, or the nested guest was reset or shut down, or its QEMU "
          "exited.  An outer run is **clean** when it ended by itself with no kernel splat "
          "and no watchdog.", "",
          "Marked unmaps over the guest RAM are the only ones across which KVM may keep "
          "a mapping of guest memory (PERM_UPGRADE, WRPROTECT or HUGE_SPLIT in the flags, over the "
          "hva range of the nested QEMU's RAM; counted in logs that have the RAM range).", "",
          "| kernel | npt | outer runs | clean | nested boots | ok | failed "
          "| boots with the RAM range | marked unmaps over RAM | failed boots with one |",
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for (kernel, npt), c in sorted(counts.items()):
        md.append("| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d |" % (
            kernel, npt, c["runs"], c["clean"], c["boots"], c["ok"], c["failed"],
            c["ram_boots"], c["ram_marked"], c["failed_marked"]))
    md += ["", "The outer kernel's kvm_unmap_hva_range events over all nested boots, by "
           "event and flags as the tracepoint printed them (\"-\": the base kernel's "
           "tracepoint prints only the range):", "",
           "| kernel | npt | event/flags | unmaps |", "| --- | --- | --- | ---: |"]
    for (kernel, npt), k in sorted(kinds.items()):
        for kind, n in sorted(k.items()):
            md.append("| %s | %s | %s | %d |" % (kernel, npt, kind.replace("|", "\\|"), n))
    md += ["", "## Failures", ""]
    if not failures:
        md.append("None.")
    else:
        md += ["| kernel | npt | round | boot | seconds | evidence |",
               "| --- | --- | ---: | ---: | ---: | --- |"]
        for kernel, npt, rnd, boot, secs, ev in sorted(failures):
            md.append("| %s | %s | %d | %s | %s | %s |" % (
                kernel, npt, rnd, boot or "outer", secs,
                "<br>".join(e.replace("|", "\\|") for e in ev)))
    md.append("")
    rfc_bench.write_md(argv[1], md)
    return 0
