# SPDX-License-Identifier: GPL-2.0
"""The report of make e2e-patterns: v1's three guest patterns.

Each log is the console of one outer guest that ran e2e/run on backings
with a guest pattern ("anon-4k+read64", "+write64", "+rand-set": snapwork's
pattern modes, with its paced read-latency probe).  Per npt, pattern and
kernel, over the snapshot (the protect and resolve phases, from the mark
before `migrate` to the mark after `completed`): KVM's faults and remote
TLB flushes, as counts and per second of the outer guest's clock; the
userfaults (the pages written before QEMU saved them) and KVM's faults at
those pages and at the others (E2E-UFFD, from the outer guest's trace);
the probe's p50, p99 and p99.9; QEMU's UFFDIO_WRITEPROTECT calls, host
side (E2E-UFFDIO: the time from the ioctl's entry to its return in the
outer guest); QEMU's snapshot time; the snapshot check.
Beside them, v1's ratios (its cover letter's table).
"""

import os
from typing import Dict, List, Optional, Sequence, Tuple

import e2e
import report

PATTERNS = ("read64", "write64", "rand-set")
# v1's table (AMD EPYC 9654, a 64 GB 64-vCPU guest running stress-ng --vm
# during a QEMU background snapshot, 5 runs): pf/s and tlb/s, baseline
# and patched.
V1 = {
    "read64": ((950015, 1440), (2503, 0.1)),
    "rand-set": ((1004353, 862), (4073, 0.3)),
    "write64": ((968018, 94), (2292, 0.3)),
}
# v1's paced read-latency probe, ns, median of 5: baseline, patched.
V1_LATENCY = {"p50": (340, 260), "p99": (19789, 5207), "p999": (23445, 6850)}


def probe_upper(i: int) -> int:
    """The upper bound (exclusive), in TSC cycles, of snapwork's probe
    bucket I (probe_bucket() in e2e/snapwork.c)."""
    if i < 8:
        return i + 1
    m, sub = i // 8 + 2, i % 8
    return (9 + sub) << (m - 3)


def probe_percentile(hist: Dict[int, int], q: float) -> Optional[int]:
    total = sum(hist.values())
    if not total:
        return None
    need, acc = q * total, 0
    for i in sorted(hist):
        acc += hist[i]
        if acc >= need:
            return probe_upper(i)
    return None


def snapshot_passes(b: e2e.Backing) -> List[Dict[str, object]]:
    """snapwork's passes that ran wholly inside the snapshot: those that
    started after the check mark and ended before the resolve mark (the
    mark's passes= counts the passes printed)."""
    if "check" not in b.marks or "resolve" not in b.marks:
        return []
    lo, hi = int(b.marks["check"]["passes"]) + 1, int(b.marks["resolve"]["passes"])
    return [p for p in b.passes if lo <= int(p["pass"]) < hi]  # type: ignore


