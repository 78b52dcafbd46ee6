#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run shellcheck on every shell script of the harness (scripts/*.sh, .ci/run,
# e2e/run), as POSIX sh (scripts/.shellcheckrc); one result per script.

. "$(dirname "$0")/lib.sh"
need shellcheck

pass=0
fail=0
for f in "$TOP"/scripts/*.sh "$TOP/.ci/run" "$TOP/e2e/run"; do
	# .shellcheckrc: follow ". lib.sh" next to the script.
	if out=$(shellcheck -s sh "$f" 2>&1); then
		pass=$((pass + 1))
		echo "ok       ${f#"$TOP"/}"
	else
		fail=$((fail + 1))
		echo "FAILED   ${f#"$TOP"/}"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
done
report shellcheck "$pass" "$fail"
[ "$fail" -eq 0 ]
