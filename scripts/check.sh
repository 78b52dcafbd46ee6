#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [SUITE...]
# Run test suites (default: the "check" set of scripts/suites, in order),
# go on past failures, print a summary and end with one line
# "N passed, N failed" over every suite.  Each suite's output is shown and
# kept in build/check/SUITE.log; its counts are its last
# "SUITE: N passed, N failed[, N skipped]" line (rfc_counts).  A suite that
# stops without that line, or fails without counting a failure, counts as
# one failure.  Before the suites, one line says how the tree stands
# against series/.

. "$(dirname "$0")/lib.sh"
need python3

#: RFC_SUITES         the suite registry (default scripts/suites)
REG=${RFC_SUITES:-$TOP/scripts/suites}
# name set needs command... (| description dropped)
suites() { sed -e 's/[[:space:]]*|.*//' -e '/^#/d' -e '/^[[:space:]]*$/d' "$REG"; }

if [ $# -eq 0 ]; then
	# shellcheck disable=SC2046 # suite names are words
	set -- $(suites | awk '$2 == "check" { print $1 }')
fi
for s; do
	suites | awk -v s="$s" '$1 == s { f = 1 } END { exit !f }' ||
		die "unknown suite '$s' (known: $(suites | awk '{ print $1 }' | paste -s -d' ' -))"
done

res=$BUILD/check
rm -rf "$res"
mkdir -p "$res"
if [ -e "$TREE/.git" ]; then
	echo "=== tree: $(tree_state || :)"
fi

for s; do
	cmd=$(suites | awk -v s="$s" '$1 == s { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }')
	echo "=== $s"
	start=$(date +%s)
	# The registry's command is shell code (it may quote).
	{
		rc=0
		(cd "$TOP" && RFC_SUITE=$s && export RFC_SUITE && eval "$cmd") 2>&1 || rc=$?
		echo "$rc" >"$res/$s.rc"
	} | tee "$res/$s.log"
	rfctool counts "$s" "$(cat "$res/$s.rc")" "$res/$s.log" >"$res/$s.counts"
	echo "$(($(date +%s) - start))" >"$res/$s.time"
done

echo "=== summary"
tp=0
tf=0
ts=0
for s; do
	read -r p f k <"$res/$s.counts"
	skip=
	[ "$k" -eq 0 ] || skip=", $k skipped"
	printf '%-22s %4d passed, %4d failed%s  (%ss)\n' "$s" "$p" "$f" "$skip" "$(cat "$res/$s.time")"
	tp=$((tp + p))
	tf=$((tf + f))
	ts=$((ts + k))
done
[ "$ts" -eq 0 ] || echo "($ts skipped)"
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
