#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of report.py's shared parts."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import report  # noqa: E402


class TreeCellTest(unittest.TestCase):
    HEADER = {"tree_head": "v7.2.8-66-gabc", "base_tag": "v7.2.8 720cb97",
              "harness": "1234567", "kernels": "rebuilt"}

    def test_plain(self) -> None:
        self.assertEqual(report.tree_cell(self.HEADER),
                         "v7.2.8-66-gabc (base v7.2.8 720cb97), harness 1234567; "
                         "guest kernels rebuilt")

    def test_config(self) -> None:
        # A timing table says which config its kernels were built with.
        h = dict(self.HEADER, config="timing: guest/timing.config on every kernel built here")
        self.assertTrue(report.tree_cell(h).endswith(
            "guest kernels rebuilt, config timing: guest/timing.config on every kernel "
            "built here"))


if __name__ == "__main__":
    unittest.main()
