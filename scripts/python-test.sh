#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Python half's own tests: every *_test.py of scripts/rfctool, found by
# unittest's discovery (rfc_unittest.py), on the captured console logs and
# reports in scripts/rfctool/test_data/, one result per test case, then
# mypy over the package (scripts/rfctool/mypy.ini), one.

. "$(dirname "$0")/lib.sh"
need python3 mypy

d=$TOP/scripts/rfctool
# One count per unit test (rfc_unittest.py's last line: "rfctool_test: N
# passed, N failed"), one for mypy.
out=$BUILD/python-test.log
mkdir -p "$BUILD"
rc=0
python3 "$d/rfc_unittest.py" rfctool_test >"$out" 2>&1 || rc=$?
cat "$out"
read -r pass fail skip <<EOF
$(rfctool counts rfctool_test "$rc" "$out")
EOF
echo "=== mypy"
if (cd "$d" && mypy --config-file mypy.ini --no-error-summary . ) 2>&1; then
	echo "mypy: no issues"
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi
report python-test "$pass" "$fail" "$skip"
[ "$fail" -eq 0 ]
