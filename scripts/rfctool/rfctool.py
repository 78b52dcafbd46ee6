#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The data half of the harness: parsing and reports, stdlib only.

    rfctool.py guest LOG           a guest console log: result and splats;
                                   exit 0 PASS, 1 FAIL, 2 no result, 3 splat
    rfctool.py splat LOG...        kernel splats in console logs; exit 1 if any
    rfctool.py kunit NAME JSON     "NAME: N passed, N failed[, N skipped]" of a
                                   kunit.py --json file
    rfctool.py counts NAME RC LOG  a suite's counts from its output (the
                                   suite protocol, see rfc_counts)
    rfctool.py changelog PATCH...  editor or git text, and '#' lines, in the
                                   patches' changelogs; exit 1 if any
    rfctool.py audit TREE COCCI WORKDIR SECS RC
                                   the coccinelle audit's report (audit.sh)
    rfctool.py bench HEADER OUTDIR KERNEL:NPT=LOG...     (bench.sh)
    rfctool.py regress HEADER OUT.md KERNEL:RUN=LOG...   (regress.sh)
    rfctool.py rdma-odp HEADER OUT.md KERNEL=LOG...      (rdma-odp.sh)
    rfctool.py hmm-tests HEADER OUT.md KERNEL=LOG...     (kvm-selftest.sh)
    rfctool.py e2e HEADER OUTDIR KERNEL:NPT=LOG...       (e2e.sh)
    rfctool.py e2e-patterns HEADER OUT.md KERNEL:NPT=LOG...
                                   (e2e.sh patterns)
    rfctool.py e2e-soak HEADER OUT.md KERNEL:rR-nptN-TCG=LOG...  (e2e.sh soak)
    rfctool.py e2e-boot-soak HEADER OUT.md KERNEL:rR-nptN-TCG=LOG...
                                   (e2e.sh boot-soak)
    rfctool.py watchdog SOCKET SYSTEM_MAP  evidence from a silent guest
                                   through QEMU's monitor (run-guest.sh)

Unit tests: rfctool_test.py (fixtures in test_data/).
"""

import os
import sys
from typing import Any, Callable, Iterable, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rfc_audit  # noqa: E402
import rfc_counts  # noqa: E402
import rfc_guestlog  # noqa: E402
import rfc_splat  # noqa: E402


def usage() -> int:
    print(__doc__.strip(), file=sys.stderr)
    return 2


def cmd_guest(args: List[str]) -> int:
    if len(args) != 1:
        return usage()
    log = rfc_guestlog.parse_file(args[0])
    print(rfc_guestlog.summary(args[0], log))
    return int(log.verdict)


def print_findings(paths: List[str], scan: Callable[[List[str]], Iterable[Any]]) -> int:
    """Print where each finding of scan() is, file by file; 1 if any."""
    if not paths:
        return usage()
    bad = 0
    for path in paths:
        for f in scan(rfc_splat.read_lines(path)):
            print(f.where(path))
            bad = 1
    return bad


def cmd_splat(args: List[str]) -> int:
    return print_findings(args, rfc_splat.scan)


def cmd_kunit(args: List[str]) -> int:
    if len(args) != 2:
        return usage()
    c = rfc_counts.kunit_json(args[1])
    print(c.line(args[0]))
    return 1 if c.failed else 0


def cmd_counts(args: List[str]) -> int:
    if len(args) != 3:
        return usage()
    name, rc, path = args
    try:
        lines = rfc_splat.read_lines(path)
    except OSError:
        lines = []
    c = rfc_counts.suite_counts(name, lines, int(rc))
    print(c.passed, c.failed, c.skipped)
    return 0


def cmd_changelog(args: List[str]) -> int:
    import rfc_changelog
    return print_findings(args, rfc_changelog.scan)


def cmd_audit(args: List[str]) -> int:
    if len(args) != 5:
        return usage()
    tree, cocci, work, secs, rc = args
    log = rfc_splat.read_lines(os.path.join(work, "coccicheck.log"))
    grep = rfc_splat.read_lines(os.path.join(work, "grep"))
    with open(os.path.join(work, "files")) as f:
        nfiles = sum(1 for _ in f)
    series_log = os.path.join(work, "series.log")
    series = (rfc_splat.read_lines(series_log) if os.path.exists(series_log)
              else None)
    text, c = rfc_audit.report(tree, cocci, log, grep, nfiles, int(secs), int(rc),
                               series)
    print(text, end="")
    if int(rc):
        print("coccicheck failed (exit status %s), last lines of %s:" % (
            rc, os.path.join(work, "coccicheck.log")))
        for line in log[-20:]:
            print("    " + line)
        print()
    print(c.line("audit"))
    return 1 if c.failed else 0


def cmd_bench(args: List[str]) -> int:
    import rfc_bench
    return rfc_bench.main(args)


def cmd_e2e(args: List[str]) -> int:
    import rfc_e2e
    return rfc_e2e.main(args)


def cmd_e2e_patterns(args: List[str]) -> int:
    import rfc_patterns
    return rfc_patterns.main(args)


def cmd_e2e_soak(args: List[str]) -> int:
    import rfc_e2e
    return rfc_e2e.soak_main(args)


def cmd_e2e_boot_soak(args: List[str]) -> int:
    import rfc_e2e
    return rfc_e2e.boot_soak_main(args)


def cmd_rdma_odp(args: List[str]) -> int:
    import rfc_rdma
    return rfc_rdma.main(args)


def cmd_hmm_tests(args: List[str]) -> int:
    import rfc_hmm
    return rfc_hmm.main(args)


def cmd_watchdog(args: List[str]) -> int:
    import rfc_watchdog
    return rfc_watchdog.main(args)


def cmd_regress(args: List[str]) -> int:
    import rfc_regress
    return rfc_regress.main(args)


COMMANDS = {"guest": cmd_guest, "splat": cmd_splat, "kunit": cmd_kunit,
            "counts": cmd_counts, "changelog": cmd_changelog,
            "audit": cmd_audit, "bench": cmd_bench,
            "regress": cmd_regress, "rdma-odp": cmd_rdma_odp,
            "hmm-tests": cmd_hmm_tests,
            "e2e": cmd_e2e, "e2e-patterns": cmd_e2e_patterns,
            "e2e-soak": cmd_e2e_soak,
            "e2e-boot-soak": cmd_e2e_boot_soak,
            "watchdog": cmd_watchdog}


def main(argv: List[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        return usage()
    try:
        return COMMANDS[argv[0]](argv[1:])
    except (OSError, ValueError, KeyError) as e:
        # Bad input: say what, and change nothing more.
        print("rfctool.py %s: error: %s" % (argv[0], e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
