# SPDX-License-Identifier: GPL-2.0
"""What a guest console log says: the QEMU command, whether the guest
reached its test, the test's result and any kernel splat.

The guest runner (scripts/run-guest.sh) writes the QEMU command line as
the log's first line ("GUEST-QEMU: ..."); the initramfs's /init
(scripts/mkinitramfs.sh) prints "GUEST: kernel ..." just before it starts
the test and "GUEST-RESULT: PASS" or "GUEST-RESULT: FAIL (exit N)" after.
"""

import enum
import os
import shlex
from typing import Dict, List, NamedTuple, Optional, Tuple

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


def parse_kv(words: List[str]) -> Dict[str, str]:
    """The key=value words of a log line (BENCH, REGRESS-*, audit findings)
    as a dict; other words are ignored."""
    out = {}
    for w in words:
        k, sep, v = w.partition("=")
        if sep:
            out[k] = v
    return out


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
    """The QEMU command of a run without the binary, kernel, initramfs,
    command line and monitor socket: what a report says about the machine."""
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


def summary(path: str, log: GuestLog, limit: int = 20) -> str:
    res = {Verdict.PASS: "PASS", Verdict.FAIL: "FAIL",
           Verdict.NO_RESULT: "NO RESULT" if log.started else
           "NO RESULT (the test never started)",
           Verdict.SPLAT: "SPLAT"}[log.verdict]
    lines = ["guest: %s: %s (test result %s, %d splat line(s))" % (
        path, res, log.result or "none", len(log.splats))]
    for s in log.splats[:limit]:
        lines.append("    " + s.where(path))
    if len(log.splats) > limit:
        lines.append("    ... %d more" % (len(log.splats) - limit))
    return "\n".join(lines)


def report_inputs(header_path: str, specs: List[str]
                  ) -> Tuple[Dict[str, str], List[Tuple[str, str, str]]]:
    """What the bench and regress reports read: the key=value lines of
    HEADER, and their KERNEL:LABEL=LOG arguments as (kernel, label, log).
    The header's qemu_args come from the first log whose first line has
    the runner's QEMU command."""
    header: Dict[str, str] = {}
    with open(header_path) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                header[k] = v
    runs = []
    for spec in specs:
        label, sep, path = spec.partition("=")
        kernel, sep2, name = label.partition(":")
        if not sep or not sep2 or not kernel or not name or not path:
            raise ValueError("expected KERNEL:LABEL=LOG, not %r" % spec)
        runs.append((kernel, name, path))
        if "qemu_args" not in header and os.path.exists(path):
            args = qemu_args(parse_file(path))
            if args != "?":
                header["qemu_args"] = args
    return header, runs
