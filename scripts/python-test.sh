#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Python half's own tests: every *_test.py of scripts/tool, found by
# "python3 -m unittest discover", so that none drops out, on the captured
# console logs and reports in scripts/tool/test_data/, one result per test
# case; then mypy over the package (scripts/tool/mypy.ini), one more.  The
# KTAP tests read logs with the tree's kunit_parser.

. "$(dirname "$0")/lib.sh"
need python3 mypy

d=$TOP/scripts/tool
out=$BUILD/python-test.log
mkdir -p "$BUILD"
rc=0
(cd "$d" && KPU_KUNIT=$TREE/tools/testing/kunit \
	python3 -m unittest discover -v -s . -p '*_test.py') >"$out" 2>&1 || rc=$?
cat "$out"
# unittest's summary: "Ran N tests", then "OK" or "FAILED (failures=F,
# errors=E, skipped=S)", "OK (skipped=S)".
ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$out")
n() { sed -n "s/^\(OK\|FAILED\) (.*\b$1=\([0-9]*\).*/\2/p" "$out"; }
bad=$(($(n failures || :) + 0 + $(n errors || :) + 0))
skip=$(($(n skipped || :) + 0))
pass=$((${ran:-0} - bad - skip))
fail=$bad
[ -n "$ran" ] && [ "$rc" -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
echo "=== mypy"
if (cd "$d" && mypy --config-file mypy.ini --no-error-summary .) 2>&1; then
	echo "mypy: no issues"
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi
report python-test "$pass" "$fail" "$skip"
[ "$fail" -eq 0 ]
