#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [SUITE...]
# Run test suites (default: the "check" set of scripts/suites, in order),
# go on past failures, print a summary and end with one line
# "N passed, N failed" over every suite.  Each suite's output is kept in
# build/check/SUITE.log and shown when it ends (KPU_JOBS run at once);
# its counts are its last "SUITE: N passed, N failed[, N skipped]" line
# (counts.py).  A suite that
# stops without that line, or fails without counting a failure, counts as
# one failure.  Before the suites, one line says how the tree stands
# against series/.

. "$(dirname "$0")/lib.sh"
need python3

#: KPU_SUITES         the suite registry (default scripts/suites)
REG=${KPU_SUITES:-$TOP/scripts/suites}
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

# Only this run's suites' files go: two runs of different suites at once
# (make e2e beside make e2e-patterns) keep each other's.
res=$BUILD/check
mkdir -p "$res"
for s; do
	rm -f "$res/$s.log" "$res/$s.rc" "$res/$s.counts" "$res/$s.time" "$res/$s.done"
done
if [ -e "$TREE/.git" ]; then
	echo "=== tree: $(tree_state || :)"
fi

# run_suite NAME: one suite, its output in $res/NAME.log, then its counts
# and time; $res/NAME.done last, when all of it is there.
run_suite() {
	cmd=$(suites | awk -v s="$1" '$1 == s { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }')
	start=$(date +%s)
	rc=0
	# The registry's command is shell code (it may quote).
	(cd "$TOP" && KPU_SUITE=$1 && export KPU_SUITE && eval "$cmd") >"$res/$1.log" 2>&1 ||
		rc=$?
	echo "$rc" >"$res/$1.rc"
	harness counts "$1" "$rc" "$res/$1.log" >"$res/$1.counts"
	echo "$(($(date +%s) - start))" >"$res/$1.time"
	: >"$res/$1.done"
}

# after NAME: the suites NAME waits for (the registry's needs column:
# "tree", then ":SUITE,SUITE" for suites whose outputs it uses).
after() {
	suites | awk -v s="$1" '$1 == s { n = split($3, a, ":"); if (n > 1) print a[2] }' | tr , ' '
}
# ready NAME SUITE...: whether the needs of NAME that this run has (the
# SUITEs) are done; a need that it does not have stands for its own, so
# that sparse-arm64 waits for kunit-arm64 when build-arm64 is not run.
ready() {
	for d in $(after "$1"); do
		case " $* " in
		*" $d "*) [ -e "$res/$d.done" ] || return 1 ;;
		*) (shift && ready "$d" "$@") || return 1 ;;
		esac
	done
}

# KPU_JOBS suites at a time, in registry order as their needs allow: a
# kernel build keeps both CPUs busy, but much of the rest (checkpatch,
# QEMU under single-threaded TCG, coccinelle) uses one.  Each suite's
# output is shown when it ends.
#: KPU_JOBS           check: suites run at once (default 2)
jobs=${KPU_JOBS:-2}
case $jobs in '' | *[!0-9]* | 0) die "KPU_JOBS must be a positive number, not '$jobs'" ;; esac
todo=$* running='' shown=''
while [ -n "$todo$running" ]; do
	still=''
	for r in $running; do
		if [ -e "$res/$r.done" ]; then
			echo "=== $r ($(cat "$res/$r.time") s)"
			cat "$res/$r.log"
			shown="$shown $r"
		else
			still="$still $r"
		fi
	done
	running=$still
	left=''
	for s in $todo; do
		# shellcheck disable=SC2086 # lists of names
		if [ "$(echo $running | wc -w)" -lt "$jobs" ] && ready "$s" "$@"; then
			run_suite "$s" &
			running="$running $s"
		else
			left="$left $s"
		fi
	done
	todo=$left
	[ -z "$running" ] || sleep 2
done
wait

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