def figures(log: e2e.Log, b: e2e.Backing) -> Dict[str, Optional[float]]:
    """Every figure of one pattern's snapshot."""
    out: Dict[str, Optional[float]] = {}
    s0, s1 = b.stats.get("check", {}), b.stats.get("resolve", {})
    secs = None
    # From `migrate` (the guest is stopped from the check mark until
    # then while its memory is saved) to the resolve mark.
    if "migrate" in b.steps and "resolve" in b.marks:
        secs = b.marks["resolve"]["uptime"] - b.steps["migrate"]
        out["snapshot_s"] = secs
    r = e2e.retried(s0, s1)
    if r is not None:
        out["pf_retried"] = float(r)
    for k in ("pf_taken", "remote_tlb_flush"):
        if k in s0 and k in s1:
            out[k] = float(s1[k] - s0[k])
            if secs:
                out[k + "_per_s"] = out[k] / secs  # type: ignore
    snap = e2e.snapshot_figures(log, b)
    if "total_ms" in snap:
        out["qemu_total_s"] = int(snap["total_ms"]) / 1000.0  # type: ignore
    u = b.uffd.get("snapshot", {})
    if u:
        out["uffd_pages"] = float(u["pages"])
        out["faults_uffd_pages"] = float(u["faults_uffd_pages"])
        out["faults_other"] = float(u["faults_other"])
        if u["pages"]:
            out["faults_per_uffd_page"] = u["faults_uffd_pages"] / u["pages"]
        pattern = b.name.partition("+")[2]
        if "pf_taken" in out and u["pages"] and pattern != "read64":
            out["faults_per_needed"] = out["pf_taken"] / u["pages"]  # type: ignore
        # Pages written after QEMU saved them: for a writing pattern, the
        # pages of the region less those written before, once the
        # snapshot spanned a whole pass (every page written in it).
        spanned = (int(b.marks["resolve"]["passes"]) - int(b.marks["check"]["passes"])
                   if "check" in b.marks and "resolve" in b.marks else 0)
        if pattern != "read64" and b.region_pages and spanned >= 2:
            # The userfaulted pages from 16 MiB up (pages_hi; older logs
            # have only all of them, a few low pages more).
            after = b.region_pages - u.get("pages_hi", u["pages"]) * (u["pgsz"] // 4096)
            out["pages_after"] = float(after)
            if after > 0:
                out["faults_per_page_after"] = u["faults_other"] / after
    w = b.uffdio
    for kind in ("protect", "resolve"):
        if kind + "_calls" in w:
            out[kind + "_calls"] = float(w[kind + "_calls"])
            out[kind + "_ms"] = w[kind + "_us"] / 1000.0
            out[kind + "_max_ms"] = w[kind + "_max_us"] / 1000.0
    mhz = log.tsc_mhz
    hist: Dict[int, int] = {}
    for p in snapshot_passes(b):
        for i, n in p.get("probe", {}).items():  # type: ignore
            hist[i] = hist.get(i, 0) + n
    out["probes"] = float(sum(hist.values()))
    for q, label in ((0.5, "p50"), (0.99, "p99"), (0.999, "p999")):
        v = probe_percentile(hist, q)
        if v is not None and mhz:
            out[label + "_ns"] = v / mhz * 1000
    return out


# (key, label, format, v1 key) of the table; v1 key: "pf", "tlb" or a
# V1_LATENCY key, whose ratio v1's table gives.
ROWS: Tuple[Tuple[str, str, str, str], ...] = (
    ("pf_taken", "KVM page faults (pf_taken)", "{:.0f}", ""),
    ("pf_retried", "of them retried (pf_taken - pf_fixed - pf_emulate - pf_spurious)",
     "{:.0f}", ""),
    ("pf_taken_per_s", "pf/s", "{:.0f}", "pf"),
    ("remote_tlb_flush", "remote TLB flushes (remote_tlb_flush)", "{:.0f}", ""),
    ("remote_tlb_flush_per_s", "tlb/s", "{:.1f}", "tlb"),
    ("uffd_pages", "pages written before QEMU saved them (userfaults, distinct pages)", "{:.0f}", ""),
    ("faults_uffd_pages", "KVM faults at those pages", "{:.0f}", ""),
    ("faults_per_uffd_page", "faults per page written before it was saved", "{:.2f}", ""),
    ("pages_after", "pages written only after QEMU saved them", "{:.0f}", ""),
    ("faults_other", "KVM faults at other pages (from 16 MiB up)", "{:.0f}", ""),
    ("faults_per_page_after", "faults per page written after it was saved", "{:.2f}", ""),
    ("faults_per_needed", "pf_taken / pages written before QEMU saved them (the limit, "
     "one fault per such page: 1.00)", "{:.2f}", ""),
    ("p50_ns", "probe read latency p50 (ns, bucket bound)", "{:.0f}", "p50"),
    ("p99_ns", "probe read latency p99 (ns, bucket bound)", "{:.0f}", "p99"),
    ("p999_ns", "probe read latency p99.9 (ns, bucket bound)", "{:.0f}", "p999"),
    ("probes", "probe reads over the snapshot", "{:.0f}", ""),
    ("protect_calls", "UFFDIO_WRITEPROTECT protect calls", "{:.0f}", ""),
    ("protect_ms", "their time in the outer guest (ms, summed)", "{:.1f}", ""),
    ("protect_max_ms", "the longest (ms)", "{:.1f}", ""),
    ("resolve_calls", "UFFDIO_WRITEPROTECT resolve calls", "{:.0f}", ""),
    ("resolve_ms", "their time in the outer guest (ms, summed)", "{:.1f}", ""),
    ("resolve_max_ms", "the longest (ms)", "{:.1f}", ""),
    ("snapshot_s", "snapshot, outer guest clock (s)", "{:.2f}", ""),
    ("qemu_total_s", "snapshot, QEMU's total time (s)", "{:.2f}", ""),
)


def v1_ratio(pattern: str, key: str) -> str:
    if key in ("pf", "tlb"):
        i = 0 if key == "pf" else 1
        base, patched = V1[pattern][0][i], V1[pattern][1][i]
    elif key in V1_LATENCY:
        base, patched = V1_LATENCY[key]
    else:
        return ""
    return "{:.4f}".format(patched / base) if patched / base < 0.01 else "{:.2f}".format(patched / base)


def order(names: Sequence[str]) -> List[str]:
    """The backings of NAMES, by memory then pattern (PATTERNS' order)."""
    def key(n: str) -> Tuple[str, int]:
        mem, _, pat = n.partition("+")
        return (mem, PATTERNS.index(pat) if pat in PATTERNS else len(PATTERNS))
    return sorted(set(names), key=key)


def fmt(v: Optional[float], form: str) -> str:
    return "n/a" if v is None else form.format(v)


def write(inputs: List[report.Input], header: Dict[str, str], outdir: str) -> List[str]:
    """e2e-patterns.md."""
    kernels = report.kernels_of(i.kernel for i in inputs)
    logs = e2e.read_inputs(inputs)

    md: List[str] = []
    md.append("# QEMU background snapshot, three guest patterns: %s"
              % report.title_kernels(kernels))
    md.append("")
    md.append("Generated by `make e2e-patterns` (`e2e/run`, `e2e/snapwork.c`).")
    md.append("")
    rel = {k: lg.info.get("kernel", "?") for per in logs.values() for k, lg in per.items()}
    md.append("| | |")
    md.append("| --- | --- |")
    md.append("| date | %s |" % header.get("date", "?"))
    for k in kernels:
        md.append("| %s kernel | %s |" % (k, rel.get(k, "?")))
    md.append("| tree, harness | %s |" % report.tree_cell(header))
    md.append("| outer guest | %s: `qemu-system-x86_64 %s` (TCG), KVM nested in it |"
              % (header.get("qemu", "?"), header.get("qemu_args", "?")))
    md.append("| nested QEMU | the same QEMU binary: `-accel kvm -M pc -cpu host -smp 1`, "
              "`migrate exec:cat>FILE`, the file checked against the guest's memory "
              "when the snapshot started |")
    md.append("| host | %s |" % header.get("host_cpu", "?"))
    md.append("| run | %s |" % report.run_cell(header))
    md.append("")
    md.append("Everything ran nested under TCG: the outer guest is emulated (no Intel/EPT, no "
              "bare metal) and KVM runs in it. Only counts and ratios carry over; the "
              "rates and latencies below are TCG's, so only their ratios mean anything, "
              "and a ratio of rates also holds the ratio of the snapshots' durations. "
              "v1's figures come from an AMD EPYC 9654, a 64 GB 64-vCPU guest and "
              "stress-ng --vm, 5 runs; ours from one run of a 1-vCPU nested guest. "
              + report.ratio_text(kernels))
    md.append("")
    md.append("The patterns (snapwork, one 4 KiB page at a time, from 16 MiB to the top, "
              "after stress-ng's vm methods): **read64** reads every page in order; "
              "**write64** writes every page in order; **rand-set** visits every page once "
              "per pass in a pseudo-random order, checks the value that the previous pass "
              "wrote and writes a new one. The probe runs on the pattern's vCPU: after an "
              "access, once 2^15 TSC cycles have passed since the last probe, it reads one "
              "word and times that read (8 buckets per power of two; a bucket's upper bound "
              "is shown). An access that stalls for longer yields one probe, not one per "
              "2^15 cycles, so the probe undercounts stalls; v1's probe was a thread of its "
              "own. write64 checks nothing in the guest: the snapshot check is its test.")
    md.append("")
    md.append("Over the snapshot: from `migrate` to the mark after QEMU reported `completed` "
              "(counts: e2e.md's protect and resolve phases; the guest is stopped from the "
              "mark before `migrate` until then). A page written "
              "before QEMU saved it must fault once: uffd-wp reports it, QEMU saves it and "
              "resolves it; that is the limit, one fault per such page. The userfaults and "
              "the faults per page come from the outer guest's trace (a kprobe on "
              "handle_userfault, the kvm_page_fault tracepoint), at the backing's page size. "
              "\"Written only after QEMU saved them\": the pages of the region less those "
              "written before, for a writing pattern whose snapshot spanned a whole pass. "
              "The UFFDIO_WRITEPROTECT rows are the host side of QEMU's calls (the outer "
              "guest's kernel, from the ioctl's entry to its return, kprobes), over the "
              "whole run: protect with UFFDIO_WRITEPROTECT_MODE_WP, resolve without.")
    md.append("")
    md.append("v1's table, for its ratios:")
    md.append("")
    md.append("| pattern | baseline pf/s | baseline tlb/s | patched pf/s | patched tlb/s |")
    md.append("| --- | ---: | ---: | ---: | ---: |")
    for pat in PATTERNS:
        (bp, bt), (pp, pt) = V1[pat]
        md.append("| %s | %s | %s | %s | %s |" % (pat, "{:,}".format(bp), "{:,}".format(bt),
                                                 "{:,}".format(pp), pt))
    md.append("")
    md.append("v1's read latency (ns, median of 5): p50 340 -> 260, p99 19,789 -> 5,207, "
              "p99.9 23,445 -> 6,850.")
    md.append("")
    ratio_cols = report.ratio_names(kernels)
    for npt in sorted(logs, reverse=True):
        per = logs[npt]
        md.append("## kvm_amd.npt=%s" % npt)
        md.append("")
        md += e2e.status_lines(per, kernels)
        names = order([bk for lg in per.values() for bk in lg.backings])
        for bk in names:
            md.append("### %s" % bk)
            md.append("")
            md.append(report.md_row(["metric"] + list(kernels) + ratio_cols + ["v1 patched/base"]))
            md.append(report.md_row(["---"] + ["---:"] * (len(kernels) + len(ratio_cols) + 1)))
            figs: Dict[str, Dict[str, Optional[float]]] = {}
            for k in kernels:
                klog = per.get(k)
                kb = klog.backings.get(bk) if klog else None
                figs[k] = figures(klog, kb) if klog and kb else {}
            pattern = bk.partition("+")[2]
            for key, label, form, v1 in ROWS:
                vals = {k: figs[k].get(key) for k in kernels}
                if all(v is None for v in vals.values()):
                    continue
                md.append(report.md_row(
                    [label] + [fmt(vals[k], form) for k in kernels] +
                    report.ratios(vals, kernels) +
                    [v1_ratio(pattern, v1) if pattern in V1 else ""]))
            md.append(report.md_row(
                ["the snapshot against the guest's memory when it started"] +
                [e2e.verify_cell(per[k].backings.get(bk) if k in per else None)
                 for k in kernels] + [""] * (len(ratio_cols) + 1)))
            md.append("")
    out = os.path.join(outdir, "e2e-patterns.md")
    report.write_md(out, md)
    return [out]

