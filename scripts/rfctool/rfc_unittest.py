#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs every unit test module of this directory (*_test.py), found by
unittest's discovery rather than a list, so that none drops out, and
ends with the suite protocol's line: one count per test case.

    rfc_unittest.py NAME
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rfc_counts  # noqa: E402


def main(argv: list) -> int:
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    suite = unittest.defaultTestLoader.discover(here, pattern="*_test.py",
                                                top_level_dir=here)
    r = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    bad = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
    print(rfc_counts.Counts(r.testsRun - bad - len(r.skipped), bad,
                            len(r.skipped)).line(argv[0]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
