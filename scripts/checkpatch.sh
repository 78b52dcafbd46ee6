#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict on every patch of series/ (cover letter aside),
# with the tree's own checkpatch.  Prints the result of each patch and
# writes "PASSED FAILED" to $1 when given.

. "$(dirname "$0")/lib.sh"
need perl
[ -x "$TREE/scripts/checkpatch.pl" ] || die "no kernel tree at $TREE: run 'make tree'"

pass=0
fail=0
for p in $(find "$SERIES" -maxdepth 1 -name '*.patch' ! -name '*0000-cover-letter.patch' | LC_ALL=C sort); do
	if out=$(cd "$TREE" && ./scripts/checkpatch.pl --strict --quiet --showfile "$p" 2>&1); then
		pass=$((pass + 1))
		echo "ok       ${p##*/}"
	else
		fail=$((fail + 1))
		echo "FAILED   ${p##*/}"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
done
echo "checkpatch: $pass passed, $fail failed"
[ -z "${1:-}" ] || echo "$pass $fail" >"$1"
[ "$fail" -eq 0 ]
