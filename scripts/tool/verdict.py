# SPDX-License-Identifier: GPL-2.0
"""The one verdict of a guest suite: each boot's log read once (ktap),
each test's result against what the suite entry expects (guest/suites),
a console without splats, and the suite's line of the suite protocol.

    harness.py verdict SUITES NAME LOGDIR [--header FILE --results DIR]

A test passes when its KTAP result is the one expected on that kernel
(pass unless the entry says KERNEL=fail or =skip); in a test that
compares (compare=: the suite's, as regress's, or the test's own), when
its result on a kernel is not worse than on the compared kernel in the
same boot and mode.  A test without a result (the guest died, hung or
never started it) fails.  Each boot counts once more: its console has no
kernel splat.  With kunit, the kernel's own KUnit results at boot count
too.  With --results, the suite's report is written there (it decides
nothing).  With KPU_CATCH set (make mutants), whether a wrong build was
caught instead (caught()).
"""

import os
from typing import Dict, List, Optional, Tuple

import counts
import ktap
import report
import suites
from suites import Run, Suite

RANK = {"pass": 0, "skip": 1, "fail": 2, None: 3}


def label(s: Suite, r: Run) -> str:
    mode = ("npt=" + r.mode) if s.arch == "x86_64" else r.mode
    boot = (", " + r.boot.name + " boot") if r.boot.name else ""
    return "%s, %s%s" % (r.kernel, mode, boot)


def totals_failed(res: Optional[ktap.Result]) -> Optional[int]:
    """The failed subtests of a kselftest's own "# Totals:" line."""
    for line in reversed(res.log if res else []):
        if line.startswith("# Totals: "):
            kv = dict(w.split(":", 1) for w in line.split()[2:] if ":" in w)
            try:
                return int(kv["fail"]) + int(kv.get("error", "0"))
            except (KeyError, ValueError):
                return None
    return None


def worse(res: Optional[ktap.Result], ref: Optional[ktap.Result]) -> bool:
    a = res.status if res else None
    b = ref.status if ref else None
    if RANK[a] != RANK[b]:
        return RANK[a] > RANK[b]
    if a == "fail":
        fa, fb = totals_failed(res), totals_failed(ref)
        return fa is not None and fb is not None and fa > fb
    return False


def status(res: Optional[ktap.Result]) -> str:
    return res.status if res else "no result"


def judge(s: Suite, runs: List[Tuple[Run, ktap.Log]]) -> Tuple[List[str], counts.Counts]:
    out = []
    passed = failed = skipped = 0
    # Each boot's log by kernel, boot and mode: a test that compares
    # (compare=, the suite's or its own) is judged against its result in
    # the compared kernel's boot of the same boot and mode.
    ref: Dict[Tuple[str, str, str], ktap.Log] = {}
    for r, log in runs:
        ref[(r.kernel, r.boot.name, r.mode)] = log

    def count(ok: bool, what: str) -> None:
        nonlocal passed, failed
        out.append("%-8s %s" % ("ok" if ok else "FAILED", what))
        if ok:
            passed += 1
        else:
            failed += 1

    for r, log in runs:
        where = label(s, r)
        if not log.lines:
            out.append("         %s: no log %s" % (where, log.path))
        elif not log.started:
            out.append("         %s: the guest never started the tests (%s)" % (where, log.path))
        for t in r.tests:
            res = log.result(t.name)
            if t.compare == r.kernel:
                out.append("         %s: %s: %s (the reference)" % (where, t.name, status(res)))
                continue
            if t.compare:
                base = ref.get((t.compare, r.boot.name, r.mode))
                bres = base.result(t.name) if base else None
                ok = res is not None and not worse(res, bres)
                count(ok, "%s: %s: %s (%s: %s)" % (where, t.name, status(res),
                                                   t.compare, status(bres)))
                continue
            want = t.expected(r.kernel)
            got = status(res)
            count(got == want, "%s: %s: %s%s" % (
                where, t.name, got, "" if want == "pass" else " (expected %s)" % want))
        if s.kunit and log.kunit is not None:
            k = log.kunit
            if not k["passed"]:
                # The parser's own error for a log without KTAP included.
                count(False, "%s: KUnit at boot: no test ran" % where)
            else:
                passed += k["passed"]
                failed += k["failed"]
                skipped += k["skipped"]
                out.append("%-8s %s: KUnit at boot: %d passed, %d failed, %d skipped" % (
                    "ok" if not k["failed"] else "FAILED", where,
                    k["passed"], k["failed"], k["skipped"]))
        extra = [n for n in log.results if n not in {t.name for t in r.tests}]
        if extra:
            out.append("         %s: results of tests the entry does not name: %s"
                       % (where, " ".join(extra)))
        count(not log.splats, "%s: console without kernel splats%s" % (
            where, "" if not log.splats else " (%d, first: %s)" % (
                len(log.splats), log.splats[0].where(log.path))))
        for sp in log.splats[1:10]:
            out.append("         " + sp.where(log.path))
    return out, counts.Counts(passed, failed, skipped)


