#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Print "PASSED FAILED" for a kunit.py --json file: the totals of its
# top-level group, with crashed tests and parse errors counted as failed.
import json
import sys

m = json.load(open(sys.argv[1]))["misc"]
print(m["passed"], m["failed"] + m["crashed"] + m["errors"])
