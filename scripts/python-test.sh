#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Python half's own tests: rfctool_test.py (unittest, on the captured
# console logs and reports in scripts/rfctool/test_data/), then mypy over
# the package (scripts/rfctool/mypy.ini).  One result each.

. "$(dirname "$0")/lib.sh"
need python3 mypy

d=$TOP/scripts/rfctool
pass=0
fail=0
if python3 "$d/rfctool_test.py" 2>&1; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi
echo "=== mypy"
if (cd "$d" && mypy --config-file mypy.ini --no-error-summary . ) 2>&1; then
	echo "mypy: no issues"
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi
report python-test "$pass" "$fail"
[ "$fail" -eq 0 ]
