# SPDX-License-Identifier: GPL-2.0
"""A guest console log read once: the QEMU command, the kernel's own KTAP
(KUnit at boot), the payload's KTAP and the kernel splats.

The KTAP parser is kunit.py's (tools/testing/kunit/kunit_parser.py of the
kernel tree: KPU_KUNIT names its directory, default the tree's), which
reads kselftest's runner output as well as KUnit's.  The log's parts:

    GUEST-QEMU: ...          the runner's QEMU command (run-guest.sh)
    ... kernel boot ...      KUnit's KTAP, when the kernel runs KUnit
    GUEST: kernel ...        /init starts the payload (mkinitramfs.sh)
    TAP version 13 ...       the payload: runner.sh's KTAP, each test's
                             output before its result as "# " lines
"""

import io
import os
import shlex
import sys
from typing import Dict, List, NamedTuple, Optional

import splat

QEMU_PREFIX = "GUEST-QEMU: "
START_PREFIX = "GUEST: kernel "


def _kunit_dir() -> str:
    d = os.environ.get("KPU_KUNIT")
    if not d:
        top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        tree = os.environ.get("KPU_TREE", os.path.join(top, "build", "linux"))
        d = os.path.join(tree, "tools", "testing", "kunit")
    if not os.path.exists(os.path.join(d, "kunit_parser.py")):
        raise OSError("no kunit_parser.py in %s (KPU_KUNIT: tools/testing/kunit of a "
                      "kernel tree; run 'make tree')" % d)
    return d


def kunit_parser():  # type: ignore[no-untyped-def]
    d = _kunit_dir()
    if d not in sys.path:
        sys.path.insert(0, d)
    import kunit_parser as kp  # type: ignore[import]
    return kp


class Result(NamedTuple):
    status: str          # pass, fail, skip
    log: List[str]       # the test's output, "# " dropped


class Log(NamedTuple):
    path: str
    lines: List[str]
    qemu: Optional[str]
    started: bool                 # /init started the payload
    results: Dict[str, Result]    # the payload's tests, by name
    planned: int                  # the payload's plan, -1 if none
    kunit: Optional[Dict[str, int]]   # passed, failed, skipped at boot
    splats: List[splat.Splat]
    payload: List[str]            # the payload's lines, runner.sh's "# " dropped

    def result(self, name: str) -> Optional[Result]:
        return self.results.get(name)


def _status(kp, test) -> str:  # type: ignore[no-untyped-def]
    S = kp.TestStatus
    if test.status == S.SUCCESS:
        return "pass"
    if test.status == S.SKIPPED:
        return "skip"
    return "fail"


def _strip(line: str) -> str:
    return line[2:] if line.startswith("# ") else ("" if line == "#" else line)


def parse_ktap(lines: List[str]):  # type: ignore[no-untyped-def]
    """kunit.py's parse of one KTAP document in lines (its root test)."""
    kp = kunit_parser()
    import kunit_printer  # type: ignore[import]
    printer = kunit_printer.Printer(print=False, output=io.StringIO())
    return kp, kp.parse_run_tests(lines, printer)


def _name(full: str) -> str:
    """runner.sh's "selftests: DIR: NAME" as NAME; other names as they are."""
    return full.split(": ")[-1] if full.startswith("selftests: ") else full


def payload_results(lines: List[str]) -> "tuple[Dict[str, Result], int]":
    if not any("TAP version" in x for x in lines):
        return {}, -1
    kp, root = parse_ktap(lines)
    out = {}
    for t in root.subtests:
        if not t.name:
            continue    # kunit_parser's stand-in for a result that never came
        out[_name(t.name)] = Result(_status(kp, t), [_strip(x) for x in t.log])
    planned = root.expected_count if root.expected_count is not None else -1
    return out, planned


def kunit_counts(lines: List[str]) -> Dict[str, int]:
    kp, root = parse_ktap(lines)
    c = root.counts
    return {"passed": c.passed, "failed": c.failed + c.crashed + c.errors,
            "skipped": c.skipped}


def parse(path: str, lines: List[str], kunit: bool = False) -> Log:
    qemu = None
    start = None
    for n, line in enumerate(lines):
        if qemu is None and line.startswith(QEMU_PREFIX):
            qemu = line[len(QEMU_PREFIX):]
        elif start is None and line.startswith(START_PREFIX):
            start = n
    boot, payload = (lines, []) if start is None else (lines[:start], lines[start + 1:])
    results, planned = payload_results(payload)
    return Log(path, lines, qemu, start is not None, results, planned,
               kunit_counts(boot) if kunit else None, splat.scan(lines),
               [_strip(x) for x in payload])


def read(path: str, kunit: bool = False) -> Log:
    try:
        lines = splat.read_lines(path)
    except OSError:
        lines = []
    return parse(path, lines, kunit)


def qemu_args(log: Log) -> str:
    """The QEMU command without the binary, kernel, initramfs and command
    line: what a report says about the machine."""
    if not log.qemu:
        return "?"
    try:
        words = shlex.split(log.qemu)
    except ValueError:
        return "?"
    out = []
    it = iter(words[1:])
    for w in it:
        if w in ("-kernel", "-initrd", "-append", "-monitor"):
            next(it, None)
        else:
            out.append(w)
    return " ".join(out)
