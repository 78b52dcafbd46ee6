# SPDX-License-Identifier: GPL-2.0
"""What every report shares: the kernels in column order, ratios, markdown
and CSV writers, plots, and the dispatch from a suite's "report NAME" to
the module that writes it.  A report writes results; it decides nothing
(the verdict does).

    write(suite, runs, header, outdir) -> the paths written

runs are the suite's boots with their logs, each read once by the verdict
(ktap.Log: .payload is what the payload printed); header is the KEY=VALUE
lines that guest-suite.sh wrote about the run (verdict.read_header).
"""

import csv
import importlib
import os
import sys
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

import ktap
import suites

# The kernels of a report, in column order: base and patched, with prior
# (a build of part of the series, KPU_PRIOR_KERNEL) between them.
KERNELS = ("base", "patched")
PRIOR_KERNELS = ("base", "prior", "patched")
COLORS = {"base": "#c0504d", "prior": "#9bbb59", "patched": "#4f81bd"}
# The header's row for prior: its uname from the log, the bzImage that
# make bench and make e2e booted (prior_kernel= in HEADER).
PRIOR_ROW = ("| prior kernel | %s (the series without its newest patches: `%s`, "
             "KPU_PRIOR_KERNEL) |")


class Input(NamedTuple):
    kernel: str
    mode: str
    boot: str
    log: ktap.Log


def parse_kv(words: List[str]) -> Dict[str, str]:
    """The key=value words of a data line (BENCH, E2E-...) as a dict; other
    words are ignored."""
    out = {}
    for w in words:
        k, sep, v = w.partition("=")
        if sep:
            out[k] = v
    return out


def write_csv(path: str, keys: List[str], rows: List[Dict[str, Any]]) -> None:
    """A report's CSV: a column per key, in that order, empty where a row
    has no value."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, restval="")
        w.writeheader()
        w.writerows(rows)


def write_md(path: str, md: List[str]) -> None:
    with open(path, "w") as f:
        f.write("\n".join(md).rstrip("\n") + "\n")


def fmt(v: Optional[float], scale: float, f: str) -> str:
    """"auto": no decimals from 100 on, three below; "count": no decimals
    for a whole number, two otherwise."""
    if v is None:
        return "n/a"
    if f == "auto":
        f = "{:.0f}" if abs(v * scale) >= 100 else "{:.3f}"
    elif f == "count":
        f = "{:.0f}" if v * scale == int(v * scale) else "{:.2f}"
    return f.format(v * scale)


def ratio(b: Optional[float], p: Optional[float]) -> str:
    if b is None or p is None:
        return "n/a"
    if b == 0:
        return "=" if p == 0 else "inf"
    return "{:.2f}".format(p / b)


def kernels_of(labels: Iterable[str]) -> Tuple[str, ...]:
    """The kernels a report compares: KERNELS, or PRIOR_KERNELS when one of
    them is prior.  Any other kernel is bad input."""
    given = set(labels)
    bad = sorted(given - set(PRIOR_KERNELS))
    if bad:
        raise ValueError("unknown kernel %r (base, prior, patched)" % bad[0])
    return PRIOR_KERNELS if "prior" in given else KERNELS


def ratio_names(kernels: Sequence[str]) -> List[str]:
    return ["patched/base"] + (["patched/prior"] if "prior" in kernels else [])


def ratios(vals: Dict[str, Optional[float]], kernels: Sequence[str]) -> List[str]:
    """The ratio cells of a row: patched/base, and patched/prior with prior."""
    return [ratio(vals.get(n.split("/")[1]), vals.get("patched"))
            for n in ratio_names(kernels)]


def md_row(cells: Sequence[str]) -> str:
    return "| %s |" % " | ".join(cells)


def table_head(first: Sequence[str], kernels: Sequence[str]) -> List[str]:
    """A comparison table's head: the FIRST columns, one per kernel, the
    ratios; numbers right-aligned."""
    nums = list(kernels) + ratio_names(kernels)
    return [md_row(list(first) + nums),
            md_row(["---"] * len(first) + ["---:"] * len(nums))]


def ratio_text(kernels: Sequence[str]) -> str:
    """How the reports explain their ratio columns."""
    if "prior" in kernels:
        return ("Ratios: patched/base and patched/prior; `=` both zero, `inf` the "
                "denominator (base, prior) zero.")
    return "Ratio: patched/base; `=` both zero, `inf` base zero."


def title_kernels(kernels: Sequence[str]) -> str:
    return "base, prior and patched" if "prior" in kernels else "base vs patched"


def header_lines(header: Dict[str, str]) -> List[str]:
    """The run's header as the reports print it, a "    KEY=VALUE" each."""
    return ["    %s=%s" % kv for kv in header.items()]