def caught(s: Suite, runs: List[Tuple[Run, ktap.Log]]) -> Tuple[bool, List[str]]:
    """Whether a wrong build of the series (make mutants) was caught: one of
    the tests it runs failed (a result, not a guest that gave none), or a
    console has a kernel splat, e.g. KVM_PROVE_MMU's WARN.  The e2e suite
    counts only its own check, what a user of QEMU's snapshot would see."""
    out = []
    hit = False
    for r, log in runs:
        for t in r.tests:
            res = log.result(t.name)
            if res and res.status == "fail":
                hit = True
                out.append("caught: %s: %s failed" % (label(s, r), t.name))
        if log.splats and s.payload != "e2e":
            hit = True
            out.append("caught: %s: %s" % (label(s, r), log.splats[0].where(log.path)))
    if not hit:
        out.append("not caught: every test %s" % (
            "passed or gave no result" if runs else "is missing"))
    return hit, out


def read_header(path: str) -> Dict[str, str]:
    """The KEY=VALUE lines that guest-suite.sh writes about a run (date,
    QEMU, host, tree, harness): the one header of every report."""
    header: Dict[str, str] = {}
    with open(path) as f:
        for line in f:
            k, sep, v = line.rstrip("\n").partition("=")
            if sep:
                header[k] = v
    return header


def main(args: List[str]) -> int:
    header_path = results = None
    rest = []
    it = iter(args)
    for a in it:
        if a == "--header":
            header_path = next(it, None)
        elif a == "--results":
            results = next(it, None)
        else:
            rest.append(a)
    if len(rest) != 3 or (results and not header_path):
        raise ValueError("usage: verdict SUITES NAME LOGDIR [--header FILE --results DIR]")
    path, name, logdir = rest
    all_suites = suites.load(path)
    if name not in all_suites:
        raise ValueError("%s: no suite %r" % (path, name))
    s = all_suites[name]
    suites.select_env(s, dict(os.environ))
    # Bad input is found before anything is said.
    header = read_header(header_path or "") if results else {}
    runs = [(r, ktap.read(os.path.join(logdir, r.id + ".log"), s.kunit)) for r in s.runs()]
    if os.environ.get("KPU_CATCH"):
        hit, lines = caught(s, runs)
        for line in lines:
            print(line)
        return 0 if hit else 1
    lines, c = judge(s, runs)
    for line in lines:
        print(line)
    if results:
        for r, log in runs:
            if log.qemu and "qemu_args" not in header:
                header["qemu_args"] = ktap.qemu_args(log)
        written = report.write(s, runs, header, results)
        for w in written:
            print("         wrote %s" % w)
    print(c.line(os.environ.get("KPU_SUITE", name)))
    return 1 if c.failed else 0
