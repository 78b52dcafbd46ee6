#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The harness's Python half: it reads and decides; the sh half builds and
boots.  Stdlib only (and the kernel tree's kunit_parser for KTAP).

    harness.py plan SUITES NAME OUTDIR
                            a guest suite's payload scripts into OUTDIR and
                            its plan on stdout (suites.py)
    harness.py verdict SUITES NAME LOGDIR [--header FILE --results DIR]
                            a guest suite's verdict, and its report with
                            --results (verdict.py, report.py)
    harness.py splat LOG... kernel splats in console logs; exit 1 if any
    harness.py kunit NAME JSON
                            "NAME: N passed, N failed[, N skipped]" of a
                            kunit.py --json file
    harness.py counts NAME RC LOG
                            a suite's counts from its output (the suite
                            protocol, see counts.py)
    harness.py changelog [--signed] [--base VERSION] [--placeholder IDENT] PATCH...
                            editor or git text, '#' lines, (unless
                            --signed: make out's output) Signed-off-by
                            lines, and (--base) the base release named, in
                            the patches' changelogs, and anywhere after
                            the headers the placeholder identity
                            (--placeholder, else an unsigned patch's
                            From:) when it is no one's; exit 1 if any
    harness.py sender IDENT PLACEHOLDER PATCH...
                            refuse IDENT ("Name <address>") unless it is a
                            person's, else make it the patches' From:
                            (mail.py, make out)
    harness.py audit TREE COCCI WORKDIR SECS RC
                            the coccinelle audit's report (audit.sh)

Bad input gets one line on stderr and exit status 2.  Unit tests: the
*_test.py beside it (python3 -m unittest discover), fixtures in test_data/.
"""

import os
import sys
from typing import Any, Callable, Iterable, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import audit  # noqa: E402
import counts  # noqa: E402
import splat  # noqa: E402


def usage() -> int:
    print(__doc__.strip(), file=sys.stderr)
    return 2


def print_findings(paths: List[str], scan: Callable[[List[str]], Iterable[Any]]) -> int:
    """Print where each finding of scan() is, file by file; 1 if any."""
    if not paths:
        return usage()
    bad = 0
    for path in paths:
        for f in scan(splat.read_lines(path)):
            print(f.where(path))
            bad = 1
    return bad


def cmd_splat(args: List[str]) -> int:
    return print_findings(args, splat.scan)


def cmd_kunit(args: List[str]) -> int:
    if len(args) != 2:
        return usage()
    c = counts.kunit_json(args[1])
    print(c.line(args[0]))
    return 1 if c.failed else 0


def cmd_counts(args: List[str]) -> int:
    if len(args) != 3:
        return usage()
    name, rc, path = args
    try:
        lines = splat.read_lines(path)
    except OSError:
        lines = []
    c = counts.suite_counts(name, lines, int(rc))
    print(c.passed, c.failed, c.skipped)
    return 0


def cmd_changelog(args: List[str]) -> int:
    import changelog
    signed, opts = False, {"--base": "", "--placeholder": ""}
    while args[:1] in (["--signed"], ["--base"], ["--placeholder"]):
        if args[0] == "--signed":
            signed, args = True, args[1:]
        elif len(args) < 2 or not args[1] or args[1].startswith("-"):
            return usage()
        else:
            opts[args[0]], args = args[1], args[2:]
    if not args:
        return usage()
    return print_findings(args, lambda lines: changelog.scan(
        lines, signed, opts["--base"], opts["--placeholder"]))


def cmd_audit(args: List[str]) -> int:
    if len(args) != 5:
        return usage()
    tree, cocci, work, secs, rc = args
    log = splat.read_lines(os.path.join(work, "coccicheck.log"))
    grep = splat.read_lines(os.path.join(work, "grep"))
    with open(os.path.join(work, "files")) as f:
        nfiles = sum(1 for _ in f)
    series_log = os.path.join(work, "series.log")
    series = (splat.read_lines(series_log) if os.path.exists(series_log)
              else None)
    text, c = audit.report(tree, cocci, log, grep, nfiles, int(secs), int(rc),
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


def cmd_sender(args: List[str]) -> int:
    import mail
    return mail.main(args)


def cmd_plan(args: List[str]) -> int:
    import suites
    return suites.main(args, dict(os.environ))


def cmd_verdict(args: List[str]) -> int:
    import verdict
    return verdict.main(args)


COMMANDS = {"plan": cmd_plan, "verdict": cmd_verdict, "splat": cmd_splat,
            "kunit": cmd_kunit, "counts": cmd_counts, "changelog": cmd_changelog,
            "audit": cmd_audit, "sender": cmd_sender}


def main(argv: List[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        return usage()
    try:
        return COMMANDS[argv[0]](argv[1:])
    except (OSError, ValueError, KeyError) as e:
        # Bad input: say what, and change nothing more.
        print("harness.py %s: error: %s" % (argv[0], e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
