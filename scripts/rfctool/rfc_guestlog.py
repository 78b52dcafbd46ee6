# SPDX-License-Identifier: GPL-2.0
"""What a guest console log says: the QEMU command, whether the guest
reached its test, the test's result and any kernel splat.

The guest runner (scripts/run-guest.sh) writes the QEMU command line as
the log's first line ("GUEST-QEMU: ..."); the initramfs's /init
(scripts/mkinitramfs.sh) prints "GUEST: kernel ..." just before it starts
the test and "GUEST-RESULT: PASS" or "GUEST-RESULT: FAIL (exit N)" after.
"""

import enum
import shlex
from typing import List, NamedTuple, Optional

from rfc_splat import Splat, read_lines, scan

QEMU_PREFIX = "GUEST-QEMU: "
START_PREFIX = "GUEST: kernel "


class Verdict(enum.IntEnum):
    """Also the runner's exit status."""
    PASS = 0
    FAIL = 1
    NO_RESULT = 2
    SPLAT = 3


class GuestLog(NamedTuple):
    qemu: Optional[str]
    started: bool
    result: Optional[str]      # "PASS", "FAIL" or None
    splats: List[Splat]

    @property
    def verdict(self) -> Verdict:
        if self.splats:
            return Verdict.SPLAT
        if self.result == "PASS":
            return Verdict.PASS
        if self.result == "FAIL":
            return Verdict.FAIL
        return Verdict.NO_RESULT


def parse(lines: List[str]) -> GuestLog:
    qemu = None
    started = False
    result = None
    for line in lines:
        if qemu is None and line.startswith(QEMU_PREFIX):
            qemu = line[len(QEMU_PREFIX):]
        elif line.startswith(START_PREFIX):
            started = True
        elif line.startswith("GUEST-RESULT: PASS"):
            result = "PASS"
        elif line.startswith("GUEST-RESULT: FAIL"):
            result = "FAIL"
    return GuestLog(qemu, started, result, scan(lines))


def parse_file(path: str) -> GuestLog:
    return parse(read_lines(path))


def qemu_args(log: GuestLog) -> str:
    """The QEMU command of a run without the binary, kernel, initramfs and
    command line: what a report says about the machine."""
    if not log.qemu:
        return "?"
    try:
        words = shlex.split(log.qemu)
    except ValueError:
        return "?"
    out = []
    it = iter(words[1:])
    for w in it:
        if w in ("-kernel", "-initrd", "-append"):
            next(it, None)
        else:
            out.append(w)
    return " ".join(out)


def summary(path: str, log: GuestLog, limit: int = 20) -> str:
    res = {Verdict.PASS: "PASS", Verdict.FAIL: "FAIL",
           Verdict.NO_RESULT: "NO RESULT" if log.started else
           "NO RESULT (the test never started)",
           Verdict.SPLAT: "SPLAT"}[log.verdict]
    lines = ["guest: %s: %s (test result %s, %d splat line(s))" % (
        path, res, log.result or "none", len(log.splats))]
    for s in log.splats[:limit]:
        lines.append("    %s:%d: %s: %s" % (path, s.lineno, s.kind, s.line.strip()))
    if len(log.splats) > limit:
        lines.append("    ... %d more" % (len(log.splats) - limit))
    return "\n".join(lines)
