# SPDX-License-Identifier: GPL-2.0
"""The report of scripts/bench.sh: rfctool.py bench HEADER OUTDIR KERNEL:NPT=LOG...

Read the "BENCH ..." lines that bench/perm_upgrade_bench prints in each
guest log (KERNEL is base or patched, NPT the kvm_amd.npt of the run), and
write OUTDIR/bench.md (one table per npt: every scenario and backing, base
vs patched, median over the repetitions, patched/base ratio), bench.csv
(every repetition, every key) and bench.png (refaults and guest pass time).
HEADER holds key=value lines for the header of bench.md; the QEMU command
comes from the logs (the guest runner writes it as their first line).
Prints bench.md.
"""

import csv
import os
import statistics
import sys
from typing import Any, Dict, List, Optional, Tuple

import rfc_guestlog

KERNELS = ("base", "patched")
SCENARIOS = ("mprotect", "uffd-wp", "snapshot")
BACKINGS = ("anon-4k", "thp", "hugetlb")

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


Row = Dict[str, str]
Run = Tuple[List[Row], List[Row], Dict[str, str], str]
NO_RUN: Run = ([], [], {}, "?")


def read_log(path: str) -> Tuple[List[Row], List[Row], Dict[str, str]]:
    """Rows (one per repetition: downgrade and upgrade keys merged), skips, info."""
    rows: Dict[Tuple[str, str, str], Row] = {}
    skips: List[Row] = []
    info: Dict[str, str] = {}
    try:
        f = open(path, "rb")
    except OSError:
        return [], [], {}
    with f:
        for raw in f:
            line = raw.decode("ascii", "replace").strip()
            if line.startswith("BENCH-INFO "):
                info = rfc_guestlog.parse_kv(line.split()[1:])
            elif line.startswith("BENCH-SKIP "):
                skips.append(rfc_guestlog.parse_kv(line.split()[1:]))
            elif line.startswith("BENCH "):
                kv = rfc_guestlog.parse_kv(line.split()[1:])
                key = (kv["scenario"], kv["backing"], kv["rep"])
                rows.setdefault(key, {}).update(kv)
    out = []
    for kv in rows.values():
        kv.pop("phase", None)
        if "calls" in kv and int(kv["calls"]):
            kv["refaults_per_call"] = "%.4f" % (int(kv["pf_taken"]) / int(kv["calls"]))
        # Time of one re-read pass over that of the warm pass (no faults) just
        # before the downgrade, in the same VM: the refault overhead, less
        # sensitive to how fast TCG runs at the moment than the raw times.
        if int(kv.get("passes", 0)) and int(kv.get("warm_ns", 0)):
            kv["pass_vs_warm"] = "%.4f" % (int(kv["pass_ns"]) / int(kv["passes"]) /
                                           int(kv["warm_ns"]))
        out.append(kv)
    return out, skips, info


def aggregate(rows: List[Row], key: str, how: str) -> Optional[float]:
    vals = [float(r[key]) for r in rows if key in r]
    if not vals:
        return None
    return min(vals) if how == "min" else statistics.median(vals)


def fmt(v: Optional[float], scale: float, f: str) -> str:
    return "n/a" if v is None else f.format(v * scale)


def ratio(b: Optional[float], p: Optional[float]) -> str:
    if b is None or p is None:
        return "n/a"
    if b == 0:
        return "=" if p == 0 else "inf"
    return "{:.2f}".format(p / b)