def pyplot(path: str) -> Any:
    """matplotlib.pyplot, or None (and a word on stderr) if it is missing."""
    try:
        import matplotlib  # type: ignore
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore
    except ImportError:
        print("report: matplotlib missing (apt-get install python3-matplotlib), no %s"
              % path, file=sys.stderr)
        return None
    return plt


# Each report: the module and the function that write it.
WRITERS = {
    "bench": ("bench", "write"),
    "bench-arm64": ("bench", "write_arm64"),
    "e2e": ("e2e", "write"),
    "e2e-patterns": ("patterns", "write"),
    "hmm-tests": ("hmm", "write"),
    "regress": ("regress", "write"),
    "rdma-odp": ("rdma", "write"),
}


def _writer(name: str) -> Callable[[List[Input], Dict[str, str], str], List[str]]:
    if name not in WRITERS:
        raise ValueError("no report %r" % name)
    module, func = WRITERS[name]
    return getattr(importlib.import_module(module), func)


def tree_cell(header: Dict[str, str]) -> str:
    """The header's tree, base, harness and kernels (and their config, if
    the suite has one), as a table cell."""
    cell = "%s (base %s), harness %s; guest kernels %s" % (
        header.get("tree_head", "?"), header.get("base_tag", "?"),
        header.get("harness", "?"), header.get("kernels", "?"))
    if "config" in header:
        cell += ", config %s" % header["config"]
    return cell


def run_cell(header: Dict[str, str]) -> str:
    """The tests' command lines (test:NAME in the header, as write() puts
    them there) as a table cell: one command with NAME for the word in
    which they differ, when only their last words differ."""
    if "args" in header:
        return header["args"]
    cmds = [v for k, v in header.items() if k.startswith("test:")]
    if not cmds:
        return "?"
    heads = {c.rsplit(" ", 1)[0] for c in cmds}
    if len(cmds) > 1 and len(heads) == 1 and all(" " in c for c in cmds):
        return "`%s NAME`, NAME: %s" % (heads.pop(), " ".join(c.rsplit(" ", 1)[1] for c in cmds))
    return "; ".join("`%s`" % c for c in cmds)


def test_args(header: Dict[str, str], test: str) -> str:
    """A test's arguments as it ran (its command less the program)."""
    cmd = header.get("test:" + test)
    return cmd.split(" ", 1)[1] if cmd and " " in cmd else "?"


def with_commands(suite: Any, header: Dict[str, str]) -> Dict[str, str]:
    """The header with each test's command as it ran (test:NAME): the
    suite's variables as the header records them (guest-suite.sh writes
    NAME=VALUE for each), their defaults otherwise."""
    vals = {k: header.get(k, v) for k, v in suite.vars.items()}
    out = dict(header)
    for t in suite.tests:
        out["test:" + t.name] = ("%s %s" % (t.prog, suites.expand(t.args, vals))).strip()
    return out


def write(suite: Any, runs: List[Tuple[Any, ktap.Log]], header: Dict[str, str],
          outdir: str) -> List[str]:
    if not suite.report:
        return []
    header = with_commands(suite, header)
    inputs = [Input(r.kernel, r.mode, r.boot.name, log) for r, log in runs]
    os.makedirs(outdir, exist_ok=True)
    return _writer(suite.report)(inputs, header, outdir)