def main(argv: List[str]) -> int:
    if len(argv) < 3:
        sys.exit(__doc__)
    outdir = argv[1]
    header, specs = rfc_guestlog.report_inputs(argv[0], argv[2:])
    runs: Dict[str, Dict[str, Run]] = {}    # npt -> kernel -> (rows, skips, info, log)
    for kernel, npt, path in specs:
        runs.setdefault(npt, {})[kernel] = read_log(path) + (path,)

    os.makedirs(outdir, exist_ok=True)

    # CSV: every repetition, every key.
    keys = ["kernel", "npt", "kernel_release"]
    allrows: List[Row] = []
    for npt in sorted(runs, reverse=True):
        for kernel in KERNELS:
            rows, _, info, _ = runs[npt].get(kernel, NO_RUN)
            for r in rows:
                r = dict(r, kernel=kernel, npt=npt,
                         kernel_release=info.get("kernel", ""))
                allrows.append(r)
                keys += [k for k in r if k not in keys]
    with open(os.path.join(outdir, "bench.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, restval="")
        w.writeheader()
        w.writerows(allrows)

    md: List[str] = []
    md.append("# perm_upgrade_bench: base vs patched")
    md.append("")
    md.append("Generated by `scripts/bench.sh` (`bench/perm_upgrade_bench.c`).")
    md.append("")
    rel: Dict[str, str] = {}
    for npt in runs:
        for kernel in KERNELS:
            info = runs[npt].get(kernel, NO_RUN)[2]
            if info.get("kernel"):
                rel[kernel] = info["kernel"]
    md.append("| | |")
    md.append("| --- | --- |")
    md.append("| date | %s |" % header.get("date", "?"))
    md.append("| base kernel | %s |" % rel.get("base", "?"))
    md.append("| patched kernel | %s (uname: base version + g<commit of the series' head>) |"
              % rel.get("patched", "?"))
    md.append("| tree now | %s (base %s), harness %s; guest kernels %s |"
              % (header.get("tree_head", "?"), header.get("base_tag", "?"),
                 header.get("harness", "?"), header.get("kernels", "?")))
    md.append("| QEMU | %s: `qemu-system-x86_64 %s`, KVM nested in the guest, `kvm_amd.npt=0/1` |"
              % (header.get("qemu", "?"), header.get("qemu_args", "?")))
    md.append("| host | %s |" % header.get("host_cpu", "?"))
    md.append("| benchmark | `perm_upgrade_bench %s` (region MiB, repetitions, snapshot batches); counts: median of the repetitions, times: minimum (all in bench.csv) |"
              % header.get("args", "?"))
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
              "cost). Ratio: patched/base; `=` both zero, `inf` base zero.")
    md.append("")

    for npt in sorted(runs, reverse=True):
        paging = "TDP (nested paging)" if npt == "1" else "shadow paging"
        md.append("## kvm_amd.npt=%s: %s" % (npt, paging))
        md.append("")
        for kernel in KERNELS:
            rows, skips, info, path = runs[npt].get(kernel, NO_RUN)
            if not rows:
                md.append("**%s kernel: no results** (log: `%s`)" % (kernel, path))
                md.append("")
            for s in skips:
                md.append("%s kernel: skipped %s/%s: %s" % (kernel, s.get("scenario"),
                                                            s.get("backing"), s.get("reason")))
                md.append("")
        md.append("| scenario | backing | metric | base | patched | patched/base |")
        md.append("| --- | --- | --- | ---: | ---: | ---: |")
        for sc in SCENARIOS:
            for bk in BACKINGS:
                sel = {k: [r for r in runs[npt].get(k, NO_RUN)[0]
                           if r["scenario"] == sc and r["backing"] == bk]
                       for k in KERNELS}
                if not sel["base"] and not sel["patched"]:
                    continue
                for key, label, scale, form, how in METRICS:
                    if key == "refaults_per_call" and sc != "snapshot":
                        continue
                    b = aggregate(sel["base"], key, how)
                    p = aggregate(sel["patched"], key, how)
                    md.append("| %s | %s | %s | %s | %s | %s |" % (
                        sc, bk, label, fmt(b, scale, form), fmt(p, scale, form),
                        ratio(b, p)))
        md.append("")

    md.append("![refaults and guest pass time](bench.png)")
    md.append("")
    text = "\n".join(md)
    with open(os.path.join(outdir, "bench.md"), "w") as f:
        f.write(text)
    print(text)
    plot(runs, os.path.join(outdir, "bench.png"))
    return 0


def plot(runs: Dict[str, Dict[str, Run]], path: str) -> None:
    try:
        import matplotlib  # type: ignore
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore
    except ImportError:
        print("rfctool.py bench: matplotlib missing (apt-get install python3-matplotlib), no %s"
              % path, file=sys.stderr)
        return
    npts = sorted(runs, reverse=True)
    fig, axes = plt.subplots(len(npts), 2, figsize=(14, 4.5 * len(npts)), squeeze=False)
    colors = {"base": "#c0504d", "patched": "#4f81bd"}
    for i, npt in enumerate(npts):
        labels = ["%s\n%s" % (sc, bk) for sc in SCENARIOS for bk in BACKINGS]
        for j, (key, title, scale) in enumerate((
                ("pf_taken", "guest re-read page faults (pf_taken)", 1),
                ("pass_ns", "guest re-read pass time (ms, min of reps)", 1e-6))):
            ax = axes[i][j]
            width = 0.4
            for n, kernel in enumerate(KERNELS):
                vals: List[float] = []
                for sc in SCENARIOS:
                    for bk in BACKINGS:
                        rows = [r for r in runs[npt].get(kernel, NO_RUN)[0]
                                if r["scenario"] == sc and r["backing"] == bk]
                        v = aggregate(rows, key, "median" if key == "pf_taken" else "min")
                        vals.append(0 if v is None else v * scale)
                xs = [x + (n - 0.5) * width for x in range(len(labels))]
                ax.bar(xs, vals, width, label=kernel, color=colors[kernel])
            ax.set_xticks(range(len(labels)))
            ax.set_xticklabels(labels, fontsize=7)
            ax.set_yscale("symlog" if key == "pf_taken" else "log")
            ax.set_title("npt=%s (%s): %s" % (npt, "TDP" if npt == "1" else "shadow", title),
                         fontsize=10)
            ax.legend(fontsize=8)
            ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)

